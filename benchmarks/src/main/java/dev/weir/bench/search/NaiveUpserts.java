package dev.weir.bench.search;

import dev.weir.bench.support.BenchEnvironment;
import dev.weir.bench.support.CopyWrites;
import dev.weir.bench.support.WalRecords;
import dev.weir.common.config.WeirConfig;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.common.postgres.TableStats;
import dev.weir.documents.copy.DocumentCopy;
import dev.weir.documents.definition.DocumentPlan;
import dev.weir.stack.Connections;
import dev.weir.stack.LocalStack;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.List;

/**
 * The naive side of the price-only changes: the rows weir's copy holds, written back the plain way,
 * every column of every row upserted.
 */
final class NaiveUpserts {

  private NaiveUpserts() {}

  /**
   * A table made as weir's copy is ({@link DocumentCopy#migrate}), seeded with the rows weir's copy
   * had before the price changes, then the rows it has after them, written the plain way: every
   * column of every row upserted.
   */
  static CopyWrites write(
      LocalStack stack,
      Connections connections,
      DocumentCopy copy,
      List<String> seeded,
      List<List<String>> rounds)
      throws Exception {
    WeirConfig naive = BenchEnvironment.freshDatabase(stack, connections, "bench_search_naive");
    try (Connection c = PostgresConnectionProvider.open(naive)) {
      copy.migrate(c);
      upsertAll(c, copy, seeded);
      TableStats before = TableStats.read(c, copy.table());
      c.createStatement().execute("CHECKPOINT");
      String wal = TableStats.walPosition(c);
      for (List<String> round : rounds) {
        upsertAll(c, copy, round);
      }
      long walBytes = TableStats.walBytesSince(c, wal);
      List<WalRecords> records = WalRecords.between(c, wal, TableStats.walPosition(c));
      TableStats written = TableStats.read(c, copy.table()).minus(before);
      return new CopyWrites(
          "plain full-row upsert",
          rounds.stream().mapToLong(List::size).sum(),
          walBytes,
          written.updated(),
          written.toastInserted(),
          records);
    }
  }

  /** INSERT … ON CONFLICT DO UPDATE SET every column, in batches of 500 per transaction. */
  private static void upsertAll(Connection c, DocumentCopy copy, List<String> rows)
      throws Exception {
    String set =
        String.join(
            ", ",
            copy.columns().stream()
                .filter(column -> !column.name().equals(DocumentPlan.DOC_ID))
                .map(column -> column.quoted() + " = excluded." + column.quoted())
                .toList());
    String sql =
        "INSERT INTO "
            + copy.quotedTable()
            + " SELECT * FROM json_populate_record(NULL::"
            + copy.quotedTable()
            + ", ?::json) ON CONFLICT ("
            + DocumentPlan.DOC_ID
            + ") DO UPDATE SET "
            + set;
    c.setAutoCommit(false);
    try (PreparedStatement s = c.prepareStatement(sql)) {
      for (int i = 0; i < rows.size(); i++) {
        s.setString(1, rows.get(i));
        s.addBatch();
        if ((i + 1) % 500 == 0 || i == rows.size() - 1) {
          s.executeBatch();
          c.commit();
        }
      }
    }
    c.setAutoCommit(true);
  }
}
