package dev.weir.stack;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import javax.crypto.Cipher;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TlsTest {

  @TempDir Path home;

  @Test
  void theServerCertificateIsSignedByTheStacksCaFor127001AndMatchesItsKey() throws Exception {
    Tls tls = new Tls(StackSettings.from(new Properties(), Map.of("WEIR_HOME", home.toString())));
    CertificateFactory x509 = CertificateFactory.getInstance("X.509");
    X509Certificate ca;
    try (InputStream in = Files.newInputStream(tls.caPem())) {
      ca = (X509Certificate) x509.generateCertificate(in);
    }
    List<X509Certificate> chain;
    try (InputStream in = Files.newInputStream(tls.serverCertificatePem())) {
      chain = x509.generateCertificates(in).stream().map(c -> (X509Certificate) c).toList();
    }
    X509Certificate server = chain.get(0);
    server.verify(ca.getPublicKey());
    assertThat(server.getSubjectAlternativeNames())
        .extracting(name -> name.get(1).toString())
        .contains("127.0.0.1", "localhost");
    assertThat(ca.getBasicConstraints()).isGreaterThanOrEqualTo(0);

    // The PEM key is the certificate's: what one encrypts, the other decrypts.
    String pem =
        Files.readString(tls.serverKeyPem()).replaceAll("-----[A-Z ]+-----", "").replace("\n", "");
    var key =
        KeyFactory.getInstance("RSA")
            .generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(pem)));
    Cipher rsa = Cipher.getInstance("RSA/ECB/PKCS1Padding");
    rsa.init(Cipher.ENCRYPT_MODE, server.getPublicKey());
    byte[] secret = rsa.doFinal("weir".getBytes());
    rsa.init(Cipher.DECRYPT_MODE, key);
    assertThat(new String(rsa.doFinal(secret))).isEqualTo("weir");

    // Made once: a second call finds them.
    long made = Files.getLastModifiedTime(tls.serverKeyPem()).toMillis();
    assertThat(
            Files.getLastModifiedTime(
                    new Tls(
                            StackSettings.from(
                                new Properties(), Map.of("WEIR_HOME", home.toString())))
                        .serverKeyPem())
                .toMillis())
        .isEqualTo(made);
    assertThat(tls.serverP12()).exists();
  }
}
