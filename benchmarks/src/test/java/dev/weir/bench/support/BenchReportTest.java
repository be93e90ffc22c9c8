package dev.weir.bench.support;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class BenchReportTest {

  @Test
  void showsAJudgedRatioWithTheDecimalsThatKeepItOffItsTarget() {
    // The rename's 2.003 against "≤ 2×" read "2.00× NOT met".
    assertThat(BenchReport.shown(2.003, 2, "×")).isEqualTo("2.003×");
    assertThat(BenchReport.shown(1.9996, 2, "×")).isEqualTo("1.9996×");
    assertThat(BenchReport.shown(0.4999, 0.5, "")).isEqualTo("0.4999");
    assertThat(BenchReport.shown(2.0, 2, "×")).isEqualTo("2.00×");
    assertThat(BenchReport.shown(0.81, 0.9, "")).isEqualTo("0.81");
    assertThat(BenchReport.shown(1.954, 2, "×")).isEqualTo("1.95×");
  }
}
