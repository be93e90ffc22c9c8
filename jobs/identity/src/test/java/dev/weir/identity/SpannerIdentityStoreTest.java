package dev.weir.identity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.cloud.NoCredentials;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.DatabaseId;
import com.google.cloud.spanner.ErrorCode;
import com.google.cloud.spanner.MockSpannerServiceImpl.StatementResult;
import com.google.cloud.spanner.Spanner;
import com.google.cloud.spanner.SpannerException;
import com.google.cloud.spanner.SpannerOptions;
import com.google.cloud.spanner.Statement;
import com.google.protobuf.ListValue;
import com.google.protobuf.NullValue;
import com.google.protobuf.Value;
import com.google.spanner.v1.CommitRequest;
import com.google.spanner.v1.Mutation;
import com.google.spanner.v1.ResultSet;
import com.google.spanner.v1.ResultSetMetadata;
import com.google.spanner.v1.StructType;
import com.google.spanner.v1.Type;
import com.google.spanner.v1.TypeCode;
import dev.weir.common.config.WeirConfig;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The Spanner store against the client library's own in-process mock Spanner server ({@code
 * MockSpannerServiceImpl}, from google-cloud-spanner's tests jar): Cloud Spanner has no emulator
 * that can be installed here. The mock is made to apply mutations to the identity table as Spanner
 * does ({@link SpannerTableMock}: an UPDATE of a missing row fails the commit with NOT_FOUND, a NOT
 * NULL column must get a value). The store is opened the way the job opens it, from configuration
 * ({@code spanner.emulator-host} pointing at the mock), and the test asserts on the mutations the
 * server receives and on the rows they leave.
 */
class SpannerIdentityStoreTest {

  private static SpannerTableMock spanner;
  private static Server server;
  private IdentityStore store;

  @BeforeAll
  static void startMockSpanner() throws Exception {
    spanner =
        new SpannerTableMock(
            Path.of(
                System.getProperty("basedir", "."), "../../schemas/spanner/identity_mapping.sql"));
    server =
        NettyServerBuilder.forAddress(new InetSocketAddress("localhost", 0))
            .addService(spanner)
            .build()
            .start();
  }

  @AfterAll
  static void stopMockSpanner() throws Exception {
    server.shutdownNow().awaitTermination();
  }

  @BeforeEach
  void open() throws Exception {
    spanner.clearRequests();
    spanner.clearRows();
    WeirConfig config =
        WeirConfig.from(
            Map.of(
                "identity.store", "spanner",
                "spanner.project", "weir-test",
                "spanner.instance", "identity",
                "spanner.database", "identity",
                "spanner.emulator-host", "localhost:" + server.getPort()),
            Map.of());
    store = IdentityStores.of(config).open();
  }

  @AfterEach
  void close() throws Exception {
    store.close();
  }

  @Test
  void aChangedEarliestSeenIsAnInsertOrUpdateNamingTheKeyAndThatColumnOnly() throws Exception {
    spanner.putRow(storedRow("d1", "user-1", "1970-01-01T00:33:20Z", true, false));
    IdentityRecord r =
        IdentityRecord.stored("p1", "d1", "user-1", 2_000_000L, true, false, false, 1L);
    r.lowerEarliestSeen(1_000_000L);
    store.write(List.of(r));

    Mutation.Write update = singleMutation().getInsertOrUpdate();
    assertThat(update.getTable()).isEqualTo("identity_mapping");
    assertThat(update.getColumnsList())
        .containsExactly("project_id", "distinct_id", "earliest_seen");
    assertThat(update.getValues(0).getValuesList())
        .extracting(Value::getStringValue)
        .containsExactly("p1", "d1", "1970-01-01T00:16:40Z");
    Map<String, Value> row = spanner.row(string("p1"), string("d1"));
    assertThat(row.get("earliest_seen").getStringValue()).isEqualTo("1970-01-01T00:16:40Z");
    assertThat(row.get("canonical_id").getStringValue()).isEqualTo("user-1"); // kept
    assertThat(row.get("identify_seen").getBoolValue()).isTrue(); // kept
  }

  @Test
  void identifyWritesTheCanonicalIdAndItsFlagNotTheRestOfTheRow() throws Exception {
    spanner.putRow(storedRow("d1", null, "1970-01-01T00:00:00.005Z", false, true));
    IdentityRecord r = IdentityRecord.stored("p1", "d1", "d1", 5L, false, true, true, 1L);
    r.setCanonicalId("user-1");
    r.setIdentifySeen(true);
    r.setAliasSeen(true); // unchanged: not sent
    r.touchIfChanged(60_000L);
    store.write(List.of(r));

    Mutation.Write update = singleMutation().getInsertOrUpdate();
    assertThat(update.getColumnsList())
        .containsExactly(
            "project_id", "distinct_id", "canonical_id", "identify_seen", "updated_at");
    Map<String, Value> row = spanner.row(string("p1"), string("d1"));
    assertThat(row.get("canonical_id").getStringValue()).isEqualTo("user-1");
    assertThat(row.get("alias_seen").getBoolValue()).isTrue(); // kept
  }

  @Test
  void aRowDeletedBehindTheJobIsWrittenAgainAndTheRestOfTheBatchCommits() throws Exception {
    // Both rows were read by the job; then d1 is deleted (by an operator, a restore) before the
    // job writes its change. In Spanner an UPDATE of a missing row fails the whole commit with
    // NOT_FOUND: d2's change would be lost with it, and the job would fail on every retry.
    spanner.putRow(storedRow("d1", "user-1", "1970-01-01T00:33:20Z", true, false));
    spanner.putRow(storedRow("d2", null, "1970-01-01T00:00:05Z", false, false));
    IdentityRecord d1 =
        IdentityRecord.stored("p1", "d1", "user-1", 2_000_000L, true, false, false, 1L);
    d1.lowerEarliestSeen(1_000_000L);
    IdentityRecord d2 = IdentityRecord.stored("p1", "d2", "d2", 5_000L, false, false, false, null);
    d2.setCanonicalId("user-1");
    d2.setAliasSeen(true);
    d2.touchIfChanged(60_000L);
    spanner.deleteRow(string("p1"), string("d1"));

    store.write(List.of(d1, d2));

    Map<String, Value> written = spanner.row(string("p1"), string("d2"));
    assertThat(written.get("canonical_id").getStringValue()).isEqualTo("user-1");
    assertThat(written.get("alias_seen").getBoolValue()).isTrue();
    // d1 comes back with what the write named; the columns it did not name take their DEFAULT
    // or NULL (canonical_id NULL: maps to itself), as a first sighting does.
    Map<String, Value> again = spanner.row(string("p1"), string("d1"));
    assertThat(again).isNotNull();
    assertThat(again.get("earliest_seen").getStringValue()).isEqualTo("1970-01-01T00:16:40Z");
    assertThat(again.get("canonical_id").hasNullValue()).isTrue();
    assertThat(again.get("identify_seen").getBoolValue()).isFalse();
    List<CommitRequest> commits = spanner.getRequestsOfType(CommitRequest.class);
    assertThat(commits).hasSize(1);
    assertThat(commits.get(0).getMutationsList())
        .extracting(m -> List.copyOf(m.getInsertOrUpdate().getColumnsList()))
        .containsExactly(
            List.of("project_id", "distinct_id", "earliest_seen"),
            List.of("project_id", "distinct_id", "canonical_id", "alias_seen", "updated_at"));
  }

  @Test
  void theMockRefusesAnUpdateOfAMissingRowWithNotFoundAsSpannerDoes() {
    Spanner client =
        SpannerOptions.newBuilder()
            .setProjectId("weir-test")
            .setEmulatorHost("localhost:" + server.getPort())
            .setCredentials(NoCredentials.getInstance())
            .build()
            .getService();
    try {
      DatabaseClient db = client.getDatabaseClient(DatabaseId.of("weir-test", "identity", "x"));
      assertThatThrownBy(
              () ->
                  db.write(
                      List.of(
                          com.google.cloud.spanner.Mutation.newUpdateBuilder("identity_mapping")
                              .set("project_id")
                              .to("p1")
                              .set("distinct_id")
                              .to("never-stored")
                              .set("alias_seen")
                              .to(true)
                              .build())))
          .isInstanceOfSatisfying(
              SpannerException.class,
              e -> assertThat(e.getErrorCode()).isEqualTo(ErrorCode.NOT_FOUND));
      assertThat(spanner.row(string("p1"), string("never-stored"))).isNull();
      // An insert-or-update must give every NOT NULL column without a DEFAULT a value.
      assertThatThrownBy(
              () ->
                  db.write(
                      List.of(
                          com.google.cloud.spanner.Mutation.newInsertOrUpdateBuilder(
                                  "identity_mapping")
                              .set("project_id")
                              .to("p1")
                              .set("alias_seen")
                              .to(true)
                              .build())))
          .isInstanceOfSatisfying(
              SpannerException.class,
              e -> assertThat(e.getErrorCode()).isEqualTo(ErrorCode.FAILED_PRECONDITION));
    } finally {
      client.close();
    }
  }

  @Test
  void aFirstSightingIsAnInsertOrUpdateOfTheKeyAndEarliestSeenOnly() throws Exception {
    IdentityRecord r = IdentityRecord.unseen("p1", "new-id");
    r.lowerEarliestSeen(1_000L);
    store.write(List.of(r));

    // No canonical_id: NULL means "maps to itself", and a row that appeared meanwhile keeps its
    // own.
    Mutation.Write write = singleMutation().getInsertOrUpdate();
    assertThat(write.getColumnsList())
        .containsExactly("project_id", "distinct_id", "earliest_seen");
    // The NOT NULL flags are not named: a new row takes their DEFAULT (false).
    Map<String, Value> row = spanner.row(string("p1"), string("new-id"));
    assertThat(row.get("canonical_id").hasNullValue()).isTrue();
    assertThat(row.get("identify_seen").getBoolValue()).isFalse();
  }

  @Test
  void anUnchangedRecordSendsNothing() throws Exception {
    IdentityRecord r = IdentityRecord.stored("p1", "d1", "user-1", 5L, true, false, false, 1L);
    r.setCanonicalId("user-1");
    r.lowerEarliestSeen(10L);
    store.write(List.of(r));
    assertThat(spanner.getRequestsOfType(CommitRequest.class)).isEmpty();
  }

  @Test
  void aBatchedLookupIsOneQueryAndANullCanonicalIdMapsToItself() throws Exception {
    Statement query =
        Statement.newBuilder(
                "SELECT project_id, distinct_id, canonical_id, earliest_seen, identify_seen, alias_seen,"
                    + " people_update_seen, updated_at FROM identity_mapping"
                    + " WHERE project_id = @project AND distinct_id IN UNNEST(@ids)")
            .bind("project")
            .to("p1")
            .bind("ids")
            .toStringArray(List.of("d1", "d2", "d3"))
            .build();
    spanner.putStatementResult(
        StatementResult.query(
            query,
            rows(
                row("p1", "d1", "user-1", "1970-01-01T00:00:01Z", true),
                row("p1", "d2", null, null, false))));

    Map<IdentityKey, IdentityRecord> found =
        store.get(
            new LinkedHashSet<>(
                List.of(
                    new IdentityKey("p1", "d1"),
                    new IdentityKey("p1", "d2"),
                    new IdentityKey("p1", "d3"))));

    assertThat(found).hasSize(2); // d3 is not there
    assertThat(found.get(new IdentityKey("p1", "d1")).canonicalId()).isEqualTo("user-1");
    assertThat(found.get(new IdentityKey("p1", "d1")).earliestSeen()).isEqualTo(1_000L);
    assertThat(found.get(new IdentityKey("p1", "d2")).canonicalId()).isEqualTo("d2");
    assertThat(store.statements()).isEqualTo(1);
  }

  // --- helpers

  private static Map<String, Value> storedRow(
      String distinct, String canonical, String earliest, boolean identified, boolean aliased) {
    Map<String, Value> row = new HashMap<>();
    row.put("project_id", string("p1"));
    row.put("distinct_id", string(distinct));
    row.put("canonical_id", string(canonical));
    row.put("earliest_seen", string(earliest));
    row.put("identify_seen", Value.newBuilder().setBoolValue(identified).build());
    row.put("alias_seen", Value.newBuilder().setBoolValue(aliased).build());
    return row;
  }

  private static Mutation singleMutation() {
    List<CommitRequest> commits = spanner.getRequestsOfType(CommitRequest.class);
    assertThat(commits).hasSize(1);
    assertThat(commits.get(0).getMutationsList()).hasSize(1);
    return commits.get(0).getMutations(0);
  }

  private static ListValue row(
      String project, String distinct, String canonical, String earliest, boolean identified) {
    return ListValue.newBuilder()
        .addValues(string(project))
        .addValues(string(distinct))
        .addValues(string(canonical))
        .addValues(string(earliest))
        .addValues(Value.newBuilder().setBoolValue(identified))
        .addValues(Value.newBuilder().setBoolValue(false))
        .addValues(Value.newBuilder().setBoolValue(false))
        .addValues(string(null))
        .build();
  }

  private static Value string(String s) {
    return s == null
        ? Value.newBuilder().setNullValue(NullValue.NULL_VALUE).build()
        : Value.newBuilder().setStringValue(s).build();
  }

  private static ResultSet rows(ListValue... rows) {
    StructType.Builder fields = StructType.newBuilder();
    for (String[] f :
        new String[][] {
          {"project_id", "STRING"},
          {"distinct_id", "STRING"},
          {"canonical_id", "STRING"},
          {"earliest_seen", "TIMESTAMP"},
          {"identify_seen", "BOOL"},
          {"alias_seen", "BOOL"},
          {"people_update_seen", "BOOL"},
          {"updated_at", "TIMESTAMP"}
        }) {
      fields.addFields(
          StructType.Field.newBuilder()
              .setName(f[0])
              .setType(Type.newBuilder().setCode(TypeCode.valueOf(f[1]))));
    }
    ResultSet.Builder rs =
        ResultSet.newBuilder().setMetadata(ResultSetMetadata.newBuilder().setRowType(fields));
    for (ListValue row : rows) {
      rs.addRows(row);
    }
    return rs.build();
  }
}
