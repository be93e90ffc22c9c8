package dev.weir.it;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weir.schema.Json;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.apache.flink.api.common.JobID;
import org.apache.flink.client.program.rest.RestClusterClient;

/** What a test reads from a MiniCluster's REST API that the cluster client does not offer. */
public final class FlinkRest {

  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private FlinkRest() {}

  /** {@code GET /jobs/<job><path>} as JSON. */
  static JsonNode get(RestClusterClient<?> flink, JobID job, String path) throws Exception {
    HttpResponse<String> response =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(flink.getWebInterfaceURL() + "/jobs/" + job + path))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    return Json.mapper().readTree(response.body());
  }

  /** Every exception the job has had (its history, stack traces included), as one text. */
  public static String exceptions(RestClusterClient<?> flink, JobID job) throws Exception {
    return get(flink, job, "/exceptions").toString();
  }

  /** The path of the job's latest completed checkpoint, or null. */
  static String latestCheckpoint(RestClusterClient<?> flink, JobID job) throws Exception {
    JsonNode path = get(flink, job, "/checkpoints").path("latest").path("completed");
    return path.isMissingNode() || path.isNull() ? null : path.path("external_path").asText(null);
  }
}
