package dev.weir.common.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DeploymentNamesTest {

  private final WeirConfig only = WeirConfig.from(Map.of(), Map.of());

  @Test
  void withoutADeploymentIdTheNamesAreThoseOfEarlierVersions() {
    // A job upgraded from a savepoint keeps its transactional ids (and so aborts its own
    // lingering transactions) and its consumer group.
    assertThat(DeploymentNames.transactionalIdPrefix(only, "identity", "enriched"))
        .isEqualTo("weir-identity-enriched");
    assertThat(DeploymentNames.transactionalIdPrefix(only, "identity", "dlq"))
        .isEqualTo("weir-identity-dlq");
    assertThat(DeploymentNames.transactionalIdPrefix(only, "cdc-catalog", ""))
        .isEqualTo("weir-cdc-catalog");
    assertThat(DeploymentNames.groupId(only, "identity"))
        .isEqualTo(DeploymentNames.groupId("identity"));
  }

  @Test
  void aDeploymentIdMakesEveryNameItsOwn() {
    WeirConfig blue = only.with(WeirOptions.DEPLOYMENT_ID, "eu-blue.2");
    assertThat(DeploymentNames.transactionalIdPrefix(blue, "identity", "enriched"))
        .isEqualTo("weir-identity-eu-blue.2-enriched");
    assertThat(DeploymentNames.transactionalIdPrefix(blue, "identity", "dlq"))
        .isEqualTo("weir-identity-eu-blue.2-dlq");
    assertThat(DeploymentNames.groupId(blue, "identity")).isEqualTo("weir-identity-eu-blue.2");
  }

  @Test
  void aGenerationBuiltBesideTheRunningOneHasNamesOfItsOwn() {
    WeirConfig g2 = only.with(WeirOptions.GENERATION, "g2");
    assertThat(DeploymentNames.groupId(g2, "search-index")).isEqualTo("weir-search-index-g2");
    assertThat(DeploymentNames.transactionalIdPrefix(g2, "search-index", "dlq"))
        .isEqualTo("weir-search-index-g2-dlq");
    assertThat(DeploymentNames.groupId(g2.with(WeirOptions.DEPLOYMENT_ID, "blue"), "search-index"))
        .isEqualTo("weir-search-index-blue-g2");
  }

  @Test
  void aDeploymentIdThatIsNotAPlainNameIsRefused() {
    for (String bad : new String[] {"", "-x", "a b", "a/b", "x".repeat(65)}) {
      WeirConfig config = only.with(WeirOptions.DEPLOYMENT_ID, bad);
      assertThatThrownBy(() -> DeploymentNames.groupId(config, "identity"))
          .as("'%s'", bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("deployment.id");
    }
  }
}
