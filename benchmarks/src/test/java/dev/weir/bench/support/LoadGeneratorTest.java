package dev.weir.bench.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class LoadGeneratorTest {

  private static LoadGenerator.Knobs knobs(double skew, double repeat) {
    return new LoadGenerator.Knobs(1024, 3, 1000, 2, 100_000, Duration.ZERO, skew, repeat);
  }

  @Test
  void theRepeatRatioIsTheShareOfKeysUsedBefore() {
    SplittableRandom random = new SplittableRandom(1);
    int n = 100_000;
    int repeated = 0;
    for (long i = 0; i < n; i++) {
      long key = LoadGenerator.key(i, knobs(0, 0.3), random);
      if (key != i) {
        assertThat(key).isLessThan(i);
        repeated++;
      }
    }
    assertThat(repeated / (double) n).isBetween(0.29, 0.31);
    assertThat(LoadGenerator.key(123, knobs(0, 0), random)).isEqualTo(123);
  }

  @Test
  void skewPutsTheRepeatsOnTheFirstKeys() {
    SplittableRandom random = new SplittableRandom(2);
    List<Double> uniform = new ArrayList<>();
    List<Double> skewed = new ArrayList<>();
    for (long i = 1000; i < 21_000; i++) {
      uniform.add(LoadGenerator.key(i, knobs(0, 1), random) / (double) i);
      skewed.add(LoadGenerator.key(i, knobs(0.9, 1), random) / (double) i);
    }
    assertThat(mean(uniform)).isBetween(0.48, 0.52);
    assertThat(mean(skewed)).isLessThan(0.12);
  }

  @Test
  void documentsAreJsonOfTheRequestedSize() throws Exception {
    String doc = LoadGenerator.document(42, knobs(0, 0), new SplittableRandom(3));
    assertThat(doc.length()).isEqualTo(1024);
    var json = new ObjectMapper().readTree(doc);
    assertThat(json.get("id").asLong()).isEqualTo(42);
    assertThat(json.get("tenant").asInt()).isEqualTo(42);
    assertThat(json.get("category").asInt()).isEqualTo(42 % 50);
  }

  @Test
  void knobsOutOfRangeAreRefused() {
    assertThatThrownBy(() -> knobs(1, 0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new LoadGenerator.Knobs(1024, 4, 1000, 2, 10, Duration.ZERO, 0, 0))
        .hasMessageContaining("0-3 secondary indexes");
  }

  private static double mean(List<Double> values) {
    return values.stream().mapToDouble(Double::doubleValue).average().orElseThrow();
  }
}
