package dev.weir.documents;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weir.documents.definition.DocumentPlan;
import dev.weir.documents.value.Hashes;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One root document of a declared definition, as the join emits it for the copy and the index:
 * every field's value (JSON text), which fields changed since the last document written, the
 * content hash and the version (monotonic per document: the external version in Elasticsearch and
 * the guard of every write to the copy).
 *
 * <p>Fields are in {@link dev.weir.documents.definition.DocumentPlan#documentFields()} order: the
 * root's columns, then one per child label.
 */
public class DocumentChange {

  /**
   * A version is a stamp (of the source's change) shifted by this many bits: the low bits count the
   * times a document was written again without a later stamp.
   */
  public static final int RAISE_BITS = 7;

  /** The root row's key: the document id ({@code doc_id} in the copy, {@code _id} in the index). */
  public String id;

  /** Each field's value as JSON text ({@code null} JSON for SQL NULL); null for a deletion. */
  public String[] values;

  /** Which fields differ from the document last written (all, when {@link #isNew}). */
  public boolean[] changed;

  /** Never written before (or deleted since): insert it whole. */
  public boolean isNew;

  public boolean deleted;
  public byte[] contentHash;
  public long version;

  /**
   * The document's routing (its routing field's value), or null: routed by its id. For a deletion,
   * the routing it was written with.
   */
  public String routing;

  /**
   * The document was written before at another routing, {@link #previousRouting} (null: its id's):
   * the index must delete it there, or a second copy stays on the old shard.
   */
  public boolean rerouted;

  public String previousRouting;

  /**
   * The join's state of this document came from a checkpoint, and the job may have written the
   * document further before it restarted: the copy may hold a version of the same source state that
   * this one does not exceed. The copy settles it: the document is written whole, above the copy's
   * version where that is of the same stamp or an older one.
   */
  public boolean copyMayBeAhead;

  public DocumentChange() {}

  public static DocumentChange deletion(String id, long version) {
    DocumentChange d = new DocumentChange();
    d.id = id;
    d.deleted = true;
    d.version = version;
    return d;
  }

  /** The deletion of a document written at {@code routing}. */
  public static DocumentChange deletion(String id, long version, String routing) {
    DocumentChange d = deletion(id, version);
    d.routing = routing;
    return d;
  }

  /**
   * A whole document of {@code plan}, new, from each field's value by name (documents made outside
   * the join: a loader's, a test's); every field of the plan must be in {@code fields}.
   */
  public static DocumentChange whole(DocumentPlan plan, String id, JsonNode fields, long version) {
    List<DocumentPlan.DocumentField> names = plan.documentFields();
    DocumentChange d = new DocumentChange();
    d.id = id;
    d.values = new String[names.size()];
    d.changed = new boolean[names.size()];
    for (int i = 0; i < names.size(); i++) {
      JsonNode value = fields.get(names.get(i).name());
      if (value == null) {
        throw new IllegalArgumentException("no value for field " + names.get(i).name());
      }
      d.values[i] = value.toString();
      d.changed[i] = true;
    }
    d.isNew = true;
    d.contentHash = contentHash(d.values);
    d.version = version;
    return d;
  }

  /**
   * The content hash of a document whose fields are {@code values} (JSON texts, in {@link
   * dev.weir.documents.definition.DocumentPlan#documentFields()} order), as the join computes it:
   * equal hashes mean byte-equal fields.
   */
  public static byte[] contentHash(String[] values) {
    long[] hashes = new long[values.length];
    for (int i = 0; i < values.length; i++) {
      hashes[i] = Hashes.of(values[i]);
    }
    return Hashes.content(hashes);
  }

  /** The stamp part of a document version. */
  public static long stampOf(long version) {
    return version >>> RAISE_BITS;
  }

  /** The indices of the changed fields. */
  public List<Integer> changedFields() {
    List<Integer> fields = new ArrayList<>();
    for (int i = 0; changed != null && i < changed.length; i++) {
      if (changed[i]) {
        fields.add(i);
      }
    }
    return fields;
  }

  /**
   * A later change of the same document folded into this one, for one batched write. The earlier
   * one is never written: where it deleted the document or moved it to another routing, the index
   * still holds it where it was, and the later one must move it from there (or delete it there).
   */
  public static DocumentChange then(DocumentChange earlier, DocumentChange later) {
    if (later.version < earlier.version) {
      return earlier;
    }
    later.copyMayBeAhead |= earlier.copyMayBeAhead;
    if (!later.deleted && !earlier.deleted) {
      for (int i = 0; i < later.changed.length; i++) {
        later.changed[i] |= earlier.changed[i];
      }
      later.isNew |= earlier.isNew;
    }
    if (earlier.deleted || earlier.rerouted) {
      // Where the index holds the document until the later change is written.
      String before = earlier.deleted ? earlier.routing : earlier.previousRouting;
      if (later.deleted) {
        later.routing = before;
      } else {
        later.rerouted = !Objects.equals(before, later.routing);
        later.previousRouting = later.rerouted ? before : null;
      }
    }
    return later;
  }

  @Override
  public String toString() {
    return (deleted ? "delete " : isNew ? "new " : "change " + changedFields() + " ")
        + id
        + "@"
        + version
        + (routing == null ? "" : " routing " + routing)
        + (rerouted ? " (from routing " + previousRouting + ")" : "");
  }
}
