package dev.weir.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.common.config.WeirConfig;
import dev.weir.common.config.WeirOptions;
import dev.weir.identity.IdentityOptions;
import dev.weir.it.LocalStackExtension;
import dev.weir.it.TestDatabases;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;
import java.util.Random;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The sections of {@code weir demo} that show identity and backfill, each run as the demo runs it
 * (its own MiniClusters, the real stack): they must show what they say, and say so in their result,
 * which is the demo's exit code.
 */
@ExtendWith(LocalStackExtension.class)
class DemoSectionsITCase {

  @Test
  void identitySectionResolvesEveryIdOfTheShopperToHerUserId() throws Exception {
    WeirConfig config = TestDatabases.fresh(LocalStackExtension.config(), "it_demo_identity");

    String out = identitySection(config);

    // Before identify: the laptop's own id; after: her user id; the merged profile's ids too.
    assertThat(out)
        .containsPattern(
            "e1 \\d\\d:\\d\\d anon-laptop-7f3a +page_view +→ canonical anon-laptop-7f3a")
        .containsPattern("e5 \\d\\d:\\d\\d anon-laptop-7f3a +add_to_cart +→ canonical user-ada")
        .containsPattern(
            "e7 \\d\\d:\\d\\d ada@mail.example +newsletter_open +→ canonical anon-tablet-c04e")
        .containsPattern(
            "e9 \\d\\d:\\d\\d ada@mail.example +newsletter_open +→ canonical user-ada");
    assertThat(
            TestDatabases.strings(
                config,
                config.get(WeirOptions.POSTGRES_URL),
                "SELECT distinct_id || '|' || canonical_id FROM identity_mapping ORDER BY 1"))
        .containsExactly(
            "ada@mail.example|user-ada",
            "anon-laptop-7f3a|user-ada",
            "anon-phone-91c2|user-ada",
            "anon-tablet-c04e|user-ada");
  }

  /** The same story on Cloud Spanner's emulator, which `weir demo` uses when the stack runs it. */
  @Test
  void identitySectionOnSpannerResolvesEveryIdOfTheShopperToHerUserId() throws Exception {
    WeirConfig config =
        WeirConfig.from(Map.of(), LocalStackExtension.stack().environment())
            .with(IdentityOptions.STORE, "spanner");

    String out = identitySection(config);

    assertThat(out)
        .contains("identity_mapping in Cloud Spanner's emulator")
        .containsPattern("e9 \\d\\d:\\d\\d ada@mail.example +newsletter_open +→ canonical user-ada")
        .containsPattern("anon-tablet-c04e +user-ada +\\d\\d:\\d\\d +false +false");
  }

  /**
   * Runs the identity section as the demo does; what it printed, once its result says it showed
   * what it should: every id of the shopper resolved to her user id.
   */
  private static String identitySection(WeirConfig config) throws Exception {
    StringWriter printed = new StringWriter();
    IdentityDemo.Result result =
        IdentityDemo.run(new PrintWriter(printed, true), config, freePort());
    String out = printed.toString();
    assertThat(result.asExpected()).as(out).isTrue();
    assertThat(out).doesNotContain("EXPECTED");
    assertThat(result.summary()).endsWith("4 of 4 ids resolved to user-ada");
    return out;
  }

  @Test
  void backfillSectionRebuildsTheCatalogIndexSwapsTheAliasAndFindsTheSameHits() throws Exception {
    WeirConfig config = TestDatabases.fresh(LocalStackExtension.config(), "it_demo_backfill");
    StringWriter printed = new StringWriter();
    PrintWriter out = new PrintWriter(printed, true);

    BackfillDemo.Result result;
    try (CatalogDemo.Running catalog =
        CatalogDemo.run(
            out,
            LocalStackExtension.stack(),
            LocalStackExtension.connections(),
            config,
            freePort())) {
      result = BackfillDemo.run(out, out, catalog);
      assertThat(catalog.es.indicesBehind(CatalogDemo.ALIAS)).containsExactly(BackfillDemo.TARGET);
    }

    assertThat(result.same()).as(printed.toString()).isTrue();
    assertThat(printed.toString())
        .contains("alias moved to " + BackfillDemo.TARGET)
        .doesNotContain("DIFFERENT");
    // Both searches (price-range, brand-and-category) found something, and the same after.
    assertThat(
            Pattern.compile("→ all [1-9]\\d* hits the same, in the same order, as before the swap")
                .matcher(printed.toString())
                .results()
                .count())
        .as(printed.toString())
        .isEqualTo(2);
    // Every document of the copy was sent to the new index.
    assertThat(result.summary())
        .containsPattern("([\\d,]+) documents into " + BackfillDemo.TARGET + " in .* \\(sent \\1,");
  }

  /**
   * A base port whose next ones are free as well (the demo's jobs take them), below the ephemeral
   * range: a port next to one the system handed out there can be taken by one of the stack's client
   * connections before a job binds it (seen in CI).
   */
  private static int freePort() {
    Random random = new Random();
    for (int attempt = 0; attempt < 100; attempt++) {
      int port = 20_000 + random.nextInt(10_000);
      if (DemoCommand.firstTaken(port, DemoCommand.WEB_PORTS).isEmpty()) {
        return port;
      }
    }
    throw new IllegalStateException("no free ports in a row between 20000 and 30005");
  }
}
