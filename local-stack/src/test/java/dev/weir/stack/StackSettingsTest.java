package dev.weir.stack;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class StackSettingsTest {

  @Test
  void aStackBesideThisOneHasItsOwnHomeAndEveryPortShifted() {
    Properties configured = new Properties();
    configured.setProperty("weir.home", "/tmp/weir-a");
    configured.setProperty("weir.kafka.port", "29092");
    StackSettings first = StackSettings.from(configured, Map.of());

    Properties beside = new Properties();
    beside.putAll(first.besideAt(Path.of("/tmp/weir-b"), 20));
    StackSettings second = StackSettings.from(beside, Map.of());

    assertThat(second.home()).isEqualTo(Path.of("/tmp/weir-b"));
    assertThat(second.kafkaPort()).isEqualTo(29112);
    assertThat(second.postgresPort()).isEqualTo(first.postgresPort() + 20);
    assertThat(second.elasticsearchPort()).isEqualTo(first.elasticsearchPort() + 20);
    assertThat(second.spannerPort()).isEqualTo(first.spannerPort() + 20);
  }
}
