package dev.weir.bench.support;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weir.schema.Json;
import org.junit.jupiter.api.Test;

class IndexWorkTest {

  private static JsonNode stats(String json) {
    try {
      return Json.mapper().readTree(json);
    } catch (Exception e) {
      throw new IllegalArgumentException(e);
    }
  }

  @Test
  void readsTheWorkFromAnIndexsStats() {
    JsonNode s =
        stats(
            """
            {"indexing": {"index_total": 15659, "index_failed": 152, "index_time_in_millis": 30200,
                          "index_current": 0, "delete_total": 0, "delete_time_in_millis": 0,
                          "delete_current": 0, "noop_update_total": 0, "is_throttled": false,
                          "throttle_time_in_millis": 0},
             "bulk": {"total_operations": 32, "total_time_in_millis": 31000,
                      "total_size_in_bytes": 88000000, "avg_time_in_millis": 900,
                      "avg_size_in_bytes": 2700000},
             "refresh": {"total": 14, "total_time_in_millis": 20200, "external_total": 14,
                         "external_total_time_in_millis": 20200, "listeners": 0},
             "merges": {"current": 0, "current_docs": 0, "current_size_in_bytes": 0, "total": 1,
                        "total_time_in_millis": 3500, "total_docs": 9000,
                        "total_size_in_bytes": 50000000, "total_stopped_time_in_millis": 0,
                        "total_throttled_time_in_millis": 0,
                        "total_auto_throttle_in_bytes": 20971520},
             "search": {"query_total": 282, "query_time_in_millis": 40, "query_current": 0,
                        "fetch_total": 0, "fetch_time_in_millis": 0, "fetch_current": 0,
                        "scroll_total": 0, "scroll_time_in_millis": 0, "scroll_current": 0,
                        "suggest_total": 0, "suggest_time_in_millis": 0, "suggest_current": 0}}
            """);

    assertThat(IndexWork.of(s))
        .isEqualTo(new IndexWork(15659, 152, 32, 30200, 14, 20200, 1, 3500, 282));
  }

  @Test
  void workElasticsearchDidNotReportCountsAsNone() {
    JsonNode s =
        stats(
            """
            {"refresh": {"total": 2, "total_time_in_millis": 5, "external_total": 2,
                         "external_total_time_in_millis": 5, "listeners": 0}}
            """);

    assertThat(IndexWork.of(s)).isEqualTo(new IndexWork(0, 0, 0, 0, 2, 5, 0, 0, 0));
  }

  @Test
  void noIndexAtAllMeansNoMergeRunning() {
    // What _all's total is when Elasticsearch holds no index yet.
    assertThat(IndexWork.runningMerges(stats("{}"))).isZero();
    assertThat(
            IndexWork.runningMerges(
                stats(
                    """
                    {"merges": {"current": 2, "current_docs": 0, "current_size_in_bytes": 0,
                                "total": 3, "total_time_in_millis": 1, "total_docs": 9,
                                "total_size_in_bytes": 5, "total_stopped_time_in_millis": 0,
                                "total_throttled_time_in_millis": 0,
                                "total_auto_throttle_in_bytes": 1}}
                    """)))
        .isEqualTo(2);
  }
}
