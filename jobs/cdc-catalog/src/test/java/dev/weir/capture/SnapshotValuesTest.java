package dev.weir.capture;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.common.config.WeirConfig;
import io.debezium.connector.postgresql.PgOid;
import io.debezium.connector.postgresql.PostgresValueConverter;
import io.debezium.relational.TableId;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.flink.cdc.connectors.base.source.meta.split.SnapshotSplit;
import org.apache.flink.cdc.connectors.base.source.meta.split.StreamSplit;
import org.apache.flink.cdc.connectors.postgres.source.fetch.PostgresStreamFetchTask;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.junit.jupiter.api.Test;

class SnapshotValuesTest {

  /** PostgreSQL's calendar is the proleptic Gregorian one, as java.time's: 44 BC is year -43. */
  @Test
  void aBcDateKeepsItsEraAndItsDay() {
    assertThat(TemporalText.value(PgOid.DATE, "0044-03-15 BC")).isEqualTo(LocalDate.of(-43, 3, 15));
    assertThat(TemporalText.value(PgOid.DATE, "2024-02-29")).isEqualTo(LocalDate.of(2024, 2, 29));
    assertThat(TemporalText.value(PgOid.DATE, "12345-06-07")).isEqualTo(LocalDate.of(12345, 6, 7));
    assertThat(TemporalText.value(PgOid.DATE, "infinity"))
        .isEqualTo(PostgresValueConverter.POSITIVE_INFINITY_LOCAL_DATE);
  }

  @Test
  void aTimestampKeepsItsEraAndItsMicroseconds() {
    assertThat(TemporalText.value(PgOid.TIMESTAMP, "0044-03-15 12:30:00.5 BC"))
        .isEqualTo(Instant.parse("-0043-03-15T12:30:00.500Z"));
    assertThat(TemporalText.value(PgOid.TIMESTAMP, "1970-01-01 00:00:00.000001"))
        .isEqualTo(Instant.parse("1970-01-01T00:00:00.000001Z"));
    assertThat(TemporalText.value(PgOid.TIMESTAMP, "-infinity"))
        .isEqualTo(PostgresValueConverter.NEGATIVE_INFINITY_INSTANT);
  }

  @Test
  void aTimestamptzIsItsInstantInUtc() {
    assertThat(TemporalText.value(PgOid.TIMESTAMPTZ, "2024-01-01 10:00:00.123456+02"))
        .isEqualTo(OffsetDateTime.of(2024, 1, 1, 8, 0, 0, 123_456_000, ZoneOffset.UTC));
    assertThat(TemporalText.value(PgOid.TIMESTAMPTZ, "0100-01-01 00:00:00+00 BC"))
        .isEqualTo(OffsetDateTime.of(-99, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC));
    // A zone's local mean time before its standard time: an offset with seconds.
    assertThat(TemporalText.value(PgOid.TIMESTAMPTZ, "1850-01-01 00:00:00+00:53:28"))
        .isEqualTo(OffsetDateTime.of(1849, 12, 31, 23, 6, 32, 0, ZoneOffset.UTC));
    assertThat(TemporalText.value(PgOid.TIMESTAMPTZ, "infinity"))
        .isEqualTo(PostgresValueConverter.POSITIVE_INFINITY_OFFSET_DATE_TIME);
  }

  /** Snapshot splits are read by weir's scan; the stream stays Flink CDC's. */
  @Test
  void theDialectReadsSnapshotSplitsWithSnapshotScan() {
    WeirConfig config =
        WeirConfig.from(
            Map.of("catalog.postgres.url", "jdbc:postgresql://db/shop"),
            Map.of("PGPASSWORD", "secret", "PGUSER", "capture"));
    CatalogSource.Dialect dialect =
        new CatalogSource.Dialect(
            CatalogSource.configFactory(
                config, "shop", "shop_slot", List.of("public.product"), new Properties()));
    SnapshotSplit split =
        new SnapshotSplit(
            new TableId("shop", "public", "product"),
            0,
            RowType.of(new VarCharType()),
            null,
            null,
            null,
            Map.of());

    assertThat(dialect.createFetchTask(split)).isInstanceOf(SnapshotScan.class);
    StreamSplit stream = new StreamSplit("stream-split", null, null, List.of(), Map.of(), 0);
    assertThat(dialect.createFetchTask(stream)).isInstanceOf(PostgresStreamFetchTask.class);
  }
}
