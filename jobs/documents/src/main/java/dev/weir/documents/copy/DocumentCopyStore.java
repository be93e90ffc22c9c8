package dev.weir.documents.copy;

import static dev.weir.documents.copy.DocumentCopy.quote;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import dev.weir.common.store.BatchStore;
import dev.weir.documents.DocumentChange;
import dev.weir.documents.copy.DocumentCopy.Column;
import dev.weir.documents.definition.DocumentPlan;
import dev.weir.documents.definition.SourceCatalog;
import dev.weir.schema.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Types;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * Writes documents to the copy in batches. A changed document is an UPDATE naming only its changed
 * columns: PostgreSQL rewrites the TOAST chunks of any large value it is sent, changed or not. A
 * new document is inserted whole; if it is there already, each column is set only if its value
 * differs, so an equal large value keeps its chunks. Every write is guarded by the document
 * version: a replayed or late document never overwrites a newer one.
 *
 * <p>Values are JSON (as the join made them); each goes as a parameter of unspecified type in
 * PostgreSQL's text form of its column's type ({@link #pgText}), which the server reads with the
 * column's own input function, as it would a literal: a string's characters, a number's digits, an
 * array as an array literal, a json or jsonb column's JSON text. (Sending the fields as one JSON
 * object through {@code json_populate_record} costs the server several times the CPU.)
 *
 * <p>A write whose content the copy already holds changes nothing, whatever its version (a replay,
 * or a job started again without its state): the copy keeps its version, and says so.
 */
public final class DocumentCopyStore implements BatchStore<DocumentChange, CopyWrite> {

  private static final String ID = quote(DocumentPlan.DOC_ID);
  private static final String HASH = quote(DocumentPlan.CONTENT_HASH);
  private static final String VERSION = quote(DocumentPlan.DOC_VERSION);

  private final DocumentCopy copy;
  private final Connection connection;
  private final SourceCatalog catalog;
  private final Map<List<Integer>, String> updates = new HashMap<>();
  private final String insert;
  private final String delete;
  private long rows;
  private long statements;

  /**
   * @param catalog the source database's catalog, read when a refused value may fit its source
   *     column's type now; null: no column is widened
   */
  DocumentCopyStore(DocumentCopy copy, Connection connection, SourceCatalog catalog)
      throws SQLException {
    this.copy = copy;
    this.connection = connection;
    this.catalog = catalog;
    this.insert = insertSql();
    this.delete =
        "DELETE FROM " + copy.quotedTable() + " WHERE " + ID + " = ? AND " + VERSION + " < ?";
    connection.setAutoCommit(false);
  }

  /**
   * Writes a batch (at most one change per document) in one transaction and says, per document id,
   * what the copy holds now: the version to pass on, or nothing when the copy holds a newer
   * document or refused it (see {@link CopyWrite}). When PostgreSQL refuses a row's values, the
   * batch is written again in halves, each under a savepoint, down to the refused rows: the others
   * are written, the refused ones come back with the reason, at the cost of a few statements per
   * refused row. A value that fits the type its source column was widened to first widens the
   * copy's column (its own transaction, after this one rolled back), and the batch is written
   * again.
   */
  @Override
  public CopyWrite write(Collection<DocumentChange> batch) throws SQLException {
    List<DocumentChange> docs = List.copyOf(batch);
    long before = rows;
    // Each round widens at least one column further: at most one per column.
    for (int round = 0; ; round++) {
      try {
        settle(docs);
        Map<String, Long> held = new HashMap<>();
        Map<DocumentChange, SQLException> refused = new LinkedHashMap<>();
        writeIsolating(docs, held, refused);
        List<CopyWrite.Refusal> refusals = List.of();
        if (!refused.isEmpty()) {
          CopyRefusals.Diagnosis diagnosis =
              refusals().diagnose(refused, round <= copy.fields().size());
          if (!diagnosis.widenings().isEmpty()) {
            connection.rollback();
            rows = before;
            copy.widen(connection, diagnosis.widenings());
            continue;
          }
          refusals = diagnosis.refusals();
        }
        connection.commit();
        return new CopyWrite(held, refusals);
      } catch (SQLException | RuntimeException e) {
        connection.rollback();
        rows = before;
        throw e;
      }
    }
  }

  /**
   * Documents the copy may hold further than the join knows ({@link
   * DocumentChange#copyMayBeAhead}): each is written whole, and where the copy holds it at a
   * version of the same stamp or an older one that this one does not exceed, above that version.
   * Its content is then the later one: the job replays in order what it did before its restart.
   */
  private void settle(List<DocumentChange> docs) throws SQLException {
    Map<String, DocumentChange> unsure = new HashMap<>();
    for (DocumentChange d : docs) {
      if (d.copyMayBeAhead) {
        unsure.put(d.id, d);
        if (!d.deleted) {
          d.isNew = true;
          Arrays.fill(d.changed, true);
        }
      }
    }
    if (unsure.isEmpty()) {
      return;
    }
    try (PreparedStatement s = heldOf(unsure.keySet())) {
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          DocumentChange d = unsure.get(rs.getString(1));
          long held = rs.getLong(2);
          if (held >= d.version
              && DocumentChange.stampOf(held) <= DocumentChange.stampOf(d.version)) {
            d.version = held + 1;
          }
        }
      }
    }
  }

  private CopyRefusals refusals() {
    return new CopyRefusals(copy, connection, catalog);
  }

  /**
   * Writes {@code docs}; when PostgreSQL refuses a row, rolls back and writes each half under a
   * savepoint, down to the refused rows, which go to {@code refused}.
   */
  private void writeIsolating(
      List<DocumentChange> docs, Map<String, Long> held, Map<DocumentChange, SQLException> refused)
      throws SQLException {
    long before = rows;
    try {
      writeAll(docs, held);
    } catch (SQLException e) {
      connection.rollback();
      rows = before;
      held.clear();
      if (!CopyRefusals.refusesRow(e)) {
        throw e;
      }
      halves(docs, e, held, refused);
    }
  }

  private void halves(
      List<DocumentChange> docs,
      SQLException failure,
      Map<String, Long> held,
      Map<DocumentChange, SQLException> refused)
      throws SQLException {
    if (docs.size() == 1) {
      refused.put(docs.get(0), failure);
      return;
    }
    int half = docs.size() / 2;
    writePart(docs.subList(0, half), held, refused);
    writePart(docs.subList(half, docs.size()), held, refused);
  }

  private void writePart(
      List<DocumentChange> docs, Map<String, Long> held, Map<DocumentChange, SQLException> refused)
      throws SQLException {
    Savepoint savepoint = connection.setSavepoint();
    long before = rows;
    Map<String, Long> part = new HashMap<>();
    try {
      writeAll(docs, part);
      connection.releaseSavepoint(savepoint);
      held.putAll(part);
    } catch (SQLException e) {
      connection.rollback(savepoint);
      rows = before;
      if (!CopyRefusals.refusesRow(e)) {
        throw e;
      }
      halves(docs, e, held, refused);
    }
  }

  /** Every statement of a batch, in the transaction as it is. */
  private void writeAll(List<DocumentChange> batch, Map<String, Long> held) throws SQLException {
    List<DocumentChange> inserts = new ArrayList<>();
    List<DocumentChange> deletes = new ArrayList<>();
    Map<List<Integer>, List<DocumentChange>> bySameFields = new LinkedHashMap<>();
    for (DocumentChange d : batch) {
      if (d.deleted) {
        deletes.add(d);
      } else if (d.isNew) {
        inserts.add(d);
      } else {
        bySameFields.computeIfAbsent(d.changedFields(), k -> new ArrayList<>()).add(d);
      }
    }
    for (Map.Entry<List<Integer>, List<DocumentChange>> e : bySameFields.entrySet()) {
      inserts.addAll(update(e.getKey(), e.getValue(), held));
    }
    List<DocumentChange> notWritten = insert(inserts, held);
    notWritten.addAll(delete(deletes, held));
    heldAlready(notWritten, held);
  }

  /**
   * What the copy holds of documents it did not take: the same content (under its own version,
   * passed on), nothing (a deletion, passed on under its version), or a newer document (not passed
   * on: no entry).
   */
  private void heldAlready(List<DocumentChange> docs, Map<String, Long> held) throws SQLException {
    if (docs.isEmpty()) {
      return;
    }
    Map<String, DocumentChange> byId = new HashMap<>();
    docs.forEach(d -> byId.put(d.id, d));
    try (PreparedStatement s = heldOf(byId.keySet())) {
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          DocumentChange d = byId.remove(rs.getString(1));
          if (!d.deleted && Arrays.equals(d.contentHash, rs.getBytes(3))) {
            held.put(d.id, rs.getLong(2));
          }
        }
      }
    }
    byId.values().stream().filter(d -> d.deleted).forEach(d -> held.put(d.id, d.version));
  }

  /**
   * The query of what the copy holds of documents {@code ids}: doc_id, doc_version, content_hash.
   */
  private PreparedStatement heldOf(Collection<String> ids) throws SQLException {
    PreparedStatement s =
        connection.prepareStatement(
            "SELECT "
                + ID
                + ", "
                + VERSION
                + ", "
                + HASH
                + " FROM "
                + copy.quotedTable()
                + " WHERE "
                + ID
                + " = ANY (?)");
    try {
      s.setArray(1, connection.createArrayOf("text", ids.toArray()));
      return s;
    } catch (SQLException e) {
      s.close();
      throw e;
    }
  }

  /** UPDATE of the changed fields; returns the documents it did not update. */
  private List<DocumentChange> update(
      List<Integer> fields, List<DocumentChange> docs, Map<String, Long> held) throws SQLException {
    String sql = updates.computeIfAbsent(fields, this::updateSql);
    try (PreparedStatement s = connection.prepareStatement(sql)) {
      for (DocumentChange d : docs) {
        int p = setFields(s, 1, d, fields);
        s.setBytes(p, d.contentHash);
        s.setLong(p + 1, d.version);
        s.setString(p + 2, d.id);
        s.setLong(p + 3, d.version);
        s.setBytes(p + 4, d.contentHash);
        s.addBatch();
      }
      int[] counts = s.executeBatch();
      statements++;
      List<DocumentChange> notUpdated = new ArrayList<>();
      for (int k = 0; k < counts.length; k++) {
        if (counts[k] == 0) {
          notUpdated.add(docs.get(k));
        } else {
          rows++;
          held.put(docs.get(k).id, docs.get(k).version);
        }
      }
      return notUpdated; // missing (inserted next), the same already, or newer
    }
  }

  private String updateSql(List<Integer> fields) {
    StringBuilder set = new StringBuilder();
    for (int i : fields) {
      String c = copy.fields().get(i).quoted();
      set.append(c).append(" = ?, ");
    }
    return "UPDATE "
        + copy.quotedTable()
        + " AS d SET "
        + set
        + HASH
        + " = ?, "
        + VERSION
        + " = ? WHERE d."
        + ID
        + " = ? AND d."
        + VERSION
        + " < ? AND d."
        + HASH
        + " IS DISTINCT FROM ?";
  }

  /** INSERT of whole documents; on conflict, a newer version sets each column that differs. */
  private List<DocumentChange> insert(List<DocumentChange> docs, Map<String, Long> held)
      throws SQLException {
    List<DocumentChange> notWritten = new ArrayList<>();
    if (docs.isEmpty()) {
      return notWritten;
    }
    List<Integer> all = IntStream.range(0, copy.fields().size()).boxed().toList();
    try (PreparedStatement s = connection.prepareStatement(insert)) {
      for (DocumentChange d : docs) {
        s.setString(1, d.id);
        int p = setFields(s, 2, d, all);
        s.setBytes(p, d.contentHash);
        s.setLong(p + 1, d.version);
        s.addBatch();
      }
      int[] counts = s.executeBatch();
      statements++;
      for (int k = 0; k < counts.length; k++) {
        if (counts[k] > 0) {
          rows++;
          held.put(docs.get(k).id, docs.get(k).version);
        } else {
          notWritten.add(docs.get(k));
        }
      }
    }
    return notWritten;
  }

  private String insertSql() {
    List<Column> fields = copy.fields();
    String names = fields.stream().map(c -> ", " + c.quoted()).collect(Collectors.joining());
    String values = ", ?".repeat(fields.size());
    String set =
        fields.stream().map(DocumentCopyStore::setIfDistinct).collect(Collectors.joining());
    return "INSERT INTO "
        + copy.quotedTable()
        + " AS d ("
        + ID
        + names
        + ", "
        + HASH
        + ", "
        + VERSION
        + ") VALUES (?"
        + values
        + ", ?, ?) ON CONFLICT ("
        + ID
        + ") DO UPDATE SET "
        + set
        + HASH
        + " = excluded."
        + HASH
        + ", "
        + VERSION
        + " = excluded."
        + VERSION
        + " WHERE d."
        + VERSION
        + " < excluded."
        + VERSION
        + " AND d."
        + HASH
        + " IS DISTINCT FROM excluded."
        + HASH;
  }

  /**
   * The column's new value only if it differs: setting the old value keeps its TOAST chunks. json
   * has no equality operator: its values compare as text.
   */
  private static String setIfDistinct(Column c) {
    String asText = c.type().startsWith("json[") || c.type().equals("json") ? "::text" : "";
    String old = "d." + c.quoted();
    String sent = "excluded." + c.quoted();
    return c.quoted()
        + " = CASE WHEN "
        + old
        + asText
        + " IS NOT DISTINCT FROM "
        + sent
        + asText
        + " THEN "
        + old
        + " ELSE "
        + sent
        + " END, ";
  }

  private List<DocumentChange> delete(List<DocumentChange> docs, Map<String, Long> held)
      throws SQLException {
    List<DocumentChange> notDeleted = new ArrayList<>();
    if (docs.isEmpty()) {
      return notDeleted;
    }
    try (PreparedStatement s = connection.prepareStatement(delete)) {
      for (DocumentChange d : docs) {
        s.setString(1, d.id);
        s.setLong(2, d.version);
        s.addBatch();
      }
      int[] counts = s.executeBatch();
      statements++;
      for (int k = 0; k < counts.length; k++) {
        if (counts[k] > 0) {
          rows++;
          held.put(docs.get(k).id, docs.get(k).version);
        } else {
          notDeleted.add(docs.get(k)); // gone already, or newer
        }
      }
    }
    return notDeleted;
  }

  /** Sets the fields {@code fields} of a document from parameter {@code first}; the next one. */
  private int setFields(PreparedStatement s, int first, DocumentChange d, List<Integer> fields)
      throws SQLException {
    int p = first;
    for (int i : fields) {
      String text = pgText(copy.fields().get(i).type(), d.values[i]);
      if (text == null) {
        s.setNull(p++, Types.OTHER);
      } else {
        s.setObject(p++, text, Types.OTHER);
      }
    }
    return p;
  }

  /**
   * A field's JSON value in PostgreSQL's text form of a column of type {@code type} (null for SQL
   * NULL, as a JSON null is), as {@code json_populate_record} reads it: a json or jsonb column
   * takes the JSON text; an array column an array literal of its elements; any other a string's
   * characters, or another value's JSON text (a number's digits, true, false).
   */
  static String pgText(String type, String json) {
    if (json == null || json.strip().equals("null")) {
      return null; // SQL NULL in every type, as json_populate_record reads a JSON null
    }
    if (type.equals("json") || type.equals("jsonb")) {
      return json;
    }
    try {
      if (type.endsWith("[]")) {
        JsonNode value = Json.mapper().readTree(json);
        return value.isNull() ? null : arrayLiteral(value, type.startsWith("json"));
      }
      try (JsonParser parser = Json.mapper().getFactory().createParser(json)) {
        JsonToken token = parser.nextToken();
        if (token == JsonToken.VALUE_NULL) {
          return null;
        }
        return token == JsonToken.VALUE_STRING ? parser.getText() : json;
      }
    } catch (IOException e) {
      throw new UncheckedIOException("not a JSON value: " + json, e);
    }
  }

  /**
   * {@code {"a","b",NULL}}: each element quoted, so that no character of it is read as syntax; an
   * element that is an array is a dimension, unless the elements are JSON.
   */
  private static String arrayLiteral(JsonNode array, boolean jsonElements) {
    if (!array.isArray()) {
      return quoted(array.isTextual() && !jsonElements ? array.textValue() : array.toString());
    }
    StringBuilder literal = new StringBuilder("{");
    for (JsonNode element : array) {
      if (literal.length() > 1) {
        literal.append(',');
      }
      if (element.isNull()) {
        literal.append("NULL");
      } else if (element.isArray() && !jsonElements) {
        literal.append(arrayLiteral(element, false));
      } else {
        literal.append(
            quoted(
                element.isTextual() && !jsonElements ? element.textValue() : element.toString()));
      }
    }
    return literal.append('}').toString();
  }

  private static String quoted(String element) {
    return '"' + element.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
  }

  @Override
  public long rowsWritten() {
    return rows;
  }

  /** Statements sent (each a batch). */
  public long statements() {
    return statements;
  }

  @Override
  public void close() throws SQLException {
    connection.close();
  }
}
