package dev.weir.bench.support;

import dev.weir.common.config.WeirConfig;
import dev.weir.common.kafka.KafkaClients;
import dev.weir.common.kafka.KafkaTopics;
import dev.weir.common.postgres.PostgresConnectionProvider;
import dev.weir.connector.elasticsearch.DocumentOperation;
import dev.weir.connector.elasticsearch.SearchCluster;
import dev.weir.documents.index.ElasticsearchConnection;
import dev.weir.schema.Json;
import dev.weir.stack.LocalStack;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.postgresql.PGConnection;

/**
 * A load generator with the knobs of the DocumentDB elastic-cluster insert benchmark (document
 * size, secondary indexes, batch size, client concurrency, a count or a duration) plus key skew and
 * repeat ratio, aimed at the raw services: it measures what Kafka, PostgreSQL and Elasticsearch
 * take on this machine, the limits a job's throughput is compared with. {@code weir bench load}.
 *
 * <p>Record {@code i} has a key: a new one, or with probability {@code repeat} one already used,
 * drawn with {@code skew} (0: any earlier key alike; towards 1: mostly the first keys, as hot keys
 * are). Its document is JSON of about {@code docSize} bytes: id, tenant, category, a time and a
 * random text body; PostgreSQL and Elasticsearch index {@code indexes} of tenant, category and time
 * besides the key.
 */
public final class LoadGenerator {

  /** What is loaded. */
  public enum Target {
    KAFKA_PRODUCE("Kafka produce"),
    KAFKA_CONSUME("Kafka consume"),
    POSTGRES_UPSERT("PostgreSQL batched upsert"),
    POSTGRES_COPY("PostgreSQL COPY"),
    ELASTICSEARCH_BULK("Elasticsearch bulk");

    public final String label;

    Target(String label) {
      this.label = label;
    }
  }

  /** The knobs. {@code duration} non-zero: run that long, whatever {@code count}. */
  public record Knobs(
      int docSize,
      int indexes,
      int batchSize,
      int concurrency,
      long count,
      Duration duration,
      double skew,
      double repeat) {

    public Knobs {
      if (docSize < 64 || indexes < 0 || indexes > 3 || batchSize < 1 || concurrency < 1) {
        throw new IllegalArgumentException(
            "doc size ≥ 64 bytes, 0-3 secondary indexes, batch ≥ 1, concurrency ≥ 1");
      }
      if (skew < 0 || skew >= 1 || repeat < 0 || repeat > 1) {
        throw new IllegalArgumentException("skew in [0, 1), repeat in [0, 1]");
      }
    }

    public String describe() {
      return String.format(
          "%,d B documents, %d secondary index(es), batches of %,d, concurrency %d, %s, skew %.2f,"
              + " repeat %.2f",
          docSize,
          indexes,
          batchSize,
          concurrency,
          duration.isZero() ? String.format("%,d records", count) : duration.toSeconds() + " s",
          skew,
          repeat);
    }
  }

  /** What one load achieved. */
  public record Result(Target target, long records, long bytes, double seconds) {
    public double recordsPerSecond() {
      return records / seconds;
    }

    public double megabytesPerSecond() {
      return bytes / seconds / 1e6;
    }
  }

  private LoadGenerator() {}

  /** Runs one load against the service in {@code config} and measures it. */
  public static Result run(WeirConfig config, Target target, Knobs knobs) throws Exception {
    String name = "bench_load_" + UUID.randomUUID().toString().substring(0, 8);
    return switch (target) {
      case KAFKA_PRODUCE, KAFKA_CONSUME -> kafka(config, name, target, knobs);
      case POSTGRES_UPSERT, POSTGRES_COPY -> postgres(config, name, target, knobs);
      case ELASTICSEARCH_BULK -> elasticsearch(config, name.replace('_', '-'), knobs);
    };
  }

  /** A load through a topic of its own, deleted afterwards (a full run writes gigabytes). */
  private static Result kafka(WeirConfig config, String topic, Target target, Knobs knobs)
      throws Exception {
    try {
      Result produced = kafkaProduce(config, topic, knobs);
      return target == Target.KAFKA_PRODUCE
          ? produced
          : kafkaConsume(config, topic, produced.records());
    } finally {
      KafkaTopics.deleteTopics(config, List.of(topic));
    }
  }

  // --- the records

  /** The key of record {@code i}. */
  static long key(long i, Knobs knobs, SplittableRandom random) {
    if (i == 0 || random.nextDouble() >= knobs.repeat()) {
      return i;
    }
    // u^(1/(1-skew)) leans towards 0, the more the higher the skew: hot keys.
    double u = Math.pow(random.nextDouble(), 1 / (1 - knobs.skew()));
    return (long) (u * i);
  }

  static String document(long key, Knobs knobs, SplittableRandom random) {
    String head =
        "{\"id\":"
            + key
            + ",\"tenant\":"
            + key % 100
            + ",\"category\":"
            + key % 50
            + ",\"ts\":\""
            + Instant.ofEpochSecond(1_780_000_000L + key)
            + "\",\"body\":\"";
    StringBuilder body = new StringBuilder(knobs.docSize());
    body.append(head);
    while (body.length() < knobs.docSize() - 2) {
      body.append((char) ('a' + random.nextInt(26)));
      if (random.nextInt(7) == 0) {
        body.append(' ');
      }
    }
    return body.append("\"}").toString();
  }

  /** Documents made per client thread before a load starts, sent in turn. */
  static final int MADE_PER_THREAD = 2_048;

  /**
   * Runs {@code knobs} against {@code target} in a JVM of its own (the client's CPU and memory not
   * shared with the caller's), on the stack this process's environment names; a fresh database for
   * PostgreSQL.
   */
  public static Result inOwnProcess(Target target, Knobs knobs) throws Exception {
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    Process p =
        new ProcessBuilder(
                java.toString(),
                "-cp",
                System.getProperty("java.class.path"),
                Client.class.getName(),
                target.name(),
                Integer.toString(knobs.docSize()),
                Integer.toString(knobs.indexes()),
                Integer.toString(knobs.batchSize()),
                Integer.toString(knobs.concurrency()),
                Long.toString(knobs.count()),
                Long.toString(knobs.duration().toMillis()),
                Double.toString(knobs.skew()),
                Double.toString(knobs.repeat()))
            .redirectErrorStream(true)
            .start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    int exit = p.waitFor();
    String[] lines = output.strip().split("\n");
    String last = lines[lines.length - 1];
    if (exit != 0 || !last.startsWith(Client.RESULT)) {
      throw new IllegalStateException(
          "the load client for " + target.label + " failed (exit " + exit + "):\n" + output);
    }
    String[] f = last.substring(Client.RESULT.length()).trim().split(" ");
    return new Result(target, Long.parseLong(f[0]), Long.parseLong(f[1]), Double.parseDouble(f[2]));
  }

  /** The load client's JVM: one load, its result on the last line of its output. */
  static final class Client {
    static final String RESULT = "load-result:";

    public static void main(String[] args) throws Exception {
      Target target = Target.valueOf(args[0]);
      Knobs knobs =
          new Knobs(
              Integer.parseInt(args[1]),
              Integer.parseInt(args[2]),
              Integer.parseInt(args[3]),
              Integer.parseInt(args[4]),
              Long.parseLong(args[5]),
              Duration.ofMillis(Long.parseLong(args[6])),
              Double.parseDouble(args[7]),
              Double.parseDouble(args[8]));
      LocalStack stack = LocalStack.fromEnvironment();
      Result r =
          run(BenchEnvironment.freshDatabase(stack, stack.up(), "bench_load"), target, knobs);
      System.out.println(RESULT + " " + r.records() + " " + r.bytes() + " " + r.seconds());
      System.exit(0); // the clients' threads are done; do not wait for their pools' timeouts
    }

    private Client() {}
  }

  /** Runs the load on {@code concurrency} threads; each calls {@code batch} until done. */
  private static Result drive(Target target, Knobs knobs, BatchWriter writer) throws Exception {
    AtomicLong next = new AtomicLong();
    AtomicLong written = new AtomicLong();
    AtomicLong bytes = new AtomicLong();
    long deadline =
        knobs.duration().isZero() ? Long.MAX_VALUE : System.nanoTime() + knobs.duration().toNanos();
    // The documents are made before the clock starts: each thread cycles through its own.
    List<List<String>> made = new ArrayList<>();
    for (int t = 0; t < knobs.concurrency(); t++) {
      SplittableRandom random = new SplittableRandom(1000 + t);
      List<String> docs = new ArrayList<>(MADE_PER_THREAD);
      for (int i = 0; i < MADE_PER_THREAD; i++) {
        docs.add(document(i, knobs, random));
      }
      made.add(docs);
    }
    ExecutorService threads = Executors.newFixedThreadPool(knobs.concurrency());
    long start = System.nanoTime();
    try {
      List<Future<?>> running = new ArrayList<>();
      for (int t = 0; t < knobs.concurrency(); t++) {
        int thread = t;
        running.add(
            threads.submit(
                () -> {
                  SplittableRandom random = new SplittableRandom(thread);
                  while (System.nanoTime() < deadline) {
                    long first = next.getAndAdd(knobs.batchSize());
                    long end =
                        knobs.duration().isZero()
                            ? Math.min(first + knobs.batchSize(), knobs.count())
                            : first + knobs.batchSize();
                    if (first >= end) {
                      return null;
                    }
                    List<Long> keys = new ArrayList<>();
                    List<String> docs = new ArrayList<>();
                    long size = 0;
                    for (long i = first; i < end; i++) {
                      long key = key(i, knobs, random);
                      keys.add(key);
                      String doc = made.get(thread).get((int) (i % MADE_PER_THREAD));
                      docs.add(doc);
                      size += doc.length();
                    }
                    writer.write(thread, keys, docs);
                    written.addAndGet(keys.size());
                    bytes.addAndGet(size);
                  }
                  return null;
                }));
      }
      for (Future<?> f : running) {
        f.get();
      }
    } finally {
      threads.shutdownNow();
    }
    writer.finish(); // what was sent is also received (flushed) before the clock stops
    double seconds = (System.nanoTime() - start) / 1e9;
    return new Result(target, written.get(), bytes.get(), seconds);
  }

  @FunctionalInterface
  private interface BatchWriter {
    void write(int thread, List<Long> keys, List<String> docs) throws Exception;

    default void finish() throws Exception {}
  }

  // --- Kafka

  private static Result kafkaProduce(WeirConfig config, String topic, Knobs knobs)
      throws Exception {
    KafkaTopics.createTopicsIfMissing(config, List.of(topic), Math.max(2, knobs.concurrency()));
    List<KafkaProducer<byte[], byte[]>> producers = new ArrayList<>();
    for (int t = 0; t < knobs.concurrency(); t++) {
      Properties props = KafkaClients.clientProperties(config);
      props.setProperty(ProducerConfig.ACKS_CONFIG, "all");
      props.setProperty(ProducerConfig.LINGER_MS_CONFIG, "5");
      props.setProperty(
          ProducerConfig.BATCH_SIZE_CONFIG,
          Integer.toString(Math.min(1 << 20, knobs.batchSize() * knobs.docSize())));
      producers.add(
          new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer()));
    }
    try {
      return drive(
          Target.KAFKA_PRODUCE,
          knobs,
          new BatchWriter() {
            @Override
            public void write(int thread, List<Long> keys, List<String> docs) {
              KafkaProducer<byte[], byte[]> producer = producers.get(thread);
              for (int i = 0; i < docs.size(); i++) {
                producer.send(
                    new ProducerRecord<>(
                        topic,
                        Long.toString(keys.get(i)).getBytes(StandardCharsets.UTF_8),
                        docs.get(i).getBytes(StandardCharsets.UTF_8)));
              }
            }

            @Override
            public void finish() {
              producers.forEach(KafkaProducer::flush);
            }
          });
    } finally {
      producers.forEach(KafkaProducer::close);
    }
  }

  private static Result kafkaConsume(WeirConfig config, String topic, long records) {
    Properties props = KafkaClients.clientProperties(config);
    props.setProperty(ConsumerConfig.GROUP_ID_CONFIG, topic);
    props.setProperty(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    props.setProperty(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
    long read = 0;
    long bytes = 0;
    long start = System.nanoTime();
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      consumer.subscribe(List.of(topic));
      long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
      while (read < records && System.nanoTime() < deadline) {
        for (var r : consumer.poll(Duration.ofMillis(200))) {
          read++;
          bytes += r.value().length;
        }
      }
    }
    return new Result(Target.KAFKA_CONSUME, read, bytes, (System.nanoTime() - start) / 1e9);
  }

  // --- PostgreSQL

  private static Result postgres(WeirConfig config, String table, Target target, Knobs knobs)
      throws Exception {
    boolean copy = target == Target.POSTGRES_COPY;
    try (Connection c = PostgresConnectionProvider.open(config);
        Statement s = c.createStatement()) {
      // COPY appends: its table has no key to conflict on, only the secondary indexes.
      s.execute(
          "CREATE TABLE "
              + table
              + " (id bigint"
              + (copy ? "" : " PRIMARY KEY")
              + ", tenant int, category int, ts timestamptz, body text)");
      String[] columns = {"tenant", "category", "ts"};
      for (int i = 0; i < knobs.indexes(); i++) {
        s.execute("CREATE INDEX ON " + table + " (" + columns[i] + ")");
      }
    }
    List<Connection> connections = new ArrayList<>();
    for (int t = 0; t < knobs.concurrency(); t++) {
      Connection c = PostgresConnectionProvider.open(config);
      c.setAutoCommit(false);
      connections.add(c);
    }
    String upsert =
        "INSERT INTO "
            + table
            + " (id, tenant, category, ts, body) VALUES (?, ?, ?, ?::timestamptz, ?)"
            + " ON CONFLICT (id) DO UPDATE SET tenant = excluded.tenant, category ="
            + " excluded.category, ts = excluded.ts, body = excluded.body";
    try {
      return drive(
          target,
          knobs,
          (thread, keys, docs) -> {
            Connection c = connections.get(thread);
            if (copy) {
              StringBuilder rows = new StringBuilder();
              for (int i = 0; i < keys.size(); i++) {
                long key = keys.get(i);
                rows.append(key)
                    .append('\t')
                    .append(key % 100)
                    .append('\t')
                    .append(key % 50)
                    .append('\t')
                    .append(Instant.ofEpochSecond(1_780_000_000L + key))
                    .append('\t')
                    .append(docs.get(i).replace("\\", "\\\\"))
                    .append('\n');
              }
              c.unwrap(PGConnection.class)
                  .getCopyAPI()
                  .copyIn("COPY " + table + " FROM STDIN", new StringReader(rows.toString()));
            } else {
              // One key once per batch: a batch may not update a row twice.
              Map<Long, String> unique = new LinkedHashMap<>();
              for (int i = 0; i < keys.size(); i++) {
                unique.put(keys.get(i), docs.get(i));
              }
              try (PreparedStatement ps = c.prepareStatement(upsert)) {
                for (var e : unique.entrySet()) {
                  long key = e.getKey();
                  ps.setLong(1, key);
                  ps.setInt(2, (int) (key % 100));
                  ps.setInt(3, (int) (key % 50));
                  ps.setString(4, Instant.ofEpochSecond(1_780_000_000L + key).toString());
                  ps.setString(5, e.getValue());
                  ps.addBatch();
                }
                ps.executeBatch();
              }
            }
            c.commit();
          });
    } finally {
      for (Connection c : connections) {
        c.close();
      }
      try (Connection c = PostgresConnectionProvider.open(config);
          Statement s = c.createStatement()) {
        s.execute("DROP TABLE IF EXISTS " + table);
      }
    }
  }

  // --- Elasticsearch

  private static Result elasticsearch(WeirConfig config, String index, Knobs knobs)
      throws Exception {
    SearchCluster es = ElasticsearchConnection.cluster(config);
    String[] fields = {"tenant", "category", "ts"};
    StringBuilder properties = new StringBuilder("\"id\":{\"type\":\"long\"}");
    for (int i = 0; i < fields.length; i++) {
      String type = i == 2 ? "date" : "integer";
      properties
          .append(",\"")
          .append(fields[i])
          .append("\":{\"type\":\"")
          .append(type)
          .append("\"")
          .append(i < knobs.indexes() ? "" : ",\"index\":false,\"doc_values\":false")
          .append('}');
    }
    properties.append(",\"body\":{\"type\":\"text\"}");
    es.createIndex(
        index,
        Json.mapper()
            .readTree(
                "{\"settings\":{\"number_of_shards\":1,\"number_of_replicas\":0},"
                    + "\"mappings\":{\"dynamic\":\"strict\",\"properties\":{"
                    + properties
                    + "}}}"));
    try {
      return drive(
          Target.ELASTICSEARCH_BULK,
          knobs,
          (thread, keys, docs) -> {
            List<DocumentOperation> ops = new ArrayList<>();
            for (int i = 0; i < keys.size(); i++) {
              ops.add(
                  DocumentOperation.index(
                      index,
                      Long.toString(keys.get(i)),
                      DocumentOperation.NO_VERSION,
                      docs.get(i).getBytes(StandardCharsets.UTF_8)));
            }
            RawBulk.bulk(es, index, ops);
          });
    } finally {
      es.deleteIndex(index);
      es.close();
    }
  }
}
