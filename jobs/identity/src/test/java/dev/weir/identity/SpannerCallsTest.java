package dev.weir.identity;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ListValue;
import com.google.protobuf.Value;
import com.google.spanner.v1.CommitRequest;
import com.google.spanner.v1.KeySet;
import com.google.spanner.v1.Mutation;
import org.junit.jupiter.api.Test;

class SpannerCallsTest {

  private static ListValue row(String... values) {
    ListValue.Builder row = ListValue.newBuilder();
    for (String v : values) {
      row.addValues(Value.newBuilder().setStringValue(v));
    }
    return row.build();
  }

  @Test
  void aCommitCountsOneMutationPerColumnValueAsSpannerDoesNotOnePerProto() {
    // The client packs rows of one table and columns into one Write.
    Mutation threeRowsTwoColumns =
        Mutation.newBuilder()
            .setInsertOrUpdate(
                Mutation.Write.newBuilder()
                    .setTable("identity_mapping")
                    .addColumns("distinct_id")
                    .addColumns("canonical_id")
                    .addValues(row("a", "u"))
                    .addValues(row("b", "u"))
                    .addValues(row("c", "u")))
            .build();
    Mutation deleteTwoKeys =
        Mutation.newBuilder()
            .setDelete(
                Mutation.Delete.newBuilder()
                    .setTable("identity_mapping")
                    .setKeySet(KeySet.newBuilder().addKeys(row("a")).addKeys(row("b"))))
            .build();
    CommitRequest commit =
        CommitRequest.newBuilder()
            .addMutations(threeRowsTwoColumns)
            .addMutations(deleteTwoKeys)
            .build();

    assertThat(SpannerCalls.mutations(commit)).isEqualTo(3 * 2 + 2);
  }
}
