package dev.weir.stack;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * The local stack's certificates: a CA of its own and a server certificate it signed for 127.0.0.1
 * and localhost, made once with the JDK's keytool under {@code .weir/tls/}. The services present
 * the server certificate; clients trust {@link #caPem()} (PEM, as libpq, Kafka and the
 * Elasticsearch client read it).
 */
public final class Tls {

  /** The password of the PKCS12 stores; they hold a throw-away local key, nothing more. */
  public static final String STORE_PASSWORD = "weir-local";

  private final Path dir;

  Tls(StackSettings settings) {
    this.dir = settings.home().resolve("tls");
  }

  /** The CA certificate clients trust. */
  public Path caPem() {
    return ensure().resolve("ca.pem");
  }

  /** The server certificate, then the CA's (PEM). */
  Path serverCertificatePem() {
    return ensure().resolve("server.pem");
  }

  /** The server's private key, PKCS#8 PEM, unencrypted. */
  Path serverKeyPem() {
    return ensure().resolve("server-key.pem");
  }

  /** The server's key and certificate chain as a PKCS12 store ({@link #STORE_PASSWORD}). */
  Path serverP12() {
    return ensure().resolve("server.p12");
  }

  /** A TLS client context trusting the stack's CA, for the stack's own health checks. */
  SSLContext clientContext() {
    try (InputStream in = Files.newInputStream(caPem())) {
      KeyStore trusted = KeyStore.getInstance("PKCS12");
      trusted.load(null, null);
      trusted.setCertificateEntry(
          "weir-local-ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
      TrustManagerFactory trust =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      trust.init(trusted);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, trust.getTrustManagers(), null);
      return context;
    } catch (IOException | GeneralSecurityException e) {
      throw new StackException("cannot trust the local stack's CA " + caPem(), e);
    }
  }

  private synchronized Path ensure() {
    if (Files.exists(dir.resolve("server-key.pem"))) {
      return dir;
    }
    try {
      Path work = Files.createDirectories(dir.resolve("work"));
      Path ca = work.resolve("ca.p12");
      Path server = work.resolve("server.p12");
      Files.deleteIfExists(ca);
      Files.deleteIfExists(server);
      genkeypair(ca, "ca", "CN=weir local CA", "-ext", "bc:c");
      keytool(
          "-exportcert",
          "-rfc",
          "-alias",
          "ca",
          "-keystore",
          ca.toString(),
          "-file",
          work.resolve("ca.pem").toString());
      genkeypair(server, "server", "CN=127.0.0.1");
      keytool(
          "-certreq",
          "-alias",
          "server",
          "-keystore",
          server.toString(),
          "-file",
          work.resolve("server.csr").toString());
      keytool(
          "-gencert",
          "-rfc",
          "-alias",
          "ca",
          "-keystore",
          ca.toString(),
          "-infile",
          work.resolve("server.csr").toString(),
          "-outfile",
          work.resolve("server.cer").toString(),
          "-validity",
          "3650",
          "-ext",
          "SAN=IP:127.0.0.1,DNS:localhost",
          "-ext",
          "KU=digitalSignature,keyEncipherment",
          "-ext",
          "EKU=serverAuth");
      keytool(
          "-importcert",
          "-noprompt",
          "-alias",
          "ca",
          "-file",
          work.resolve("ca.pem").toString(),
          "-keystore",
          server.toString());
      keytool(
          "-importcert",
          "-alias",
          "server",
          "-file",
          work.resolve("server.cer").toString(),
          "-keystore",
          server.toString());
      writePems(server, work);
      Files.copy(server, work.resolve("server.p12.out"));
      for (String name : List.of("ca.pem", "server.pem", "server.p12")) {
        Files.move(
            work.resolve(name.equals("server.p12") ? "server.p12.out" : name),
            dir.resolve(name),
            StandardCopyOption.REPLACE_EXISTING);
      }
      // Last: its presence says the rest is there.
      Files.move(work.resolve("server-key.pem"), dir.resolve("server-key.pem"));
      return dir;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot make the local stack's certificates in " + dir, e);
    }
  }

  /** A new RSA key pair and its self-signed certificate (ten years) in {@code store}. */
  private void genkeypair(Path store, String alias, String dname, String... more) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "-genkeypair",
                "-alias",
                alias,
                "-keyalg",
                "RSA",
                "-keysize",
                "2048",
                "-validity",
                "3650",
                "-dname",
                dname,
                "-keystore",
                store.toString()));
    args.addAll(List.of(more));
    keytool(args.toArray(String[]::new));
  }

  private static void writePems(Path serverStore, Path work) throws IOException {
    try (InputStream in = Files.newInputStream(serverStore)) {
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(in, STORE_PASSWORD.toCharArray());
      Key key = store.getKey("server", STORE_PASSWORD.toCharArray());
      List<String> chain = new ArrayList<>();
      for (Certificate c : store.getCertificateChain("server")) {
        chain.add(pem("CERTIFICATE", c.getEncoded()));
      }
      Files.writeString(work.resolve("server.pem"), String.join("", chain));
      Files.writeString(work.resolve("server-key.pem"), pem("PRIVATE KEY", key.getEncoded()));
    } catch (GeneralSecurityException e) {
      throw new StackException("cannot read the server key just made in " + serverStore, e);
    }
  }

  private static String pem(String type, byte[] der) {
    return "-----BEGIN "
        + type
        + "-----\n"
        + Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(der)
        + "\n-----END "
        + type
        + "-----\n";
  }

  private void keytool(String... args) {
    List<String> command =
        new ArrayList<>(
            List.of(Path.of(System.getProperty("java.home"), "bin", "keytool").toString()));
    command.addAll(List.of(args));
    // In PKCS12 the key's password is the store's.
    command.addAll(List.of("-storetype", "PKCS12", "-storepass", STORE_PASSWORD));
    OsProcesses.capture(command);
  }
}
