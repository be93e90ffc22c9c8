package dev.weir.bench.scale;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weir.bench.support.CopyRows;
import dev.weir.bench.support.IndexedDocument;
import dev.weir.common.config.WeirConfig;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.connector.elasticsearch.SearchCluster;
import dev.weir.documents.Definitions;
import dev.weir.documents.DocumentOptions;
import dev.weir.documents.copy.DocumentCopy;
import dev.weir.documents.definition.DocumentPlan;
import dev.weir.documents.index.ElasticsearchConnection;
import dev.weir.schema.Json;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Every document of a sync's index against the one SQL builds from the store ({@link
 * ScaleStore#DOCUMENTS_SQL}): the same fields and values, none missing or extra, each at the
 * version the copy holds. Both sides read in order of order id, a page at a time.
 */
final class ScaleVerification {

  /** The index against the documents SQL builds from the source. */
  record Result(
      long documents,
      long missing,
      long extra,
      long differing,
      long versionsOff,
      List<String> examples) {
    boolean exact() {
      return missing == 0 && extra == 0 && differing == 0 && versionsOff == 0;
    }
  }

  private ScaleVerification() {}

  /**
   * Every document of {@code alias} against the one SQL builds from the store (ScaleStore's
   * DOCUMENTS_SQL): the same fields and values (numbers by value), none missing or extra, and each
   * at the version the copy holds.
   */
  static Result verify(WeirConfig config, String storeUrl, Consumer<String> log) throws Exception {
    String alias = config.get(DocumentOptions.ALIAS);
    DocumentPlan plan = Definitions.plans(config).get(0);
    Map<String, Long> copyVersions;
    try (Connection c = PostgresConnectionProvider.open(config)) {
      copyVersions = CopyRows.versions(c, new DocumentCopy(plan));
    }
    long[] counts = new long[5]; // documents, missing, extra, differing, versions off
    List<String> examples = new ArrayList<>();
    try (SearchCluster es = ElasticsearchConnection.cluster(config);
        Connection source = PostgresConnectionProvider.open(config, storeUrl)) {
      source.setAutoCommit(false);
      try (Statement s = source.createStatement()) {
        s.setFetchSize(1000);
        try (ResultSet expected = s.executeQuery(ScaleStore.DOCUMENTS_SQL)) {
          Cursor sql = new Cursor(expected);
          IndexedDocument.scan(
              es,
              alias,
              "order_id",
              hits -> {
                for (IndexedDocument hit : hits) {
                  long id = Long.parseLong(hit.id());
                  while (sql.id() < id) {
                    counts[1]++;
                    example(examples, "missing " + sql.id());
                    sql.next();
                  }
                  if (sql.id() > id) {
                    counts[2]++;
                    example(examples, "extra " + id);
                    continue;
                  }
                  counts[0]++;
                  ObjectNode indexed = (ObjectNode) Json.mapper().readTree(hit.source());
                  indexed.remove(DocumentPlan.CONTENT_HASH);
                  if (!indexed.equals(NUMBERS_BY_VALUE, sql.document())) {
                    counts[3]++;
                    example(examples, "differs " + id + ": " + indexed + " vs " + sql.document());
                  }
                  Long version = copyVersions.get(hit.id());
                  if (version == null || version != hit.version()) {
                    counts[4]++;
                    example(
                        examples, "version " + id + ": " + hit.version() + " vs copy " + version);
                  }
                  sql.next();
                }
              });
          while (sql.id() < Long.MAX_VALUE) {
            counts[1]++;
            example(examples, "missing " + sql.id());
            sql.next();
          }
        }
      }
    }
    Result v = new Result(counts[0], counts[1], counts[2], counts[3], counts[4], examples);
    log.accept("verified " + alias + " against SQL: " + v);
    return v;
  }

  private static void example(List<String> examples, String what) {
    if (examples.size() < 5) {
      examples.add(what.length() > 600 ? what.substring(0, 600) + "…" : what);
    }
  }

  /**
   * Numbers equal by value (12.50 and 12.5, 3 as an int or a long), anything else as Jackson does.
   */
  private static final Comparator<JsonNode> NUMBERS_BY_VALUE =
      (a, b) -> {
        if (a.isNumber() && b.isNumber()) {
          return a.decimalValue().compareTo(b.decimalValue());
        }
        return a.equals(b) ? 0 : 1;
      };

  /** The SQL-built documents, one at a time, in order of id (Long.MAX_VALUE past the last). */
  private static final class Cursor {
    private final ResultSet rows;
    private long id;
    private JsonNode document;

    Cursor(ResultSet rows) throws Exception {
      this.rows = rows;
      next();
    }

    void next() throws Exception {
      if (rows.next()) {
        id = rows.getLong(1);
        document = Json.mapper().readTree(rows.getString(2));
      } else {
        id = Long.MAX_VALUE;
        document = null;
      }
    }

    long id() {
      return id;
    }

    JsonNode document() {
      return document;
    }
  }
}
