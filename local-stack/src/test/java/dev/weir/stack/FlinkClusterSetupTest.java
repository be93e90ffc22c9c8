package dev.weir.stack;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class FlinkClusterSetupTest {

  private static FlinkClusterSetup setup(Map<String, String> configuration) {
    StackSettings settings = StackSettings.from(new Properties(), Map.of("WEIR_HOME", "/tmp/x"));
    return new FlinkClusterSetup(
        settings, new Artifacts(settings), 23381, Path.of("/tmp/x/flink"), null, configuration);
  }

  @Test
  void givenOptionsReplaceTheClustersOwnOnce() {
    String yaml =
        setup(
                Map.of(
                    "taskmanager.numberOfTaskSlots", "2",
                    "state.backend.type", "rocksdb"))
            .configYaml();

    assertThat(yaml.lines().filter(l -> l.startsWith("taskmanager.numberOfTaskSlots:")))
        .containsExactly("taskmanager.numberOfTaskSlots: 2");
    assertThat(yaml).contains("\nstate.backend.type: rocksdb\n");
    assertThat(yaml).contains("\nrest.port: 23381\n");
  }

  @Test
  void withoutOptionsTheClustersOwnStay() {
    assertThat(setup(Map.of()).configYaml()).contains("\ntaskmanager.numberOfTaskSlots: 4\n");
  }
}
