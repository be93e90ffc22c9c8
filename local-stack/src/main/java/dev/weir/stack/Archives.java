package dev.weir.stack;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Comparator;
import java.util.Enumeration;
import java.util.HashSet;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.archivers.zip.ZipArchiveEntry;
import org.apache.commons.compress.archivers.zip.ZipFile;
import org.apache.commons.compress.compressors.xz.XZCompressorInputStream;

/** Unpacks service distributions once, atomically, keeping file modes and symbolic links. */
final class Archives {

  private Archives() {}

  /**
   * Unpacks a zip whose entries sit under one top folder into {@code target} (that folder
   * stripped).
   */
  static void unzipOnce(Path zip, Path target) {
    unpackOnce(
        target,
        tmp -> {
          try (ZipFile file = ZipFile.builder().setPath(zip).get()) {
            Enumeration<ZipArchiveEntry> entries = file.getEntries();
            while (entries.hasMoreElements()) {
              ZipArchiveEntry entry = entries.nextElement();
              Path out = safeResolve(tmp, stripTop(entry.getName()));
              if (out == null) {
                continue;
              }
              if (entry.isDirectory()) {
                Files.createDirectories(out);
                continue;
              }
              Files.createDirectories(out.getParent());
              try (InputStream in = file.getInputStream(entry)) {
                Files.copy(in, out, StandardCopyOption.REPLACE_EXISTING);
              }
              applyMode(out, entry.getUnixMode());
            }
          }
        });
  }

  /**
   * Unpacks a .txz stream (as found inside the zonky PostgreSQL binaries jar) into {@code target}.
   */
  static void untarXzOnce(InputStream txz, Path target) {
    unpackOnce(
        target,
        tmp -> {
          try (TarArchiveInputStream tar =
              new TarArchiveInputStream(
                  new XZCompressorInputStream(new BufferedInputStream(txz)))) {
            TarArchiveEntry entry;
            while ((entry = tar.getNextEntry()) != null) {
              Path out = safeResolve(tmp, entry.getName());
              if (out == null) {
                continue;
              }
              if (entry.isDirectory()) {
                Files.createDirectories(out);
              } else if (entry.isSymbolicLink()) {
                Files.createDirectories(out.getParent());
                Files.deleteIfExists(out);
                Files.createSymbolicLink(out, Path.of(entry.getLinkName()));
              } else {
                Files.createDirectories(out.getParent());
                Files.copy(tar, out, StandardCopyOption.REPLACE_EXISTING);
                applyMode(out, entry.getMode());
              }
            }
          }
        });
  }

  private interface Unpacker {
    void unpack(Path into) throws IOException;
  }

  private static void unpackOnce(Path target, Unpacker unpacker) {
    Path done = target.resolve(".unpacked");
    if (Files.exists(done)) {
      return;
    }
    Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
    try {
      deleteRecursively(tmp);
      deleteRecursively(target);
      Files.createDirectories(tmp);
      unpacker.unpack(tmp);
      Files.createFile(tmp.resolve(".unpacked"));
      Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot unpack into " + target, e);
    }
  }

  static void deleteRecursively(Path path) throws IOException {
    if (!Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(path)) {
      for (Path p : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
        Files.delete(p);
      }
    }
  }

  private static String stripTop(String name) {
    int slash = name.indexOf('/');
    return slash < 0 ? "" : name.substring(slash + 1);
  }

  private static Path safeResolve(Path root, String name) {
    if (name.isEmpty()) {
      return null;
    }
    Path out = root.resolve(name).normalize();
    if (!out.startsWith(root)) {
      throw new IllegalStateException("archive entry escapes its folder: " + name);
    }
    return out;
  }

  private static void applyMode(Path file, int mode) throws IOException {
    if (mode == 0) {
      return;
    }
    Set<PosixFilePermission> perms = new HashSet<>();
    PosixFilePermission[] bits = {
      PosixFilePermission.OTHERS_EXECUTE, PosixFilePermission.OTHERS_WRITE,
          PosixFilePermission.OTHERS_READ,
      PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.GROUP_WRITE,
          PosixFilePermission.GROUP_READ,
      PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.OWNER_WRITE,
          PosixFilePermission.OWNER_READ
    };
    for (int i = 0; i < bits.length; i++) {
      if ((mode & (1 << i)) != 0) {
        perms.add(bits[i]);
      }
    }
    Files.setPosixFilePermissions(file, perms);
  }
}
