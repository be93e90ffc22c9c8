package dev.weir.identity;

import dev.weir.common.kafka.Conversion;
import dev.weir.common.kafka.SourcePosition;
import dev.weir.schema.IdentityEvent;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * An identity event and where it was read: a rule may reject it well after decoding, and its dead
 * letter must still name the record.
 */
public class ReadIdentityEvent {
  public IdentityEvent event;
  public SourcePosition source;

  public ReadIdentityEvent() {}

  public ReadIdentityEvent(IdentityEvent event, SourcePosition source) {
    this.event = event;
    this.source = source;
  }

  public String projectId() {
    return event.projectId();
  }

  /** How the job reads identity.events: each event with its position. */
  static final class FromRecord implements Conversion<IdentityEvent, ReadIdentityEvent> {
    private static final long serialVersionUID = 1L;

    @Override
    public ReadIdentityEvent convert(IdentityEvent event) {
      throw new UnsupportedOperationException("needs the record: convert(event, record)");
    }

    @Override
    public ReadIdentityEvent convert(IdentityEvent event, ConsumerRecord<byte[], byte[]> record) {
      return new ReadIdentityEvent(event, SourcePosition.of(record));
    }
  }
}
