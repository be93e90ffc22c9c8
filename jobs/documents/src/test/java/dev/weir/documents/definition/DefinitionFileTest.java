package dev.weir.documents.definition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.documents.definition.NodeSpec.Type;
import dev.weir.documents.definition.NodeSpec.Variant;
import java.nio.file.Files;
import java.nio.file.Path;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The definition file as it is read, before any catalog: PGSync's {@code schema.json} with weir's
 * {@code "weir"} extensions, and every file weir refuses, each with a message naming the document,
 * the node (its path of labels, or its place {@code children[i]} when it has no name) and the
 * problem. JSON is written with single quotes here ({@link #json}).
 */
class DefinitionFileTest {

  // --- what is read

  @Test
  void nodesIsAnObjectOrAOneElementList() {
    DocumentSpec object = one(file("{'table': 'book'}"));
    DocumentSpec list = one(file("[{'table': 'book'}]"));
    assertThat(list).isEqualTo(object);
    assertThat(object.database()).isEqualTo("library");
    assertThat(object.index()).isEqualTo("books");
    assertThat(object.copyTable()).isEqualTo("books_document");
    assertThat(object.root().table()).isEqualTo("book");
  }

  @Test
  void aNodeWithOnlyItsTableTakesTheDefaults() {
    NodeSpec book = one(file("{'table': 'book'}")).root();
    assertThat(book.path()).isEqualTo("book");
    assertThat(book.schema()).isEqualTo("public");
    assertThat(book.label()).isEqualTo("book");
    assertThat(book.columns()).as("absent: all of them").isEmpty();
    assertThat(book.primaryKey()).as("absent: the catalog's").isEmpty();
    assertThat(book.relationship()).isNull();
    assertThat(book.rename()).isEmpty();
    assertThat(book.mapping()).isEmpty();
    assertThat(book.topic()).isNull();
    assertThat(book.chain()).isNull();
    assertThat(book.children()).isEmpty();
  }

  @Test
  void theIndexIsTheDatabaseWhenAbsentAsInPgsync() {
    DocumentSpec d = one(json("[{'database': 'library', 'nodes': {'table': 'book'}}]"));
    assertThat(d.index()).isEqualTo("library");
    assertThat(d.copyTable()).isEqualTo("library_document");
  }

  @Test
  void aNodesOwnKeys() {
    NodeSpec book =
        one(file(
                """
                {'table': 'book', 'schema': 'shop', 'label': 'volume',
                 'columns': ['isbn', 'title'], 'primary_key': ['isbn']}
                """))
            .root();
    assertThat(book.table()).isEqualTo("book");
    assertThat(book.schema()).isEqualTo("shop");
    assertThat(book.label()).isEqualTo("volume");
    assertThat(book.path()).isEqualTo("volume");
    assertThat(book.columns()).containsExactly("isbn", "title");
    assertThat(book.primaryKey()).containsExactly("isbn");
  }

  @Test
  void everyRelationshipTypeAndVariant() {
    NodeSpec book =
        one(file(
                """
                {'table': 'book', 'children': [
                  {'table': 'a', 'relationship': {'type': 'one_to_one', 'variant': 'object'}},
                  {'table': 'b', 'relationship': {'type': 'one_to_one', 'variant': 'scalar'}},
                  {'table': 'c', 'relationship': {'type': 'one_to_many', 'variant': 'object'}},
                  {'table': 'd', 'relationship': {'type': 'one_to_many', 'variant': 'scalar'}}]}
                """))
            .root();
    assertThat(book.children())
        .extracting(c -> c.relationship().type(), c -> c.relationship().variant())
        .containsExactly(
            Tuple.tuple(Type.ONE_TO_ONE, Variant.OBJECT),
            Tuple.tuple(Type.ONE_TO_ONE, Variant.SCALAR),
            Tuple.tuple(Type.ONE_TO_MANY, Variant.OBJECT),
            Tuple.tuple(Type.ONE_TO_MANY, Variant.SCALAR));
    NodeSpec.Relationship r = book.children().get(0).relationship();
    assertThat(r.parentColumns()).as("absent: from the catalog").isEmpty();
    assertThat(r.childColumns()).isEmpty();
    assertThat(r.throughTables()).isEmpty();
  }

  @Test
  void foreignKeyListsTheParentsAndTheChildsColumns() {
    NodeSpec.Relationship r =
        child(
                """
                {'table': 'stock', 'relationship': {'type': 'one_to_many', 'variant': 'object',
                  'foreign_key': {'parent': ['region', 'isbn'], 'child': ['region', 'book_isbn']}}}
                """)
            .relationship();
    assertThat(r.parentColumns()).containsExactly("region", "isbn");
    assertThat(r.childColumns()).containsExactly("region", "book_isbn");
  }

  @Test
  void throughTablesNameTheLinkTable() {
    NodeSpec authors =
        child(
            """
            {'table': 'author', 'label': 'authors', 'relationship': {'type': 'one_to_many',
              'variant': 'object', 'through_tables': ['book_author']}}
            """);
    assertThat(authors.relationship().throughTables()).containsExactly("book_author");
    assertThat(authors.path()).isEqualTo("book.authors");
  }

  @Test
  void transformRenamesAndMapsFields() {
    NodeSpec book =
        one(file(
                """
                {'table': 'book', 'transform': {
                  'rename': {'published': 'published_on', 'isbn': 'id_isbn'},
                  'mapping': {'isbn': {'type': 'keyword', 'ignore_above': 64}}}}
                """))
            .root();
    assertThat(book.rename()).containsEntry("published", "published_on");
    assertThat(book.fieldOf("published")).isEqualTo("published_on");
    assertThat(book.fieldOf("title")).isEqualTo("title");
    assertThat(book.mapping().get("isbn").path("ignore_above").asInt()).isEqualTo(64);
  }

  @Test
  void childrenNestAndTheirPathsAreTheirLabels() {
    NodeSpec book =
        one(file(
                """
                {'table': 'book', 'children': [
                  {'table': 'author', 'label': 'authors',
                   'relationship': {'type': 'one_to_many', 'variant': 'object'},
                   'children': [{'table': 'city',
                     'relationship': {'type': 'one_to_one', 'variant': 'object'}}]}]}
                """))
            .root();
    NodeSpec city = book.children().get(0).children().get(0);
    assertThat(city.path()).isEqualTo("book.authors.city");
    assertThat(city.label()).isEqualTo("city");
  }

  @Test
  void weirCopyTable() {
    String definition =
        """
        [{'database': 'library', 'index': 'books.v2', 'nodes': {'table': 'book'}},
         {'database': 'library', 'index': 'shelves', 'weir': {'copy_table': 'shelf_copy'},
          'nodes': {'table': 'shelf'}}]
        """;
    assertThat(one(definition, 0).copyTable())
        .as("by default the index's, '_' for what a table's name cannot hold")
        .isEqualTo("books_v2_document");
    assertThat(one(definition, 1).copyTable()).isEqualTo("shelf_copy");
  }

  @Test
  void weirTopicFeedsANode() {
    NodeSpec price =
        child(
            """
            {'table': 'prices', 'label': 'price', 'columns': ['amount'],
             'primary_key': ['product_id'],
             'relationship': {'type': 'one_to_one', 'variant': 'object',
               'foreign_key': {'parent': ['id'], 'child': ['product_id']}},
             'weir': {'topic': 'pricing.events', 'version': 'version',
               'types': {'product_id': 'bigint', 'amount': 'numeric(14,4)'}}}
            """);
    assertThat(price.isTopic()).isTrue();
    assertThat(price.topic().topic()).isEqualTo("pricing.events");
    assertThat(price.topic().version()).isEqualTo("version");
    assertThat(price.topic().types())
        .containsEntry("product_id", "bigint")
        .containsEntry("amount", "numeric(14,4)");
    assertThat(price.topic().eventSchema()).isNull();
  }

  @Test
  void weirEventSchemaNamesOneOfWeirsSchemasForATopicsEvents() {
    String price =
        """
        {'table': 'book', 'children': [{'table': 'prices', 'primary_key': ['product_id'],
         'relationship': {'type': 'one_to_one', 'variant': 'object',
           'foreign_key': {'parent': ['id'], 'child': ['product_id']}},
         'weir': {'topic': 'p', 'version': 'version', 'event_schema': %s}}]}
        """;
    assertThat(one(file(price.formatted("'pricing.events'"))).root().children().get(0).topic())
        .extracting(NodeSpec.TopicSource::eventSchema)
        .isEqualTo("pricing.events");
    refused(
        file(price.formatted("'prices.v2'")),
        "node 'book.prices': weir.event_schema 'prices.v2' is not one of weir's event schemas"
            + " (activity.events, tracking.events, identity.events, tracking.enriched,"
            + " pricing.events)");
    refused(
        file(price.formatted("'cdc.catalog'")),
        "node 'book.prices': weir.event_schema 'cdc.catalog' is not one of weir's event schemas");
  }

  @Test
  void weirPathListsAChainUpATree() {
    NodeSpec path =
        child(
            """
            {'table': 'category', 'label': 'category_path', 'columns': ['name'],
             'relationship': {'type': 'one_to_one', 'variant': 'scalar'},
             'weir': {'path': {'parent': ['parent_id'], 'max_depth': 8}}}
            """);
    assertThat(path.chain().parentColumns()).containsExactly("parent_id");
    assertThat(path.chain().maxDepth()).isEqualTo(8);
    assertThat(path.isTopic()).isFalse();
    assertThat(
            child(
                    """
                    {'table': 'category', 'columns': ['name'],
                     'relationship': {'type': 'one_to_one', 'variant': 'scalar'},
                     'weir': {'path': {'parent': ['parent_id']}}}
                    """)
                .chain()
                .maxDepth())
        .as("the default depth")
        .isEqualTo(16);
  }

  @Test
  void pgsyncKeysWithNothingInThemAreAccepted() {
    DocumentSpec d =
        one(
            json(
                """
                [{'database': 'library', 'index': 'books', 'plugins': [], 'setting': {},
                  'routing': null, 'nodes': {'table': 'book'}}]
                """));
    assertThat(d.root().table()).isEqualTo("book");
  }

  @Test
  void aFileIsReadAndItsErrorsNameIt(@TempDir Path dir) throws Exception {
    Path good = Files.writeString(dir.resolve("good.json"), json(file("{'table': 'book'}")));
    assertThat(DefinitionFile.read(good)).hasSize(1);
    Path bad = Files.writeString(dir.resolve("bad.json"), json(file("{'table': 5}")));
    assertThatThrownBy(() -> DefinitionFile.read(bad))
        .isInstanceOf(DefinitionException.class)
        .hasMessageStartingWith(bad + ": document 'books', node 'nodes'");
    assertThatThrownBy(() -> DefinitionFile.read(dir.resolve("none.json")))
        .hasMessageContaining("cannot read the definition " + dir.resolve("none.json"));
  }

  // --- what is refused: the file and its documents

  @Test
  void aFileIsAListOfDocuments() {
    refused("[{", "not JSON");
    refused("{'nodes': {}}", "a definition is a list of documents");
    refused("[]", "a definition is a list of documents");
    refused("[5]", "documents[0] is an object with database, index and nodes");
    refused(
        "[{'database': 'library', 'index': 'books', 'nodes': {'table': 'book'}}, 'x']",
        "documents[1] is an object with database, index and nodes");
  }

  @Test
  void aDocumentsOwnKeys() {
    refused(
        "[{'index': 'books', 'nodes': {'table': 'book'}}]",
        "document 'books': 'database' is required");
    refused(
        "[{'database': 5, 'index': 'books', 'nodes': {'table': 'book'}}]",
        "document 'books': 'database' must be a non-empty string");
    refused(
        "[{'database': 'library', 'index': 'Books', 'nodes': {'table': 'book'}}]",
        "document 'Books': the index name must be lower case letters, digits, '_', '-' or '.'");
    refused(
        "[{'database': 'library', 'index': ['books'], 'nodes': {'table': 'book'}}]",
        "documents[0]: 'index' must be a non-empty string");
    refused("[{'database': 'library', 'index': 'books'}]", "document 'books': 'nodes' must be");
    refused(
        "[{'database': 'library', 'index': 'books', 'nodes': 'book'}]",
        "document 'books': 'nodes' must be the root node (an object)");
    refused(
        file("[{'table': 'book'}, {'table': 'shelf'}]"),
        "document 'books': 'nodes' as a list must hold exactly one node");
    refused(file("[]"), "document 'books': 'nodes' as a list must hold exactly one node");
  }

  @Test
  void aNullIndexIsRefusedNotTakenForTheDatabase() {
    refused(
        "[{'database': 'library', 'index': null, 'nodes': {'table': 'book'}}]",
        "documents[0]: 'index' must be a non-empty string, not null");
    refused(
        "[{'database': null, 'index': 'books', 'nodes': {'table': 'book'}}]",
        "document 'books': 'database' must be a non-empty string, not null");
  }

  @Test
  void aDocumentsUnknownKeyIsRefusedNamingTheKnownOnesInOrder() {
    refused(
        "[{'database': 'library', 'index': 'books', 'node': {'table': 'book'}}]",
        "document 'books': 'node' is not something weir reads (it reads [database, index, mapping,"
            + " mappings, nodes, pipeline, routing, setting, weir])");
    refused(
        "[{'database': 'library', 'index': 'books', 'weir': {'copytable': 'x'},"
            + " 'nodes': {'table': 'book'}}]",
        "document 'books', 'weir': 'copytable' is not something weir reads (it reads"
            + " [copy_table])");
    refused(
        "[{'database': 'library', 'index': 'books', 'weir': 'x', 'nodes': {'table': 'book'}}]",
        "document 'books', 'weir' must be an object");
  }

  @Test
  void pgsyncsDocumentKeysWeirDoesNotApplyAreRefused() {
    refused(
        "[{'database': 'library', 'index': 'books', 'plugins': ['Hero'], 'nodes': {'table':"
            + " 'book'}}]",
        "document 'books': 'plugins' is not something weir reads: PGSync's");
  }

  @Test
  void pgsyncsIndexKeysAreReadIntoTheIndexDefinition() {
    DocumentSpec d =
        one(
            json(
                """
                [{'database': 'library', 'index': 'books',
                  'setting': {'number_of_shards': 3, 'index.refresh_interval': '5s',
                              'index': {'analysis': {'analyzer': {'folded': {'type': 'custom',
                                        'tokenizer': 'standard', 'filter': ['lowercase']}}}}},
                  'mapping': {'isbn': {'type': 'keyword'}},
                  'mappings': {'_source': {'excludes': ['secret']}},
                  'routing': 'isbn', 'pipeline': 'books-in',
                  'nodes': {'table': 'book'}}]
                """));
    IndexDefinition search = d.search();
    assertThat(search.settings().toString())
        .isEqualTo(
            "{\"number_of_shards\":3,\"refresh_interval\":\"5s\",\"analysis\":{\"analyzer\":"
                + "{\"folded\":{\"type\":\"custom\",\"tokenizer\":\"standard\","
                + "\"filter\":[\"lowercase\"]}}}}");
    assertThat(search.mappings().toString())
        .isEqualTo(
            "{\"_source\":{\"excludes\":[\"secret\"]},\"properties\":{\"isbn\":"
                + "{\"type\":\"keyword\"}}}");
    assertThat(search.routing()).isEqualTo("isbn");
    assertThat(search.pipeline()).isEqualTo("books-in");
  }

  @Test
  void anIndexKeyOfTheWrongShapeIsRefused() {
    refused(
        "[{'database': 'library', 'index': 'books', 'setting': 'x', 'nodes': {'table': 'book'}}]",
        "document 'books': 'setting' must be an object, not \"x\"");
    refused(
        "[{'database': 'library', 'index': 'books', 'routing': 5, 'nodes': {'table': 'book'}}]",
        "document 'books': 'routing' must be a non-empty string, not 5");
    refused(
        "[{'database': 'library', 'index': 'books', 'mapping': {'content_hash': {'type':"
            + " 'keyword'}}, 'nodes': {'table': 'book'}}]",
        "the mapping of 'content_hash' is weir's own");
    refused(
        "[{'database': 'library', 'index': 'books', 'mapping': {'isbn': 'keyword'},"
            + " 'nodes': {'table': 'book'}}]",
        "document 'books': 'mapping' must be an object of objects");
  }

  @Test
  void weirCopyTableIsAPlainName() {
    refused(
        "[{'database': 'library', 'index': 'books', 'weir': {'copy_table': 'book-copy'},"
            + " 'nodes': {'table': 'book'}}]",
        "document 'books': weir.copy_table 'book-copy' is not a plain SQL name");
    refused(
        "[{'database': 'library', 'index': 'books', 'weir': {'copy_table': null},"
            + " 'nodes': {'table': 'book'}}]",
        "document 'books': 'copy_table' must be a non-empty string, not null");
  }

  @Test
  void twoDocumentsCannotShareAnIndexOrACopyTable() {
    refused(
        """
        [{'database': 'library', 'index': 'books', 'nodes': {'table': 'book'}},
         {'database': 'store', 'index': 'books', 'nodes': {'table': 'book'}}]
        """,
        "document 'books' (documents[1]): documents[0] writes the index 'books' too");
    refused(
        """
        [{'database': 'library', 'index': 'books', 'nodes': {'table': 'book'}},
         {'database': 'library', 'index': 'shelves', 'weir': {'copy_table': 'books_document'},
          'nodes': {'table': 'shelf'}}]
        """,
        "document 'shelves': document 'books' writes the copy table 'books_document' too");
    refused(
        """
        [{'database': 'library', 'index': 'books.a', 'nodes': {'table': 'book'}},
         {'database': 'library', 'index': 'books_a', 'nodes': {'table': 'book'}}]
        """,
        "document 'books_a': document 'books.a' writes the copy table 'books_a_document' too");
  }

  // --- what is refused: nodes

  @Test
  void aNodesNamesAreStrings() {
    refused(file("{'label': 'book'}"), "document 'books', node 'book': 'table' is required");
    refused(file("{}"), "document 'books', node 'nodes': 'table' is required");
    refused(file("{'table': 5}"), "node 'nodes': 'table' must be a name (a string), not 5");
    refused(file("{'table': 'book-x'}"), "node 'book-x': table 'book-x' is not a plain SQL name");
    refused(file("{'table': 'book', 'label': 'a.b'}"), "label 'a.b' is not a plain SQL name");
    refused(file("{'table': 'book', 'schema': ''}"), "node 'book': schema '' is not a plain");
  }

  @Test
  void nullNamesAreRefusedNotTakenForDefaults() {
    refused(file("{'table': null}"), "node 'nodes': 'table' must be a name (a string), not null");
    refused(
        file("{'table': 'book', 'label': null}"),
        "node 'book': 'label' must be a name (a string), not null");
    refused(
        file("{'table': 'book', 'schema': null}"),
        "node 'book': 'schema' must be a name (a string), not null");
  }

  @Test
  void nullListsAreRefusedNotTakenForAbsent() {
    refused(
        file("{'table': 'book', 'columns': null}"),
        "node 'book': 'columns' must be a list of names, not null");
    refused(
        file("{'table': 'book', 'primary_key': null}"),
        "node 'book': 'primary_key' must be a list of names, not null");
    refused(
        relationship("{'type': 'one_to_many', 'variant': 'object', 'through_tables': null}"),
        "node 'book.review': 'through_tables' must be a list of names, not null");
  }

  @Test
  void aLabelOrSchemaThatIsNotAStringIsRefused() {
    refused(
        file("{'table': 'book', 'label': 5}"),
        "node 'book': 'label' must be a name (a string), not 5");
    refused(
        file("{'table': 'book', 'schema': ['public']}"),
        "node 'book': 'schema' must be a name (a string), not [\"public\"]");
  }

  @Test
  void aChildThatIsNotAnObjectIsNamedByItsPlace() {
    refused(
        file("{'table': 'book', 'children': [5]}"),
        "document 'books', node 'book.children[0]': a node is an object, not 5");
    refused(
        file(
            """
            {'table': 'book', 'children': [
              {'table': 'review', 'relationship': {'type': 'one_to_many', 'variant': 'object'}},
              {'columns': ['name'], 'relationship': {'type': 'one_to_one', 'variant': 'object'}}]}
            """),
        "document 'books', node 'book.children[1]': 'table' is required");
    refused(file("{'table': 'book', 'children': {}}"), "node 'book': 'children' must be a list");
  }

  @Test
  void aNodesUnknownKeyIsRefusedNamingTheKnownOnesInOrder() {
    refused(
        file(
            """
            {'table': 'book', 'children': [{'table': 'review',
              'relationships': {'type': 'one_to_many', 'variant': 'object'}}]}
            """),
        "node 'book.review': 'relationships' is not something weir reads (it reads [children,"
            + " columns, label, primary_key, relationship, schema, table, transform, weir])");
  }

  @Test
  void columnsAndPrimaryKeyAreListsOfNames() {
    refused(
        file("{'table': 'book', 'columns': 'title'}"),
        "node 'book': 'columns' must be a list of names");
    refused(
        file("{'table': 'book', 'columns': ['title', 5]}"),
        "node 'book': 'columns' must be a list of names");
    refused(
        file("{'table': 'book', 'columns': ['title', 'title']}"),
        "node 'book': 'columns' names 'title' twice");
    refused(
        file("{'table': 'book', 'columns': ['ti tle']}"),
        "node 'book': columns 'ti tle' is not a plain SQL name");
    refused(
        file("{'table': 'book', 'primary_key': 'isbn'}"),
        "node 'book': 'primary_key' must be a list of names");
  }

  @Test
  void twoChildrenCannotShareALabel() {
    refused(
        file(
            """
            {'table': 'book', 'children': [
              {'table': 'review', 'relationship': {'type': 'one_to_many', 'variant': 'object'}},
              {'table': 'review', 'relationship': {'type': 'one_to_many', 'variant': 'scalar'}}]}
            """),
        "node 'book.review': two children have the label 'review'");
  }

  // --- what is refused: relationships

  @Test
  void aChildHasARelationshipAndTheRootHasNone() {
    refused(
        file("{'table': 'book', 'children': [{'table': 'review'}]}"),
        "node 'book.review': a child needs a 'relationship' with 'type' and 'variant'");
    refused(
        file("{'table': 'book', 'children': [{'table': 'review', 'relationship': 'one_to_many'}]}"),
        "node 'book.review': a child needs a 'relationship' with 'type' and 'variant'");
    refused(
        file("{'table': 'book', 'relationship': {'type': 'one_to_one', 'variant': 'object'}}"),
        "node 'book': the root node has no relationship");
  }

  @Test
  void aRelationshipsTypeAndVariantAreOneOfTheirs() {
    refused(
        relationship("{'variant': 'object'}"),
        "node 'book.review': relationship.type is required (one of one_to_one, one_to_many)");
    refused(
        relationship("{'type': 'many_to_many', 'variant': 'object'}"),
        "node 'book.review': relationship.type is 'many_to_many', not one of one_to_one,"
            + " one_to_many");
    refused(
        relationship("{'type': 'one_to_many', 'variant': 'nested'}"),
        "node 'book.review': relationship.variant is 'nested', not one of object, scalar");
    refused(
        relationship("{'type': 'one_to_many'}"),
        "node 'book.review': relationship.variant is required (one of object, scalar)");
  }

  @Test
  void aRelationshipsUnknownKeyIsRefused() {
    refused(
        relationship("{'type': 'one_to_many', 'variant': 'object', 'through_table': ['x']}"),
        "node 'book.review': relationship: 'through_table' is not something weir reads (it reads"
            + " [foreign_key, through_tables, type, variant])");
    refused(
        relationship(
            "{'type': 'one_to_many', 'variant': 'object',"
                + " 'foreign_key': {'parent': ['isbn'], 'children': ['book_isbn']}}"),
        "node 'book.review': foreign_key: 'children' is not something weir reads (it reads"
            + " [child, parent])");
  }

  @Test
  void aForeignKeyPairsItsColumns() {
    String fk = "{'type': 'one_to_many', 'variant': 'object', 'foreign_key': %s}";
    refused(
        relationship(fk.formatted("{'parent': ['isbn', 'region'], 'child': ['book_isbn']}")),
        "node 'book.review': foreign_key needs as many 'parent' as 'child' columns, at least one");
    refused(
        relationship(fk.formatted("{}")),
        "node 'book.review': foreign_key needs as many 'parent' as 'child' columns");
    refused(
        relationship(fk.formatted("{'parent': 'isbn', 'child': 'book_isbn'}")),
        "node 'book.review': 'parent' must be a list of names");
    refused(
        relationship(fk.formatted("['isbn']")),
        "node 'book.review': foreign_key must be an object");
  }

  @Test
  void throughTablesIsOneLinkTableWithoutAForeignKey() {
    refused(
        relationship("{'type': 'one_to_many', 'variant': 'object', 'through_tables': ['a', 'b']}"),
        "node 'book.review': weir joins through one table at a time");
    refused(
        relationship("{'type': 'one_to_many', 'variant': 'object', 'through_tables': 'a'}"),
        "node 'book.review': 'through_tables' must be a list of names");
    refused(
        relationship(
            "{'type': 'one_to_many', 'variant': 'object', 'through_tables': ['a'],"
                + " 'foreign_key': {'parent': ['isbn'], 'child': ['isbn']}}"),
        "node 'book.review': foreign_key with through_tables");
  }

  @Test
  void aScalarHasNoChildren() {
    refused(
        file(
            """
            {'table': 'book', 'children': [{'table': 'publisher', 'columns': ['name'],
              'relationship': {'type': 'one_to_one', 'variant': 'scalar'},
              'children': [{'table': 'city',
                'relationship': {'type': 'one_to_one', 'variant': 'object'}}]}]}
            """),
        "node 'book.publisher': a scalar variant's field is one column's value: it has no"
            + " children");
  }

  // --- what is refused: transform

  @Test
  void transformIsPgsyncsFive() {
    refused(
        file("{'table': 'book', 'transform': {'renames': {'a': 'b'}}}"),
        "node 'book': transform: 'renames' is not something weir reads (it reads [concat, mapping,"
            + " move, rename, replace])");
    refused(file("{'table': 'book', 'transform': []}"), "node 'book': transform must be an object");
  }

  @Test
  void renameAndMappingAreObjectsOfTheirKind() {
    refused(
        file("{'table': 'book', 'transform': {'rename': {'a': 5}}}"),
        "node 'book': transform.rename.a must be a field name");
    refused(
        file("{'table': 'book', 'transform': {'rename': {'a': 'b c'}}}"),
        "node 'book': transform.rename.a 'b c' is not a plain SQL name");
    refused(
        file("{'table': 'book', 'transform': {'rename': [['a', 'b']]}}"),
        "node 'book': transform.rename must be an object");
    refused(
        file("{'table': 'book', 'transform': {'mapping': {'a': 'keyword'}}}"),
        "node 'book': transform.mapping.a must be a mapping object");
    refused(
        file("{'table': 'book', 'transform': {'mapping': 'keyword'}}"),
        "node 'book': transform.mapping must be an object");
  }

  // --- what is refused: weir's extensions on a node

  @Test
  void aNodesWeirKeysAreTopicVersionTypesAndPath() {
    refused(
        child("{'table': 'prices', 'weir': {'topics': 'x'}}", "object"),
        "node 'book.prices': weir: 'topics' is not something weir reads (it reads [event_schema,"
            + " path, topic, types, version, where])");
    refused(
        child("{'table': 'prices', 'weir': 'pricing.events'}", "object"),
        "node 'book.prices': weir must be an object");
  }

  @Test
  void aTopicNodeNamesItsVersionKeyAndForeignKey() {
    String price =
        """
        {'table': 'prices', 'primary_key': ['product_id'],
         'relationship': {'type': 'one_to_one', 'variant': 'object',
           'foreign_key': {'parent': ['id'], 'child': ['product_id']}},
         'weir': %s}
        """;
    refused(
        file("{'table': 'book', 'children': [" + price.formatted("{'topic': 'p'}") + "]}"),
        "node 'book.prices': weir: 'version' is required");
    refused(
        file("{'table': 'book', 'children': [" + price.formatted("{'version': 'v'}") + "]}"),
        "node 'book.prices': weir: 'topic' is required");
    refused(
        file(
            "{'table': 'book', 'children': ["
                + price.formatted("{'topic': 'p', 'version': 'v'}").replace("'primary_key'", "'x'")
                + "]}"),
        "node 'book.prices': 'x' is not something weir reads");
    refused(
        file(
            "{'table': 'book', 'children': [{'table': 'prices',"
                + " 'relationship': {'type': 'one_to_one', 'variant': 'object',"
                + " 'foreign_key': {'parent': ['id'], 'child': ['product_id']}},"
                + " 'weir': {'topic': 'p', 'version': 'v'}}]}"),
        "node 'book.prices': a topic node names its key: \"primary_key\": [...]");
    refused(
        file(
            "{'table': 'book', 'children': [{'table': 'prices', 'primary_key': ['product_id'],"
                + " 'relationship': {'type': 'one_to_one', 'variant': 'object'},"
                + " 'weir': {'topic': 'p', 'version': 'v'}}]}"),
        "node 'book.prices': a topic node names its relationship's foreign_key");
    refused(
        file("{'table': 'prices', 'primary_key': ['id'], 'weir': {'topic': 'p', 'version': 'v'}}"),
        "node 'prices': the root must be a table, not a topic");
  }

  @Test
  void weirTypesAreTypeNames() {
    String price =
        """
        {'table': 'book', 'children': [{'table': 'prices', 'primary_key': ['product_id'],
         'relationship': {'type': 'one_to_one', 'variant': 'object',
           'foreign_key': {'parent': ['id'], 'child': ['product_id']}},
         'weir': {'topic': 'p', 'version': 'v', 'types': %s}}]}
        """;
    refused(
        file(price.formatted("{'amount': 5}")),
        "node 'book.prices': weir.types.amount must be a PostgreSQL type name, not 5");
    refused(
        file(price.formatted("{'amount': null}")),
        "node 'book.prices': weir.types.amount must be a PostgreSQL type name, not null");
    refused(
        file(price.formatted("{'amount': ''}")),
        "node 'book.prices': weir.types.amount must be a PostgreSQL type name");
    refused(
        file(price.formatted("['numeric']")), "node 'book.prices': weir.types must be an object");
  }

  @Test
  void weirPathIsForAOneToOneScalarChild() {
    String path = "'weir': {'path': {'parent': ['parent_id']}}";
    refused(
        child("{'table': 'category', " + path + "}", "object"),
        "node 'book.category': weir.path is for a one_to_one scalar child");
    refused(
        file(
            "{'table': 'book', 'children': [{'table': 'category', "
                + path
                + ","
                + " 'relationship': {'type': 'one_to_many', 'variant': 'scalar'}}]}"),
        "node 'book.category': weir.path is for a one_to_one scalar child");
    refused(
        file("{'table': 'category', " + path + "}"),
        "node 'category': weir.path is for a one_to_one scalar child");
  }

  @Test
  void weirPathNamesItsParentAndAnIntegerDepth() {
    String node =
        "{'table': 'book', 'children': [{'table': 'category',"
            + " 'relationship': {'type': 'one_to_one', 'variant': 'scalar'},"
            + " 'weir': {'path': %s}}]}";
    refused(
        file(node.formatted("{'max_depth': 8}")),
        "node 'book.category': weir.path names its parent columns");
    refused(
        file(node.formatted("{'parent': ['parent_id'], 'depth': 8}")),
        "node 'book.category': weir.path: 'depth' is not something weir reads (it reads"
            + " [max_depth, parent])");
    refused(
        file(node.formatted("{'parent': ['parent_id'], 'max_depth': 0}")),
        "node 'book.category': weir.path.max_depth must be 1..64, not 0");
    refused(
        file(node.formatted("{'parent': ['parent_id'], 'max_depth': 65}")),
        "node 'book.category': weir.path.max_depth must be 1..64, not 65");
    refused(
        file(node.formatted("{'parent': ['parent_id'], 'max_depth': 'eight'}")),
        "node 'book.category': weir.path.max_depth must be 1..64, not \"eight\"");
    refused(
        file(node.formatted("{'parent': ['parent_id'], 'max_depth': 8.5}")),
        "node 'book.category': weir.path.max_depth must be 1..64, not 8.5");
  }

  @Test
  void aTopicsKeysWithoutATopicAreRefusedNotIgnored() {
    refused(
        file(
            "{'table': 'book', 'children': [{'table': 'category',"
                + " 'relationship': {'type': 'one_to_one', 'variant': 'scalar'},"
                + " 'weir': {'path': {'parent': ['parent_id']}, 'version': 'v'}}]}"),
        "node 'book.category': weir.version is for a topic node: it has no weir.topic");
    refused(
        file(
            "{'table': 'book', 'children': [{'table': 'category',"
                + " 'relationship': {'type': 'one_to_one', 'variant': 'scalar'},"
                + " 'weir': {'path': {'parent': ['parent_id']}, 'event_schema': 'pricing.events'}}]}"),
        "node 'book.category': weir.event_schema is for a topic node: it has no weir.topic");
  }

  // --- helpers

  /** The JSON of a test, written with single quotes. */
  private static String json(String singleQuoted) {
    return singleQuoted.replace('\'', '"');
  }

  /** A file of one document, {@code books} of database {@code library}, with these nodes. */
  private static String file(String nodes) {
    return "[{'database': 'library', 'index': 'books', 'nodes': " + nodes + "}]";
  }

  private static DocumentSpec one(String definition) {
    return one(definition, 0);
  }

  private static DocumentSpec one(String definition, int i) {
    return DefinitionFile.parse(json(definition)).get(i);
  }

  /** The one child of a root {@code book}. */
  private static NodeSpec child(String node) {
    return one(file("{'table': 'book', 'children': [" + node + "]}")).root().children().get(0);
  }

  /** A root {@code book} with this child, given a relationship of this variant. */
  private static String child(String node, String variant) {
    return file(
        "{'table': 'book', 'children': ["
            + node.substring(0, node.length() - 1)
            + ", 'relationship': {'type': 'one_to_one', 'variant': '"
            + variant
            + "'}}]}");
  }

  /** A root {@code book} with a child {@code review} of this relationship. */
  private static String relationship(String relationship) {
    return file(
        "{'table': 'book', 'children': [{'table': 'review', 'relationship': "
            + relationship
            + "}]}");
  }

  private static void refused(String definition, String message) {
    assertThatThrownBy(() -> DefinitionFile.parse(json(definition)))
        .isInstanceOf(DefinitionException.class)
        .hasMessageContaining(message);
  }
}
