package dev.weir.identity;

import com.google.spanner.v1.CommitRequest;
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
 * every kind, the client's own begins, retries and session calls included) and mutations committed.
 * Logged when a client closes; the benchmark reads it to compare ways of writing.
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
            MUTATIONS.addAndGet(commit.getMutationsCount());
          }
          super.sendMessage(message);
        }
      };
    }
  }
}
