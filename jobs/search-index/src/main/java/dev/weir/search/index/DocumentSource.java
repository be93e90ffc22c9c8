package dev.weir.search.index;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.util.ByteArrayBuilder;
import dev.weir.schema.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HexFormat;
import java.util.List;

/**
 * The Elasticsearch document of a declared document: each field's JSON value as it is, then the
 * content hash in hex. One writer for the streaming job (from the join's values) and the backfill
 * (from the copy's), so both send the same document.
 */
public final class DocumentSource {

  private DocumentSource() {}

  /**
   * @param names the document's fields, in order
   * @param values each field's value as JSON text (null: JSON null)
   */
  public static byte[] json(List<String> names, String[] values, byte[] contentHash) {
    ByteArrayBuilder bytes = new ByteArrayBuilder(estimatedSize(values));
    try (JsonGenerator g = Json.mapper().getFactory().createGenerator(bytes)) {
      g.writeStartObject();
      for (int i = 0; i < names.size(); i++) {
        g.writeFieldName(names.get(i));
        if (values[i] == null) {
          g.writeNull();
        } else {
          g.writeRawValue(values[i]);
        }
      }
      g.writeStringField(
          "content_hash", contentHash == null ? null : HexFormat.of().formatHex(contentHash));
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write a document", e);
    }
    return bytes.toByteArray();
  }

  /**
   * At least the size of {@link #json} of these values (a name or value may take more bytes when
   * escaped, which only makes the real size larger): for a limit, counted without writing.
   */
  public static long sizeAtLeast(List<String> names, String[] values) {
    long size = 2 + "\"content_hash\":".length() + 66;
    for (int i = 0; i < names.size(); i++) {
      size += names.get(i).length() + 4;
      size += values[i] == null ? 4 : utf8Length(values[i]);
    }
    return size;
  }

  private static long utf8Length(String s) {
    long bytes = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < 0x80) {
        bytes++;
      } else if (c < 0x800) {
        bytes += 2;
      } else if (Character.isHighSurrogate(c)) {
        bytes += 4;
        i++;
      } else {
        bytes += 3;
      }
    }
    return bytes;
  }

  private static int estimatedSize(String[] values) {
    int size = 128;
    for (String v : values) {
      size += 16 + (v == null ? 4 : v.length());
    }
    return size;
  }
}
