package dev.weir.stack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.HexFormat;

/** The local stack's generated passwords: one file each, readable by its owner only. */
final class Secrets {

  private Secrets() {}

  /** The password kept in {@code file}, made (random, 36 hex digits) when there is none yet. */
  static String generated(Path file) {
    try {
      if (!Files.exists(file)) {
        Files.createDirectories(file.getParent());
        byte[] random = new byte[18];
        new SecureRandom().nextBytes(random);
        Files.writeString(file, HexFormat.of().formatHex(random));
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
      }
      return Files.readString(file).trim();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
