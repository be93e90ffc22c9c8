package dev.weir.bench.scale;

import dev.weir.bench.support.RawBulk;
import dev.weir.connector.elasticsearch.DocumentOperation;
import dev.weir.connector.elasticsearch.SearchCluster;
import dev.weir.documents.copy.DocumentCopy;
import dev.weir.documents.copy.DocumentCopy.CopiedDocument;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@link RawBulk} for documents that do not fit in memory: the same bulk requests ({@value
 * RawBulk#BATCH} documents with external versions), written ready to a file first and read back
 * from it while loading, nothing else done. The documents are a copy's (those the streaming job
 * wrote and indexed).
 */
final class RawBulkFile {

  /** Documents read from the copy at a time. */
  private static final int READ_RANGE = 10_000;

  private final Path file;

  /** Each bulk body in the file: where it starts and how long it is. */
  private final List<long[]> bodies;

  private final long documents;

  private RawBulkFile(Path file, List<long[]> bodies, long documents) {
    this.file = file;
    this.bodies = bodies;
    this.documents = documents;
  }

  long documents() {
    return documents;
  }

  /** Bytes of the documents and their bulk actions. */
  long bytes() throws IOException {
    return Files.size(file);
  }

  /** Every document of {@code copy} as bulk bodies into {@code index}, written to {@code file}. */
  static RawBulkFile write(Connection c, DocumentCopy copy, String index, Path file)
      throws Exception {
    Files.createDirectories(file.toAbsolutePath().getParent());
    List<long[]> bodies = new ArrayList<>();
    long documents = 0;
    try (FileChannel out =
        FileChannel.open(
            file,
            StandardOpenOption.CREATE,
            StandardOpenOption.TRUNCATE_EXISTING,
            StandardOpenOption.WRITE)) {
      List<String> starts = copy.splitStarts(c, READ_RANGE);
      List<DocumentOperation> batch = new ArrayList<>(RawBulk.BATCH);
      for (int i = 0; i < starts.size(); i++) {
        String until = i + 1 < starts.size() ? starts.get(i + 1) : null;
        for (CopiedDocument d : copy.readRange(c, starts.get(i), until)) {
          batch.add(DocumentOperation.index(index, d.id(), d.version(), d.source()));
          documents++;
          if (batch.size() == RawBulk.BATCH) {
            bodies.add(append(out, RawBulk.body(index, batch)));
            batch.clear();
          }
        }
      }
      if (!batch.isEmpty()) {
        bodies.add(append(out, RawBulk.body(index, batch)));
      }
    }
    return new RawBulkFile(file, bodies, documents);
  }

  private static long[] append(FileChannel out, byte[] body) throws IOException {
    long at = out.position();
    out.write(ByteBuffer.wrap(body));
    return new long[] {at, body.length};
  }

  /**
   * Sends every body, {@code loaders} requests at a time, each loader taking the next body; returns
   * when the last is answered.
   */
  void send(SearchCluster es, int loaders) throws Exception {
    AtomicInteger next = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(loaders);
    try (FileChannel in = FileChannel.open(file, StandardOpenOption.READ)) {
      List<Future<?>> running = new ArrayList<>();
      for (int l = 0; l < loaders; l++) {
        running.add(
            pool.submit(
                () -> {
                  for (int i = next.getAndIncrement();
                      i < bodies.size();
                      i = next.getAndIncrement()) {
                    ByteBuffer bytes = ByteBuffer.allocate((int) bodies.get(i)[1]);
                    while (bytes.hasRemaining()) {
                      in.read(bytes, bodies.get(i)[0] + bytes.position());
                    }
                    RawBulk.send(es, bytes.array());
                  }
                  return null;
                }));
      }
      for (Future<?> f : running) {
        f.get();
      }
    } finally {
      pool.shutdown();
    }
  }
}
