package dev.weir.search;

import dev.weir.common.metrics.WeirMetrics;
import dev.weir.common.postgres.JdbcDrivers;
import dev.weir.schema.PricingEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ReadOnlyBroadcastState;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.co.KeyedBroadcastProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Joins products (keyed by product id) with their price, brand and category path into one search
 * document, and emits it only when its content changed, naming the columns that did.
 *
 * <p>Brands and categories are few and change rarely: every instance holds all of them (broadcast
 * state), and a rename or a move re-joins every product of that instance and emits those whose
 * document changed, however many there are.
 *
 * <p><b>Version.</b> The catalog's log sequence number orders all its changes, and a document
 * changes only when one of its rows changes (the product, its brand, a category on its path), its
 * price changes, or a row it names becomes known (brands and products arrive on different topics,
 * in any order). So the version is {@code (1 + max LSN of those rows + price version) * 64 + rows
 * known}: any change of a row or of the price adds at least 64, more knowledge adds at least 1. It
 * depends only on the input, not on the order it was read in: a replay ends on the same version,
 * and every document it passes on the way has a lower one, so nothing regresses.
 */
public class DocumentJoiner
    extends KeyedBroadcastProcessFunction<Long, ProductInput, Dimension, SearchDocument> {

  private static final long serialVersionUID = 1L;

  public static final MapStateDescriptor<Long, Dimension> BRANDS =
      new MapStateDescriptor<>("brands", Types.LONG, TypeInformation.of(Dimension.class));
  public static final MapStateDescriptor<Long, Dimension> CATEGORIES =
      new MapStateDescriptor<>("categories", Types.LONG, TypeInformation.of(Dimension.class));
  static final ValueStateDescriptor<ProductState> PRODUCT =
      new ValueStateDescriptor<>("product", TypeInformation.of(ProductState.class));

  /**
   * The description and attributes of the product held in {@link #PRODUCT}, which holds its row
   * without them: most changes (a price, a name, a brand) leave them as they were, and are written
   * without them. (A savepoint of weir from before this state has them in the row: they move here
   * at the product's next change.)
   */
  static final ValueStateDescriptor<LargeValues> LARGE_VALUES =
      new ValueStateDescriptor<>("large-values", TypeInformation.of(LargeValues.class));

  /** How deep a category tree may be; a deeper or cyclic parent chain is cut there. */
  static final int MAX_DEPTH = 32;

  /**
   * When a product's state that holds no live row (a deleted product, or a price whose product
   * never came) is dropped: {@code tombstone-ttl} after it became so. A processing-time timer, not
   * a state TTL, so that savepoints of {@link #PRODUCT} from before stay readable.
   */
  static final ValueStateDescriptor<Long> DROP_AT =
      new ValueStateDescriptor<>("drop-at", Types.LONG);

  private final CopyReader.Opener copy;
  private final long tombstoneTtlMs;

  private transient ValueState<ProductState> product;
  private transient ValueState<Long> dropAt;
  private transient ValueState<LargeValues> largeValues;
  private transient CopyReader copyReader;
  private transient Counter documents;
  private transient Counter unchanged;
  private transient Counter staleChanges;
  private transient Counter unknownLargeValues;

  /**
   * @param copy reads a large value from search_document when an event marks it unavailable and the
   *     state does not hold it (a job started without its state)
   */
  public DocumentJoiner(CopyReader.Opener copy, Duration tombstoneTtl) {
    this.copy = copy;
    this.tombstoneTtlMs = tombstoneTtl.toMillis();
  }

  @Override
  public void open(OpenContext openContext) {
    JdbcDrivers.deregisterOnRelease(getRuntimeContext());
    product = getRuntimeContext().getState(PRODUCT);
    largeValues = getRuntimeContext().getState(LARGE_VALUES);
    dropAt = getRuntimeContext().getState(DROP_AT);
    var metrics = getRuntimeContext().getMetricGroup();
    documents = metrics.counter("weirDocumentsChanged");
    unchanged = metrics.counter(WeirMetrics.WRITES_SKIPPED_UNCHANGED);
    staleChanges = metrics.counter("weirStaleChanges");
    unknownLargeValues = metrics.counter("weirLargeValuesReadFromCopy");
  }

  @Override
  public void processElement(ProductInput in, ReadOnlyContext ctx, Collector<SearchDocument> out)
      throws Exception {
    ProductState state = product.value();
    if (state == null) {
      state = new ProductState();
    }
    LargeValues held;
    if (in.price != null) {
      if (!applyPrice(state, in.price)) {
        staleChanges.inc();
        return;
      }
      if (state.product == null) {
        product.update(state); // a price ahead of its product: kept until the product arrives
        dropLater(ctx); // or for tombstone-ttl
        return;
      }
      held = largeValues.value();
      withLargeValues(state, held);
    } else {
      held = largeValues.value();
      if (!applyRow(state, in.product, held)) {
        staleChanges.inc();
        return;
      }
    }
    emitIfChanged(state, ctx.getBroadcastState(BRANDS), ctx.getBroadcastState(CATEGORIES), out);
    store(state, held);
    if (state.product.deleted) {
      dropLater(ctx);
    } else if (dropAt.value() != null) {
      dropAt.clear(); // back: its timer finds nothing to drop
    }
  }

  /** Drops this product's state tombstone-ttl from now unless a live row comes before. */
  private void dropLater(ReadOnlyContext ctx) throws Exception {
    long at = ctx.timerService().currentProcessingTime() + tombstoneTtlMs;
    if (dropAt.value() == null) {
      ctx.timerService().registerProcessingTimeTimer(at);
    }
    dropAt.update(at); // one timer per key: when it fires early, it is set again
  }

  @Override
  public void onTimer(long timestamp, OnTimerContext ctx, Collector<SearchDocument> out)
      throws Exception {
    Long due = dropAt.value();
    if (due == null) {
      return; // the product came back
    }
    if (due > timestamp) {
      ctx.timerService().registerProcessingTimeTimer(due);
      return;
    }
    product.clear();
    largeValues.clear();
    dropAt.clear();
  }

  @Override
  public void processBroadcastElement(Dimension d, Context ctx, Collector<SearchDocument> out)
      throws Exception {
    var table = ctx.getBroadcastState(d.kind == Dimension.Kind.BRAND ? BRANDS : CATEGORIES);
    Dimension known = table.get(d.id);
    if (known != null && known.stamp > d.stamp) {
      staleChanges.inc();
      return;
    }
    table.put(d.id, d);
    var brands = ctx.getBroadcastState(BRANDS);
    var categories = ctx.getBroadcastState(CATEGORIES);
    ctx.applyToKeyedState(
        PRODUCT,
        (productId, state) -> {
          ProductState s = state.value();
          if (s != null && s.product != null && affects(d, s.product, categories)) {
            // The state backend has made this product's key the current one.
            LargeValues held = largeValues.value();
            withLargeValues(s, held);
            emitIfChanged(s, brands, categories, out);
            store(s, held);
          }
        });
  }

  /** Puts the large values held apart into the state's row, which is kept without them. */
  private static void withLargeValues(ProductState state, LargeValues held) {
    ProductRow row = state.product;
    if (held != null && row != null && !row.deleted) {
      row.description = held.description;
      row.attributes = held.attributes;
    }
  }

  /**
   * Writes the product's state without its large values, and the large values only when they are
   * not the ones held (a new product, a description edit, or a row from before they were kept
   * apart).
   */
  private void store(ProductState state, LargeValues held) throws Exception {
    ProductRow row = state.product;
    if (row.deleted) {
      if (held != null) {
        largeValues.clear();
      }
    } else {
      if (held == null || !held.sameAs(row)) {
        largeValues.update(LargeValues.of(row));
      }
      row.description = null;
      row.attributes = null;
    }
    product.update(state);
  }

  /** A newer price wins; an older or equal version is stale. */
  static boolean applyPrice(ProductState state, PricingEvent p) {
    if (p.version() <= state.priceVersion) {
      return false;
    }
    state.price = p.price();
    state.currency = p.currency();
    state.priceVersion = p.version();
    return true;
  }

  /**
   * A newer catalog row replaces the one held, keeping large values marked unavailable (those held
   * apart, {@code heldLarge}, or in a row from before they were).
   */
  boolean applyRow(ProductState state, ProductRow row, LargeValues heldLarge) throws Exception {
    ProductRow held = state.product;
    if (held != null && row.stamp < held.stamp) {
      return false;
    }
    if (!row.deleted) {
      if (row.descriptionUnavailable || row.attributesUnavailable) {
        if (heldLarge != null) {
          withLargeValues(state, heldLarge);
        }
        String[] large = largeValues(held, row);
        row.description = row.descriptionUnavailable ? large[0] : row.description;
        row.attributes = row.attributesUnavailable ? large[1] : row.attributes;
      }
      row.descriptionUnavailable = false;
      row.attributesUnavailable = false;
    }
    state.product = row;
    return true;
  }

  /** The description and attributes held, or else those of the copy. */
  private String[] largeValues(ProductRow held, ProductRow row) throws Exception {
    if (held != null && !held.deleted) {
      return new String[] {held.description, held.attributes};
    }
    unknownLargeValues.inc();
    if (copyReader == null) {
      copyReader = copy.open();
    }
    return copyReader.largeValues(row.id);
  }

  /** Whether a brand or category change can alter a product's document. */
  static boolean affects(
      Dimension d, ProductRow p, ReadOnlyBroadcastState<Long, Dimension> categories)
      throws Exception {
    if (d.kind == Dimension.Kind.BRAND) {
      return p.brandId != null && d.id == p.brandId;
    }
    return categoryChain(p.categoryId, categories).stream().anyMatch(c -> c.id == d.id);
  }

  /**
   * The categories from a leaf up to its root, as far as they are known: the chain ends before a
   * category not known (yet) and after a deleted one; a deeper or cyclic chain is cut.
   */
  static List<Dimension> categoryChain(
      Long leafId, ReadOnlyBroadcastState<Long, Dimension> categories) throws Exception {
    List<Dimension> chain = new ArrayList<>();
    Set<Long> seen = new HashSet<>();
    Long id = leafId;
    while (id != null && seen.size() < MAX_DEPTH && seen.add(id)) {
      Dimension c = categories.get(id);
      if (c == null) {
        break;
      }
      chain.add(c);
      id = c.deleted ? null : c.parentId;
    }
    return chain;
  }

  /** Builds the document from the state; emits it if its content differs from the last one. */
  private void emitIfChanged(
      ProductState state,
      ReadOnlyBroadcastState<Long, Dimension> brands,
      ReadOnlyBroadcastState<Long, Dimension> categories,
      Collector<SearchDocument> out)
      throws Exception {
    SearchDocument doc = document(state, brands, categories);
    if (doc.deleted) {
      if (state.writtenHashes != null) {
        state.writtenHashes = null;
        documents.inc();
        out.collect(doc);
      }
      return;
    }
    long[] hashes = doc.columnHashes();
    if (state.writtenHashes == null) {
      doc.isNew = true;
      doc.changed = SearchDocument.ALL;
    } else {
      for (SearchDocument.Column c : SearchDocument.Column.values()) {
        if (hashes[c.ordinal()] != state.writtenHashes[c.ordinal()]) {
          doc.changed |= c.bit();
        }
      }
      if (!SearchDocument.contentChanged(doc.changed)) {
        unchanged.inc();
        return;
      }
    }
    doc.contentHash = SearchDocument.contentHash(hashes);
    state.writtenHashes = hashes;
    documents.inc();
    out.collect(doc);
  }

  /** The document a product's state and the dimensions make (a deletion if the row is gone). */
  static SearchDocument document(
      ProductState state,
      ReadOnlyBroadcastState<Long, Dimension> brands,
      ReadOnlyBroadcastState<Long, Dimension> categories)
      throws Exception {
    ProductRow p = state.product;
    long stamp = p.stamp;
    long priceVersion = Math.max(0, state.priceVersion);
    int known = 0;
    if (p.deleted) {
      return SearchDocument.deletion(p.id, version(p.id, stamp, priceVersion, 0));
    }
    SearchDocument doc = new SearchDocument();
    doc.productId = p.id;
    doc.sku = p.sku;
    doc.name = p.name;
    doc.description = p.description;
    doc.attributes = p.attributes;
    doc.brandId = p.brandId;
    doc.categoryId = p.categoryId;
    doc.updatedAt = p.updatedAt;
    if (p.brandId != null) {
      Dimension brand = brands.get(p.brandId);
      if (brand != null) {
        known++;
        stamp = Math.max(stamp, brand.stamp);
        doc.brandName = brand.deleted ? null : brand.name;
      }
    }
    // The path root → leaf; a category not known (yet) or deleted ends it there.
    List<String> path = new ArrayList<>();
    for (Dimension c : categoryChain(p.categoryId, categories)) {
      known++;
      stamp = Math.max(stamp, c.stamp);
      if (!c.deleted) {
        path.add(0, c.name);
      }
    }
    doc.categoryPath = path;
    if (state.priceVersion >= 0) {
      doc.price = state.price;
      doc.currency = state.currency;
      doc.priceVersion = state.priceVersion;
    }
    doc.docVersion = version(p.id, stamp, priceVersion, known);
    return doc;
  }

  static long version(long productId, long stamp, long priceVersion, int rowsKnown) {
    long base = 1 + stamp + priceVersion;
    if (base < 0 || base > (Long.MAX_VALUE >> 6)) {
      throw new IllegalStateException(
          "document version of product "
              + productId
              + " overflows: LSN "
              + stamp
              + " + price"
              + " version "
              + priceVersion);
    }
    return (base << 6) | Math.min(63, rowsKnown);
  }

  @Override
  public void close() throws Exception {
    if (copyReader != null) {
      copyReader.close();
    }
  }
}
