package dev.weir.identity;

import com.google.spanner.v1.CommitRequest;
import com.google.spanner.v1.Mutation;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall.SimpleForwardingClientCall;
import io.grpc.ForwardingClientCallListener.SimpleForwardingClientCallListener;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What this process's Spanner clients ({@link SpannerClients}) sent: round trips (gRPC calls of
 * every kind, the client's own begins, retries and session calls included) and mutations committed,
 * counted as Spanner counts them against its per-commit limit: one per column value written, one
 * per row or range deleted (the client packs a commit's rows of one table into one proto). Logged
 * when a client closes; the benchmark reads it to compare ways of writing.
 */
public final class SpannerCalls {

  /** Counts every call of the clients it is installed in. */
  static final ClientInterceptor COUNTER = new Counter();

  private static final AtomicLong CALLS = new AtomicLong();
  private static final AtomicLong COMMITS = new AtomicLong();
  private static final AtomicLong ABORTED = new AtomicLong();
  private static final AtomicLong MUTATIONS = new AtomicLong();

  /** Totals since the process started. */
  public record Total(long calls, long commits, long aborted, long mutations) {

    /** What was sent between {@code earlier} and this. */
    public Total minus(Total earlier) {
      return new Total(
          calls - earlier.calls,
          commits - earlier.commits,
          aborted - earlier.aborted,
          mutations - earlier.mutations);
    }

    @Override
    public String toString() {
      return String.format(
          "%d calls, %d commits, %d aborted, %d mutations so far",
          calls, commits, aborted, mutations);
    }
  }

  private SpannerCalls() {}

  public static Total total() {
    return new Total(CALLS.get(), COMMITS.get(), ABORTED.get(), MUTATIONS.get());
  }

  static long mutations(CommitRequest commit) {
    long n = 0;
    for (Mutation m : commit.getMutationsList()) {
      n +=
          switch (m.getOperationCase()) {
            case INSERT -> cells(m.getInsert());
            case UPDATE -> cells(m.getUpdate());
            case INSERT_OR_UPDATE -> cells(m.getInsertOrUpdate());
            case REPLACE -> cells(m.getReplace());
            case DELETE ->
                m.getDelete().getKeySet().getKeysCount()
                    + m.getDelete().getKeySet().getRangesCount()
                    + (m.getDelete().getKeySet().getAll() ? 1 : 0);
            default -> 1;
          };
    }
    return n;
  }

  private static long cells(Mutation.Write write) {
    return (long) write.getValuesCount() * write.getColumnsCount();
  }

  private static final class Counter implements ClientInterceptor {
    @Override
    public <Q, R> ClientCall<Q, R> interceptCall(
        MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
      CALLS.incrementAndGet();
      return new SimpleForwardingClientCall<>(next.newCall(method, options)) {
        @Override
        public void start(Listener<R> listener, Metadata headers) {
          super.start(
              new SimpleForwardingClientCallListener<>(listener) {
                @Override
                public void onClose(Status status, Metadata trailers) {
                  if (status.getCode() == Status.Code.ABORTED) {
                    ABORTED.incrementAndGet();
                  }
                  super.onClose(status, trailers);
                }
              },
              headers);
        }

        @Override
        public void sendMessage(Q message) {
          if (message instanceof CommitRequest commit) {
            COMMITS.incrementAndGet();
            MUTATIONS.addAndGet(mutations(commit));
          }
          super.sendMessage(message);
        }
      };
    }
  }
}
