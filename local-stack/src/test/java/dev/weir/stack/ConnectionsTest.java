package dev.weir.stack;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** stack.env: the variables jobs read, on whatever port the stack runs. */
class ConnectionsTest {

  @Test
  void bothDatabaseUrlsFollowThePostgresPort() {
    Connections c =
        new Connections(
            "127.0.0.1:29092",
            "http://127.0.0.1:29200",
            "opensearch2",
            "127.0.0.1",
            25432,
            "weir",
            "pw",
            "weir");
    assertThat(c.environment())
        .containsEntry("SEARCH_ENGINE", "opensearch2")
        .containsEntry("POSTGRES_JDBC_URL", "jdbc:postgresql://127.0.0.1:25432/weir")
        .containsEntry("CATALOG_JDBC_URL", "jdbc:postgresql://127.0.0.1:25432/catalog")
        .containsEntry("PGPORT", "25432");
  }
}
