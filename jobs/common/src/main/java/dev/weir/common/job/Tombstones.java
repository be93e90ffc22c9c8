package dev.weir.common.job;

import java.time.Duration;
import org.apache.flink.api.common.state.StateTtlConfig;

/**
 * The time to live of tombstones: keyed state written when something is deleted and read only if
 * that key comes back, so most entries are never read again.
 *
 * <p>Flink's default TTL cleanup for heap state walks the state table a few entries at a time on
 * every access of the state; on a state that is nearly empty, as tombstones are, each access starts
 * a new walk over every key group. Here an expired tombstone is dropped when read, left out of
 * every full snapshot (so a restore starts without it), and removed by RocksDB's compactions, the
 * state backend deployments use.
 */
public final class Tombstones {

  private Tombstones() {}

  public static StateTtlConfig timeToLive(Duration ttl) {
    return StateTtlConfig.newBuilder(ttl)
        .disableCleanupInBackground()
        .cleanupFullSnapshot()
        .cleanupInRocksdbCompactFilter(1000)
        .build();
  }
}
