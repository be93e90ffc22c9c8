package dev.weir.identity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.cloud.spanner.SpannerOptions;
import dev.weir.common.config.WeirConfig;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** How the job builds its Spanner client, and that the tasks of a process share one. */
class SpannerClientsTest {

  private static WeirConfig config(Map<String, String> more) {
    Map<String, String> args = new HashMap<>();
    args.put("identity.store", "spanner");
    args.put("spanner.project", "weir-test");
    args.put("spanner.instance", "weir");
    args.put("spanner.database", "identity");
    // Nothing listens there: no test here sends a request.
    args.put("spanner.emulator-host", "127.0.0.1:1");
    args.putAll(more);
    return WeirConfig.from(args, Map.of());
  }

  @Test
  void builtInMetricsAreOffUnlessAskedFor() {
    assertThat(SpannerClients.Settings.of(config(Map.of())).options().isEnableBuiltInMetrics())
        .isFalse();
    assertThat(
            SpannerClients.Settings.of(config(Map.of("spanner.built-in-metrics", "true")))
                .options()
                .isEnableBuiltInMetrics())
        .isTrue();
  }

  @Test
  void lookupsAndCommitsGiveUpAfterTheTimeout() {
    SpannerOptions options =
        SpannerClients.Settings.of(config(Map.of("spanner.timeout", "7 s"))).options();
    var calls = options.getSpannerStubSettings();
    assertThat(calls.commitSettings().getRetrySettings().getTotalTimeoutDuration())
        .isEqualTo(Duration.ofSeconds(7));
    assertThat(calls.commitSettings().getRetrySettings().getMaxRpcTimeoutDuration())
        .isEqualTo(Duration.ofSeconds(7));
    assertThat(calls.executeStreamingSqlSettings().getRetrySettings().getTotalTimeoutDuration())
        .isEqualTo(Duration.ofSeconds(7));
  }

  @Test
  void tasksShareOneClientWhichTheLastOfThemCloses() {
    SpannerClients.Settings settings = SpannerClients.Settings.of(config(Map.of()));
    int before = SpannerClients.open();
    SpannerClients.Lease first = SpannerClients.lease(settings);
    SpannerClients.Lease second = SpannerClients.lease(settings);
    assertThat(SpannerClients.open()).isEqualTo(before + 1);

    first.close();
    first.close(); // a second close of one lease must not close the other's client
    assertThat(SpannerClients.open()).isEqualTo(before + 1);
    second.close();
    assertThat(SpannerClients.open()).isEqualTo(before);
  }

  @Test
  void aMissingSettingIsNamedWhenTheJobIsBuilt() {
    Map<String, String> args = new HashMap<>();
    args.put("identity.store", "spanner");
    args.put("spanner.project", "weir-test");
    assertThatThrownBy(() -> IdentityStores.of(WeirConfig.from(args, Map.of())))
        .hasMessageContaining("spanner.instance is required when identity.store = spanner");
  }

  @Test
  void theLibraryThreadsStayOnTheApplicationClassLoader() {
    // Here weir runs on the application class loader, as in a MiniCluster: nothing is stopped.
    assertThat(SpannerClients.stopLibraryThreads()).isZero();
  }
}
