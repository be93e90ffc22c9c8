package dev.weir.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.weir.common.config.WeirConfig;
import dev.weir.connector.elasticsearch.ElasticsearchClients;
import dev.weir.connector.elasticsearch.SearchCluster;
import dev.weir.documents.Definitions;
import dev.weir.documents.copy.DocumentCopy;
import dev.weir.documents.definition.DefinitionException;
import dev.weir.documents.definition.DocumentPlan;
import dev.weir.documents.definition.DocumentPlan.Field;
import dev.weir.documents.definition.DocumentPlan.Node;
import dev.weir.documents.definition.DocumentPlan.Source;
import dev.weir.documents.definition.DocumentPlanner;
import dev.weir.documents.definition.DocumentSpec;
import dev.weir.documents.definition.SourceCatalog;
import dev.weir.documents.index.DocumentIndex;
import dev.weir.schema.Json;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * What {@code weir documents check} prints of each document of a definition, resolved against the
 * catalog of its database: where it was read, its tables and their keys, how they join, the
 * Postgres copy's table and the Elasticsearch mapping weir would make; or why weir cannot use it.
 */
final class DefinitionCheck {

  private final PrintWriter out;

  private DefinitionCheck(PrintWriter out) {
    this.out = out;
  }

  /** The catalog of a database. */
  @FunctionalInterface
  interface Catalogs {
    SourceCatalog of(String database) throws SQLException;
  }

  /**
   * Plans and prints each document, and has {@code cluster} (when given) try its index's settings,
   * mapping and pipeline; returns how many weir cannot use (their reason on err).
   *
   * @param where where a database is read (its URL), as the report names it
   */
  static int check(
      List<DocumentSpec> documents,
      UnaryOperator<String> where,
      Catalogs catalogs,
      WeirConfig config,
      SearchCluster cluster,
      PrintWriter out,
      PrintWriter err) {
    int failed = 0;
    boolean clusterAnswers = cluster != null;
    for (DocumentSpec document : documents) {
      String url = where.apply(document.database());
      try {
        DocumentPlan planned = DocumentPlanner.plan(document, catalogs.of(document.database()));
        DocumentPlan plan =
            planned.with(planned.search().withSettings(Definitions.indexSettings(config)));
        DocumentIndex index = new DocumentIndex(plan);
        new DefinitionCheck(out).print(plan, url, new DocumentCopy(plan), index);
        if (clusterAnswers) {
          try {
            index.check(cluster);
          } catch (DefinitionException refused) {
            throw refused;
          } catch (IOException | RuntimeException unreachable) {
            clusterAnswers = false;
            err.println(
                "not checked against the search cluster (its index settings, mapping and"
                    + " pipeline): "
                    + ElasticsearchClients.explain(cluster.settings(), unreachable));
          }
        }
      } catch (DefinitionException e) {
        err.println("invalid: " + e.getMessage() + " (read at " + url + ")");
        failed++;
      } catch (SQLException e) {
        err.println(
            "invalid: document '"
                + document.index()
                + "': cannot read its database at "
                + url
                + ": "
                + e.getMessage());
        failed++;
      }
    }
    out.flush();
    err.flush();
    return failed;
  }

  private void print(DocumentPlan plan, String url, DocumentCopy copy, DocumentIndex index) {
    out.printf(
        "document '%s' (database %s, read at %s): alias %s (first index %s), copy table %s%n",
        plan.index(), plan.database(), url, index.alias(), index.initialIndex(), copy.table());
    out.println();
    out.println("tables (key):");
    for (String source : sourcesInOrder(plan)) {
      out.println("  " + table(plan, source));
    }
    if (plan.nodes().size() > 1) {
      out.println();
      out.println("relationships:");
      for (Node node : plan.nodes()) {
        if (!node.isRoot() && !node.link()) {
          out.println("  " + relationship(plan, node));
        }
      }
    }
    List<String> filters = new ArrayList<>();
    List<String> transforms = new ArrayList<>();
    for (Node node : plan.nodes()) {
      if (node.filter() != null) {
        filters.add(node.path() + ": " + node.filter());
      }
      for (Field f : node.fields()) {
        if (f.concat() != null) {
          transforms.add(node.path() + "." + f.name() + ": " + f.concat());
        } else if (f.transform() != null || !f.name().equals(f.column())) {
          String from = f.transform() == null ? f.column() : f.transform().toString();
          transforms.add(node.path() + "." + f.name() + ": " + from);
        }
      }
    }
    section("row filters (weir.where):", filters);
    section("transformed fields:", transforms);
    out.println();
    out.println("copy (PostgreSQL):");
    out.println(indented(copy.createTable() + ";"));
    out.println();
    out.println("mapping (Elasticsearch):");
    out.println(indented(pretty(index.mapping())));
    out.println();
  }

  private void section(String title, List<String> lines) {
    if (!lines.isEmpty()) {
      out.println();
      out.println(title);
      lines.forEach(line -> out.println("  " + line));
    }
  }

  /** Each source once, in the order the nodes read them. */
  private static Set<String> sourcesInOrder(DocumentPlan plan) {
    Set<String> sources = new LinkedHashSet<>();
    plan.nodes().forEach(n -> sources.add(n.source()));
    return sources;
  }

  static String table(DocumentPlan plan, String name) {
    Source source = plan.sources().get(name);
    Node reader = plan.readersOf(name).get(0);
    String key = "(" + String.join(", ", reader.keyColumns()) + ")";
    if (source.isTopic()) {
      return "topic " + source.topic() + " " + key + ", highest " + source.versionField() + " wins";
    }
    return name + " " + key + (reader.link() ? ", link table" : "");
  }

  /**
   * How a node joins its parent, e.g. {@code book.authors: public.book(id) =
   * public.book_author(book_id), public.book_author(author_id) = public.author(id), through
   * public.book_author, one_to_many, object}.
   */
  static String relationship(DocumentPlan plan, Node node) {
    Node parent = plan.node(node.parent());
    Node edge = parent.link() ? parent : node;
    StringBuilder line = new StringBuilder(node.path()).append(": ");
    if (parent.link()) {
      line.append(join(plan, plan.node(parent.parent()), parent)).append(", ");
    }
    line.append(join(plan, parent, node));
    if (parent.link()) {
      line.append(", through ").append(displayName(plan, parent));
    }
    line.append(", ").append(edge.many() ? "one_to_many" : "one_to_one");
    line.append(", ").append(node.scalar() ? "scalar" : "object");
    return line.toString();
  }

  /** {@code parent(columns) = child(columns)}. */
  private static String join(DocumentPlan plan, Node parent, Node child) {
    return displayName(plan, parent)
        + "("
        + String.join(", ", child.parentColumns())
        + ") = "
        + displayName(plan, child)
        + "("
        + String.join(", ", child.childColumns())
        + ")";
  }

  private static String displayName(DocumentPlan plan, Node node) {
    Source source = plan.source(node);
    return source.isTopic() ? "topic " + source.topic() : source.name();
  }

  private static String pretty(String json) {
    try {
      return Json.mapper()
          .writerWithDefaultPrettyPrinter()
          .writeValueAsString(Json.mapper().readTree(json));
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String indented(String text) {
    return "  " + text.replace("\n", "\n  ");
  }
}
