package dev.weir.capture;

import static org.assertj.core.api.Assertions.assertThat;

import io.debezium.data.SpecialValueDecimal;
import java.math.BigDecimal;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class NumericArraysTest {

  @Test
  void aOneDimensionalArraysElementsAreDebeziumsNumerics() {
    assertThat(NumericArrays.elements("{1.50,NaN,NULL,Infinity,-Infinity,-0.000001}"))
        .contains(
            Arrays.asList(
                new SpecialValueDecimal(new BigDecimal("1.50")),
                SpecialValueDecimal.NOT_A_NUMBER,
                null,
                SpecialValueDecimal.POSITIVE_INF,
                SpecialValueDecimal.NEGATIVE_INF,
                new SpecialValueDecimal(new BigDecimal("-0.000001"))));
    assertThat(NumericArrays.elements("{}")).contains(Arrays.asList());
  }

  @Test
  void anyOtherShapeIsLeftToPgjdbc() {
    assertThat(NumericArrays.elements("{{1,2},{3,4}}")).isEmpty();
    assertThat(NumericArrays.elements("[0:1]={1,2}")).isEmpty();
  }
}
