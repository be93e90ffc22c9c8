package dev.weir.it.engines;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * A search ITCase (class or method) that runs on every search engine weir supports: every ITCase
 * runs on Elasticsearch 8, these also in {@link SearchOnElasticsearch9} and {@link
 * SearchOnOpenSearch2}. They cover the index as created, backfill, the search contract, hostile
 * input, routing, settings, pipelines, refused documents and PGSync's nested book example; not
 * SearchIndexITCase, whose subject is the copy (its index writes are the same sink's).
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Tag(EverySearchEngine.TAG)
public @interface EverySearchEngine {
  String TAG = "every-search-engine";
}
