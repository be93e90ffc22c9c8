package dev.weir.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;

/** {@code weir demo}'s checks before it starts anything. */
class DemoCommandTest {

  @Test
  void refusesAWebPortRangeSomethingHoldsBeforeStartingTheStack() throws Exception {
    // Something holds the third port of the range: the catalog section's second job would fail
    // to bind it minutes into the demo.
    try (ServerSocket held = heldWithFreeNeighbours()) {
      int base = held.getLocalPort() - 2;
      StringWriter err = new StringWriter();
      int exit =
          WeirCli.commandLine()
              .setErr(new PrintWriter(err))
              .execute("demo", "--web-port", Integer.toString(base));
      assertThat(exit).isEqualTo(1);
      assertThat(err.toString())
          .contains(
              "port "
                  + held.getLocalPort()
                  + " is in use: the demo serves web UIs on ports "
                  + base
                  + " to "
                  + (base + 5)
                  + " (--web-port and the next 5); choose another with --web-port");
    }
  }

  /**
   * A port held by this test whose neighbours (two below, three above) are free: on a busy machine
   * another process's ephemeral port can sit next to the first one the system hands out.
   */
  private static ServerSocket heldWithFreeNeighbours() throws Exception {
    for (int attempt = 0; ; attempt++) {
      ServerSocket held = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
      int port = held.getLocalPort();
      if (DemoCommand.firstTaken(port - 2, 2).isEmpty()
          && DemoCommand.firstTaken(port + 1, 3).isEmpty()) {
        return held;
      }
      held.close();
      if (attempt == 50) {
        throw new IllegalStateException("no port with free neighbours found");
      }
    }
  }

  @Test
  void findsNoTakenPortInAFreeRange() throws Exception {
    int port;
    try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = probe.getLocalPort();
    }
    assertThat(DemoCommand.firstTaken(port, 1)).isEmpty();
  }
}
