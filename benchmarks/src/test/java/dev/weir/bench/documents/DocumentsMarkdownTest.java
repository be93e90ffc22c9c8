package dev.weir.bench.documents;

import static dev.weir.bench.support.IndexLoads.PASSES;
import static dev.weir.bench.support.IndexLoads.load;
import static dev.weir.bench.support.IndexLoads.within;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.bench.support.CopyWrites;
import dev.weir.bench.support.IndexLoad;
import dev.weir.bench.support.IndexWork;
import dev.weir.common.postgres.TableStats;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The declared document's ratios are taken against the raw bulk's median pass, and say so. */
class DocumentsMarkdownTest {

  @Test
  void theFanOutIsTakenAgainstTheMedianPassNotTheFirst() {
    IndexLoad weir = load("weir", 10_000, 10_000 / 730.8, List.of());

    // A shared rename reaching 10,000 documents in 24.6 s; the median raw bulk takes 12.3 s.
    DocumentsBenchmark.Result documents =
        documents(new DocumentsBenchmark.EndToEnd(weir, IndexLoad.median(PASSES), null));
    assertThat(documents.fanOutOverRawBulk()).isCloseTo(2.0, within());
  }

  @Test
  void documentsReportSaysTheRawBulkIsTheMedianOfItsPasses() {
    IndexLoad weir =
        new IndexLoad(
            "weir, declared",
            10_000,
            10_000 / 730.8,
            8_000,
            10.0,
            Map.of(),
            Map.of(),
            new IndexWork(10_000, 0, 10, 0, 0, 0, 0, 0, 0),
            null,
            List.of());
    String md =
        DocumentsMarkdown.of(
            documents(
                new DocumentsBenchmark.EndToEnd(
                    weir, IndexLoad.median(PASSES), new TableStats(10_000, 0, 0, 0, 0))),
            "bin/weir bench documents");

    assertThat(md)
        .contains(
            "(812/s, the median of 3 passes after warm-up, whole loads 644–997/s, the end-to-end"
                + " pass below)")
        .contains("| 731 | 812 | 644–997/s | 0.90 |")
        .contains(
            "weir / the raw bulk of the same documents (median of 3 passes after warm-up, whole"
                + " loads 644–997/s)");
  }

  private static DocumentsBenchmark.Result documents(DocumentsBenchmark.EndToEnd declared) {
    CopyWrites writes = new CopyWrites("weir", 10_000, 1, 10_000, 0, List.of());
    return new DocumentsBenchmark.Result(
        10_000,
        Instant.EPOCH,
        new DocumentsBenchmark.FanOut(
            "one brand rename", 10_000, 24.63, 5.0, 10_000, 10_000, Map.of()),
        new DocumentsBenchmark.FanOut("10 renames", 10_000, 24.63, 5.0, 10_000, 10_000, Map.of()),
        new DocumentsBenchmark.FanOut(
            "raw overwrite", 10_000, 12.5, Double.NaN, 0, 10_000, Map.of()),
        null,
        null,
        writes,
        writes,
        null,
        declared);
  }
}
