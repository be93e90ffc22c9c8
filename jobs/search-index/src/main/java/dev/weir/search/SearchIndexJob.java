package dev.weir.search;

import dev.weir.common.DeadLetters;
import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import dev.weir.common.job.WeirJob;
import dev.weir.common.kafka.KafkaIo;
import dev.weir.common.postgres.Migrations;
import dev.weir.common.postgres.PostgresTimeouts;
import dev.weir.common.sink.BufferedStoreSink;
import dev.weir.common.types.KryoFree;
import dev.weir.schema.ChangeEvent;
import dev.weir.schema.EventCodec;
import dev.weir.schema.EventSchema;
import dev.weir.schema.PricingEvent;
import dev.weir.search.definition.DocumentPlan;
import dev.weir.search.join.DocumentChange;
import dev.weir.sink.elasticsearch.ElasticsearchClients;
import dev.weir.sink.elasticsearch.ElasticsearchSettings;
import dev.weir.sink.elasticsearch.ElasticsearchSink;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * search-index. With a document definition ({@link SearchIndexOptions#DOCUMENTS}): the change
 * topics of the tables it names → {@link dev.weir.search.join.DocumentJoin} → the copy → the index
 * ({@link DeclaredDocuments}). Without one, the built-in products document: {@code
 * cdc.catalog.product} + {@code pricing.events} (keyed by product) joined with {@code
 * cdc.catalog.brand} and {@code cdc.catalog.category} (broadcast) → one document per product,
 * emitted when its content changed → {@code search_document} (changed columns only) and
 * Elasticsearch behind the alias {@code products} (external versions).
 */
public final class SearchIndexJob implements WeirJob {

  public static final String NAME = "search-index";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public List<String> topics(WeirConfig config) {
    List<String> topics = new ArrayList<>(inputs(config));
    topics.add(config.get(WeirOptions.DLQ_TOPIC));
    return topics;
  }

  /** What the job reads: the catalog's change events and the prices. */
  public static List<String> inputs(WeirConfig config) {
    if (DeclaredDocuments.configured(config)) {
      return DeclaredDocuments.topics(config, DeclaredDocuments.plans(config));
    }
    List<String> inputs = new ArrayList<>(new CatalogCaptureJob().topics(config));
    inputs.add(config.get(SearchIndexOptions.PRICING_TOPIC));
    return inputs;
  }

  @Override
  public void prepare(WeirConfig config) {
    Migrations.apply(config);
    ElasticsearchSettings elasticsearch = ElasticsearchSettings.from(config);
    if (DeclaredDocuments.configured(config)) {
      for (DocumentPlan plan : DeclaredDocuments.plans(config)) {
        DeclaredDocuments.prepare(config, plan);
      }
      return;
    }
    try {
      ProductsIndex.ensureAlias(
          elasticsearch,
          config.get(SearchIndexOptions.ALIAS),
          config.get(SearchIndexOptions.INITIAL_INDEX));
    } catch (IOException e) {
      throw new UncheckedIOException(ElasticsearchClients.explain(elasticsearch, e), e);
    }
  }

  @Override
  public void build(StreamExecutionEnvironment env, WeirConfig config) {
    DeadLetters dlq = new DeadLetters(NAME);
    if (DeclaredDocuments.configured(config)) {
      for (DocumentPlan plan : DeclaredDocuments.plans(config)) {
        DataStream<DocumentChange> documents = DeclaredDocuments.documents(env, config, dlq, plan);
        DeclaredDocuments.indexable(DeclaredDocuments.written(documents, config, plan), dlq, plan)
            .sinkTo(DeclaredDocuments.indexSink(config, plan))
            .uid(DeclaredDocuments.uid(plan) + "-index")
            .name("Elasticsearch " + plan.index());
      }
      dlq.sinkTo(config);
      return;
    }
    DataStream<ProductRow> products =
        changes(
            env,
            config,
            dlq,
            CatalogCaptureJob.topic(config, "product"),
            ProductRow::of,
            ProductRow.class);
    DataStream<Dimension> brands =
        changes(
            env,
            config,
            dlq,
            CatalogCaptureJob.topic(config, "brand"),
            e -> Dimension.of(Dimension.Kind.BRAND, e),
            Dimension.class);
    DataStream<Dimension> categories =
        changes(
            env,
            config,
            dlq,
            CatalogCaptureJob.topic(config, "category"),
            e -> Dimension.of(Dimension.Kind.CATEGORY, e),
            Dimension.class);
    DataStream<PricingEvent> prices =
        KafkaIo.read(
            env,
            config,
            dlq,
            config.get(SearchIndexOptions.PRICING_TOPIC),
            EventCodec.of(EventSchema.PRICING_EVENTS, PricingEvent.class),
            TypeInformation.of(PricingEvent.class),
            KafkaIo.Watermarks.none(),
            NAME + "-pricing");
    DataStream<SearchDocument> documents = join(products, prices, brands.union(categories), config);
    documents.sinkTo(copySink(config)).uid(NAME + "-copy").name("search_document");
    documents.sinkTo(indexSink(config)).uid(NAME + "-index").name("Elasticsearch");
    dlq.sinkTo(config);
  }

  /** The job's logic between its sources and its sinks: tests call it with their own ends. */
  public static DataStream<SearchDocument> join(
      DataStream<ProductRow> products,
      DataStream<PricingEvent> prices,
      DataStream<Dimension> dimensions,
      WeirConfig config) {
    DataStream<ProductInput> perProduct =
        products
            .map(ProductInput::of)
            .returns(ProductInput.class)
            .uid(NAME + "-product-row")
            .name("product row")
            .union(
                prices
                    .map(ProductInput::of)
                    .returns(ProductInput.class)
                    .uid(NAME + "-price")
                    .name("price"));
    return perProduct
        .keyBy(ProductInput::productId, Types.LONG)
        .connect(dimensions.broadcast(DocumentJoiner.BRANDS, DocumentJoiner.CATEGORIES))
        .process(
            new DocumentJoiner(
                () -> SearchDocumentStore.open(config),
                config.get(SearchIndexOptions.TOMBSTONE_TTL)))
        .returns(KryoFree.pojoOf(SearchDocument.class))
        .uid(NAME + "-join")
        .name("join → document");
  }

  private static <T> DataStream<T> changes(
      StreamExecutionEnvironment env,
      WeirConfig config,
      DeadLetters dlq,
      String topic,
      CatalogChanges.Reader<T> reader,
      Class<T> type) {
    return KafkaIo.read(
        env,
        config,
        dlq,
        topic,
        EventCodec.of(EventSchema.CDC_CATALOG, ChangeEvent.class),
        CatalogChanges.rows(reader),
        TypeInformation.of(type),
        KafkaIo.Watermarks.none(),
        NAME + "-" + topic.substring(topic.lastIndexOf('.') + 1));
  }

  /** search_document: documents folded per product and written in batches. */
  public static Sink<SearchDocument> copySink(WeirConfig config) {
    return new BufferedStoreSink<>(
        "search_document",
        () -> SearchDocumentStore.open(config),
        d -> Long.toString(d.productId),
        SearchDocument::then,
        config.get(SearchIndexOptions.WRITE_FLUSH).toMillis(),
        1000,
        PostgresTimeouts.of(config));
  }

  /** Elasticsearch, through the alias. */
  public static Sink<SearchDocument> indexSink(WeirConfig config) {
    return ElasticsearchSink.<SearchDocument>builder()
        .setSettings(ElasticsearchSettings.from(config))
        .setConverter(ProductsIndex.aliasConverter(config.get(SearchIndexOptions.ALIAS)))
        .setMaxTimeInBufferMs(config.get(SearchIndexOptions.INDEX_FLUSH).toMillis())
        .build();
  }
}
