package dev.weir.schema;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonProcessingException;
import java.nio.charset.StandardCharsets;

/**
 * An event read the long way alone (tree, NUL check, JSON Schema, binding), for the readers' tests.
 */
final class LongWay {

  private LongWay() {}

  static <T> T read(EventCodec<T> codec, byte[] bytes) throws Exception {
    return codec.decode(Json.mapper().readTree(bytes));
  }

  /** The reason the long way gives for a record it rejects. */
  static String reason(EventCodec<?> codec, byte[] bytes) {
    try {
      read(codec, bytes);
      throw new AssertionError(
          "the long way accepted " + new String(bytes, StandardCharsets.UTF_8));
    } catch (InvalidEventException e) {
      return e.getMessage();
    } catch (JsonProcessingException e) {
      try {
        codec.decode(bytes);
      } catch (InvalidEventException reason) {
        assertThat(reason.getMessage()).startsWith("not valid JSON");
        return reason.getMessage();
      }
      throw new AssertionError(e);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }
}
