package dev.weir.capture;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weir.documents.ChangeTopicNames;
import dev.weir.schema.Json;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

class CatalogCaptureJobTest {

  private static final long READ_AT = 1_795_924_702_313L;

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
                + "\"source\":{\"schema\":\"public\",\"table\":\"book_author\",\"lsn\":7}}",
            1000,
            READ_AT);
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
                + "\"table\":\"book_author\",\"lsn\":7}}",
            1000,
            READ_AT);
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
                + "\"table\":\"book_author\",\"lsn\":9},\"op\":\"t\",\"ts_ms\":1}",
            1000,
            READ_AT);
    assertThat(record.topic()).isEqualTo("cdc.library.book_author");
    assertThat(new String(record.key(), StandardCharsets.UTF_8))
        .isEqualTo("\"TRUNCATE library.book_author\"");
  }

  /**
   * Flink CDC's incremental snapshot writes its reads with no log position and no time: each gets
   * the WAL position the capture started from, so that it wins over what an earlier capture indexed
   * and loses to the stream's later changes, and the time it was written; a change keeps its own.
   */
  @Test
  void aSnapshotReadGetsTheCapturesStartingPositionAndAChangeKeepsItsOwn() throws Exception {
    String read =
        "{\"op\":\"r\",\"before\":null,\"after\":{\"book_isbn\":\"b-1\",\"author_id\":\"a-1\"},"
            + "\"source\":{\"schema\":\"public\",\"table\":\"book_author\",\"lsn\":0,"
            + "\"ts_ms\":0,\"snapshot\":\"false\"}}";
    String change =
        read.replace("\"op\":\"r\"", "\"op\":\"u\"").replace("\"lsn\":0", "\"lsn\":5000");

    assertThat(lsn(CatalogCaptureJob.record(TOPICS, KEYS, read, 4242, READ_AT))).isEqualTo(4242);
    assertThat(
            source(CatalogCaptureJob.record(TOPICS, KEYS, read, 4242, READ_AT))
                .path("ts_ms")
                .asLong())
        .as("a read is stamped with the time the capture wrote it")
        .isEqualTo(READ_AT);
    assertThat(lsn(CatalogCaptureJob.record(TOPICS, KEYS, change, 4242, READ_AT))).isEqualTo(5000);
    assertThat(
            new String(
                CatalogCaptureJob.record(TOPICS, KEYS, change, 4242, READ_AT).value(), UTF_8))
        .as("a change is sent as it came")
        .isEqualTo(change);
  }

  private static long lsn(ProducerRecord<byte[], byte[]> record) throws Exception {
    return source(record).path("lsn").asLong();
  }

  private static JsonNode source(ProducerRecord<byte[], byte[]> record) throws Exception {
    return Json.mapper().readTree(record.value()).path("source");
  }
}
