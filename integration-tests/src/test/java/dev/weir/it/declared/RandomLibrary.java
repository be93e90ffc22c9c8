package dev.weir.it.declared;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Random;

/**
 * Random changes to the library database at every level, in transactions of several statements:
 * inserts (as upserts), updates and deletes over small key spaces, so that rows come, go, come back
 * and move between parents. Every statement is valid whatever the database holds (a reference is to
 * a row that exists, or null), so foreign keys stay valid and nothing fails.
 */
final class RandomLibrary {

  private final Random random;

  RandomLibrary(Random random) {
    this.random = random;
  }

  /** One transaction of {@code statements} random statements. */
  void transaction(Connection c, int statements) throws SQLException {
    try (Statement s = c.createStatement()) {
      for (int i = 0; i < statements; i++) {
        s.execute(statement());
      }
    }
    c.commit();
  }

  private String statement() {
    boolean delete = random.nextInt(6) == 0;
    String name = name();
    return switch (random.nextInt(10)) {
      case 0 ->
          delete
              ? "DELETE FROM continent WHERE id = '" + key("e", 3) + "'"
              : "INSERT INTO continent VALUES ('"
                  + key("e", 3)
                  + "', '"
                  + name
                  + "')"
                  + " ON CONFLICT (id) DO UPDATE SET name = excluded.name";
      case 1 ->
          delete
              ? "DELETE FROM country WHERE code = '" + key("k", 5) + "'"
              : "INSERT INTO country VALUES ('"
                  + key("k", 5)
                  + "', '"
                  + name
                  + "', "
                  + ref("continent", "id", key("e", 3))
                  + ") ON CONFLICT (code) DO UPDATE SET"
                  + " name = excluded.name, continent_id = excluded.continent_id";
      case 2 ->
          delete
              ? "DELETE FROM city WHERE id = '" + key("c", 6) + "'"
              : "INSERT INTO city VALUES ('"
                  + key("c", 6)
                  + "', '"
                  + name
                  + "', "
                  + ref("country", "code", key("k", 5))
                  + ") ON CONFLICT (id) DO UPDATE SET"
                  + " name = excluded.name, country_code = excluded.country_code";
      case 3 ->
          delete
              ? "DELETE FROM author WHERE id = '" + key("a", 8) + "'"
              : "INSERT INTO author VALUES ('"
                  + key("a", 8)
                  + "', '"
                  + name
                  + "', "
                  + ref("city", "id", key("c", 6))
                  + ") ON CONFLICT (id) DO UPDATE SET"
                  + " name = excluded.name, city_id = excluded.city_id";
      case 4 ->
          delete
              ? "DELETE FROM publisher WHERE id = '" + key("p", 4) + "'"
              : "INSERT INTO publisher VALUES ('"
                  + key("p", 4)
                  + "', '"
                  + name
                  + "')"
                  + " ON CONFLICT (id) DO UPDATE SET name = excluded.name";
      case 5 -> book(delete, name);
      case 6 ->
          delete
              ? "DELETE FROM review WHERE id = '" + review() + "'"
              : "INSERT INTO review VALUES ('"
                  + review()
                  + "', '"
                  + key("b", 10)
                  + "', "
                  + random.nextInt(6)
                  + ", '"
                  + name
                  + "') ON CONFLICT (id) DO UPDATE SET"
                  + " book_isbn = excluded.book_isbn, stars = excluded.stars";
      case 7 -> link(delete, "book_author", "author_id", "author", "id", "'" + key("a", 8) + "'");
      case 8 ->
          link(
              delete,
              "book_subject",
              "subject_id",
              "subject",
              "id",
              Integer.toString(1 + random.nextInt(5)));
      default ->
          delete
              ? "DELETE FROM subject WHERE id = " + (1 + random.nextInt(5))
              : "INSERT INTO subject VALUES ("
                  + (1 + random.nextInt(5))
                  + ", '"
                  + name
                  + "')"
                  + " ON CONFLICT (id) DO UPDATE SET name = excluded.name";
    };
  }

  /** A book: created with a large description; mostly updated without touching it. */
  private String book(boolean delete, String name) {
    String isbn = key("b", 10);
    if (delete) {
      return "DELETE FROM book WHERE isbn = '" + isbn + "'";
    }
    String publisher = ref("publisher", "id", key("p", 4));
    return switch (random.nextInt(4)) {
      case 0 ->
          "UPDATE book SET description = '"
              + description(random.nextInt())
              + "' WHERE isbn = '"
              + isbn
              + "'";
      case 1 -> "UPDATE book SET publisher_id = " + publisher + " WHERE isbn = '" + isbn + "'";
      case 2 ->
          "UPDATE book SET title = '"
              + name
              + "', price = "
              + random.nextInt(10_000) / 100.0
              + ", tags = '{\"n\": "
              + random.nextInt(9)
              + "}' WHERE isbn = '"
              + isbn
              + "'";
      default ->
          "INSERT INTO book VALUES ('"
              + isbn
              + "', '"
              + name
              + "', '"
              + description(random.nextInt())
              + "', "
              + random.nextInt(10_000) / 100.0
              + ", DATE '2000-01-01' + "
              + random.nextInt(9000)
              + ", '{\"n\": 1}', "
              + publisher
              + ") ON CONFLICT (isbn) DO UPDATE SET title = excluded.title";
    };
  }

  private String link(
      boolean delete, String table, String column, String other, String otherKey, String value) {
    String isbn = key("b", 10);
    if (delete) {
      return "DELETE FROM "
          + table
          + " WHERE book_isbn = '"
          + isbn
          + "' AND "
          + column
          + " = "
          + value;
    }
    return "INSERT INTO "
        + table
        + " SELECT '"
        + isbn
        + "', "
        + value
        + " WHERE EXISTS (SELECT 1 FROM book WHERE isbn = '"
        + isbn
        + "')"
        + " AND EXISTS (SELECT 1 FROM "
        + other
        + " WHERE "
        + otherKey
        + " = "
        + value
        + ")"
        + " ON CONFLICT DO NOTHING";
  }

  private static String ref(String table, String key, String value) {
    return "(SELECT " + key + " FROM " + table + " WHERE " + key + " = '" + value + "')";
  }

  private String key(String prefix, int n) {
    return prefix + "-" + random.nextInt(n);
  }

  private String review() {
    return String.format("00000000-0000-0000-0000-%012d", random.nextInt(15));
  }

  private String name() {
    return "n" + random.nextInt(100_000);
  }

  /** About 3 kB of letters PostgreSQL cannot compress below its TOAST threshold. */
  static String description(int seed) {
    Random r = new Random(seed);
    StringBuilder text = new StringBuilder(3_000);
    while (text.length() < 3_000) {
      text.append((char) ('a' + r.nextInt(26)));
    }
    return text.toString();
  }
}
