package dev.weir.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ProfilesTest {

  @Test
  void onlyFlinkTaskThreadsAreStages() {
    assertThat(Profiles.isTaskThread("Source: tracking -> Enricher (1/2)#0")).isTrue();
    assertThat(Profiles.isTaskThread("copy product_document (1/1)")).isTrue();
    // The benchmark's own thread (input generation, the naive side) is not one of the job's.
    assertThat(Profiles.isTaskThread("main")).isFalse();
    assertThat(Profiles.isTaskThread("kafka-producer-network-thread | producer-1")).isFalse();
    assertThat(Profiles.isTaskThread(null)).isFalse();
  }
}
