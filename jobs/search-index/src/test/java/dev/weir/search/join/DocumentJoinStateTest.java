package dev.weir.search.join;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weir.documents.Definitions;
import dev.weir.documents.definition.DefinitionFile;
import dev.weir.documents.definition.DocumentPlan;
import dev.weir.documents.definition.DocumentPlanner;
import dev.weir.documents.definition.TableInfo;
import dev.weir.documents.definition.TableInfo.ForeignKey;
import dev.weir.schema.DeclaredRow;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.apache.flink.contrib.streaming.state.EmbeddedRocksDBStateBackend;
import org.apache.flink.contrib.streaming.state.RocksDBOptionsFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;

/**
 * What the declared join of the bundled products document (schemas/documents/products.json) writes
 * to its state in RocksDB, with incremental checkpoints (the Kubernetes deployments' backend): a
 * change that leaves a product's description as it was must not write the description again, or
 * every price change would add several kB to the next checkpoint. The product's row is held by the
 * root's assembler ({@link Assembler#ROW}), each of its labels (brand_name, category_path, price,
 * currency) in an entry of its own ({@link Assembler#LABELS}); every operator of the join is
 * measured, so that none may write the description on a label's change.
 */
class DocumentJoinStateTest {

  private static final int PRODUCTS = 40;
  private static final int DESCRIPTION_CHARS = 6_000;

  private final DocumentPlan plan = productsPlan();
  private final ReferenceJoin db = new ReferenceJoin(plan);
  private final Map<Long, String> descriptions = new HashMap<>();
  private JoinSimulator join;
  private long lsn;
  private long priceVersion;
  private long checkpointId;

  /** What a checkpoint with no change in it adds, per operator (MANIFEST, OPTIONS, metadata). */
  private Map<String, Long> unchanged;

  @BeforeEach
  void load() throws Exception {
    EmbeddedRocksDBStateBackend rocksDb = new EmbeddedRocksDBStateBackend(true);
    rocksDb.setRocksDBOptions(new NoCompactions());
    join = new JoinSimulator(plan, 1, rocksDb);
    brand(1, "Acme");
    category(1, "Outdoor", null);
    category(11, "Hiking", 1L);
    Random random = new Random(42);
    for (long id = 1; id <= PRODUCTS; id++) {
      descriptions.put(id, text(random));
      product(id, descriptions.get(id));
      price(id, "20.00");
    }
    join.runUntilQuiet();
    assertThat(join.documents()).hasSize(PRODUCTS);
    checkpoint();
    unchanged = checkpoint();
  }

  @AfterEach
  void close() throws Exception {
    join.close();
  }

  @Test
  void aPriceChangeWritesNoDescriptionToTheNextCheckpoint() throws Exception {
    for (long id = 1; id <= PRODUCTS; id++) {
      price(id, "10.00");
    }
    join.runUntilQuiet();
    Map<String, Long> written = written();

    assertThat(documents())
        .allSatisfy((id, d) -> assertThat(d.get("price").asDouble()).isEqualTo(10.0))
        .allSatisfy(
            (id, d) -> assertThat(d.get("description").asText()).isEqualTo(descriptions.get(id)));
    // Each of the 40 descriptions alone is 6 kB (random letters: RocksDB's compression cannot
    // shrink them); a price takes ~1 kB, all four operators it goes through together (~42 kB
    // measured, ~17 kB of it the root's labels and timers: each new file of each state has a
    // few hundred bytes of its own); written again with its product's row, ~330 kB.
    assertThat(total(written))
        .as("bytes added by operator: %s", written)
        .isLessThan(PRODUCTS * (long) DESCRIPTION_CHARS / 4);
  }

  @Test
  void aBrandRenameWritesNoDescriptionEither() throws Exception {
    brand(1, "Acme Outdoor");
    join.runUntilQuiet();
    Map<String, Long> written = written();

    assertThat(documents())
        .allSatisfy((id, d) -> assertThat(d.get("brand_name").asText()).isEqualTo("Acme Outdoor"))
        .allSatisfy(
            (id, d) -> assertThat(d.get("description").asText()).isEqualTo(descriptions.get(id)));
    assertThat(total(written))
        .as("bytes added by operator: %s", written)
        .isLessThan(PRODUCTS * (long) DESCRIPTION_CHARS / 4);
  }

  /** The control: the measure sees the descriptions written (~290 kB measured). */
  @Test
  void aDescriptionEditIsWritten() throws Exception {
    Random random = new Random(7);
    for (long id = 1; id <= PRODUCTS; id++) {
      descriptions.put(id, text(random));
      product(id, descriptions.get(id));
    }
    join.runUntilQuiet();
    Map<String, Long> written = written();

    assertThat(documents())
        .allSatisfy(
            (id, d) -> assertThat(d.get("description").asText()).isEqualTo(descriptions.get(id)));
    assertThat(total(written))
        .as("bytes added by operator: %s", written)
        .isGreaterThanOrEqualTo(PRODUCTS * (long) DESCRIPTION_CHARS);
  }

  /** Takes a checkpoint of every operator: what each added. */
  private Map<String, Long> checkpoint() throws Exception {
    return join.checkpoint(++checkpointId);
  }

  /** What the next checkpoint adds, per operator, beyond what one with no change in it does. */
  private Map<String, Long> written() throws Exception {
    Map<String, Long> added = new LinkedHashMap<>();
    checkpoint().forEach((op, bytes) -> added.put(op, bytes - unchanged.get(op)));
    return added;
  }

  private static long total(Map<String, Long> written) {
    return written.values().stream().mapToLong(Long::longValue).sum();
  }

  /** The documents by product id, as JSON objects. */
  private Map<Long, JsonNode> documents() throws Exception {
    Map<Long, JsonNode> docs = new LinkedHashMap<>();
    for (var e : join.documents().entrySet()) {
      docs.put(Long.parseLong(e.getKey()), ReferenceJoin.asObject(plan, e.getValue()));
    }
    assertThat(docs).hasSize(PRODUCTS);
    return docs;
  }

  // Values as the join's JSON reads them back (small integers are ints).
  private void brand(long id, String name) throws Exception {
    ObjectNode row = JsonNodeFactory.instance.objectNode().put("id", (int) id).put("name", name);
    join.send(db.apply("public.brand", row, false, ++lsn));
  }

  private void category(long id, String name, Long parent) throws Exception {
    ObjectNode row = JsonNodeFactory.instance.objectNode().put("id", (int) id).put("name", name);
    if (parent == null) {
      row.putNull("parent_id");
    } else {
      row.put("parent_id", parent.intValue());
    }
    join.send(db.apply("public.category", row, false, ++lsn));
  }

  private void product(long id, String description) throws Exception {
    ObjectNode row =
        JsonNodeFactory.instance
            .objectNode()
            .put("id", (int) id)
            .put("sku", "SKU-" + id)
            .put("name", "Product " + id)
            .put("description", description)
            .put("brand_id", 1)
            .put("category_id", 11)
            .put("updated_at", "2024-05-01T10:00:00Z");
    row.putObject("attributes").put("colour", "green");
    join.send(db.apply("public.product", row, false, ++lsn));
  }

  /** An event of pricing.events, which both the price and the currency nodes read. */
  private void price(long id, String price) throws Exception {
    DeclaredRow event = new DeclaredRow();
    event.set("product_id", id);
    event.set("price", price);
    event.set("currency", "EUR");
    event.set("version", ++priceVersion);
    DocumentPlan.Source topic = plan.sources().get("topic:pricing.events");
    join.send(new TopicRows(topic, List.of("product_id")).convert(event));
  }

  /** The bundled products definition, planned against the catalog's tables (CatalogLoader's). */
  static DocumentPlan productsPlan() {
    String definition;
    try (InputStream in =
        DocumentJoinStateTest.class
            .getClassLoader()
            .getResourceAsStream(Definitions.PRODUCTS_RESOURCE)) {
      definition = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Map<String, TableInfo> tables =
        Map.of(
            "product",
            TableInfo.of(
                "public",
                "product",
                columns(
                    "id",
                    "bigint",
                    "sku",
                    "text",
                    "name",
                    "text",
                    "description",
                    "text",
                    "attributes",
                    "jsonb",
                    "brand_id",
                    "bigint",
                    "category_id",
                    "bigint",
                    "updated_at",
                    "timestamp with time zone"),
                List.of("id"),
                List.of(
                    new ForeignKey(List.of("brand_id"), "public", "brand", List.of("id")),
                    new ForeignKey(List.of("category_id"), "public", "category", List.of("id")))),
            "brand",
            TableInfo.of(
                "public",
                "brand",
                columns("id", "bigint", "name", "text"),
                List.of("id"),
                List.of()),
            "category",
            TableInfo.of(
                "public",
                "category",
                columns("id", "bigint", "name", "text", "parent_id", "bigint"),
                List.of("id"),
                List.of(
                    new ForeignKey(List.of("parent_id"), "public", "category", List.of("id")))));
    return DocumentPlanner.plan(
        DefinitionFile.parse(definition).get(0),
        (schema, table) -> Optional.ofNullable(tables.get(table)));
  }

  private static Map<String, String> columns(String... nameType) {
    Map<String, String> columns = new LinkedHashMap<>();
    for (int i = 0; i < nameType.length; i += 2) {
      columns.put(nameType[i], nameType[i + 1]);
    }
    return columns;
  }

  /**
   * Without compactions a checkpoint's new files hold exactly what changed since the last one: a
   * compaction in the background rewrites older files at any moment, and the next checkpoint would
   * upload them again, whatever the job wrote.
   */
  static final class NoCompactions implements RocksDBOptionsFactory {
    @Override
    public DBOptions createDBOptions(DBOptions current, Collection<AutoCloseable> handles) {
      return current;
    }

    @Override
    public ColumnFamilyOptions createColumnOptions(
        ColumnFamilyOptions current, Collection<AutoCloseable> handles) {
      return current.setDisableAutoCompactions(true);
    }
  }

  private static String text(Random random) {
    StringBuilder s = new StringBuilder(DESCRIPTION_CHARS);
    for (int i = 0; i < DESCRIPTION_CHARS; i++) {
      s.append((char) ('a' + random.nextInt(26)));
    }
    return s.toString();
  }
}
