package dev.weir.schema;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;

/**
 * {@code weir.dlq}: a record that a job could not process, with where it came from, its raw bytes
 * (base64) and a readable reason. A value over the job's record limit is kept up to the limit
 * ({@code rawValueTruncated}), so that every dead letter fits the DLQ topic.
 */
public record DeadLetter(
    @JsonProperty("job") String job,
    @JsonProperty("source_topic") String sourceTopic,
    @JsonProperty("source_partition") int sourcePartition,
    @JsonProperty("source_offset") long sourceOffset,
    @JsonProperty("source_timestamp") Long sourceTimestamp,
    @JsonProperty("reason") String reason,
    @JsonProperty("raw_key") byte[] rawKey,
    @JsonProperty("raw_value") byte[] rawValue,
    @JsonProperty("raw_value_truncated") Boolean rawValueTruncated,
    @JsonProperty("failed_at") Instant failedAt) {}
