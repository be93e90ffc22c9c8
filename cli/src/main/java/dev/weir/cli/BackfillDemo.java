package dev.weir.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weir.backfill.Backfill;
import dev.weir.backfill.BackfillOptions;
import dev.weir.connector.elasticsearch.SearchCluster;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The backfill part of {@code weir demo}: the catalog's index rebuilt from its Postgres copy into a
 * new index by {@code weir backfill}'s own code, beside the still running search-index job; the
 * alias moved; the same searches before and after, which must give the same hits.
 */
final class BackfillDemo {

  static final String TARGET = CatalogDemo.ALIAS + "-rebuilt";

  /** Sorted searches: a rebuilt index must give the same hits in the same order. */
  private static final List<String> QUERIES = List.of("price-range", "brand-and-category");

  /** What the section did: a line for the demo's summary, and whether the searches matched. */
  record Result(String summary, boolean same) {}

  private BackfillDemo() {}

  static Result run(PrintWriter out, PrintWriter err, CatalogDemo.Running catalog)
      throws Exception {
    SearchCluster es = catalog.es;
    Set<String> before = indicesOf(es);
    out.printf(
        "== 8. backfill: rebuild %s from its Postgres copy (%s) into the new index %s while"
            + " search-index keeps running%n",
        CatalogDemo.ALIAS, CatalogDemo.COPY, TARGET);
    out.printf("   %s → %s now; the searches before the rebuild:%n", CatalogDemo.ALIAS, before);
    List<List<ObjectNode>> hitsBefore = new ArrayList<>();
    for (String name : QUERIES) {
      hitsBefore.add(CatalogDemo.printQuery(out, es, name));
    }
    out.println(
        "   weir backfill --target "
            + TARGET
            + " --swap-alias: a copy pass, the alias swap, a catch-up pass for what changed"
            + " meanwhile, then deletes of what the copy no longer has");
    out.flush();
    Backfill.Summary summary =
        BackfillCommand.run(catalog.config.with(BackfillOptions.TARGET, TARGET), true, out, err);
    if (summary == null) {
      return new Result("backfill: FAILED", false);
    }
    out.printf("   alias %s: %s → %s%n", CatalogDemo.ALIAS, before, indicesOf(es));
    out.println("   the same searches after the swap, now answered by " + TARGET + ":");
    boolean same = true;
    for (int i = 0; i < QUERIES.size(); i++) {
      List<ObjectNode> after = CatalogDemo.printQuery(out, es, QUERIES.get(i));
      if (after.equals(hitsBefore.get(i))) {
        out.printf(
            "     → all %d hits the same, in the same order, as before the swap%n", after.size());
      } else {
        out.printf(
            "     → DIFFERENT from before the swap (%d hits before, %d after): the rebuilt index"
                + " does not answer as the old one did%n",
            hitsBefore.get(i).size(), after.size());
        same = false;
      }
    }
    out.flush();
    return new Result(
        String.format(
            "backfill: %,d documents into %s in %.1f s (sent %,d, skipped %,d, deleted %,d),"
                + " alias swapped, searches %s",
            summary.documents(),
            TARGET,
            summary.elapsed().toMillis() / 1e3,
            summary.sent(),
            summary.skippedUnchanged(),
            summary.deleted(),
            same ? "unchanged" : "CHANGED"),
        same);
  }

  /** The indices the catalog's alias points to. */
  private static Set<String> indicesOf(SearchCluster es) throws Exception {
    return new TreeSet<>(es.indicesBehind(CatalogDemo.ALIAS));
  }
}
