package dev.weir.documents;

import dev.weir.common.config.WeirConfig;
import java.io.Serializable;

/**
 * The change topic of a captured table: {@code <prefix><table>}, or {@code
 * <prefix><schema>.<table>} outside {@code public}; a table of another database than {@link
 * DocumentOptions#CATALOG_URL}'s (a definition's {@code database}) always with its schema, {@code
 * <prefix><database>.<schema>.<table>}, so that no two tables of a server share one.
 *
 * @param urlDatabase the database of {@link DocumentOptions#CATALOG_URL}
 */
public record ChangeTopicNames(String prefix, String urlDatabase) implements Serializable {

  public static ChangeTopicNames of(WeirConfig config) {
    return new ChangeTopicNames(
        config.get(DocumentOptions.CDC_TOPIC_PREFIX),
        DocumentOptions.database(config.get(DocumentOptions.CATALOG_URL)));
  }

  public String topic(String database, String schema, String table) {
    if (!database.equals(urlDatabase)) {
      return prefix + database + "." + schema + "." + table;
    }
    return "public".equals(schema) ? prefix + table : prefix + schema + "." + table;
  }
}
