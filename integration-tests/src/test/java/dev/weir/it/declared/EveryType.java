package dev.weir.it.declared;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;

/**
 * A table with a column of every PostgreSQL type users have, and generated rows of it: random
 * values mixed with each type's edges (64-bit integers at their limits, numerics beyond double
 * precision, NaN and ±Infinity, dates past 9999, infinity, intervals, JSON of every shape, arrays,
 * enums, bytea, keys with any characters), as SQL literals.
 *
 * <p>Numeric NaN and ±Infinity, BC dates and timestamps, a time's microseconds and 24:00:00, a
 * timetz's offset are in, alone and in arrays, through the snapshot and the stream. Left out:
 * subnormal floats (Java 17 writes 1.4E-45 for PostgreSQL's 1e-45, one float).
 */
final class EveryType {

  static final List<String> SCHEMA =
      List.of(
          "CREATE TYPE mood AS ENUM ('sad', 'ok', 'très \"bien\"')",
          """
          CREATE TABLE every_type (
            id text PRIMARY KEY,
            i2 smallint, i4 integer, i8 bigint, n numeric, n4 numeric(20, 4),
            f4 real, f8 double precision, b boolean,
            d date, t time, tz timetz, ts timestamp, tstz timestamptz, iv interval,
            u uuid, j json, jb jsonb, e mood, by bytea, tx text,
            a_int integer[], a_text text[], a_num numeric[], a_tstz timestamptz[], a_jb jsonb[],
            a_d date[], a_t time[], a_tz timetz[], a_ts timestamp[])
          """);

  static final String DEFINITION =
      """
      [{"database": "types", "index": "types", "nodes": {"table": "every_type"}}]
      """;

  private static final String[] COLUMNS = {
    "id", "i2", "i4", "i8", "n", "n4", "f4", "f8", "b", "d", "t", "tz", "ts", "tstz", "iv", "u",
    "j", "jb", "e", "by", "tx", "a_int", "a_text", "a_num", "a_tstz", "a_jb", "a_d", "a_t", "a_tz",
    "a_ts"
  };

  private final Random random;

  /** Upserts made: every other one takes each column's values in turn (see {@link #pick}). */
  private int upserts;

  /** Whether this upsert takes its values in turn, and which turn. */
  private boolean inTurn;

  private int turn;

  EveryType(Random random) {
    this.random = random;
  }

  /** An INSERT of a row of generated values with key {@code id}, or its update if it exists. */
  String upsert(String id) {
    inTurn = upserts % 2 == 0;
    turn = upserts / 2;
    upserts++;
    List<String> values = new ArrayList<>();
    values.add(quoted(id));
    values.add(pick("-32768", "32767", "0", String.valueOf(random.nextInt(65536) - 32768)));
    values.add(
        pick("-2147483648", "2147483647", String.valueOf(random.nextInt()), String.valueOf(7)));
    values.add(
        pick(
            String.valueOf(Long.MIN_VALUE),
            String.valueOf(Long.MAX_VALUE),
            "9007199254740993", // 2^53 + 1: no double holds it
            String.valueOf(random.nextLong())));
    values.add(
        pick(
            "'NaN'",
            "'Infinity'",
            "'-Infinity'",
            "123456789012345678901234567890.123456789012345678901",
            "0.10",
            "-0.000000000000000000000000000001",
            digits(1 + random.nextInt(30)) + "." + digits(1 + random.nextInt(20))));
    // A numeric with a precision holds NaN, not ±Infinity.
    values.add(pick("1.5", "-9999999999999999.9999", "0", "'NaN'", digits(6) + "." + digits(4)));
    values.add(
        pick(
            "'NaN'",
            "'Infinity'",
            "'-Infinity'",
            "1.1",
            "3.4028235e38",
            "-0.1",
            String.valueOf(random.nextFloat() * 1000)));
    values.add(
        pick(
            "'NaN'",
            "'Infinity'",
            "'-Infinity'",
            "0.1",
            "1.7976931348623157e308",
            "123456789.125",
            String.valueOf(random.nextGaussian() * 1e6)));
    values.add(pick("true", "false"));
    values.add(
        pick(
            "'2024-02-29'",
            "'0001-01-01'",
            "'0044-03-15 BC'",
            "'9999-12-31'",
            "'12345-06-07'",
            "'infinity'",
            "'-infinity'",
            "'"
                + (1900 + random.nextInt(200))
                + "-0"
                + (1 + random.nextInt(9))
                + "-1"
                + random.nextInt(9)
                + "'"));
    values.add(
        pick(
            "'13:14:15'",
            "'00:00:00'",
            "'23:59:59.999999'",
            "'08:30:00.5'",
            "'24:00:00'",
            "'10:11:12.000001'"));
    values.add(
        pick("'13:14:15+02'", "'00:00:00-05:30'", "'23:59:59.999999+00'", "'08:30:00.123456-03'"));
    values.add(
        pick(
            "'2024-01-01 10:00:00.123456'",
            "'1900-01-01 00:00:00'",
            "'0044-03-15 12:30:00.5 BC'",
            "'12345-01-01 00:00:00'",
            "'infinity'",
            "'-infinity'",
            "'1970-01-01 00:00:00.000001'"));
    values.add(
        pick(
            "'2024-01-01 10:00:00.123456+02'",
            "'1969-12-31 23:59:59.999999+00'",
            "'12345-01-01 00:00:00+00'",
            "'0100-01-01 00:00:00+00 BC'",
            "'infinity'",
            "'2000-06-15 12:00:00-07:30'"));
    values.add(
        pick(
            "'1 day 02:03:04'",
            "'-3 months'",
            "'1 year 2 mons 3 days 04:05:06.789'",
            "'0'",
            "'-1 days +02:00:00'",
            "'178000000 years'"));
    values.add("'" + new UUID(random.nextLong(), random.nextLong()) + "'");
    String json = json();
    values.add(json);
    values.add(json());
    values.add(pick("'sad'", "'ok'", "'très \"bien\"'"));
    values.add(
        pick(
            "'\\x'::bytea",
            "'\\x00ff10'::bytea",
            "'\\x" + hex(1 + random.nextInt(40)) + "'::bytea"));
    values.add(quoted(text()));
    values.add(pick("'{}'", "'{1,2,NULL}'", "'{-2147483648,2147483647}'"));
    values.add(
        pick(
            "'{}'",
            "'{\"a\",\"b c\",NULL,\"with \\\"quote\\\"\"}'",
            "ARRAY[" + quoted(text()) + "]"));
    values.add(
        pick(
            "'{1.50,-0.000001}'",
            "'{123456789012345678901234567890}'",
            "'{}'",
            "'{NaN,Infinity,-Infinity,NULL,2.5}'"));
    values.add(
        pick(
            "'{\"2024-01-01 00:00:00+00\",\"infinity\"}'",
            "'{}'",
            "'{NULL}'",
            "'{\"0100-01-01 00:00:00.000001+00 BC\",\"2000-06-15 12:00:00.654321-07:30\"}'"));
    values.add(pick("ARRAY['{\"a\": 1}', '\"s\"', '[1, 2]', 'null']::jsonb[]", "'{}'"));
    values.add(
        pick(
            "'{2024-02-29,\"0044-03-15 BC\",infinity,NULL}'",
            "'{12345-06-07,-infinity,0001-01-01}'",
            "'{}'"));
    values.add(
        pick(
            "'{13:14:15.123456,24:00:00,NULL}'",
            "'{00:00:00,10:11:12.000001,08:30:00.5}'",
            "'{}'"));
    values.add(
        pick("'{13:14:15+02,00:00:00.5-05:30}'", "'{23:59:59.999999+00,NULL,08:30:00.123456-03}'"));
    values.add(
        pick(
            "'{\"2024-01-01 10:00:00.123456\",\"0044-03-15 12:30:00.5 BC\",infinity}'",
            "'{\"12345-01-01 00:00:00\",-infinity,NULL,\"1970-01-01 00:00:00.000001\"}'",
            "'{}'"));
    // A column left null now and then: null is a value of every type.
    for (int i = 1; i < values.size(); i++) {
      if (!inTurn && random.nextInt(12) == 0) {
        values.set(i, "NULL");
      }
    }
    StringBuilder updates = new StringBuilder();
    for (int i = 1; i < COLUMNS.length; i++) {
      updates
          .append(i == 1 ? "" : ", ")
          .append(COLUMNS[i])
          .append(" = EXCLUDED.")
          .append(COLUMNS[i]);
    }
    return "INSERT INTO every_type VALUES ("
        + String.join(", ", values)
        + ") ON CONFLICT (id) DO UPDATE SET "
        + updates;
  }

  /** A key with any characters: quotes, slashes, brackets, spaces, accents, emoji. */
  String key(int i) {
    String[] parts = {"'", "\"", "/", " ", "é", "😀", "\\", ",", "[", "]", "%", "?", "#", "0"};
    StringBuilder key = new StringBuilder("k" + i);
    for (int j = random.nextInt(4); j > 0; j--) {
      key.append(parts[random.nextInt(parts.length)]);
    }
    return key.toString();
  }

  private String json() {
    return pick(
        "'{\"a\": 1, \"b\": {\"c\": [1, 2.50, \"x\"]}}'",
        "'\"a JSON string\"'",
        "'42'",
        "'-1.5e300'",
        "'12345678901234567890.123456789'",
        "'[1, \"x\", null, {\"k\": false}]'",
        "'[]'",
        "'{}'",
        "'null'",
        "'true'",
        "'{\"unicode\": \"é😀\\\\u0001\"}'");
  }

  private String text() {
    String[] parts = {"plain", "é", "😀", "'", "\"", "\\", "\n", "\t", "<b>", " ", "ß", "中文"};
    StringBuilder text = new StringBuilder();
    for (int j = random.nextInt(6); j >= 0; j--) {
      text.append(parts[random.nextInt(parts.length)]);
    }
    return text.toString();
  }

  private String digits(int n) {
    StringBuilder d = new StringBuilder();
    d.append(1 + random.nextInt(9));
    for (int i = 1; i < n; i++) {
      d.append(random.nextInt(10));
    }
    return d.toString();
  }

  private String hex(int bytes) {
    StringBuilder h = new StringBuilder();
    for (int i = 0; i < bytes; i++) {
      h.append(String.format("%02x", random.nextInt(256)));
    }
    return h.toString();
  }

  /**
   * One of {@code choices}: at random, or, every other upsert, each in turn, so that any twenty
   * consecutive upserts (the snapshot's rows, the test's changes) hold each value of a list of up
   * to ten.
   */
  @SafeVarargs
  private <T> T pick(T... choices) {
    return choices[inTurn ? turn % choices.length : random.nextInt(choices.length)];
  }

  private static String quoted(String text) {
    return "'" + text.replace("'", "''") + "'";
  }
}
