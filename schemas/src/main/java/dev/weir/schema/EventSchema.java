package dev.weir.schema;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/** Every topic weir reads or writes, the JSON Schema family that governs it, and its Java type. */
public enum EventSchema {
  ACTIVITY_EVENTS("activity.events", ActivityEvent.class),
  TRACKING_EVENTS("tracking.events", TrackingEvent.class),
  IDENTITY_EVENTS("identity.events", IdentityEvent.class),
  TRACKING_ENRICHED("tracking.enriched", EnrichedTrackingEvent.class),
  PRICING_EVENTS("pricing.events", PricingEvent.class),
  /** {@code cdc.catalog.product}, {@code cdc.catalog.brand}, {@code cdc.catalog.category}. */
  CDC_CATALOG("cdc.catalog", ChangeEvent.class),
  /** Topics that feed a node of a declared document (search-index). */
  DECLARED_ROWS("declared.rows", DeclaredRow.class),
  DLQ("weir.dlq", DeadLetter.class);

  private final String family;
  private final Class<?> javaType;

  EventSchema(String family, Class<?> javaType) {
    this.family = family;
    this.javaType = javaType;
  }

  /** The schema family: the topic name, or the topic prefix for {@code cdc.catalog.*}. */
  public String family() {
    return family;
  }

  public Class<?> javaType() {
    return javaType;
  }

  /**
   * Whether the topics of this family carry tombstones (a null value after a delete, so that
   * compaction can drop the key): Debezium's change topics do, and a tombstone means nothing to do.
   */
  public boolean hasTombstones() {
    return this == CDC_CATALOG;
  }

  /**
   * The schema of the events of one topic named {@code family} (not the change topics, the declared
   * rows' or the DLQ's): what a declared topic node may name to have its events checked.
   */
  public static Optional<EventSchema> topicFamily(String family) {
    return Arrays.stream(values())
        .filter(s -> s != CDC_CATALOG && s != DECLARED_ROWS && s != DLQ)
        .filter(s -> s.family.equals(family))
        .findFirst();
  }

  /** The families {@link #topicFamily} knows. */
  public static List<String> topicFamilies() {
    return Arrays.stream(values())
        .filter(s -> topicFamily(s.family).isPresent())
        .map(EventSchema::family)
        .toList();
  }
}
