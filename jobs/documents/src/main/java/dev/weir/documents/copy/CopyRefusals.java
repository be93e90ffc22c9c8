package dev.weir.documents.copy;

import com.fasterxml.jackson.databind.node.TextNode;
import dev.weir.documents.DocumentChange;
import dev.weir.documents.copy.CopyWrite.Refusal;
import dev.weir.documents.copy.DocumentCopy.Column;
import dev.weir.documents.copy.DocumentCopy.SourceColumn;
import dev.weir.documents.definition.SourceCatalog;
import dev.weir.documents.definition.TableInfo;
import dev.weir.documents.index.DocumentSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The rows of a batch PostgreSQL refused to put in the copy, and why. Each refused document's
 * values are tried one column at a time (PostgreSQL's input of the column's type, as the write
 * does) to find the column; a value out of range or too long for its column, whose source column is
 * now of a type that widens the copy's ({@link CopyColumnType#widens}), asks for that widening; any
 * other refusal is a {@link Refusal} that names the document, the copy table, the column, its type
 * and its source's.
 */
final class CopyRefusals {

  /** Failures that are a row's values, not the write's: a CHECK the copy was given by hand, etc. */
  private static final Set<String> ROW_STATES =
      Set.of(
          "23502", // not_null_violation
          "23514", // check_violation
          "54000"); // program_limit_exceeded: an index row or a row too large

  /** Refusals a wider type of the column may take (as its source column's widening did). */
  private static final Set<String> WIDENING_STATES =
      Set.of(
          "22001", // string_data_right_truncation: a varchar(5) given 6 characters
          "22003", // numeric_value_out_of_range: an integer given 2^31, a numeric(6,2) 10^4
          "22P02", // invalid_text_representation: an integer given 1.5 (its source now numeric)
          "22008"); // datetime_field_overflow

  /** What the refused rows of a batch ask for. */
  record Diagnosis(Map<String, String> widenings, List<Refusal> refusals) {}

  private final DocumentCopy copy;
  private final Connection connection;
  private final SourceCatalog catalog;

  CopyRefusals(DocumentCopy copy, Connection connection, SourceCatalog catalog) {
    this.copy = copy;
    this.connection = connection;
    this.catalog = catalog;
  }

  /**
   * Whether a failed write is PostgreSQL refusing a row's values (a data exception, or one of
   * {@link #ROW_STATES}), which another row of the batch would not share; anything else (a
   * connection lost, a timeout, a lock, a missing column) is the whole write's.
   */
  static boolean refusesRow(SQLException e) {
    String state = sqlState(e);
    return state != null && (state.startsWith("22") || ROW_STATES.contains(state));
  }

  /** Whether a refusal may be a value that fits a wider type of its column. */
  static boolean mayFitAWiderType(SQLException e) {
    String state = sqlState(e);
    return state != null && WIDENING_STATES.contains(state);
  }

  /** The state of PostgreSQL's own error, the innermost: a failed batch wraps it. */
  static String sqlState(SQLException e) {
    SQLException server = serverError(e);
    return server == null ? null : server.getSQLState();
  }

  /** PostgreSQL's message, on one line (not the batch's, which holds every value it binds). */
  static String message(SQLException e) {
    SQLException server = serverError(e);
    String message = String.valueOf((server == null ? e : server).getMessage());
    return message.replaceAll("\\s+", " ").trim();
  }

  private static SQLException serverError(SQLException failure) {
    SQLException found = null;
    for (Throwable t = failure; t != null; t = t.getCause()) {
      for (SQLException e = t instanceof SQLException s ? s : null;
          e != null;
          e = e.getNextException()) {
        if (e.getSQLState() != null) {
          found = e;
        }
      }
    }
    return found;
  }

  /**
   * Why each refused document was refused, or the widenings that may let them in; the transaction
   * stays usable (each try is under a savepoint).
   *
   * @param mayWiden false once the copy was widened for this batch as far as its sources ask
   */
  Diagnosis diagnose(Map<DocumentChange, SQLException> refused, boolean mayWiden)
      throws SQLException {
    Map<String, String> copyTypes = copy.existingColumns(connection);
    Map<String, Optional<TableInfo>> tables = new HashMap<>();
    Map<String, String> widenings = new LinkedHashMap<>();
    List<Refusal> refusals = new ArrayList<>();
    for (Map.Entry<DocumentChange, SQLException> r : refused.entrySet()) {
      DocumentChange d = r.getKey();
      List<String> why = new ArrayList<>();
      SQLException first = null;
      for (int i = 0; !d.deleted && i < copy.fields().size(); i++) {
        SQLException e = tryValue(copy.fields().get(i), d.values[i]);
        if (e == null) {
          continue;
        }
        first = first == null ? e : first;
        String column = copy.fields().get(i).name();
        String copyType = copyTypes.get(column);
        SourceColumn source = catalog == null ? null : copy.sourceColumn(i);
        String sourceType = source == null ? null : sourceType(source, tables);
        String wider = sourceType == null ? null : CopyColumnType.of(sourceType);
        if (mayWiden
            && wider != null
            && mayFitAWiderType(e)
            && CopyColumnType.widens(copyType, wider)) {
          widenings.put(column, wider);
        } else {
          why.add(column(column, copyType, source, sourceType, wider));
        }
      }
      if (widenings.isEmpty()) {
        refusals.add(refusal(d, first == null ? r.getValue() : first, why));
      }
    }
    return new Diagnosis(widenings, widenings.isEmpty() ? refusals : List.of());
  }

  /** PostgreSQL's refusal of one value in its column, or null when the column takes it. */
  private SQLException tryValue(Column column, String json) throws SQLException {
    if (json == null || json.strip().equals("null")) {
      return null;
    }
    Savepoint before = connection.setSavepoint();
    try (PreparedStatement s =
        connection.prepareStatement(
            "SELECT json_populate_record(NULL::" + copy.quotedTable() + ", ?::json)")) {
      s.setString(1, "{" + TextNode.valueOf(column.name()) + ":" + json + "}");
      s.execute();
      connection.releaseSavepoint(before);
      return null;
    } catch (SQLException e) {
      connection.rollback(before);
      if (!refusesRow(e)) {
        throw e;
      }
      return e;
    }
  }

  /** The source column's type now, as its database's catalog says; null when it has none. */
  private String sourceType(SourceColumn source, Map<String, Optional<TableInfo>> tables)
      throws SQLException {
    String key = source.schema() + "." + source.table();
    if (!tables.containsKey(key)) {
      try {
        tables.put(key, catalog.table(source.schema(), source.table()));
      } catch (SQLException e) {
        throw e;
      } catch (Exception e) {
        throw new SQLException("cannot read the catalog of " + key + ": " + e.getMessage(), e);
      }
    }
    return tables.get(key).map(t -> t.columns().get(source.column())).orElse(null);
  }

  /** The column PostgreSQL refused the value of, its type and what its source is now. */
  private String column(
      String column, String copyType, SourceColumn source, String sourceType, String asCopy) {
    String of = "column " + column + " (" + copyType;
    if (source == null) {
      return of + ")";
    }
    if (sourceType == null) {
      return of + "; its source column " + source + " is no longer there)";
    }
    if (asCopy.equals(copyType)) {
      return of + ", as its source column " + source + ")";
    }
    return of
        + "; its source column "
        + source
        + " is now "
        + sourceType
        + ", which does not widen "
        + copyType
        + ": weir widens a copy's column as its source's widens, and converts it to no other"
        + " type; alter the copy's column by hand, or drop the copy table and let weir rebuild it"
        + " from a snapshot)";
  }

  private Refusal refusal(DocumentChange d, SQLException e, List<String> columns) {
    String reason =
        "PostgreSQL refused document '"
            + d.id
            + "' (version "
            + d.version
            + ") in the copy table "
            + copy.table()
            + ": "
            + message(e)
            + (columns.isEmpty() ? "" : ", in " + String.join("; in ", columns))
            + ". The copy and the index keep the document's previous version; its next change"
            + " is written whole";
    byte[] document =
        d.deleted
            ? null
            : DocumentSource.json(
                copy.fields().stream().map(Column::name).toList(), d.values, d.contentHash);
    return new Refusal(d, document, reason);
  }
}
