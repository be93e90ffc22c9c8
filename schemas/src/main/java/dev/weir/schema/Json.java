package dev.weir.schema;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;

/** The one JSON configuration of weir: every topic, file and document is read and written here. */
public final class Json {

  /** Deeper JSON than this is rejected while parsing, before it can cost memory or stack. */
  public static final int MAX_NESTING_DEPTH = 64;

  private static final ObjectMapper MAPPER =
      JsonMapper.builder(
              JsonFactory.builder()
                  .streamReadConstraints(
                      StreamReadConstraints.builder().maxNestingDepth(MAX_NESTING_DEPTH).build())
                  .build())
          .addModule(new JavaTimeModule())
          .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
          .disable(DeserializationFeature.ADJUST_DATES_TO_CONTEXT_TIME_ZONE)
          // The schema decides what is allowed; the Java type reads what it knows.
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          // Prices and other decimals keep their exact value.
          .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
          .build();

  private Json() {}

  public static ObjectMapper mapper() {
    return MAPPER;
  }
}
