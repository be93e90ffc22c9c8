package dev.weir.stack;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class SpannerEmulatorServiceTest {

  @Test
  void theDatabaseIsCreatedWithTheStatementsOfTheIdentityTablesDdl() {
    List<String> ddl = SpannerEmulatorService.ddl();

    assertThat(ddl).hasSize(2);
    assertThat(ddl.get(0)).startsWith("CREATE TABLE identity_mapping (").doesNotContain("--");
    assertThat(ddl.get(1))
        .isEqualTo(
            "CREATE INDEX identity_mapping_by_canonical ON identity_mapping (project_id, canonical_id)");
  }

  @Test
  void itsPortsAreSetLikeTheOthers() {
    StackSettings defaults = StackSettings.from(new Properties(), Map.of());
    assertThat(defaults.spannerPort()).isEqualTo(19010);
    assertThat(defaults.spannerHttpPort()).isEqualTo(19020);

    StackSettings moved =
        StackSettings.from(new Properties(), Map.of("WEIR_SPANNER_PORT", "49010"));
    SpannerEmulatorService emulator = new SpannerEmulatorService(moved);
    assertThat(moved.spannerHttpPort()).isEqualTo(49020);
    assertThat(emulator.environment())
        .containsEntry("SPANNER_EMULATOR_HOST", "127.0.0.1:49010")
        .containsEntry("SPANNER_PROJECT", "weir-local")
        .containsEntry("SPANNER_INSTANCE", "weir")
        .containsEntry("SPANNER_DATABASE", "identity");
  }
}
