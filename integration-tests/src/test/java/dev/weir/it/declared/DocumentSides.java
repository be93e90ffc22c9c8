package dev.weir.it.declared;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weir.capture.CatalogCaptureJob;
import dev.weir.common.config.WeirConfig;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.connector.elasticsearch.SearchCluster;
import dev.weir.documents.copy.DocumentCopy;
import dev.weir.documents.definition.DocumentPlan;
import dev.weir.it.SearchDocuments;
import dev.weir.schema.Json;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.client.program.rest.RestClusterClient;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.core.execution.JobClient;

/**
 * What the index and the copy of a declared document hold, each document as {@link
 * SqlDocuments#normalized} writes it (its content hash left out), and the jobs that write them.
 */
final class DocumentSides {

  private DocumentSides() {}

  /** The command line's options that give each of {@code options} its value in {@code config}. */
  static List<String> cliOptions(WeirConfig config, ConfigOption<?>... options) {
    List<String> args = new ArrayList<>();
    for (ConfigOption<?> option : options) {
      args.add("--" + option.key());
      args.add(String.valueOf(config.get(option)));
    }
    return args;
  }

  /** Every document of {@code index} (an index or an alias), by id. */
  static Map<String, JsonNode> indexed(SearchCluster es, String index) throws Exception {
    Map<String, JsonNode> docs = new TreeMap<>();
    for (JsonNode hit : SearchDocuments.hits(es, index)) {
      ObjectNode source = hit.get("_source").deepCopy();
      source.remove(DocumentPlan.CONTENT_HASH);
      docs.put(hit.path("_id").asText(), SqlDocuments.normalized(source));
    }
    return docs;
  }

  /** Every document of the copy of {@code plan}, by id. */
  static Map<String, JsonNode> copied(WeirConfig config, DocumentPlan plan) throws Exception {
    try (Connection c = PostgresConnectionProvider.open(config)) {
      return normalized(new DocumentCopy(plan).readRange(c, null, null));
    }
  }

  /** Documents of the copy, by id. */
  static Map<String, JsonNode> normalized(Iterable<DocumentCopy.CopiedDocument> copied)
      throws Exception {
    Map<String, JsonNode> docs = new TreeMap<>();
    for (DocumentCopy.CopiedDocument d : copied) {
      ObjectNode source = (ObjectNode) Json.mapper().readTree(d.source());
      source.remove(DocumentPlan.CONTENT_HASH);
      docs.put(d.id(), SqlDocuments.normalized(source));
    }
    return docs;
  }

  /** Cancels the jobs that were started, and drops the capture's slot. */
  static void stop(WeirConfig config, JobClient... jobs) throws Exception {
    for (JobClient job : jobs) {
      if (job != null) {
        job.cancel().get();
      }
    }
    if (config != null) {
      CatalogCaptureJob.dropSlot(config);
    }
  }

  /** Each job is running and never restarted. */
  static void assertRunningWithoutRestarts(RestClusterClient<?> flink, JobClient... jobs)
      throws Exception {
    for (JobClient job : jobs) {
      assertThat(job.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
      assertThat(
              flink.getJobDetails(job.getJobID()).get().getTimestamps().get(JobStatus.RESTARTING))
          .as("%s restarted at", job.getJobID())
          .isZero();
    }
  }
}
