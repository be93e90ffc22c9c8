package dev.weir.documents.copy;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.BatchUpdateException;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Which failures of a copy write are a row's values, and which of those a wider column takes. */
class CopyRefusalsTest {

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        // state | a row's values | a wider type may take it
        "22001 | true | true", // value too long for type character varying(5)
        "22003 | true | true", // integer out of range, numeric field overflow
        "22P02 | true | true", // invalid input syntax for type integer: "1.5"
        "22008 | true | true", // date/time field value out of range
        "22P05 | true | false", // unsupported Unicode escape sequence (jsonb)
        "22021 | true | false", // invalid byte sequence for encoding
        "23514 | true | false", // a CHECK constraint added to the copy
        "23502 | true | false", // null value in column violates not-null constraint
        "54000 | true | false", // index row size exceeds btree maximum
        "55P03 | false | false", // lock timeout: retried
        "57014 | false | false", // statement timeout: retried
        "08006 | false | false", // connection failure: the job restarts
        "40P01 | false | false", // deadlock: the job restarts
        "42703 | false | false", // a column of the copy dropped by hand: every row's
        "42804 | false | false", // datatype mismatch: every row's
        "23505 | false | false", // unique violation: cannot be one row's (ON CONFLICT)
      })
  void aDataExceptionIsTheRowsAnythingElseTheWrites(
      String state, boolean refusesRow, boolean mayWiden) {
    SQLException e = new SQLException("ERROR: refused", state);
    assertThat(CopyRefusals.refusesRow(e)).as("refuses the row").isEqualTo(refusesRow);
    assertThat(CopyRefusals.mayFitAWiderType(e)).as("a wider type").isEqualTo(mayWiden);
  }

  @Test
  void aFailedBatchIsReadThroughToPostgresqlsOwnError() {
    SQLException server = new SQLException("ERROR: integer out of range", "22003");
    BatchUpdateException batch =
        new BatchUpdateException(
            "Batch entry 0 INSERT INTO \"t\" VALUES ('1', 3000000000) was aborted: ERROR: integer"
                + " out of range  Call getNextException to see other errors in the batch.",
            null,
            0,
            new int[0],
            null);
    batch.setNextException(server);

    assertThat(CopyRefusals.sqlState(batch)).isEqualTo("22003");
    assertThat(CopyRefusals.refusesRow(batch)).isTrue();
    assertThat(CopyRefusals.message(batch)).isEqualTo("ERROR: integer out of range");
  }

  @Test
  void aFailureWithoutAStateIsTheWrites() {
    SQLException e = new SQLException("I/O error");
    assertThat(CopyRefusals.sqlState(e)).isNull();
    assertThat(CopyRefusals.refusesRow(e)).isFalse();
    assertThat(CopyRefusals.mayFitAWiderType(e)).isFalse();
    assertThat(CopyRefusals.message(new SQLException("ERROR: x\n  Where: y")))
        .isEqualTo("ERROR: x Where: y");
  }
}
