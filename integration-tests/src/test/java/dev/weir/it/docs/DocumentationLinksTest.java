package dev.weir.it.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every link of the documentation to a file of the repository leads to one that exists, and every
 * anchor to a heading that exists (GitHub's rule: lower case, spaces to '-', other punctuation
 * dropped). Links that leave the repository are not followed.
 */
class DocumentationLinksTest {

  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
  private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.+?)\\s*$");

  @Test
  void everyLinkToTheRepositoryLeadsToAFileAndEveryAnchorToAHeading() throws IOException {
    List<String> broken = new ArrayList<>();
    for (Path page : pages()) {
      String text = withoutCodeBlocks(Files.readString(page));
      Matcher link = LINK.matcher(text);
      while (link.find()) {
        String target = link.group(1);
        if (target.matches("^[a-z]+:.*") || target.startsWith("../shared")) {
          continue; // http(s), mailto: outside the repository
        }
        int hash = target.indexOf('#');
        String file = hash < 0 ? target : target.substring(0, hash);
        String anchor = hash < 0 ? null : target.substring(hash + 1);
        Path linked = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
        String where = ROOT.relativize(page) + " → " + target;
        if (!linked.startsWith(ROOT)) {
          broken.add(where + " (leaves the repository)");
        } else if (!Files.exists(linked)) {
          broken.add(where + " (no such file)");
        } else if (anchor != null
            && linked.toString().endsWith(".md")
            && !anchors(linked).contains(anchor)) {
          broken.add(where + " (no such heading)");
        }
      }
    }
    assertThat(broken).as("broken links").isEmpty();
  }

  @Test
  void theReadmeIsAFrontPage() throws IOException {
    assertThat(Files.size(ROOT.resolve("README.md")))
        .as("README.md bytes (at most 12 KB: the details belong in docs/)")
        .isLessThanOrEqualTo(12 * 1024);
  }

  private static List<Path> pages() throws IOException {
    List<Path> pages = new ArrayList<>(List.of(ROOT.resolve("README.md")));
    for (String dir : List.of("docs", "k8s", "benchmarks")) {
      try (Stream<Path> files = Files.walk(ROOT.resolve(dir))) {
        files
            .filter(p -> p.toString().endsWith(".md"))
            .filter(p -> !p.toString().contains("/target/"))
            .forEach(pages::add);
      }
    }
    return pages;
  }

  private static Set<String> anchors(Path page) throws IOException {
    Set<String> anchors = new HashSet<>();
    for (String line : withoutCodeBlocks(Files.readString(page)).split("\n")) {
      Matcher h = HEADING.matcher(line);
      if (h.matches()) {
        String slug = slug(h.group(1));
        String unique = slug;
        for (int n = 1; !anchors.add(unique); n++) {
          unique = slug + "-" + n;
        }
      }
    }
    return anchors;
  }

  /** GitHub's heading anchor. */
  static String slug(String heading) {
    return heading.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
  }

  private static String withoutCodeBlocks(String markdown) {
    return markdown.replaceAll("(?s)```.*?```", "");
  }
}
