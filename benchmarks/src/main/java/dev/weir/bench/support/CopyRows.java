package dev.weir.bench.support;

import dev.weir.common.config.WeirConfig;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.documents.copy.DocumentCopy;
import dev.weir.documents.definition.DocumentPlan;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** What the benchmark reads of the copy the job writes: its rows, its documents' versions. */
public final class CopyRows {

  private CopyRows() {}

  /** The rows of the copy as JSON (one per row), by doc_id. */
  public static List<String> asJson(WeirConfig config, DocumentCopy copy) throws Exception {
    List<String> rows = new ArrayList<>();
    try (Connection c = PostgresConnectionProvider.open(config);
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT row_to_json(d)::text FROM "
                    + copy.quotedTable()
                    + " d ORDER BY "
                    + DocumentPlan.DOC_ID)) {
      while (rs.next()) {
        rows.add(rs.getString(1));
      }
    }
    return rows;
  }

  /** doc_id → doc_version of every document in the copy. */
  public static Map<String, Long> versions(Connection c, DocumentCopy copy) throws Exception {
    Map<String, Long> versions = new HashMap<>();
    try (Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT "
                    + DocumentPlan.DOC_ID
                    + ", "
                    + DocumentPlan.DOC_VERSION
                    + " FROM "
                    + copy.quotedTable())) {
      while (rs.next()) {
        versions.put(rs.getString(1), rs.getLong(2));
      }
    }
    return versions;
  }

  /**
   * How many documents the copy holds in a newer version than {@code held}: all of them once a
   * round's prices are written (the copy keeps no price version, but a document's version only
   * grows and a round changes every product's price). Compared here, not in SQL: a table of the
   * held versions would write WAL within the step measured.
   */
  public static long newer(Connection c, DocumentCopy copy, Map<String, Long> held)
      throws Exception {
    return versions(c, copy).entrySet().stream()
        .filter(d -> d.getValue() > held.getOrDefault(d.getKey(), Long.MAX_VALUE))
        .count();
  }
}
