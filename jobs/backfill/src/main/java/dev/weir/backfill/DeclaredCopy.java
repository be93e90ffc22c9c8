package dev.weir.backfill;

import dev.weir.documents.copy.DocumentCopy;
import dev.weir.documents.copy.DocumentCopy.CopiedDocument;
import dev.weir.documents.definition.DocumentPlan;
import dev.weir.documents.index.DocumentIndex;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * The copy table of a declared document ({@link DocumentCopy}): ids are its {@code doc_id}s, which
 * sort bytewise (the column is {@code COLLATE "C"}), so splits are keyset ranges of them whatever
 * the key's type; the target's mapping is the one {@link DocumentIndex} derives from the plan.
 */
final class DeclaredCopy implements CopySource {

  private static final long serialVersionUID = 1L;

  private final DocumentPlan plan;
  private final DocumentCopy copy;

  DeclaredCopy(DocumentPlan plan) {
    this.plan = plan;
    this.copy = new DocumentCopy(plan);
  }

  @Override
  public String table() {
    return copy.table();
  }

  @Override
  public String alias() {
    return plan.index();
  }

  @Override
  public String mapping() {
    return new DocumentIndex(plan).mapping();
  }

  @Override
  public boolean routed() {
    return plan.routingField() >= 0;
  }

  @Override
  public String pipeline() {
    return plan.search().pipeline();
  }

  @Override
  public String mappingOrigin() {
    return "the mapping derived from the definition of " + plan.index();
  }

  @Override
  public long count(Connection c) throws SQLException {
    return copy.count(c);
  }

  @Override
  public List<Split> splits(Connection c, int size) throws SQLException {
    return Split.between(copy.splitStarts(c, size));
  }

  @Override
  public Map<String, byte[]> contentHashes(Connection c, Split split) throws SQLException {
    return copy.contentHashes(c, split.from(), split.until());
  }

  @Override
  public Map<String, byte[]> contentHashes(Connection c, Collection<String> ids)
      throws SQLException {
    return copy.contentHashes(c, ids);
  }

  @Override
  public long writeMark(Connection c) throws SQLException {
    return DocumentCopy.writeMark(c);
  }

  @Override
  public List<String> writtenSince(Connection c, long mark) throws SQLException {
    return copy.writtenSince(c, mark);
  }

  @Override
  public List<CopiedDocument> read(Connection c, Split split) throws SQLException {
    return copy.readRange(c, split.from(), split.until());
  }

  @Override
  public List<CopiedDocument> read(Connection c, Collection<String> ids) throws SQLException {
    return copy.read(c, ids);
  }

  @Override
  public List<String> missing(Connection c, Collection<String> ids) throws SQLException {
    return copy.missing(c, ids);
  }
}
