package dev.weir.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import dev.weir.common.kafka.DeploymentNames;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.connector.elasticsearch.SearchCluster;
import dev.weir.documents.ChangeTopicNames;
import dev.weir.documents.Definitions;
import dev.weir.documents.DocumentOptions;
import dev.weir.documents.definition.DocumentPlan;
import dev.weir.documents.definition.DocumentSpec;
import dev.weir.documents.index.ElasticsearchConnection;
import dev.weir.schema.Json;
import dev.weir.stack.FlinkCluster;
import dev.weir.stack.FlinkCluster.JobSummary;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A new definition applied to a running deployment without downtime. Beside the running
 * search-index job it starts a new generation ({@link WeirOptions#GENERATION}) on the new file: its
 * own copy tables, its own index behind its own write alias, its own consumer group, reading the
 * change topics from their beginning (the capture first restarted from a savepoint with the tables
 * the new file adds, which it then reads alone). Once that generation has read everything the
 * topics hold, the running job is cancelled, the new one reads what came meanwhile, and each
 * document's alias moves onto the new index in one alias update: searches see the old documents
 * until then and the new ones after, never a half-built index and never none. The old generation's
 * copy tables, indices and consumer group are dropped last.
 *
 * <p>Every step is read from the cluster (the jobs and the settings each published, the aliases),
 * so the command can be run again after any interruption and goes on where it was; {@link #abort}
 * stops and drops a generation not yet swapped in.
 */
final class DefinitionApply {

  static final String SEARCH_INDEX = "weir search-index";
  static final String CAPTURE = "weir cdc-catalog";

  /** The alias that marks the indices of a generation swapped out, until they are deleted. */
  static String retiredAlias(String alias) {
    return "weir-retired-" + alias;
  }

  private static final Set<String> ACTIVE =
      Set.of("CREATED", "INITIALIZING", "RUNNING", "RESTARTING", "FAILING", "RECONCILING");

  private final WeirConfig config;
  private final FlinkCluster flink;
  private final Path jar;
  private final Duration timeout;
  private final PrintWriter out;

  DefinitionApply(
      WeirConfig config, FlinkCluster flink, Path jar, Duration timeout, PrintWriter out) {
    this.config = config;
    this.flink = flink;
    this.jar = jar;
    this.timeout = timeout;
    this.out = out;
  }

  /** A job of the deployment, with the settings it was built with. */
  record Job(String id, String state, long startTime, Map<String, String> settings) {

    String generation() {
      return settings.getOrDefault(WeirOptions.GENERATION.key(), "");
    }

    int number() {
      String g = generation();
      return g.isEmpty() ? 1 : Integer.parseInt(g.substring(1));
    }

    String documents() {
      return settings.getOrDefault(DocumentOptions.DOCUMENTS.key(), "");
    }

    WeirConfig config() {
      return WeirConfig.from(settings, System.getenv());
    }

    /** The documents as this generation writes them (its copy tables, its write aliases). */
    List<DocumentSpec> written() {
      return Definitions.specs(config());
    }

    /** The documents as searches read them: each alias, by the spec this generation writes. */
    Map<String, DocumentSpec> searched() {
      Map<String, String> base = new LinkedHashMap<>(settings);
      base.remove(WeirOptions.GENERATION.key());
      List<DocumentSpec> specs = Definitions.specs(WeirConfig.from(base, System.getenv()));
      List<DocumentSpec> written = written();
      Map<String, DocumentSpec> byAlias = new LinkedHashMap<>();
      for (int i = 0; i < specs.size(); i++) {
        byAlias.put(specs.get(i).index(), written.get(i));
      }
      return byAlias;
    }

    boolean active() {
      return ACTIVE.contains(state);
    }
  }

  /** Applies {@code file}: starts, resumes or completes its generation. */
  void apply(Path file) throws Exception {
    String documents = file.toAbsolutePath().normalize().toString();
    List<Job> running = jobs(SEARCH_INDEX).stream().filter(Job::active).toList();
    if (running.isEmpty()) {
      throw new IllegalStateException(
          "no search-index of this deployment runs on "
              + flink.restUrl()
              + ": apply changes a running deployment (start one with `weir cluster submit"
              + " search-index --search.documents FILE`)");
    }
    if (running.size() > 2) {
      throw new IllegalStateException(
          "more than two generations of search-index run: " + ids(running));
    }
    Job latest = running.get(running.size() - 1);
    Job old = running.size() == 2 ? running.get(0) : null;
    if (!latest.documents().equals(documents)) {
      if (old != null || !swapped(latest)) {
        throw new IllegalStateException(
            "generation "
                + latest.generation()
                + " of "
                + latest.documents()
                + " is being applied: run apply with that file to finish it, or --abort");
      }
      old = latest;
      latest = start(old, documents);
    } else if (old == null && swapped(latest)) {
      out.println("already applied: generation " + name(latest) + " serves every alias");
      dropSwappedOut(latest);
      return;
    } else {
      out.println("resuming the apply of " + documents + " (generation " + name(latest) + ")");
    }
    if (old != null) {
      awaitNewTables(old, latest);
    }
    awaitCaughtUp(latest, "building");
    if (old != null) {
      out.println("caught up: stopping generation " + name(old) + " (job " + old.id() + ")");
      flink.cancel(old.id());
      awaitState(old.id(), "CANCELED");
      awaitCaughtUp(latest, "reading what came meanwhile");
    }
    swap(latest, old);
    dropSwappedOut(latest);
    out.println("applied: " + documents + " is generation " + name(latest));
    out.flush();
  }

  /** Stops and drops the generation of {@code file} being applied; the running one stays. */
  void abort(Path file) throws Exception {
    String documents = file.toAbsolutePath().normalize().toString();
    List<Job> running = jobs(SEARCH_INDEX).stream().filter(Job::active).toList();
    Job latest = running.isEmpty() ? null : running.get(running.size() - 1);
    if (latest != null && running.size() == 2 && !latest.documents().equals(documents)) {
      throw new IllegalStateException(
          "the generation being applied is of " + latest.documents() + ", not of " + documents);
    }
    if (latest == null || running.size() < 2) {
      throw new IllegalStateException(
          latest != null && !swapped(latest)
              ? "the generation being applied is the only one running (the old one was"
                  + " stopped): finish it with apply"
              : "no apply in progress on " + flink.restUrl());
    }
    flink.cancel(latest.id());
    awaitState(latest.id(), "CANCELED");
    out.println("generation " + name(latest) + " (job " + latest.id() + "): cancelled");
    drop(latest, latest.searched().values().stream().map(DocumentSpec::index).toList());
    out.println("aborted: " + running.get(0).documents() + " still serves every alias");
    out.flush();
  }

  private Job start(Job old, String documents) throws Exception {
    String generation = "g" + (old.number() + 1);
    Map<String, String> settings = new LinkedHashMap<>(old.settings());
    settings.remove("job");
    settings.put(DocumentOptions.DOCUMENTS.key(), documents);
    settings.put(WeirOptions.GENERATION.key(), generation);
    WeirConfig next = WeirConfig.from(settings, System.getenv());
    List<DocumentPlan> plans = Definitions.plans(next);
    out.printf(
        "applying %s as generation %s beside %s (job %s)%n",
        documents, generation, name(old), old.id());
    widenCapture(next, plans, documents);
    List<String> args = new ArrayList<>(List.of("--job", "search-index"));
    settings.forEach((k, v) -> args.addAll(List.of("--" + k, v)));
    String id = flink.submit(jar, "dev.weir.common.job.JobRunner", args, null, null);
    out.printf(
        "generation %s: job %s writes %s%n",
        generation, id, plans.stream().map(p -> p.copyTable() + " → " + p.index()).toList());
    out.flush();
    return new Job(id, "RUNNING", System.currentTimeMillis(), settings);
  }

  /**
   * Makes the capture carry every table the new documents read: restarted from a savepoint on its
   * files and the new one, it reads the snapshot of the tables it did not capture, alone. A capture
   * this command stopped and could not start again (an interrupted run) is started from the
   * savepoint it stopped with.
   */
  private void widenCapture(WeirConfig next, List<DocumentPlan> plans, String documents)
      throws Exception {
    List<Job> captures = jobs(CAPTURE);
    Optional<Job> capture = captures.stream().filter(Job::active).reduce((a, b) -> b);
    Optional<String> stopped = Optional.empty();
    if (capture.isEmpty() && !captures.isEmpty()) {
      Job last = captures.stream().max(Comparator.comparingLong(Job::startTime)).get();
      stopped = flink.savepointOf(last.id());
      capture = stopped.map(savepoint -> last);
    }
    Map<String, List<String>> missing = missing(plans, capture);
    if (missing.isEmpty()) {
      return;
    }
    if (capture.isEmpty()) {
      throw new IllegalStateException(
          "the new documents read tables no cdc-catalog of this deployment captures ("
              + missing
              + "): capture them first (nothing was changed)");
    }
    Job cdc = capture.get();
    if (cdc.documents().isEmpty()) {
      throw new IllegalStateException(
          "cdc-catalog (job "
              + cdc.id()
              + ") captures the bundled products definition: restart it with a definition file"
              + " before applying one that reads other tables ("
              + missing
              + ")");
    }
    String savepoint;
    if (stopped.isPresent()) {
      savepoint = stopped.get();
      out.printf("capture: starting cdc-catalog again from %s, with %s%n", savepoint, missing);
    } else {
      out.printf("capture: adding %s (cdc-catalog job %s, from a savepoint)%n", missing, cdc.id());
      out.flush();
      savepoint = flink.stopWithSavepoint(cdc.id());
    }
    Map<String, String> settings = new LinkedHashMap<>(cdc.settings());
    settings.remove("job");
    settings.put(DocumentOptions.DOCUMENTS.key(), captureFiles(cdc, documents));
    List<String> args = new ArrayList<>(List.of("--job", "cdc-catalog"));
    settings.forEach((k, v) -> args.addAll(List.of("--" + k, v)));
    String id = flink.submit(jar, "dev.weir.common.job.JobRunner", args, null, savepoint);
    out.printf("capture: cdc-catalog job %s reads the new tables' snapshot%n", id);
    out.flush();
  }

  /** The tables {@code plans} read that {@code capture} does not capture, by database. */
  private static Map<String, List<String>> missing(
      List<DocumentPlan> plans, Optional<Job> capture) {
    Map<String, Map<String, List<String>>> captured =
        capture.isPresent()
            ? Definitions.tablesByDatabase(Definitions.plans(capture.get().config()))
            : Map.of();
    Map<String, List<String>> missing = new LinkedHashMap<>();
    Definitions.tablesByDatabase(plans)
        .forEach(
            (database, tables) ->
                tables.keySet().stream()
                    .filter(t -> !captured.getOrDefault(database, Map.of()).containsKey(t))
                    .forEach(
                        t -> missing.computeIfAbsent(database, d -> new ArrayList<>()).add(t)));
    return missing;
  }

  /**
   * Waits until the change topic of each table the new generation reads and the old one does not
   * holds at least the rows the table has now: its snapshot is written (on every run, so that a
   * resumed apply never swaps before it).
   */
  private void awaitNewTables(Job old, Job next) throws Exception {
    WeirConfig c = next.config();
    Map<String, List<String>> added = missing(Definitions.plans(c), Optional.of(old));
    Map<String, Long> rows = new LinkedHashMap<>();
    for (var database : added.entrySet()) {
      try (Connection connection =
          PostgresConnectionProvider.open(c, Definitions.databaseUrl(c, database.getKey()))) {
        for (String table : database.getValue()) {
          try (ResultSet r =
              connection.createStatement().executeQuery("SELECT count(*) FROM " + table)) {
            r.next();
            String topic =
                ChangeTopicNames.of(c)
                    .topic(
                        database.getKey(),
                        table.substring(0, table.indexOf('.')),
                        table.substring(table.indexOf('.') + 1));
            rows.put(topic, r.getLong(1));
          }
        }
      }
    }
    try (GroupProgress progress = new GroupProgress(config)) {
      long deadline = System.nanoTime() + timeout.toNanos();
      for (var table : rows.entrySet()) {
        while (progress.records(table.getKey()) < table.getValue()) {
          if (System.nanoTime() > deadline) {
            throw new IllegalStateException(
                "the capture has not written the snapshot of "
                    + table.getKey()
                    + " within "
                    + timeout
                    + ": see cdc-catalog's log; run apply again to go on");
          }
          Thread.sleep(500);
        }
      }
    }
    if (!rows.isEmpty()) {
      out.println("capture: the new tables' snapshot is written (" + rows.keySet() + ")");
    }
  }

  /**
   * The capture's files once {@code documents} is added: its own, less those only generations
   * already swapped out read, so that the list does not grow with every apply.
   */
  private String captureFiles(Job capture, String documents) throws Exception {
    Set<String> retired = new LinkedHashSet<>();
    Set<String> live = new LinkedHashSet<>();
    for (Job j : jobs(SEARCH_INDEX)) {
      (j.active() ? live : retired).add(j.documents());
    }
    retired.removeAll(live);
    Set<String> files = new LinkedHashSet<>();
    for (String file : capture.documents().split(",")) {
      if (!retired.contains(file.strip())) {
        files.add(file.strip());
      }
    }
    files.add(documents);
    return String.join(",", files);
  }

  /** Waits until the generation's consumer group has read everything its topics hold now. */
  private void awaitCaughtUp(Job job, String doing) throws Exception {
    WeirConfig c = job.config();
    String group = DeploymentNames.groupId(c, "search-index");
    List<String> topics = Definitions.topics(c, Definitions.plans(c));
    long deadline = System.nanoTime() + timeout.toNanos();
    long shown = 0;
    try (GroupProgress progress = new GroupProgress(config)) {
      while (true) {
        String state = flink.job(job.id()).state();
        if (!ACTIVE.contains(state)) {
          throw new IllegalStateException(
              "generation " + name(job) + " (job " + job.id() + ") is " + state + ": see its log");
        }
        long behind = progress.behind(group, topics);
        if (behind == 0) {
          return;
        }
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "generation "
                  + name(job)
                  + " is still "
                  + behind
                  + " change records behind after "
                  + timeout
                  + ": run apply again to go on waiting, or --abort");
        }
        if (System.nanoTime() - shown > Duration.ofSeconds(5).toNanos()) {
          out.printf("generation %s %s: %,d change records to read%n", name(job), doing, behind);
          out.flush();
          shown = System.nanoTime();
        }
        Thread.sleep(500);
      }
    }
  }

  /**
   * In one alias update: each document's alias onto the new generation's index, off the old one
   * (and off a document the new file no longer has), the old indices marked retired.
   */
  private void swap(Job next, Job old) throws Exception {
    Map<String, DocumentSpec> searched = next.searched();
    Set<String> aliases = new LinkedHashSet<>(searched.keySet());
    if (old != null) {
      aliases.addAll(old.searched().keySet());
    }
    try (SearchCluster cluster = ElasticsearchConnection.cluster(config)) {
      ArrayNode actions = Json.mapper().createArrayNode();
      for (String alias : aliases) {
        Set<String> target =
            searched.containsKey(alias)
                ? cluster.indicesBehind(searched.get(alias).index())
                : Set.of();
        Set<String> current = cluster.aliasExists(alias) ? cluster.indicesBehind(alias) : Set.of();
        for (String index : current) {
          if (!target.contains(index)) {
            actions.add(SearchCluster.aliasAction("remove", index, alias));
            actions.add(SearchCluster.aliasAction("add", index, retiredAlias(alias)));
          }
        }
        for (String index : target) {
          if (!current.contains(index)) {
            // What the generation has written becomes searchable before searches reach it.
            cluster.refresh(index);
            actions.add(SearchCluster.aliasAction("add", index, alias));
          }
        }
      }
      if (!actions.isEmpty()) {
        cluster.updateAliases(actions);
      }
      out.println("swapped: " + aliases + " now read generation " + name(next));
    }
  }

  /** Drops what the generations before {@code current} alone used. */
  private void dropSwappedOut(Job current) throws Exception {
    for (Job earlier : jobs(SEARCH_INDEX)) {
      if (!earlier.active() && earlier.number() < current.number()) {
        drop(earlier, List.of());
      }
    }
    try (SearchCluster cluster = ElasticsearchConnection.cluster(config)) {
      for (String alias : current.searched().keySet()) {
        String retired = retiredAlias(alias);
        if (cluster.aliasExists(retired)) {
          for (String index : cluster.indicesBehind(retired)) {
            cluster.deleteIndex(index);
            out.println("index " + index + " (swapped out of " + alias + "): deleted");
          }
        }
      }
    }
  }

  /**
   * Drops a generation's copy tables and consumer group, and the indices behind those of its write
   * aliases {@code writeAliases} names, unless an alias searches read is on them.
   */
  private void drop(Job job, List<String> writeAliases) throws Exception {
    Set<String> liveCopyTables = liveCopyTables();
    Map<String, DocumentSpec> searched = job.searched();
    try (Connection copy = PostgresConnectionProvider.open(config);
        SearchCluster cluster = ElasticsearchConnection.cluster(config);
        GroupProgress groups = new GroupProgress(config)) {
      for (var document : searched.entrySet()) {
        DocumentSpec written = document.getValue();
        Set<String> served =
            cluster.aliasExists(document.getKey())
                ? cluster.indicesBehind(document.getKey())
                : Set.of();
        if (cluster.aliasExists(written.index()) && writeAliases.contains(written.index())) {
          for (String index : cluster.indicesBehind(written.index())) {
            if (!served.contains(index)) {
              cluster.deleteIndex(index);
              out.println("index " + index + ": deleted");
            }
          }
        }
        if (!liveCopyTables.contains(written.copyTable())) {
          copy.createStatement()
              .execute(
                  "DROP TABLE IF EXISTS \"" + written.copyTable().replace("\"", "\"\"") + "\"");
          out.println("copy table " + written.copyTable() + ": dropped");
        }
      }
      groups.delete(DeploymentNames.groupId(job.config(), "search-index"));
    }
  }

  /** The copy tables of the generations running now. */
  private Set<String> liveCopyTables() throws Exception {
    Set<String> tables = new LinkedHashSet<>();
    for (Job j : jobs(SEARCH_INDEX)) {
      if (j.active()) {
        j.written().forEach(d -> tables.add(d.copyTable()));
      }
    }
    return tables;
  }

  private boolean swapped(Job job) throws Exception {
    try (SearchCluster cluster = ElasticsearchConnection.cluster(config)) {
      for (var document : job.searched().entrySet()) {
        String written = document.getValue().index();
        if (!cluster.aliasExists(document.getKey())
            || !cluster.aliasExists(written)
            || !cluster.indicesBehind(document.getKey()).equals(cluster.indicesBehind(written))) {
          return false;
        }
      }
      return true;
    }
  }

  /** The deployment's jobs of one kind (its deployment.id), the oldest generation first. */
  private List<Job> jobs(String name) throws Exception {
    String deployment = config.getOptional(WeirOptions.DEPLOYMENT_ID).orElse("");
    List<Job> jobs = new ArrayList<>();
    for (JobSummary j : flink.jobs()) {
      if (j.name().equals(name)) {
        Map<String, String> settings = flink.jobSettings(j.id());
        if (settings.getOrDefault(WeirOptions.DEPLOYMENT_ID.key(), "").equals(deployment)) {
          jobs.add(new Job(j.id(), j.state(), j.startTime(), settings));
        }
      }
    }
    jobs.sort(Comparator.comparingInt(Job::number).thenComparingLong(Job::startTime));
    return jobs;
  }

  private void awaitState(String jobId, String state) throws Exception {
    long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
    while (!flink.job(jobId).state().equals(state)) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("job " + jobId + " is not " + state + " after 2 minutes");
      }
      Thread.sleep(250);
    }
  }

  private static String name(Job job) {
    return job.generation().isEmpty() ? "g1" : job.generation();
  }

  private static List<String> ids(List<Job> jobs) {
    return jobs.stream().map(Job::id).toList();
  }
}
