package dev.weir.documents.value;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/** Hashes of values: enough to tell what changed without keeping what was written. */
public final class Hashes {

  /** One digest per thread: looking one up costs more than hashing a small value. */
  private static final ThreadLocal<MessageDigest> SHA256 =
      ThreadLocal.withInitial(
          () -> {
            try {
              return MessageDigest.getInstance("SHA-256");
            } catch (NoSuchAlgorithmException e) {
              throw new IllegalStateException(e);
            }
          });

  private Hashes() {}

  /** A 64-bit hash of a JSON text (never 0). */
  public static long of(String text) {
    byte[] d = sha256().digest(text.getBytes(StandardCharsets.UTF_8));
    long h = 0;
    for (int i = 0; i < 8; i++) {
      h = (h << 8) | (d[i] & 0xff);
    }
    return h == 0 ? 1 : h;
  }

  /** The 16-byte content hash of a document's field hashes. */
  public static byte[] content(long[] fieldHashes) {
    MessageDigest sha = sha256();
    for (long h : fieldHashes) {
      for (int i = 0; i < 8; i++) {
        sha.update((byte) (h >>> (8 * i)));
      }
    }
    byte[] hash = new byte[16];
    System.arraycopy(sha.digest(), 0, hash, 0, 16);
    return hash;
  }

  private static MessageDigest sha256() {
    MessageDigest sha = SHA256.get();
    sha.reset();
    return sha;
  }
}
