package dev.weir.cli;

import java.time.Duration;
import org.apache.flink.util.TimeUtils;
import picocli.CommandLine.ITypeConverter;

/** Reads 200ms, 2s, 1m as a duration (Flink's notation, as in the job options). */
public final class DurationConverter implements ITypeConverter<Duration> {
  @Override
  public Duration convert(String value) {
    return TimeUtils.parseDuration(value);
  }
}
