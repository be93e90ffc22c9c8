package dev.weir.bench.support;

import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import dev.weir.common.postgres.Migrations;
import dev.weir.stack.Connections;
import dev.weir.stack.LocalStack;
import java.util.Map;

/** A benchmark side's own database on the local stack: recreated, migrated. */
public final class BenchDatabases {

  private BenchDatabases() {}

  public static WeirConfig fresh(LocalStack stack, Connections connections, String name) {
    stack.recreatePostgresDatabase(name);
    WeirConfig config =
        WeirConfig.from(Map.of(), connections.environment())
            .with(WeirOptions.POSTGRES_URL, connections.postgresJdbcUrl(name));
    Migrations.apply(config);
    return config;
  }

  /** The work a benchmark measures. */
  public interface Work {
    void run() throws Exception;
  }
}
