package dev.weir.stack;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Base64;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class KafkaServiceTest {

  @Test
  void clusterIdsAreSixteenBytesAndNeverLookLikeAnOption() {
    // One id in 64 would start with '-' if drawn naively; the storage tool then fails to format.
    IntStream.range(0, 5_000)
        .mapToObj(i -> KafkaService.newClusterId())
        .forEach(
            id -> {
              assertThat(id).doesNotStartWith("-").hasSize(22);
              assertThat(Base64.getUrlDecoder().decode(id)).hasSize(16);
            });
  }
}
