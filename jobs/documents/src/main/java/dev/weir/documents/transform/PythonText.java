package dev.weir.documents.transform;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.Iterator;
import java.util.Map;

/**
 * A JSON value as Python's {@code str()} writes what {@code json.loads} makes of it, which is what
 * PGSync's concat joins: {@code True}, {@code 12.5}, {@code 1e+16}, {@code {'a': [1, None]}}. A
 * number with a fraction or an exponent is a float (the shortest repr that reads back as the same
 * double), one of digits only an int.
 */
final class PythonText {

  private PythonText() {}

  /** Python's truth of the value: None, False, 0, 0.0, '', [] and {} are false. */
  static boolean isTrue(JsonNode v) {
    if (v == null || v.isNull() || v.isMissingNode()) {
      return false;
    }
    if (v.isBoolean()) {
      return v.booleanValue();
    }
    if (v.isNumber()) {
      return v.decimalValue().signum() != 0;
    }
    if (v.isTextual()) {
      return !v.textValue().isEmpty();
    }
    return v.size() > 0;
  }

  /** {@code str(v)}, its numbers read as {@code numbers} says. */
  static String str(JsonNode v, Concat.Numbers numbers) {
    if (v.isTextual()) {
      return v.textValue();
    }
    StringBuilder out = new StringBuilder();
    repr(v, numbers, out);
    return out.toString();
  }

  private static void repr(JsonNode v, Concat.Numbers numbers, StringBuilder out) {
    if (v == null || v.isNull()) {
      out.append("None");
    } else if (v.isBoolean()) {
      out.append(v.booleanValue() ? "True" : "False");
    } else if (v.isNumber()) {
      boolean whole = v.isIntegralNumber() || v.decimalValue().stripTrailingZeros().scale() <= 0;
      boolean isFloat =
          switch (numbers) {
            case FLOAT -> true;
            case WHOLE_AS_INT -> !whole;
            case AS_WRITTEN -> !v.isIntegralNumber();
          };
      out.append(isFloat ? floatRepr(v.doubleValue()) : v.decimalValue().toBigInteger().toString());
    } else if (v.isTextual()) {
      quote(v.textValue(), out);
    } else if (v.isArray()) {
      out.append('[');
      for (int i = 0; i < v.size(); i++) {
        out.append(i == 0 ? "" : ", ");
        repr(v.get(i), Concat.Numbers.AS_WRITTEN, out);
      }
      out.append(']');
    } else {
      out.append('{');
      boolean first = true;
      for (Iterator<Map.Entry<String, JsonNode>> it = v.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        out.append(first ? "" : ", ");
        first = false;
        quote(e.getKey(), out);
        out.append(": ");
        repr(e.getValue(), Concat.Numbers.AS_WRITTEN, out);
      }
      out.append('}');
    }
  }

  /**
   * Python's float repr: the fewest digits that read back as the same double; positional from 1e-4
   * up to 1e16, else {@code d.ddde+XX}.
   */
  static String floatRepr(double d) {
    if (Double.isNaN(d)) {
      return "nan";
    }
    if (Double.isInfinite(d)) {
      return d > 0 ? "inf" : "-inf";
    }
    if (d == 0) {
      return (1 / d < 0) ? "-0.0" : "0.0";
    }
    BigDecimal shortest = null;
    BigDecimal exact = new BigDecimal(d);
    for (int digits = 1; digits <= 17; digits++) {
      BigDecimal candidate = exact.round(new MathContext(digits, RoundingMode.HALF_EVEN));
      if (candidate.doubleValue() == d) {
        shortest = candidate.stripTrailingZeros();
        break;
      }
    }
    int exponent = shortest.precision() - shortest.scale() - 1; // of the first digit
    if (exponent >= -4 && exponent < 16) {
      String plain = shortest.toPlainString();
      return plain.contains(".") ? plain : plain + ".0";
    }
    String unscaled = shortest.unscaledValue().abs().toString();
    StringBuilder out = new StringBuilder(shortest.signum() < 0 ? "-" : "");
    out.append(unscaled.charAt(0));
    if (unscaled.length() > 1) {
      out.append('.').append(unscaled, 1, unscaled.length());
    }
    out.append('e').append(exponent < 0 ? '-' : '+');
    int e = Math.abs(exponent);
    return out.append(e < 10 ? "0" : "").append(e).toString();
  }

  /**
   * Python's repr of a str: single quotes unless it holds one and no double quote; backslashes,
   * quotes and control characters escaped.
   */
  private static void quote(String s, StringBuilder out) {
    char q = s.indexOf('\'') >= 0 && s.indexOf('"') < 0 ? '"' : '\'';
    out.append(q);
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c == q) {
            out.append('\\').append(c);
          } else if (c < 0x20 || (c >= 0x7f && c < 0xa0)) {
            out.append(String.format("\\x%02x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append(q);
  }
}
