package dev.weir.documents;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.documents.definition.DefinitionException;
import dev.weir.documents.definition.DefinitionFile;
import dev.weir.documents.definition.DocumentPlan;
import dev.weir.documents.definition.DocumentPlanner;
import dev.weir.documents.definition.DocumentSpec;
import dev.weir.documents.definition.PostgresCatalog;
import dev.weir.documents.definition.SnapshotOrder;
import dev.weir.schema.Json;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The declared documents of a configuration: the definition file ({@link
 * DocumentOptions#DOCUMENTS}, by default the bundled products definition), planned against the
 * source database's catalog, and the tables and topics they read.
 */
public final class Definitions {

  private Definitions() {}

  /** The definition bundled with weir: today's products catalog, the default document. */
  public static final String PRODUCTS_RESOURCE = "weir/schemas/documents/products.json";

  /**
   * The documents of the definition file ({@link SearchIndexOptions#DOCUMENTS}), or without one the
   * bundled products definition, behind {@link SearchIndexOptions#ALIAS} and with its prices from
   * {@link SearchIndexOptions#PRICING_TOPIC}.
   */
  public static List<DocumentSpec> specs(WeirConfig config) {
    Optional<String> files = config.getOptional(DocumentOptions.DOCUMENTS);
    List<DocumentSpec> specs = new ArrayList<>();
    if (files.isPresent()) {
      for (String file : files.get().split(",")) {
        specs.addAll(DefinitionFile.read(Path.of(file.strip())));
      }
    } else {
      specs.add(products(config));
    }
    Optional<String> generation = config.getOptional(WeirOptions.GENERATION);
    return generation.isEmpty()
        ? specs
        : specs.stream().map(s -> inGeneration(s, generation.get())).toList();
  }

  private static final Pattern GENERATION = Pattern.compile("[a-z0-9]{1,16}");

  /**
   * A document as a generation of its deployment builds it ({@link DocumentOptions#GENERATION}):
   * its own copy table and its own write alias, beside those searches read.
   */
  public static DocumentSpec inGeneration(DocumentSpec spec, String generation) {
    if (!GENERATION.matcher(generation).matches()) {
      throw new IllegalArgumentException(
          WeirOptions.GENERATION.key()
              + " '"
              + generation
              + "': lower-case letters and digits, at most 16");
    }
    return new DocumentSpec(
        spec.database(),
        spec.index() + "-" + generation,
        spec.copyTable() + "_" + generation,
        spec.root(),
        spec.search());
  }

  /**
   * Refuses documents that would write one index or one copy table: the files of one search-index
   * deployment (within a file, {@link DefinitionFile} refuses them already).
   */
  public static void requireOneDocumentPerIndex(List<DocumentSpec> specs) {
    Set<String> indices = new LinkedHashSet<>();
    Set<String> copies = new LinkedHashSet<>();
    for (DocumentSpec spec : specs) {
      if (!indices.add(spec.index()) || !copies.add(spec.copyTable())) {
        throw new DefinitionException(
            "two documents write the index "
                + spec.index()
                + " or the copy table "
                + spec.copyTable()
                + ": one search-index deployment indexes each document once");
      }
    }
  }

  /** The bundled products definition, with the alias and the price topic of {@code config}. */
  public static DocumentSpec products(WeirConfig config) {
    ArrayNode file;
    try (InputStream in =
        Definitions.class.getClassLoader().getResourceAsStream(PRODUCTS_RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(PRODUCTS_RESOURCE + " is not on the class path");
      }
      file = (ArrayNode) Json.mapper().readTree(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    ObjectNode document = (ObjectNode) file.get(0);
    document.put("index", config.get(DocumentOptions.ALIAS));
    // weir's own document reads whatever database the URL names.
    document.put("database", DocumentOptions.database(config.get(DocumentOptions.CATALOG_URL)));
    for (JsonNode child : document.path("nodes").path("children")) {
      if (child.path("weir").has("topic")) {
        ((ObjectNode) child.get("weir")).put("topic", config.get(DocumentOptions.PRICING_TOPIC));
      }
    }
    return DefinitionFile.parse(file.toString()).get(0);
  }

  /**
   * The documents of {@link #specs}, each planned against the catalog of its {@code database} on
   * the server of {@link DocumentOptions#CATALOG_URL} ({@link #databaseUrl}); a definition that
   * does not fit it is refused here, with the node named, before any job starts.
   */
  public static List<DocumentPlan> plans(WeirConfig config) {
    String file = config.getOptional(DocumentOptions.DOCUMENTS).orElse(PRODUCTS_RESOURCE);
    List<DocumentSpec> specs = specs(config);
    Map<String, List<DocumentSpec>> byDatabase = new LinkedHashMap<>();
    for (DocumentSpec spec : specs) {
      byDatabase.computeIfAbsent(spec.database(), d -> new ArrayList<>()).add(spec);
    }
    Map<DocumentSpec, DocumentPlan> plans = new LinkedHashMap<>();
    for (Map.Entry<String, List<DocumentSpec>> database : byDatabase.entrySet()) {
      String url = databaseUrl(config, database.getKey());
      try (Connection c = PostgresConnectionProvider.open(config, url)) {
        PostgresCatalog catalog = new PostgresCatalog(c);
        for (DocumentSpec spec : database.getValue()) {
          DocumentPlan plan = DocumentPlanner.plan(spec, catalog);
          plans.put(spec, plan.with(plan.search().withSettings(indexSettings(config))));
        }
      } catch (SQLException e) {
        throw new DefinitionException(
            file
                + ": cannot read the catalog of the database '"
                + database.getKey()
                + "' at "
                + url
                + ": "
                + e.getMessage());
      }
    }
    return specs.stream().map(plans::get).toList();
  }

  /** The index settings the options give, over every definition's: shards and replicas. */
  public static ObjectNode indexSettings(WeirConfig config) {
    ObjectNode settings = Json.mapper().createObjectNode();
    config
        .getOptional(DocumentOptions.INDEX_SHARDS)
        .ifPresent(n -> settings.put("number_of_shards", n));
    config
        .getOptional(DocumentOptions.INDEX_REPLICAS)
        .ifPresent(n -> settings.put("number_of_replicas", n));
    return settings;
  }

  /**
   * Where a definition's {@code database} is: {@link DocumentOptions#CATALOG_URL} naming it (the
   * same server, user and parameters).
   */
  public static String databaseUrl(WeirConfig config, String database) {
    return DocumentOptions.withDatabase(config.get(DocumentOptions.CATALOG_URL), database);
  }

  /** The change topic of a declared table ({@link ChangeTopicNames}). */
  public static String topic(WeirConfig config, DocumentPlan plan, DocumentPlan.Source source) {
    return ChangeTopicNames.of(config).topic(plan.database(), source.schema(), source.table());
  }

  /** Every topic the documents of {@code plans} read. */
  public static List<String> topics(WeirConfig config, List<DocumentPlan> plans) {
    Set<String> topics = new LinkedHashSet<>();
    for (DocumentPlan plan : plans) {
      for (DocumentPlan.Source source : plan.sources().values()) {
        topics.add(source.isTopic() ? source.topic() : topic(config, plan, source));
      }
    }
    return List.copyOf(topics);
  }

  /**
   * The tables the plans read, for the capture, by database: {@code schema.table} → its key columns
   * (those of every node that reads it), in the order a snapshot reads them ({@link
   * SnapshotOrder}).
   */
  public static Map<String, Map<String, List<String>>> tablesByDatabase(List<DocumentPlan> plans) {
    Map<String, Map<String, List<String>>> databases = new LinkedHashMap<>();
    for (DocumentPlan plan : plans) {
      Map<String, List<String>> tables =
          databases.computeIfAbsent(plan.database(), d -> new LinkedHashMap<>());
      for (DocumentPlan.Source source : plan.sources().values()) {
        if (!source.isTopic()) {
          tables.putIfAbsent(source.name(), keyColumns(plan, source));
        }
      }
    }
    databases.replaceAll(
        (database, tables) -> {
          Map<String, List<String>> ordered = new LinkedHashMap<>();
          for (String table : SnapshotOrder.childrenFirst(plans, tables.keySet())) {
            ordered.put(table, tables.get(table));
          }
          return ordered;
        });
    return databases;
  }

  /** The key columns of a table: those of every node that reads it. */
  public static List<String> keyColumns(DocumentPlan plan, DocumentPlan.Source source) {
    Set<String> columns = new LinkedHashSet<>();
    plan.readersOf(source.name()).forEach(n -> columns.addAll(n.keyColumns()));
    return List.copyOf(columns);
  }
}
