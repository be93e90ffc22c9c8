package dev.weir.search.join;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.documents.definition.DefinitionFile;
import dev.weir.documents.definition.DocumentPlan;
import dev.weir.documents.definition.DocumentPlanner;
import dev.weir.documents.definition.TableInfo;
import dev.weir.schema.DeclaredRow;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A node fed by a Kafka topic (a pricing service's prices): one row per key, the highest version
 * wins whatever the arrival order, an equal version changes nothing, a price may come before its
 * book.
 */
class TopicNodeTest {

  private static final String DEFINITION =
      """
      [{"database": "shop", "index": "books", "nodes": {
        "table": "book", "columns": ["isbn", "title"],
        "children": [
          {"table": "prices", "label": "price", "columns": ["amount", "currency"],
           "primary_key": ["book_isbn"],
           "relationship": {"type": "one_to_one", "variant": "object",
                            "foreign_key": {"parent": ["isbn"], "child": ["book_isbn"]}},
           "weir": {"topic": "pricing.events", "version": "version",
                    "types": {"book_isbn": "text", "amount": "numeric", "currency": "text"}}}]}}]
      """;

  private final DocumentPlan plan =
      DocumentPlanner.plan(
          DefinitionFile.parse(DEFINITION).get(0),
          (schema, table) ->
              Optional.of(
                  TableInfo.of(
                      "public",
                      "book",
                      Map.of("isbn", "text", "title", "text"),
                      List.of("isbn"),
                      List.of())));
  private static final DocumentPlan.Source TOPIC =
      new DocumentPlan.Source(
          "topic:pricing.events",
          null,
          "pricing.events",
          Map.of("book_isbn", "text", "amount", "numeric", "currency", "text", "version", "bigint"),
          "pricing.events",
          "version",
          null);
  private JoinSimulator join;

  @AfterEach
  void close() throws Exception {
    join.close();
  }

  @Test
  void theHighestVersionWinsAndAPriceMayComeBeforeItsBook() throws Exception {
    join = new JoinSimulator(plan, 1);
    join.send(price("b1", "12.00", 5));
    join.send(price("b1", "19.99", 3)); // older: ignored
    join.send(book("b1", "Dune"));
    join.runUntilQuiet();
    assertThat(priceOf("b1")).isEqualTo("{\"amount\":12,\"currency\":\"EUR\"}");

    join.send(price("b1", "11.00", 5)); // equal version: not newer
    join.runUntilQuiet();
    assertThat(priceOf("b1")).isEqualTo("{\"amount\":12,\"currency\":\"EUR\"}");

    join.send(price("b1", "10.50", 6));
    join.runUntilQuiet();
    assertThat(priceOf("b1")).isEqualTo("{\"amount\":10.5,\"currency\":\"EUR\"}");
  }

  private String priceOf(String isbn) throws Exception {
    return ReferenceJoin.asObject(plan, join.documents().get(isbn)).get("price").toString();
  }

  private static SourceRow price(String isbn, String amount, long version) throws Exception {
    DeclaredRow event = new DeclaredRow();
    event.set("book_isbn", isbn);
    event.set("amount", amount);
    event.set("currency", "EUR");
    event.set("version", version);
    return new TopicRows(TOPIC, List.of("book_isbn")).convert(event);
  }

  private SourceRow book(String isbn, String title) {
    SourceRow row = new SourceRow();
    row.source = "public.book";
    row.values = "{\"isbn\":\"" + isbn + "\",\"title\":\"" + title + "\"}";
    row.lsn = 100;
    return row;
  }
}
