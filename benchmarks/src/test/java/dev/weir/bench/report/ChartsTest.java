package dev.weir.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.awt.image.BufferedImage;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChartsTest {

  @TempDir Path dir;

  @Test
  void logScaleBarsAreDrawnAndLeaveOutWhatALogAxisCannotShow() throws Exception {
    Map<String, Double> values = new LinkedHashMap<>();
    values.put("Kafka produce", 51_165.0);
    values.put("Elasticsearch bulk", 4_165.0);
    values.put("not measured", 0.0);
    values.put("no time", Double.POSITIVE_INFINITY);

    String file = Charts.bars(dir, "throughput", "title", "records/s", values, true);

    assertThat(file).isEqualTo("throughput.png");
    BufferedImage image = ImageIO.read(dir.resolve(file).toFile());
    assertThat(image.getWidth()).isEqualTo(900);
    assertThat(image.getHeight()).isEqualTo(480);
  }

  @Test
  void linesAreDrawn() throws Exception {
    Map<String, Map<Integer, Double>> series = new LinkedHashMap<>();
    series.put("identity", Map.of(1, 1.0, 2, 1.6));
    series.put("backfill", Map.of(1, 1.0, 2, 1.1));

    String file = Charts.lines(dir, "scaling", "title", "parallelism", "relative", series);

    assertThat(ImageIO.read(dir.resolve(file).toFile()).getWidth()).isEqualTo(900);
  }
}
