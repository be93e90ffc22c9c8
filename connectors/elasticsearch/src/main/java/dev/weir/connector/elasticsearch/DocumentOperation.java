package dev.weir.connector.elasticsearch;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One bulk operation: index a JSON document, or delete it. With a version, Elasticsearch applies it
 * only if the version is higher than the one it holds (external versioning), so a replay or an
 * out-of-order write never regresses a document. An operation {@link #requiringAlias() through an
 * alias} is refused when the alias does not exist, instead of Elasticsearch creating an index of
 * that name with a mapping guessed from the document. With a {@link #routedBy routing}, the
 * document lives on the shard its routing value picks; one {@link #movedFrom moved} from another
 * routing is also deleted there.
 */
public final class DocumentOperation implements Serializable {

  private static final long serialVersionUID = 1L;

  /** No version: last write wins. */
  public static final long NO_VERSION = -1;

  private final String index;
  private final String id;
  private final long version;
  private final byte[] source;
  private final boolean requireAlias;
  private final String routing;
  private final boolean moved;
  private final String previousRouting;

  private DocumentOperation(
      String index,
      String id,
      long version,
      byte[] source,
      boolean requireAlias,
      String routing,
      boolean moved,
      String previousRouting) {
    this.index = Objects.requireNonNull(index, "index");
    this.id = Objects.requireNonNull(id, "id");
    this.version = version;
    this.source = source;
    this.requireAlias = requireAlias;
    this.routing = routing;
    this.moved = moved;
    this.previousRouting = previousRouting;
  }

  /** Indexes {@code json} into {@code index}, an index or an alias Elasticsearch may create. */
  public static DocumentOperation index(String index, String id, long version, byte[] json) {
    return new DocumentOperation(
        index, id, version, Objects.requireNonNull(json, "json"), false, null, false, null);
  }

  public static DocumentOperation delete(String index, String id, long version) {
    return new DocumentOperation(index, id, version, null, false, null, false, null);
  }

  /**
   * The same operation, applied only if its index is an existing alias ({@code require_alias}).
   * Without it, a write to an alias whose index was deleted makes Elasticsearch create a concrete
   * index under the alias's name, with a dynamic mapping, and the alias can then not be created
   * again: every job writing through an alias uses this.
   */
  public DocumentOperation requiringAlias() {
    return new DocumentOperation(index, id, version, source, true, routing, moved, previousRouting);
  }

  /**
   * The same operation with a routing value: the document lives on the shard it picks (null: the
   * one its id picks, as without routing).
   */
  public DocumentOperation routedBy(String routing) {
    return new DocumentOperation(
        index, id, version, source, requireAlias, routing, moved, previousRouting);
  }

  /**
   * The same index operation for a document whose routing changed: it is written at its routing,
   * then deleted at {@code previous} (null: where its id routes it) with the same version, in the
   * same bulk. Where both routings pick one shard, that delete finds the version just written and
   * is refused as stale: the document stays. Else the copy on the old shard goes.
   */
  public DocumentOperation movedFrom(String previous) {
    if (isDelete()) {
      throw new IllegalStateException("a delete is not moved: " + this);
    }
    return new DocumentOperation(index, id, version, source, requireAlias, routing, true, previous);
  }

  /** The routing value, or null: routed by the id. */
  public String routing() {
    return routing;
  }

  /** Whether the document is also deleted at {@link #previousRouting()}. */
  public boolean moved() {
    return moved;
  }

  /** The routing the document was written with before ({@link #moved()}; null: its id's). */
  public String previousRouting() {
    return previousRouting;
  }

  /** How many items of a bulk this operation takes: two for a move (index, delete). */
  int bulkItems() {
    return moved ? 2 : 1;
  }

  /** Whether {@link #index()} must be an existing alias. */
  public boolean requiresAlias() {
    return requireAlias;
  }

  public String index() {
    return index;
  }

  public String id() {
    return id;
  }

  public long version() {
    return version;
  }

  public boolean isDelete() {
    return source == null;
  }

  /** The JSON document; null for a delete. */
  public byte[] source() {
    return source;
  }

  public long sizeInBytes() {
    return 64
        + index.length()
        + id.length()
        + (source == null ? 0 : source.length)
        + (routing == null ? 0 : routing.length())
        + (previousRouting == null ? 0 : previousRouting.length());
  }

  /**
   * The operations of a bulk without those another operation on the same document in it makes moot:
   * with versions, all but the (first) highest, which is what Elasticsearch would keep; without,
   * all but the last, which is what it would apply last. A job that changes a document twice within
   * one flush sends it once. The order of what remains is kept. Operations on one id with different
   * routings are different documents (one on each shard); a move is never dropped, so the copy it
   * deletes goes.
   */
  static List<DocumentOperation> withoutSuperseded(List<DocumentOperation> operations) {
    Map<String, Integer> kept = new HashMap<>();
    boolean[] superseded = new boolean[operations.size()];
    int dropped = 0;
    for (int i = 0; i < operations.size(); i++) {
      DocumentOperation op = operations.get(i);
      String document = op.index + '\u0000' + op.id + '\u0000' + op.routing;
      Integer other = kept.putIfAbsent(document, i);
      if (other == null) {
        continue;
      }
      DocumentOperation before = operations.get(other);
      if ((before.version == NO_VERSION) != (op.version == NO_VERSION)) {
        continue; // mixed: left to Elasticsearch
      }
      boolean laterWins = op.version == NO_VERSION || op.version > before.version;
      if ((laterWins ? before : op).moved) {
        if (laterWins) {
          kept.put(document, i);
        }
        continue;
      }
      superseded[laterWins ? other : i] = true;
      dropped++;
      if (laterWins) {
        kept.put(document, i);
      }
    }
    if (dropped == 0) {
      return operations;
    }
    List<DocumentOperation> remaining = new ArrayList<>(operations.size() - dropped);
    for (int i = 0; i < operations.size(); i++) {
      if (!superseded[i]) {
        remaining.add(operations.get(i));
      }
    }
    return remaining;
  }

  @Override
  public String toString() {
    return (isDelete() ? "delete " : "index ")
        + index
        + "/"
        + id
        + (version == NO_VERSION ? "" : "@" + version)
        + (routing == null ? "" : " routing " + routing)
        + (moved ? " (moved from routing " + previousRouting + ")" : "");
  }
}
