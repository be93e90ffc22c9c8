package dev.weir.backfill;

import dev.weir.common.config.WeirConfig;
import dev.weir.documents.Definitions;
import dev.weir.documents.DocumentOptions;
import dev.weir.documents.copy.DocumentCopy.CopiedDocument;
import dev.weir.documents.definition.DocumentPlan;
import java.io.Serializable;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The Postgres copy a backfill rebuilds an index from, as the passes use it: how many documents,
 * their splits, a split's content hashes and documents, and which ids it no longer holds. Ids are
 * the documents' Elasticsearch ids, as strings: the copy table of a declared document ({@link
 * DeclaredCopy}).
 */
interface CopySource extends Serializable {

  /** The copy's table, as messages name it. */
  String table();

  /** The alias the target is swapped behind. */
  String alias();

  /** The target's create-index request body (settings and mappings). */
  String mapping();

  /** Whether documents are routed by a field (not by their id). */
  boolean routed();

  /** The ingest pipeline documents go through, or null. */
  String pipeline();

  /** Where the mapping comes from, as messages name it. */
  String mappingOrigin();

  long count(Connection c) throws SQLException;

  /** The copy cut into splits of about {@code size} documents (at least one split). */
  List<Split> splits(Connection c, int size) throws SQLException;

  /** id → content hash (null if none) of a split's documents. */
  Map<String, byte[]> contentHashes(Connection c, Split split) throws SQLException;

  /** id → content hash (null if none) of those of {@code ids} the copy holds. */
  Map<String, byte[]> contentHashes(Connection c, Collection<String> ids) throws SQLException;

  /** A mark taken before a pass reads the copy, for {@link #writtenSince}. */
  long writeMark(Connection c) throws SQLException;

  /**
   * The ids of the documents written since {@code mark} was taken (a few written just before it may
   * be among them), in order: all a pass that began at the mark may not have seen.
   */
  List<String> writtenSince(Connection c, long mark) throws SQLException;

  /** A split's whole documents. */
  List<CopiedDocument> read(Connection c, Split split) throws SQLException;

  /** The documents with these ids (those the copy holds). */
  List<CopiedDocument> read(Connection c, Collection<String> ids) throws SQLException;

  /** Those of {@code ids} the copy does not hold. */
  List<String> missing(Connection c, Collection<String> ids) throws SQLException;

  /**
   * The copy the configuration names: a declared document's ({@link DocumentOptions#DOCUMENTS}, by
   * default the bundled products definition; the one {@link BackfillOptions#DOCUMENT} names when
   * the file declares several).
   */
  static CopySource of(WeirConfig config) {
    List<DocumentPlan> plans = Definitions.plans(config);
    String file =
        config.getOptional(DocumentOptions.DOCUMENTS).orElse(Definitions.PRODUCTS_RESOURCE);
    String wanted = config.getOptional(BackfillOptions.DOCUMENT).orElse(null);
    if (wanted == null) {
      if (plans.size() != 1) {
        throw new BackfillException(
            file
                + " declares "
                + plans.size()
                + " documents ("
                + plans.stream().map(DocumentPlan::index).collect(Collectors.joining(", "))
                + "): name the one to rebuild with --backfill.document <index>");
      }
      return new DeclaredCopy(plans.get(0));
    }
    return plans.stream()
        .filter(p -> p.index().equals(wanted))
        .findFirst()
        .map(DeclaredCopy::new)
        .orElseThrow(
            () ->
                new BackfillException(
                    file
                        + " declares no document with index '"
                        + wanted
                        + "' (it declares "
                        + plans.stream().map(DocumentPlan::index).collect(Collectors.joining(", "))
                        + ")"));
  }
}
