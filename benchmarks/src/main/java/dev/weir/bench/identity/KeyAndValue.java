package dev.weir.bench.identity;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/** A record's key and value, as they are. */
final class KeyAndValue implements KafkaRecordDeserializationSchema<byte[][]> {
  private static final long serialVersionUID = 1L;

  @Override
  public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<byte[][]> out) {
    out.collect(new byte[][] {record.key(), record.value()});
  }

  @Override
  public TypeInformation<byte[][]> getProducedType() {
    return TypeInformation.of(byte[][].class);
  }
}
