package dev.weir.search.join;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weir.documents.Definitions;
import dev.weir.documents.definition.DocumentPlan;
import dev.weir.schema.ChangeEvent;
import dev.weir.schema.InvalidEventException;
import dev.weir.schema.Json;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The source tables' schemas changing under the capture, for the randomized join test: a column the
 * definition does not declare added, a declared column renamed (and later renamed back), an integer
 * column widened to hold values beyond 32 bits. Each row goes through {@link ChangeRows} as the
 * capture's event would; what it refuses is a dead letter, and the test's reference database does
 * not apply it (the documents keep the row as it was).
 */
final class SourceSchemas {

  /** What the capture sends for one change: the row the join gets, the values as declared. */
  record Sent(SourceRow row, ObjectNode values) {}

  private final Map<String, ChangeRows> rows = new LinkedHashMap<>();
  private final Map<String, List<String>> renameable = new LinkedHashMap<>();
  private final Map<String, String> added = new HashMap<>();
  private final Map<String, String> renamed = new HashMap<>();
  private final Map<String, String> widened = new HashMap<>();
  private int deadLetters;
  private int changes;

  SourceSchemas(DocumentPlan plan) {
    for (DocumentPlan.Source source : plan.sources().values()) {
      if (source.isTopic()) {
        continue;
      }
      List<String> keys = Definitions.keyColumns(plan, source);
      rows.put(source.name(), new ChangeRows(plan.index(), source, keys));
      List<String> others = new ArrayList<>(source.columns().keySet());
      others.removeAll(keys);
      renameable.put(source.name(), others);
    }
  }

  /** One schema change to a random table, or the undoing of an earlier one. */
  void changeOne(Random r) {
    List<String> tables = new ArrayList<>(rows.keySet());
    String table = tables.get(r.nextInt(tables.size()));
    changes++;
    switch (r.nextInt(3)) {
      case 0 -> added.put(table, "added_" + changes);
      case 1 -> {
        List<String> columns = renameable.get(table);
        if (renamed.containsKey(table) || columns.isEmpty()) {
          renamed.remove(table);
        } else {
          renamed.put(table, columns.get(r.nextInt(columns.size())));
        }
      }
      default -> widened.put("public.review", "stars");
    }
  }

  /** The change as the capture sends it now, or null if the job dead-letters it. */
  Sent send(String table, ObjectNode values, boolean delete, long lsn) {
    ObjectNode declared = values.deepCopy();
    String wide = widened.get(table);
    if (wide != null && declared.hasNonNull(wide)) {
      declared.put(wide, declared.get(wide).asLong() + 5_000_000_000L);
    }
    ObjectNode sent = declared.deepCopy();
    if (!delete) {
      if (added.containsKey(table)) {
        sent.put(added.get(table), "not declared");
      }
      String gone = renamed.get(table);
      if (gone != null) {
        sent.set(gone + "_renamed", sent.remove(gone));
      }
    }
    Map<String, Object> row = Json.mapper().convertValue(sent, Map.class);
    String[] name = table.split("\\.");
    Map<String, Object> source = Map.of("schema", name[0], "table", name[1], "lsn", lsn);
    ChangeEvent event =
        delete
            ? new ChangeEvent(row, null, source, "d", 1L, null)
            : new ChangeEvent(null, row, source, "u", 1L, null);
    try {
      return new Sent(rows.get(table).convert(event), declared);
    } catch (InvalidEventException e) {
      deadLetters++;
      return null;
    }
  }

  int deadLetters() {
    return deadLetters;
  }
}
