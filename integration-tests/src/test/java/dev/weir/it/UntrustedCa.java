package dev.weir.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

/** A CA of its own (made with the JDK's keytool), which signed nothing of the stack. */
public final class UntrustedCa {

  private UntrustedCa() {}

  /** Makes the CA in {@code dir} and returns the path of its certificate (PEM). */
  public static String pem(Path dir) throws IOException, InterruptedException {
    Path store = dir.resolve("other-ca.p12");
    Path pem = dir.resolve("other-ca.pem");
    String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
    for (List<String> command :
        List.of(
            List.of(
                keytool,
                "-genkeypair",
                "-alias",
                "other",
                "-keyalg",
                "EC",
                "-dname",
                "CN=other CA",
                "-ext",
                "bc:c",
                "-keystore",
                store.toString(),
                "-storepass",
                "changeit"),
            List.of(
                keytool,
                "-exportcert",
                "-rfc",
                "-alias",
                "other",
                "-keystore",
                store.toString(),
                "-storepass",
                "changeit",
                "-file",
                pem.toString()))) {
      Process keytoolRun = new ProcessBuilder(command).redirectErrorStream(true).start();
      String output =
          new String(keytoolRun.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(keytoolRun.waitFor()).as(output).isZero();
    }
    return pem.toString();
  }
}
