package dev.weir.documents.index;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.util.ByteArrayBuilder;
import dev.weir.schema.Json;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

class DocumentSourceTest {

  private static final List<String> NAMES =
      List.of("product_id", "name", "description", "brand", "cat\"egory\\", "ünï", "tags");
  private static final String[] VALUES = {
    "17",
    "\"Widget ünicode ☃ \\\"quoted\\\"\"",
    "\"" + "a long text ".repeat(500) + "\"",
    "{\"id\":3,\"name\":\"Acme\"}",
    "[{\"id\":1}]",
    null,
    "[]"
  };

  @Test
  void writesTheSameBytesAsAJsonGeneratorWould() throws Exception {
    byte[] hash = HexFormat.of().parseHex("00ff".repeat(16));

    assertThat(DocumentSource.json(NAMES, VALUES, hash)).isEqualTo(generated(VALUES, hash));
    assertThat(DocumentSource.json(NAMES, VALUES, null)).isEqualTo(generated(VALUES, null));
  }

  @Test
  void isJsonWithEveryFieldAndTheHash() throws Exception {
    var document =
        Json.mapper().readTree(DocumentSource.json(NAMES, VALUES, new byte[] {1, (byte) 0xab}));

    assertThat(document.get("cat\"egory\\").get(0).get("id").asInt()).isEqualTo(1);
    assertThat(document.get("ünï").isNull()).isTrue();
    assertThat(document.get("name").asText()).isEqualTo("Widget ünicode ☃ \"quoted\"");
    assertThat(document.get("content_hash").asText()).isEqualTo("01ab");
  }

  @Test
  void aLoneSurrogateBecomesAQuestionMarkAsTheCopyStoresItAndSizesAsOne() {
    String name = "\"a" + "\ud800".repeat(100) + "b\udc00\"";
    String[] values = {"1", name, "null", "null", "null", "null", "null"};

    byte[] json = DocumentSource.json(NAMES, values, new byte[32]);
    assertThat(new String(json, StandardCharsets.UTF_8))
        .contains("\"name\":\"a" + "?".repeat(100) + "b?\"");
    assertThat(DocumentSource.sizeAtLeast(NAMES, values)).isLessThanOrEqualTo(json.length);
  }

  /** The reference: each value written raw through Jackson's generator. */
  private static byte[] generated(String[] values, byte[] hash) throws Exception {
    ByteArrayBuilder bytes = new ByteArrayBuilder();
    try (JsonGenerator g = Json.mapper().getFactory().createGenerator(bytes)) {
      g.writeStartObject();
      for (int i = 0; i < NAMES.size(); i++) {
        g.writeFieldName(NAMES.get(i));
        if (values[i] == null) {
          g.writeNull();
        } else {
          g.writeRawValue(values[i]);
        }
      }
      g.writeStringField("content_hash", hash == null ? null : HexFormat.of().formatHex(hash));
      g.writeEndObject();
    }
    return bytes.toByteArray();
  }
}
