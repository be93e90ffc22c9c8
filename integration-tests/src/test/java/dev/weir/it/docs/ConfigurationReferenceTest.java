package dev.weir.it.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.backfill.BackfillOptions;
import dev.weir.capture.CaptureOptions;
import dev.weir.common.config.WeirOptions;
import dev.weir.documents.DocumentOptions;
import dev.weir.feed.FeedOptions;
import dev.weir.identity.IdentityOptions;
import dev.weir.search.SearchIndexOptions;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.description.BlockElement;
import org.apache.flink.configuration.description.TextElement;
import org.apache.flink.util.TimeUtils;
import org.junit.jupiter.api.Test;

/**
 * docs/configuration.md lists every option the jobs declare, with its default and description, as
 * the code declares them: a new or changed option fails this test until the page says so. Run with
 * {@code -Dweir.docs.update=true} to write the table from the code.
 */
class ConfigurationReferenceTest {

  private static final Path PAGE = Path.of("..", "docs", "configuration.md");
  private static final String BEGIN = "<!-- options: generated from the option classes -->";
  private static final String END = "<!-- end of options -->";

  /** Every class that declares options, in the order the page lists them. */
  private static final List<Class<?>> OPTION_CLASSES =
      List.of(
          WeirOptions.class,
          FeedOptions.class,
          IdentityOptions.class,
          DocumentOptions.class,
          CaptureOptions.class,
          SearchIndexOptions.class,
          BackfillOptions.class);

  @Test
  void thePageListsEveryOptionAsTheCodeDeclaresIt() throws Exception {
    String page = Files.readString(PAGE);
    String table = table();
    int begin = page.indexOf(BEGIN);
    int end = page.indexOf(END);
    assertThat(begin).as("%s has the marker %s", PAGE, BEGIN).isNotNegative();
    assertThat(end).as("%s has the marker %s", PAGE, END).isGreaterThan(begin);
    String listed = page.substring(begin + BEGIN.length(), end);
    if (Boolean.getBoolean("weir.docs.update") && !listed.equals(table)) {
      Files.writeString(
          PAGE, page.substring(0, begin + BEGIN.length()) + table + page.substring(end));
      listed = table;
    }
    assertThat(listed)
        .as("the options in %s (run this test with -Dweir.docs.update=true to rewrite them)", PAGE)
        .isEqualTo(table);
  }

  @Test
  void everyOptionHasADescription() throws Exception {
    for (ConfigOption<?> option : options()) {
      assertThat(text(option)).as(option.key()).isNotBlank();
    }
  }

  private static String table() throws Exception {
    StringBuilder out = new StringBuilder("\n");
    for (Class<?> type : OPTION_CLASSES) {
      out.append("\n### `").append(type.getSimpleName()).append("`\n\n");
      out.append("| option | default | what it sets |\n|---|---|---|\n");
      for (ConfigOption<?> option : options(type)) {
        out.append("| `")
            .append(option.key())
            .append("` | ")
            .append(defaultOf(option))
            .append(" | ")
            .append(cell(text(option)))
            .append(" |\n");
      }
    }
    return out.append("\n").toString();
  }

  private static List<ConfigOption<?>> options() throws Exception {
    List<ConfigOption<?>> all = new ArrayList<>();
    for (Class<?> type : OPTION_CLASSES) {
      all.addAll(options(type));
    }
    return all;
  }

  /** The class's static ConfigOption fields, in declaration order. */
  private static List<ConfigOption<?>> options(Class<?> type) throws Exception {
    List<ConfigOption<?>> options = new ArrayList<>();
    for (Field f : type.getDeclaredFields()) {
      if (Modifier.isStatic(f.getModifiers()) && ConfigOption.class.isAssignableFrom(f.getType())) {
        f.setAccessible(true);
        options.add((ConfigOption<?>) f.get(null));
      }
    }
    return options;
  }

  private static String defaultOf(ConfigOption<?> option) {
    if (!option.hasDefaultValue()) {
      return "—";
    }
    Object value = option.defaultValue();
    String text =
        value instanceof Duration d ? TimeUtils.formatWithHighestUnit(d) : String.valueOf(value);
    return "`" + text + "`";
  }

  /** The option's description as written (its text blocks; weir's have no formatting). */
  private static String text(ConfigOption<?> option) {
    StringBuilder text = new StringBuilder();
    for (BlockElement block : option.description().getBlocks()) {
      text.append(text.length() == 0 ? "" : " ")
          .append(block instanceof TextElement t ? t.getFormat() : block.toString());
    }
    return text.toString();
  }

  private static String cell(String text) {
    return text.replace("|", "\\|").replace("\n", " ");
  }
}
