package dev.weir.it.spanner;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.cloud.NoCredentials;
import com.google.cloud.Timestamp;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.DatabaseId;
import com.google.cloud.spanner.Key;
import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Spanner;
import com.google.cloud.spanner.SpannerException;
import com.google.cloud.spanner.SpannerOptions;
import com.google.cloud.spanner.Statement;
import dev.weir.stack.LocalStack;
import dev.weir.stack.SpannerEmulatorService;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The identity table on the local stack's Spanner emulator, as the tests see it: its rows read back
 * whole, and writes made behind the job's back.
 */
final class SpannerTable implements AutoCloseable {

  /** A row, every column. */
  record Row(
      String canonicalId,
      Instant earliestSeen,
      boolean identifySeen,
      boolean aliasSeen,
      boolean peopleUpdateSeen,
      Instant updatedAt) {}

  private static final String TABLE = "identity_mapping";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final LocalStack stack;
  private final Spanner spanner;
  private final DatabaseClient client;

  SpannerTable(LocalStack stack) {
    this.stack = stack;
    this.spanner =
        SpannerOptions.newBuilder()
            .setProjectId(SpannerEmulatorService.PROJECT)
            .setEmulatorHost(stack.spanner().address())
            .setCredentials(NoCredentials.getInstance())
            .setBuiltInMetricsEnabled(false)
            .build()
            .getService();
    this.client =
        spanner.getDatabaseClient(
            DatabaseId.of(
                SpannerEmulatorService.PROJECT,
                SpannerEmulatorService.INSTANCE,
                SpannerEmulatorService.DATABASE));
  }

  /** The rows of a project, by distinct id. */
  Map<String, Row> rows(String project) {
    Map<String, Row> rows = new TreeMap<>();
    Statement query =
        Statement.newBuilder(
                "SELECT distinct_id, canonical_id, earliest_seen, identify_seen, alias_seen,"
                    + " people_update_seen, updated_at FROM identity_mapping"
                    + " WHERE project_id = @project")
            .bind("project")
            .to(project)
            .build();
    try (ResultSet rs = client.singleUse().executeQuery(query)) {
      while (rs.next()) {
        rows.put(
            rs.getString("distinct_id"),
            new Row(
                rs.isNull("canonical_id") ? null : rs.getString("canonical_id"),
                instant(rs, "earliest_seen"),
                rs.getBoolean("identify_seen"),
                rs.getBoolean("alias_seen"),
                rs.getBoolean("people_update_seen"),
                instant(rs, "updated_at")));
      }
    }
    return rows;
  }

  /** Sets columns of a row directly, as another writer of the table would. */
  void set(String project, String distinctId, Map<String, Object> columns) {
    Mutation.WriteBuilder update = Mutation.newUpdateBuilder(TABLE);
    update.set("project_id").to(project).set("distinct_id").to(distinctId);
    columns.forEach(
        (column, value) -> {
          if (value instanceof Boolean b) {
            update.set(column).to(b);
          } else if (value instanceof Instant t) {
            update.set(column).to(Timestamp.ofTimeMicroseconds(t.toEpochMilli() * 1000));
          } else {
            update.set(column).to((String) value);
          }
        });
    client.writeAtLeastOnce(List.of(update.build()));
  }

  void delete(String project, String distinctId) {
    client.writeAtLeastOnce(List.of(Mutation.delete(TABLE, Key.of(project, distinctId))));
  }

  /** How many sessions the database has (the emulator lists every one it created). */
  int sessions() throws Exception {
    URI uri =
        URI.create(
            String.format(
                "http://127.0.0.1:%d/v1/projects/%s/instances/%s/databases/%s/sessions?pageSize=10000",
                stack.settings().spannerHttpPort(),
                SpannerEmulatorService.PROJECT,
                SpannerEmulatorService.INSTANCE,
                SpannerEmulatorService.DATABASE));
    HttpResponse<String> response =
        HttpClient.newHttpClient()
            .send(HttpRequest.newBuilder(uri).GET().build(), HttpResponse.BodyHandlers.ofString());
    JsonNode sessions = JSON.readTree(response.body()).path("sessions");
    return sessions.size();
  }

  /**
   * Read-write transactions, one after the other on a thread of their own, each holding a row of
   * its own ({@code project}'s "lock") for a moment: the emulator aborts whatever other read-write
   * transaction overlaps one, so the job's commits meet aborts while this runs.
   */
  Transactions concurrentTransactions(String project) {
    return new Transactions(project);
  }

  final class Transactions implements AutoCloseable {
    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicLong committed = new AtomicLong();
    private final Thread thread;

    private Transactions(String project) {
      thread =
          new Thread(
              () -> {
                while (!stop.get()) {
                  try {
                    client
                        .readWriteTransaction()
                        .run(
                            tx -> {
                              tx.readRow(TABLE, Key.of(project, "lock"), List.of("distinct_id"));
                              Thread.sleep(30);
                              tx.buffer(
                                  Mutation.newInsertOrUpdateBuilder(TABLE)
                                      .set("project_id")
                                      .to(project)
                                      .set("distinct_id")
                                      .to("lock")
                                      .build());
                              return null;
                            });
                    committed.incrementAndGet();
                  } catch (SpannerException e) {
                    // The emulator failed this one for a transaction of the job's: go on.
                  }
                }
              },
              "concurrent-transactions");
      thread.start();
    }

    long committed() {
      return committed.get();
    }

    @Override
    public void close() throws InterruptedException {
      stop.set(true);
      thread.join();
    }
  }

  private static Instant instant(ResultSet rs, String column) {
    if (rs.isNull(column)) {
      return null;
    }
    Timestamp t = rs.getTimestamp(column);
    return Instant.ofEpochSecond(t.getSeconds(), t.getNanos());
  }

  @Override
  public void close() {
    spanner.close();
  }
}
