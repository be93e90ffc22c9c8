package dev.weir.identity;

import com.google.cloud.spanner.MockSpannerServiceImpl;
import com.google.protobuf.ListValue;
import com.google.protobuf.NullValue;
import com.google.protobuf.Value;
import com.google.spanner.v1.CommitRequest;
import com.google.spanner.v1.CommitResponse;
import com.google.spanner.v1.KeySet;
import com.google.spanner.v1.Mutation;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The client library's mock Spanner server, made to apply mutations to one table as Cloud Spanner
 * does, where it matters to the identity store. The stock mock accepts every mutation; Spanner
 * fails the whole commit when a mutation cannot apply:
 *
 * <ul>
 *   <li>an UPDATE of a row that does not exist: NOT_FOUND;
 *   <li>an INSERT of a row that exists: ALREADY_EXISTS;
 *   <li>a write that leaves a NOT NULL column without a value (not named, and no DEFAULT), or sets
 *       it to NULL: FAILED_PRECONDITION. As the API reference says, an INSERT_OR_UPDATE must name
 *       every NOT NULL column even when the row exists; a column with a DEFAULT is taken as given
 *       (its default, on a new row).
 * </ul>
 *
 * A new row's unnamed columns take their DEFAULT or NULL; INSERT_OR_UPDATE and UPDATE keep the
 * unnamed columns of an existing row. The table (columns, NOT NULL, DEFAULT, key) is read from the
 * real DDL, {@code schemas/spanner/identity_mapping.sql}. Queries are not answered from these rows
 * (use {@code putStatementResult}).
 */
final class SpannerTableMock extends MockSpannerServiceImpl {

  private static final Pattern COLUMN =
      Pattern.compile(
          "^\\s*(\\w+)\\s+\\w+(?:\\(\\w+\\))?(\\s+NOT NULL)?(?:\\s+DEFAULT\\s+\\((.*)\\))?,?\\s*$");
  private static final Pattern TABLE = Pattern.compile("CREATE TABLE (\\w+)");
  private static final Pattern KEY = Pattern.compile("PRIMARY KEY \\(([^)]*)\\)");

  private final String table;
  private final List<String> key = new ArrayList<>();
  private final Map<String, Value> defaults = new LinkedHashMap<>(); // NULL where none
  private final List<String> notNull = new ArrayList<>();
  private Map<List<Value>, Map<String, Value>> rows = new HashMap<>();

  SpannerTableMock(Path ddl) throws IOException {
    String sql = Files.readString(ddl);
    Matcher t = TABLE.matcher(sql);
    Matcher k = KEY.matcher(sql);
    if (!t.find() || !k.find()) {
      throw new IllegalArgumentException("no CREATE TABLE ... PRIMARY KEY in " + ddl);
    }
    table = t.group(1);
    for (String c : k.group(1).split(",")) {
      key.add(c.trim());
    }
    String body = sql.substring(t.end(), k.start());
    for (String line : body.split("\n")) {
      Matcher c = COLUMN.matcher(line);
      if (c.matches()) {
        defaults.put(c.group(1), c.group(3) == null ? null : literal(c.group(3).trim()));
        if (c.group(2) != null) {
          notNull.add(c.group(1));
        }
      }
    }
    setAbortProbability(0);
  }

  /** Stores a row as if another writer had: columns not given take their DEFAULT or NULL. */
  synchronized void putRow(Map<String, Value> values) {
    Map<String, Value> row = newRow();
    row.putAll(values);
    rows.put(keyOf(row), row);
  }

  /** Deletes a row behind the store's back. */
  synchronized void deleteRow(Value... keyValues) {
    rows.remove(List.of(keyValues));
  }

  /** The stored row, or null. Absent values are NULL values. */
  synchronized Map<String, Value> row(Value... keyValues) {
    Map<String, Value> row = rows.get(List.of(keyValues));
    return row == null ? null : Map.copyOf(row);
  }

  synchronized void clearRows() {
    rows = new HashMap<>();
  }

  @Override
  public void commit(CommitRequest request, StreamObserver<CommitResponse> responseObserver) {
    Status refused;
    synchronized (this) {
      Map<List<Value>, Map<String, Value>> after = new HashMap<>();
      rows.forEach((k, row) -> after.put(k, new LinkedHashMap<>(row)));
      refused = null;
      for (Mutation m : request.getMutationsList()) {
        refused = apply(m, after);
        if (refused != null) {
          break;
        }
      }
      if (refused == null) {
        rows = after;
      }
    }
    if (refused != null) {
      // The whole commit fails, as in Spanner: no mutation of it is applied.
      responseObserver.onError(refused.asRuntimeException());
      return;
    }
    super.commit(request, responseObserver);
  }

  private Status apply(Mutation m, Map<List<Value>, Map<String, Value>> after) {
    switch (m.getOperationCase()) {
      case DELETE -> {
        Mutation.Delete d = m.getDelete();
        if (!d.getTable().equals(table)) {
          return Status.NOT_FOUND.withDescription("Table not found: " + d.getTable());
        }
        KeySet keys = d.getKeySet();
        if (keys.getAll()) {
          after.clear();
        }
        for (ListValue k : keys.getKeysList()) {
          after.remove(k.getValuesList());
        }
        return null;
      }
      case INSERT -> {
        return write(m.getInsert(), after, Kind.INSERT);
      }
      case UPDATE -> {
        return write(m.getUpdate(), after, Kind.UPDATE);
      }
      case INSERT_OR_UPDATE -> {
        return write(m.getInsertOrUpdate(), after, Kind.INSERT_OR_UPDATE);
      }
      case REPLACE -> {
        return write(m.getReplace(), after, Kind.REPLACE);
      }
      default -> {
        return Status.INVALID_ARGUMENT.withDescription("no operation in " + m);
      }
    }
  }

  private enum Kind {
    INSERT,
    UPDATE,
    INSERT_OR_UPDATE,
    REPLACE
  }

  private Status write(Mutation.Write w, Map<List<Value>, Map<String, Value>> after, Kind kind) {
    if (!w.getTable().equals(table)) {
      return Status.NOT_FOUND.withDescription("Table not found: " + w.getTable());
    }
    List<String> columns = w.getColumnsList();
    for (String c : columns) {
      if (!defaults.containsKey(c)) {
        return Status.NOT_FOUND.withDescription("Column not found in table " + table + ": " + c);
      }
    }
    if (!columns.containsAll(key)) {
      return Status.FAILED_PRECONDITION.withDescription(
          "A write to " + table + " must name its key " + key);
    }
    if (kind != Kind.UPDATE) {
      for (String c : notNull) {
        if (!columns.contains(c) && defaults.get(c) == null) {
          return Status.FAILED_PRECONDITION.withDescription(
              table + "." + c + " must not be NULL in table " + table + ".");
        }
      }
    }
    for (ListValue values : w.getValuesList()) {
      Map<String, Value> given = new LinkedHashMap<>();
      for (int i = 0; i < columns.size(); i++) {
        Value v = values.getValues(i);
        if (notNull.contains(columns.get(i)) && v.hasNullValue()) {
          return Status.FAILED_PRECONDITION.withDescription(
              table + "." + columns.get(i) + " must not be NULL in table " + table + ".");
        }
        given.put(columns.get(i), v);
      }
      List<Value> k = keyOf(given);
      Map<String, Value> existing = after.get(k);
      switch (kind) {
        case INSERT -> {
          if (existing != null) {
            return Status.ALREADY_EXISTS.withDescription(
                "Row " + show(k) + " in table " + table + " already exists");
          }
        }
        case UPDATE -> {
          if (existing == null) {
            return Status.NOT_FOUND.withDescription(
                "Row " + show(k) + " in table " + table + " is missing. Row cannot be updated.");
          }
        }
        default -> {}
      }
      Map<String, Value> row =
          existing == null || kind == Kind.REPLACE ? newRow() : new LinkedHashMap<>(existing);
      row.putAll(given);
      after.put(k, row);
    }
    return null;
  }

  private Map<String, Value> newRow() {
    Map<String, Value> row = new LinkedHashMap<>();
    defaults.forEach((c, d) -> row.put(c, d == null ? NULL : d));
    return row;
  }

  private List<Value> keyOf(Map<String, Value> row) {
    List<Value> k = new ArrayList<>();
    for (String c : key) {
      k.add(row.get(c));
    }
    return List.copyOf(k);
  }

  private static String show(List<Value> k) {
    List<String> parts = new ArrayList<>();
    for (Value v : k) {
      parts.add(v.hasStringValue() ? v.getStringValue() : v.toString().trim());
    }
    return "[" + String.join(",", parts) + "]";
  }

  private static Value literal(String sql) {
    return switch (sql.toLowerCase(Locale.ROOT)) {
      case "true" -> Value.newBuilder().setBoolValue(true).build();
      case "false" -> Value.newBuilder().setBoolValue(false).build();
      case "null" -> NULL;
      default -> Value.newBuilder().setStringValue(sql.replaceAll("^'(.*)'$", "$1")).build();
    };
  }

  static final Value NULL = Value.newBuilder().setNullValue(NullValue.NULL_VALUE).build();
}
