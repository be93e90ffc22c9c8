package dev.weir.documents.copy;

import dev.weir.documents.definition.DefinitionException;
import dev.weir.documents.definition.DocumentPlan;
import dev.weir.documents.definition.DocumentPlan.DocumentField;
import dev.weir.documents.definition.DocumentPlan.Field;
import dev.weir.documents.definition.DocumentPlan.Source;
import dev.weir.documents.definition.SourceCatalog;
import dev.weir.documents.index.DocumentSource;
import dev.weir.documents.index.Routing;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Postgres copy of a declared document (weir owns it): one row per root document, keyed by
 * {@code doc_id}, with one column per root column (its source column's type) and one jsonb column
 * per child label, the content hash and the document version. Made and migrated from the plan;
 * written by {@link DocumentCopyStore}; read by the backfill.
 */
public final class DocumentCopy implements Serializable {

  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(DocumentCopy.class);

  /** PostgreSQL cuts longer names (NAMEDATALEN - 1 bytes), and the JSON key would then miss. */
  private static final int MAX_NAME_BYTES = 63;

  /** A column of the copy. */
  public record Column(String name, String type) implements Serializable {
    public String quoted() {
      return quote(name);
    }
  }

  private final DocumentPlan plan;
  private final String table;
  private final List<Column> fields;
  private final int routingField;

  public DocumentCopy(DocumentPlan plan) {
    this.plan = plan;
    this.table = plan.copyTable();
    this.routingField = plan.routingField();
    List<Column> columns = new ArrayList<>();
    for (DocumentField f : plan.documentFields()) {
      requireShortName(plan, f.name());
      columns.add(new Column(f.name(), f.isLabel() ? "jsonb" : CopyColumnType.of(f.pgType())));
    }
    this.fields = List.copyOf(columns);
  }

  private static void requireShortName(DocumentPlan plan, String name) {
    if (name.getBytes(StandardCharsets.UTF_8).length > MAX_NAME_BYTES) {
      throw new DefinitionException(
          "document '"
              + plan.index()
              + "': the field '"
              + name
              + "' is a column of the copy, whose names are at most 63 bytes: rename it");
    }
  }

  public String table() {
    return table;
  }

  /** The table's name, quoted for SQL. */
  public String quotedTable() {
    return quote(table);
  }

  /** One column per document field, in {@link DocumentPlan#documentFields()} order. */
  public List<Column> fields() {
    return fields;
  }

  /** Every column: doc_id, the fields, content_hash, doc_version. */
  public List<Column> columns() {
    List<Column> all = new ArrayList<>();
    all.add(new Column(DocumentPlan.DOC_ID, "text"));
    all.addAll(fields);
    all.add(new Column(DocumentPlan.CONTENT_HASH, "bytea"));
    all.add(new Column(DocumentPlan.DOC_VERSION, "bigint"));
    return all;
  }

  /**
   * The copy's CREATE TABLE. doc_id sorts bytewise (COLLATE "C"): the backfill's splits are ranges
   * of it, which must not depend on the database's locale. The copy is updated in place all day, a
   * few columns at a time: free room on each page keeps the new row version on the same page (a HOT
   * update, no index entry, WAL of only the bytes that differ).
   */
  public String createTable() {
    StringBuilder sql = new StringBuilder("CREATE TABLE IF NOT EXISTS " + quotedTable() + " (\n");
    sql.append("  ").append(quote(DocumentPlan.DOC_ID)).append(" text COLLATE \"C\" PRIMARY KEY");
    for (Column c : fields) {
      sql.append(",\n  ").append(c.quoted()).append(' ').append(c.type());
    }
    sql.append(",\n  ").append(quote(DocumentPlan.CONTENT_HASH)).append(" bytea NOT NULL");
    sql.append(",\n  ").append(quote(DocumentPlan.DOC_VERSION)).append(" bigint NOT NULL");
    return sql.append("\n) WITH (fillfactor = 75)").toString();
  }

  /**
   * Creates the copy, or adds the columns a newer definition added and widens those whose source
   * column was widened ({@link CopyColumnType#widens}). A column whose type the definition changed
   * otherwise is an error: weir does not convert a copy's values. One transaction, serialized
   * between the job's writers by an advisory lock.
   */
  public void migrate(Connection c) throws SQLException {
    boolean autoCommit = c.getAutoCommit();
    c.setAutoCommit(false);
    try {
      lock(c);
      try (Statement s = c.createStatement()) {
        s.execute(createTable());
        Map<String, String> existing = existingColumns(c);
        for (Column column : columns()) {
          String type = existing.get(column.name());
          if (type == null && !fields.contains(column)) {
            throw new IllegalStateException(
                "the table "
                    + table
                    + " has no column "
                    + column.name()
                    + ": not a copy weir made");
          } else if (type == null) {
            s.execute(
                "ALTER TABLE "
                    + quotedTable()
                    + " ADD COLUMN "
                    + column.quoted()
                    + " "
                    + column.type());
          } else if (CopyColumnType.widens(type, column.type())) {
            widen(s, column.name(), type, column.type());
          } else if (!type.equals(column.type())) {
            throw new IllegalStateException(typeChanged(column, type));
          }
        }
      }
      c.commit();
    } catch (SQLException | RuntimeException e) {
      c.rollback();
      throw e;
    } finally {
      c.setAutoCommit(autoCommit);
    }
  }

  /**
   * Widens columns of the copy, by name, to the types given, those that a writer has not widened
   * already; a column whose type is not one these widen is left as it is (the write that wanted it
   * is refused again, and says why). One transaction, under migrate's lock.
   */
  void widen(Connection c, Map<String, String> types) throws SQLException {
    try {
      lock(c);
      Map<String, String> existing = existingColumns(c);
      try (Statement s = c.createStatement()) {
        for (Map.Entry<String, String> column : types.entrySet()) {
          String type = existing.get(column.getKey());
          if (type != null && CopyColumnType.widens(type, column.getValue())) {
            widen(s, column.getKey(), type, column.getValue());
          }
        }
      }
      c.commit();
    } catch (SQLException | RuntimeException e) {
      c.rollback();
      throw e;
    }
  }

  /** Serializes the changes of the copy's columns between the job's writers, to the commit. */
  private void lock(Connection c) throws SQLException {
    try (PreparedStatement lock =
        c.prepareStatement("SELECT pg_advisory_xact_lock(hashtext('weir copy ' || ?))")) {
      lock.setString(1, table);
      lock.execute();
    }
  }

  /** A schema change of the copy, which may rewrite the table (as it did the source's): logged. */
  private void widen(Statement s, String column, String from, String to) throws SQLException {
    LOG.warn(
        "widening column {} of the copy table {} from {} to {}, as its source column was widened",
        column,
        table,
        from,
        to);
    s.execute("ALTER TABLE " + quotedTable() + " ALTER COLUMN " + quote(column) + " TYPE " + to);
  }

  /**
   * The source column a field of the copy holds with the source's own type, as {@code
   * schema.table.column}; null for a label, a concat, a JSON path, a topic's field.
   */
  SourceColumn sourceColumn(int field) {
    List<Field> columns = plan.root().fields();
    Source source = plan.source(plan.root());
    if (field >= columns.size() || source.isTopic() || columns.get(field).column() == null) {
      return null;
    }
    Field f = columns.get(field);
    String sourceType = source.columns().get(f.column());
    if (sourceType == null
        || !CopyColumnType.of(sourceType).equals(CopyColumnType.of(f.pgType()))) {
      return null;
    }
    return new SourceColumn(source.schema(), source.table(), f.column());
  }

  /** A column of the source database. */
  record SourceColumn(String schema, String table, String column) {
    @Override
    public String toString() {
      return schema + "." + table + "." + column;
    }
  }

  private String typeChanged(Column column, String existingType) {
    return "the copy table "
        + table
        + " has column "
        + column.name()
        + " of type "
        + existingType
        + ", but the definition now makes it "
        + column.type()
        + ": weir does not convert a copy's values; alter the column by hand, or drop the table"
        + " and let weir rebuild the copy from a snapshot";
  }

  /** Column → type (as format_type prints it) of the table as it is. */
  Map<String, String> existingColumns(Connection c) throws SQLException {
    Map<String, String> columns = new LinkedHashMap<>();
    try (PreparedStatement s =
        c.prepareStatement(
            "SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute"
                + " WHERE attrelid = to_regclass(?) AND attnum > 0 AND NOT attisdropped")) {
      s.setString(1, quotedTable());
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          columns.put(rs.getString(1), rs.getString(2));
        }
      }
    }
    return columns;
  }

  /**
   * The copy as a store written in batches, on {@code connection} (which it closes); a value its
   * column refuses goes back as refused, the source's catalog not read and no column widened (see
   * {@link #store(Connection, SourceCatalog)}).
   */
  public DocumentCopyStore store(Connection connection) throws SQLException {
    return store(connection, null);
  }

  /**
   * The copy as a store written in batches, on {@code connection} (which it closes), that widens a
   * column whose source column {@code catalog} says was widened when a value needs it (null: no
   * catalog, nothing widened).
   */
  public DocumentCopyStore store(Connection connection, SourceCatalog catalog) throws SQLException {
    return new DocumentCopyStore(this, connection, catalog);
  }

  /**
   * A document as the copy holds it; {@code source} is its Elasticsearch document, the same bytes
   * the streaming job sends (see {@link CopiedValues}); {@code routing} the one it is written with
   * (null: its id's).
   */
  public record CopiedDocument(
      String id, long version, byte[] contentHash, byte[] source, String routing) {}

  /** How many documents the copy holds. */
  public long count(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT count(*) FROM " + quotedTable())) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** Those of {@code ids} the copy does not hold, in no particular order. */
  public List<String> missing(Connection c, Collection<String> ids) throws SQLException {
    List<String> missing = new ArrayList<>();
    if (ids.isEmpty()) {
      return missing;
    }
    try (PreparedStatement s =
        c.prepareStatement(
            "SELECT id FROM unnest(?::text[]) AS ids(id) WHERE NOT EXISTS (SELECT 1 FROM "
                + quotedTable()
                + " d WHERE d."
                + quote(DocumentPlan.DOC_ID)
                + " = ids.id COLLATE \"C\")")) {
      s.setArray(1, c.createArrayOf("text", ids.toArray()));
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          missing.add(rs.getString(1));
        }
      }
    }
    return missing;
  }

  /**
   * A mark for {@link #writtenSince}: the oldest transaction a snapshot taken now does not see as
   * committed (32 bits of it, as a row's {@code xmin} holds). Taken before a pass reads the copy,
   * every row written after that pass read it carries this transaction or a later one.
   */
  public static long writeMark(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery("SELECT xid(pg_snapshot_xmin(pg_current_snapshot()))::text")) {
      rs.next();
      return Long.parseLong(rs.getString(1));
    }
  }

  /**
   * The doc_ids of rows last written by the transaction of {@code mark} ({@link #writeMark}) or a
   * later one, in order: what may have changed since a pass that began at the mark read the copy (a
   * few written just before it too, which the caller compares anyway). One pass over the table's
   * rows without reading their large values; compared by age, so transaction ids that wrapped
   * around in between are still ordered right.
   */
  public List<String> writtenSince(Connection c, long mark) throws SQLException {
    String id = quote(DocumentPlan.DOC_ID);
    try (PreparedStatement s =
        c.prepareStatement(
            "SELECT "
                + id
                + " FROM "
                + quotedTable()
                + " WHERE age(xmin) <= age(?::text::xid) ORDER BY "
                + id)) {
      s.setString(1, Long.toString(mark));
      return firstColumn(s);
    }
  }

  /**
   * The first doc_id of each run of {@code size} documents, in order (empty when the copy is):
   * split {@code i} is the ids from {@code starts[i]} up to, not including, {@code starts[i + 1]}
   * (the last: to the end). One pass over the primary key.
   */
  public List<String> splitStarts(Connection c, int size) throws SQLException {
    String id = quote(DocumentPlan.DOC_ID);
    try (PreparedStatement s =
        c.prepareStatement(
            "SELECT "
                + id
                + " FROM (SELECT "
                + id
                + ", row_number() OVER (ORDER BY "
                + id
                + ") AS n FROM "
                + quotedTable()
                + ") numbered WHERE n % ? = 1 ORDER BY "
                + id)) {
      s.setInt(1, size);
      return firstColumn(s);
    }
  }

  /**
   * The documents with {@code from <= doc_id < until} (a null bound: no bound), by doc_id.
   * Timestamps are written in UTC and intervals in ISO-8601: the session is set so.
   */
  public List<CopiedDocument> readRange(Connection c, String from, String until)
      throws SQLException {
    inUtc(c);
    try (PreparedStatement s = c.prepareStatement(selectDocuments() + range(from, until))) {
      bindRange(s, from, until);
      return documents(s);
    }
  }

  /** The documents with these ids (those the copy has), by doc_id. */
  public List<CopiedDocument> read(Connection c, Collection<String> ids) throws SQLException {
    inUtc(c);
    try (PreparedStatement s =
        c.prepareStatement(
            selectDocuments()
                + " WHERE "
                + quote(DocumentPlan.DOC_ID)
                + " = ANY (?) ORDER BY "
                + quote(DocumentPlan.DOC_ID))) {
      s.setArray(1, c.createArrayOf("text", ids.toArray()));
      return documents(s);
    }
  }

  /**
   * doc_id → content hash of the documents with {@code from <= doc_id < until}: what the backfill
   * compares before it reads whole documents, which are large.
   */
  public Map<String, byte[]> contentHashes(Connection c, String from, String until)
      throws SQLException {
    try (PreparedStatement s = c.prepareStatement(selectHashes() + range(from, until))) {
      bindRange(s, from, until);
      return hashes(s);
    }
  }

  /** doc_id → content hash of those of {@code ids} the copy holds. */
  public Map<String, byte[]> contentHashes(Connection c, Collection<String> ids)
      throws SQLException {
    if (ids.isEmpty()) {
      return new LinkedHashMap<>();
    }
    String id = quote(DocumentPlan.DOC_ID);
    try (PreparedStatement s =
        c.prepareStatement(selectHashes() + " WHERE " + id + " = ANY (?) ORDER BY " + id)) {
      s.setArray(1, c.createArrayOf("text", ids.toArray()));
      return hashes(s);
    }
  }

  private String selectHashes() {
    return "SELECT "
        + quote(DocumentPlan.DOC_ID)
        + ", "
        + quote(DocumentPlan.CONTENT_HASH)
        + " FROM "
        + quotedTable();
  }

  /** The first column of every row {@code s} returns, as text, in order. */
  private static List<String> firstColumn(PreparedStatement s) throws SQLException {
    List<String> values = new ArrayList<>();
    try (ResultSet rs = s.executeQuery()) {
      while (rs.next()) {
        values.add(rs.getString(1));
      }
    }
    return values;
  }

  private static Map<String, byte[]> hashes(PreparedStatement s) throws SQLException {
    Map<String, byte[]> hashes = new LinkedHashMap<>();
    try (ResultSet rs = s.executeQuery()) {
      while (rs.next()) {
        hashes.put(rs.getString(1), rs.getBytes(2));
      }
    }
    return hashes;
  }

  /** The session writes timestamps in UTC and intervals in ISO-8601, as the join writes them. */
  private static void inUtc(Connection c) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute("SET TIME ZONE 'UTC'");
      s.execute("SET intervalstyle = 'iso_8601'");
    }
  }

  /** doc_id, doc_version, content_hash, then each field as JSON text. */
  private String selectDocuments() {
    return "SELECT "
        + quote(DocumentPlan.DOC_ID)
        + ", "
        + quote(DocumentPlan.DOC_VERSION)
        + ", "
        + quote(DocumentPlan.CONTENT_HASH)
        + fields.stream()
            .map(f -> ", to_jsonb(" + f.quoted() + ")::text")
            .collect(Collectors.joining())
        + " FROM "
        + quotedTable();
  }

  private static String range(String from, String until) {
    String id = quote(DocumentPlan.DOC_ID);
    List<String> bounds = new ArrayList<>();
    if (from != null) {
      bounds.add(id + " >= ?");
    }
    if (until != null) {
      bounds.add(id + " < ?");
    }
    return (bounds.isEmpty() ? "" : " WHERE " + String.join(" AND ", bounds)) + " ORDER BY " + id;
  }

  private static void bindRange(PreparedStatement s, String from, String until)
      throws SQLException {
    int i = 1;
    if (from != null) {
      s.setString(i++, from);
    }
    if (until != null) {
      s.setString(i, until);
    }
  }

  private List<CopiedDocument> documents(PreparedStatement s) throws SQLException {
    List<String> names = fields.stream().map(Column::name).toList();
    List<DocumentPlan.DocumentField> planned = plan.documentFields();
    List<CopiedDocument> docs = new ArrayList<>();
    try (ResultSet rs = s.executeQuery()) {
      while (rs.next()) {
        String[] values = new String[fields.size()];
        for (int i = 0; i < values.length; i++) {
          values[i] = CopiedValues.field(plan, planned.get(i), rs.getString(4 + i));
        }
        byte[] hash = rs.getBytes(3);
        docs.add(
            new CopiedDocument(
                rs.getString(1),
                rs.getLong(2),
                hash,
                DocumentSource.json(names, values, hash),
                routingField < 0 ? null : Routing.of(values[routingField])));
      }
    }
    return docs;
  }

  /** A quoted SQL identifier. */
  static String quote(String name) {
    return '"' + name.replace("\"", "\"\"") + '"';
  }
}
