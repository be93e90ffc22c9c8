package dev.weir.connector.elasticsearch;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.weir.schema.Json;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * A {@code _bulk} request as NDJSON, and its answer read back item by item. The same text on
 * Elasticsearch 8 and 9 and OpenSearch 2.
 */
final class BulkRequest {

  /**
   * The bulk endpoint, its answer cut to what {@link BulkOutcome} reads (each item's status and
   * error): the full answer repeats index, id, version and shard counts for every document.
   */
  static final String ENDPOINT =
      "/_bulk?filter_path=items.*.status,items.*.error.type,items.*.error.reason";

  /** The id of an alias guard's update: no document has it. */
  static final String GUARD_ID = "_weir_require_alias_guard";

  private static final byte[] EMPTY_UPDATE = "{\"doc\":{}}".getBytes();

  private BulkRequest() {}

  /**
   * The body of one bulk: each operation's lines ({@link DocumentOperation#bulkItems()} items),
   * then the alias guards. Documents indexed go through {@code pipeline} when one is named.
   */
  static byte[] body(List<DocumentOperation> operations, String pipeline) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(8192);
    try {
      for (DocumentOperation op : operations) {
        if (op.isDelete()) {
          action(out, "delete", op.index(), op.id(), op.version(), op.routing(), null, false);
          continue;
        }
        action(
            out,
            "index",
            op.index(),
            op.id(),
            op.version(),
            op.routing(),
            pipeline,
            op.requiresAlias());
        out.write(op.source());
        out.write('\n');
        if (op.moved()) {
          action(
              out, "delete", op.index(), op.id(), op.version(), op.previousRouting(), null, false);
        }
      }
      for (String alias : aliasGuards(operations)) {
        action(out, "update", alias, GUARD_ID, DocumentOperation.NO_VERSION, null, null, true);
        out.write(EMPTY_UPDATE);
        out.write('\n');
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a byte array stream does not fail
    }
    return out.toByteArray();
  }

  private static void action(
      ByteArrayOutputStream out,
      String action,
      String index,
      String id,
      long version,
      String routing,
      String pipeline,
      boolean requireAlias)
      throws IOException {
    try (JsonGenerator json = Json.mapper().getFactory().createGenerator(out)) {
      json.writeStartObject();
      json.writeObjectFieldStart(action);
      json.writeStringField("_index", index);
      json.writeStringField("_id", id);
      if (version != DocumentOperation.NO_VERSION) {
        json.writeNumberField("version", version);
        json.writeStringField("version_type", "external");
      }
      if (routing != null) {
        json.writeStringField("routing", routing);
      }
      if (pipeline != null) {
        json.writeStringField("pipeline", pipeline);
      }
      if (requireAlias) {
        json.writeBooleanField("require_alias", true);
      }
      json.writeEndObject();
      json.writeEndObject();
    }
    out.write('\n');
  }

  /**
   * Elasticsearch has no {@code require_alias} for a delete, and a delete with an external version
   * to a missing alias creates an index of its name like an index operation does. A bulk that
   * deletes through an alias it does not also index into gets one guard per such alias: an empty
   * update of a document that does not exist, with {@code require_alias}. The engine creates no
   * missing index that any operation of the bulk requires to be an alias, so with the alias gone
   * the deletes fail (404, index_not_found_exception) instead; with it there, the guard changes
   * nothing (404, document_missing_exception).
   */
  static Set<String> aliasGuards(List<DocumentOperation> operations) {
    Set<String> deleted = new LinkedHashSet<>();
    Set<String> indexed = new HashSet<>();
    for (DocumentOperation op : operations) {
      if (op.requiresAlias()) {
        (op.isDelete() ? deleted : indexed).add(op.index());
      }
    }
    deleted.removeAll(indexed);
    return deleted;
  }

  /**
   * Each item of a bulk answer, in order: {@code {"items": [{"index": {"status": 201}}, {"delete":
   * {"status": 409, "error": {"type": ..., "reason": ...}}}]}}.
   */
  static List<BulkOutcome.Item> items(InputStream answer) throws IOException {
    List<BulkOutcome.Item> items = new ArrayList<>();
    try (JsonParser json = Json.mapper().getFactory().createParser(answer)) {
      if (json.nextToken() != JsonToken.START_OBJECT) {
        throw new IOException("a bulk answer is an object");
      }
      while (json.nextToken() == JsonToken.FIELD_NAME) {
        String field = json.currentName();
        JsonToken value = json.nextToken();
        if (!field.equals("items") || value != JsonToken.START_ARRAY) {
          json.skipChildren();
          continue;
        }
        while (json.nextToken() == JsonToken.START_OBJECT) {
          json.nextToken(); // the action's name
          json.nextToken(); // its result
          BulkOutcome.Item item = item(json);
          items.add(item);
          json.nextToken(); // the end of the item
        }
      }
    }
    return items;
  }

  private static BulkOutcome.Item item(JsonParser json) throws IOException {
    int status = 0;
    String type = null;
    String reason = null;
    while (json.nextToken() == JsonToken.FIELD_NAME) {
      String field = json.currentName();
      json.nextToken();
      if (field.equals("status")) {
        status = json.getIntValue();
      } else if (field.equals("error") && json.currentToken() == JsonToken.START_OBJECT) {
        while (json.nextToken() == JsonToken.FIELD_NAME) {
          String key = json.currentName();
          json.nextToken();
          if (key.equals("type")) {
            type = json.getText();
          } else if (key.equals("reason")) {
            reason = json.getText();
          } else {
            json.skipChildren();
          }
        }
      } else {
        json.skipChildren();
      }
    }
    return new BulkOutcome.Item(status, type, reason);
  }
}
