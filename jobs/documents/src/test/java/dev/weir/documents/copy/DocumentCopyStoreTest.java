package dev.weir.documents.copy;

import static dev.weir.documents.copy.DocumentCopyStore.pgText;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** A field's JSON value as PostgreSQL's text form of its column's type. */
class DocumentCopyWriterTest {

  @Test
  void aStringGoesAsItsCharactersAnyOtherScalarAsItsJson() {
    assertThat(pgText("text", "\"a \\\"quoted\\\" \\\\ line\\n\""))
        .isEqualTo("a \"quoted\" \\ line\n");
    assertThat(pgText("timestamp(3) with time zone", "\"2026-11-23T05:00:00.5Z\""))
        .isEqualTo("2026-11-23T05:00:00.5Z");
    assertThat(pgText("numeric(10,2)", "12.50")).isEqualTo("12.50");
    assertThat(pgText("boolean", "true")).isEqualTo("true");
    // A type the copy keeps as text holds the value's JSON form when it is not a string.
    assertThat(pgText("text", "{\"a\":1}")).isEqualTo("{\"a\":1}");
  }

  @Test
  void nullIsSqlNullInEveryType() {
    assertThat(pgText("text", null)).isNull();
    assertThat(pgText("integer", "null")).isNull();
    assertThat(pgText("text[]", "null")).isNull();
    assertThat(pgText("jsonb", "null")).isNull();
  }

  @Test
  void aJsonColumnTakesTheJsonText() {
    assertThat(pgText("jsonb", "[{\"name\":\"Frank\"}]")).isEqualTo("[{\"name\":\"Frank\"}]");
    assertThat(pgText("json", "\"x\"")).isEqualTo("\"x\"");
  }

  @Test
  void anArrayIsALiteralWhoseElementsAreQuoted() {
    assertThat(pgText("text[]", "[\"sf\",null,\"a,b\",\"{x}\",\"q\\\"\\\\\"]"))
        .isEqualTo("{\"sf\",NULL,\"a,b\",\"{x}\",\"q\\\"\\\\\"}");
    assertThat(pgText("integer[][]", "[[1,2],[3,4]]")).isEqualTo("{{\"1\",\"2\"},{\"3\",\"4\"}}");
    assertThat(pgText("jsonb[]", "[{\"a\":[1]},[2]]")).isEqualTo("{\"{\\\"a\\\":[1]}\",\"[2]\"}");
  }
}
