package dev.weir.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weir.connector.elasticsearch.DocumentOperation;
import dev.weir.connector.elasticsearch.SearchCluster;
import dev.weir.documents.DocumentChange;
import dev.weir.documents.definition.DocumentPlan;
import dev.weir.documents.index.DocumentIndex;
import dev.weir.documents.index.ElasticsearchConnection;
import dev.weir.it.engines.EverySearchEngine;
import dev.weir.schema.Json;
import dev.weir.stack.SearchEngine;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A declared document's index on real Elasticsearch: created behind its alias from the derived
 * mapping, it takes a document with a value of every kind as the job sends it, and each value is
 * searchable as its type says.
 */
@EverySearchEngine
@ExtendWith(LocalStackExtension.class)
class DocumentIndexITCase {

  private final String alias = "it-books-" + UUID.randomUUID().toString().substring(0, 8);
  private final DocumentPlan plan = BookDocuments.plan(alias, "book_document");
  private final DocumentIndex index = new DocumentIndex(plan);
  private SearchCluster es;

  @BeforeEach
  void connect() {
    es = ElasticsearchConnection.cluster(LocalStackExtension.config());
  }

  @AfterEach
  void close() throws Exception {
    es.close();
  }

  /**
   * The cluster on the stack's search port is the engine the class asked for: in the suites of
   * dev.weir.it.engines, the one the suite names, which a JVM's stack may have had to swap in.
   */
  @Test
  void theClusterAnsweringIsTheEngineAskedFor(SearchEngine asked) throws Exception {
    assertThat(es.engine().key()).isEqualTo(asked.key());
  }

  @Test
  void theAliasIsCreatedOnceWithTheDerivedMapping() throws Exception {
    assertThat(index.ensureAlias(es)).containsExactly(alias + "-v1");
    assertThat(index.ensureAlias(es)).containsExactly(alias + "-v1");

    JsonNode created = es.mappings(alias + "-v1");
    assertThat(created).isEqualTo(es.engine().indexBody(index.body()).path("mappings"));
  }

  @Test
  void aDocumentWithEveryKindOfValueIsIndexedSearchableAndDeleted() throws Exception {
    index.ensureAlias(es);
    DocumentChange change =
        BookDocuments.change(plan, "1", 5, BookDocuments.values("A desert planet."));

    send(index.converter(alias).apply(change, null));
    es.refresh(alias);

    JsonNode got = SearchDocuments.get(es, alias, "1", null);
    assertThat(got.path("_version").asLong()).isEqualTo(5);
    assertThat(got.get("_source")).isEqualTo(Json.mapper().readTree(index.document(change)));
    assertThat(count("{\"match\": {\"title\": \"dune\"}}")).as("text").isEqualTo(1);
    assertThat(count("{\"term\": {\"title.keyword\": \"Dune\"}}")).as("keyword").isEqualTo(1);
    assertThat(count("{\"match\": {\"description\": \"desert\"}}")).isEqualTo(1);
    assertThat(count("{\"range\": {\"pages\": {\"gte\": 400, \"lt\": 413}}}")).isEqualTo(1);
    assertThat(count("{\"range\": {\"price\": {\"gt\": 12.4, \"lt\": 12.6}}}")).isEqualTo(1);
    assertThat(
            count(
                "{\"range\": {\"published\": {\"gte\": \"1965-08-01\", \"lte\": \"1965-08-01\"}}}"))
        .isEqualTo(1);
    assertThat(
            count(
                "{\"range\": {\"updated_at\": {\"gt\": \"2026-11-23T04:59:59Z\", \"lt\": \"2026-11-23T05:00:01Z\"}}}"))
        .isEqualTo(1);
    // An unmapped json column can hold any JSON (a scalar, an array): kept in _source (above), not
    // searched unless the definition maps it (products maps its attributes flattened).
    assertThat(count("{\"term\": {\"attributes.cover\": \"hard\"}}")).as("jsonb").isZero();
    assertThat(count("{\"term\": {\"tags.keyword\": \"classic\"}}")).as("text[]").isEqualTo(1);
    assertThat(count("{\"match\": {\"publisher.name\": \"chilton\"}}")).isEqualTo(1);
    assertThat(count("{\"term\": {\"authors.name.keyword\": \"Frank Herbert\"}}")).isEqualTo(1);
    assertThat(count("{\"match\": {\"keywords\": \"worms\"}}")).isEqualTo(1);
    assertThat(count("{\"match\": {\"title\": \"messiah\"}}")).as("no false hit").isZero();

    send(index.converter(alias).apply(DocumentChange.deletion("1", 6), null));
    assertThat(SearchDocuments.exists(es, alias, "1")).isFalse();
  }

  private void send(DocumentOperation op) throws Exception {
    if (op.isDelete()) {
      SearchDocuments.delete(es, op.index(), op.id(), op.version());
    } else {
      SearchDocuments.index(es, op.index(), op.id(), op.version(), op.source());
    }
  }

  private long count(String query) throws Exception {
    return SearchDocuments.count(es, alias, query);
  }
}
