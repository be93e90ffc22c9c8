package dev.weir.identity;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.common.types.StateThroughSavepoint;
import dev.weir.common.types.StateThroughSavepoint.Backend;
import dev.weir.common.types.StateThroughSavepoint.Kind;
import java.util.List;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The cached mapping (the Enricher's value state, with a time to live) in a savepoint of an earlier
 * weir, which kept it with Flink's default POJO type: today's {@link Enricher#MAPPING} reads it as
 * it is.
 */
class CachedMappingSavepointTest {

  @ParameterizedTest
  @EnumSource(Backend.class)
  void aMappingOfAnEarlierSavepointComesBackWhole(Backend backend) throws Exception {
    CachedIdentity mapping = new CachedIdentity("canonical-ü ⛺", 1_795_000_000_000L, true);
    mapping.refreshedAt = 1_795_000_001_000L;

    List<CachedIdentity> restored =
        StateThroughSavepoint.restore(
            List.of(mapping),
            TypeInformation.of(CachedIdentity.class),
            Enricher.MAPPING,
            Kind.VALUE_WITH_TTL,
            backend);

    assertThat(restored).usingRecursiveFieldByFieldElementComparator().containsExactly(mapping);
    assertThat(Enricher.MAPPING.toString()).contains("FastString");
  }
}
