package dev.weir.connector.elasticsearch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weir.schema.Json;
import org.junit.jupiter.api.Test;

class EngineTest {

  @Test
  void anOptionNamesTheEngineByProductAndMajorVersion() {
    assertThat(Engine.named("opensearch2"))
        .isEqualTo(new Engine(Engine.Distribution.OPENSEARCH, "2"));
    assertThat(Engine.named("Elasticsearch9").key()).isEqualTo("elasticsearch9");
    assertThatThrownBy(() -> Engine.named("solr9"))
        .hasMessageContaining("unknown search engine 'solr9'")
        .hasMessageContaining(Engine.NAMES);
    assertThatThrownBy(() -> Engine.named("elasticsearch7"))
        .hasMessageContaining("Elasticsearch 7 is older than weir supports");
  }

  @Test
  void onOpenSearchEveryFlattenedFieldIsAFlatObjectWithoutParameters() throws Exception {
    JsonNode body =
        Json.mapper()
            .readTree(
                """
                {"settings": {"number_of_shards": 1},
                 "mappings": {"dynamic": "strict", "properties": {
                   "attributes": {"type": "flattened", "depth_limit": 20},
                   "label": {"properties": {"extra": {"type": "flattened"}}},
                   "name": {"type": "text"}},
                  "dynamic_templates": [{"json": {"match": "j_*",
                   "mapping": {"type": "flattened"}}}]}}
                """);
    JsonNode opensearch = new Engine(Engine.Distribution.OPENSEARCH, "2.19.6").indexBody(body);
    assertThat(opensearch.at("/mappings/properties/attributes").toString())
        .isEqualTo("{\"type\":\"flat_object\"}");
    assertThat(opensearch.at("/mappings/properties/label/properties/extra/type").asText())
        .isEqualTo("flat_object");
    assertThat(opensearch.at("/mappings/dynamic_templates/0/json/mapping/type").asText())
        .isEqualTo("flat_object");
    assertThat(opensearch.at("/mappings/properties/name"))
        .isEqualTo(body.at("/mappings/properties/name"));
    assertThat(body.at("/mappings/properties/attributes/type").asText())
        .as("the body given is left as it was")
        .isEqualTo("flattened");
    assertThat(new Engine(Engine.Distribution.ELASTICSEARCH, "9.5.4").indexBody(body))
        .isEqualTo(body);
  }

  @Test
  void anErrorAnswerKeepsTheEnginesTypeAndReasonAndWhatCausedIt() {
    SearchException e =
        SearchException.of(
            "PUT /books-v1",
            400,
            """
            {"error":{"root_cause":[],"type":"illegal_argument_exception",
            "reason":"Failed to parse value [three] for setting [index.number_of_shards]",
            "caused_by":{"type":"number_format_exception","reason":"For input string: \\"three\\""}},
            "status":400}
            """);
    assertThat(e.status()).isEqualTo(400);
    assertThat(e.type()).isEqualTo("illegal_argument_exception");
    assertThat(e.getMessage())
        .isEqualTo(
            "PUT /books-v1: 400 illegal_argument_exception: Failed to parse value [three] for"
                + " setting [index.number_of_shards] (caused by number_format_exception: For input"
                + " string: \"three\")");
    assertThat(SearchException.of("POST /x/_pit", 400, "{\"error\":\"no handler found\"}").reason())
        .isEqualTo("no handler found");
    assertThat(SearchException.of("HEAD /x", 401, null).getMessage()).isEqualTo("HEAD /x: 401");
  }
}
