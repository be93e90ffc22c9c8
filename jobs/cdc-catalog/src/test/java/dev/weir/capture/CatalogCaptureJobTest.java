package dev.weir.capture;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.documents.ChangeTopicNames;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

class CatalogCaptureJobTest {

  private static final ChangeTopicNames TOPICS = new ChangeTopicNames("cdc.", "shop");

  private static final Map<String, Map<String, List<String>>> KEYS =
      Map.of(
          "shop", Map.of("public.book_author", List.of("book_isbn", "author_id")),
          "library", Map.of("public.book_author", List.of("book_id", "author_id")));

  @Test
  void aRowChangeIsKeyedByItsKeyColumns() {
    ProducerRecord<byte[], byte[]> record =
        CatalogCaptureJob.record(
            TOPICS,
            KEYS,
            "{\"op\":\"d\",\"before\":{\"book_isbn\":\"b-1\",\"author_id\":\"a-1\"},\"after\":null,"
                + "\"source\":{\"schema\":\"public\",\"table\":\"book_author\",\"lsn\":7}}");
    assertThat(record.topic()).isEqualTo("cdc.book_author");
    assertThat(new String(record.key(), StandardCharsets.UTF_8))
        .isEqualTo("{\"book_isbn\":\"b-1\",\"author_id\":\"a-1\"}");
  }

  /** A table of another database than the catalog URL's: its topic and key are its database's. */
  @Test
  void aChangeOfAnotherDatabaseGoesToItsDatabasesTopic() {
    ProducerRecord<byte[], byte[]> record =
        CatalogCaptureJob.record(
            TOPICS,
            KEYS,
            "{\"op\":\"c\",\"after\":{\"book_id\":1,\"author_id\":2,\"x\":3},"
                + "\"source\":{\"db\":\"library\",\"schema\":\"public\","
                + "\"table\":\"book_author\",\"lsn\":7}}");
    assertThat(record.topic()).isEqualTo("cdc.library.public.book_author");
    assertThat(new String(record.key(), StandardCharsets.UTF_8))
        .isEqualTo("{\"book_id\":1,\"author_id\":2}");
  }

  /**
   * A truncate, as Flink CDC's JSON deserializer writes Debezium's record (no key, no row): a
   * compacted topic refuses a record without a key, so it gets one that no row's key can equal.
   */
  @Test
  void aTruncateIsKeyedByItsTableAsAJsonString() {
    ProducerRecord<byte[], byte[]> record =
        CatalogCaptureJob.record(
            TOPICS,
            KEYS,
            "{\"before\":null,\"after\":null,\"source\":{\"schema\":\"library\","
                + "\"table\":\"book_author\",\"lsn\":9},\"op\":\"t\",\"ts_ms\":1}");
    assertThat(record.topic()).isEqualTo("cdc.library.book_author");
    assertThat(new String(record.key(), StandardCharsets.UTF_8))
        .isEqualTo("\"TRUNCATE library.book_author\"");
  }
}
