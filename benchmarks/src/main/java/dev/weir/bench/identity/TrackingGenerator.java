package dev.weir.bench.identity;

import dev.weir.schema.IdentityEvent;
import dev.weir.schema.TrackingEvent;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The input: tracking events of a web shop's analytics (some twenty properties each), in which a
 * share {@code 1 - repeat} of the events brings a distinct id never seen before, spread evenly over
 * the input, and the others repeat an id already seen, chosen at random; every tenth new id is
 * later identified as a user (one identity event).
 */
final class TrackingGenerator {
  private static final Instant START = Instant.parse("2026-01-05T09:00:00Z");
  private static final String[] NAMES = {
    "page_view", "page_view", "page_view", "product_view", "add_to_cart", "search", "checkout"
  };
  private static final String[] BROWSERS = {"Chrome", "Safari", "Firefox", "Edge"};
  private static final String[] OSES = {"Windows", "Mac OS X", "iOS", "Android", "Linux"};
  private static final String[] CITIES = {"Berlin", "Lyon", "Austin", "Osaka", "Leeds"};
  private static final String[] SOURCES = {"google", "newsletter", "facebook", "direct"};

  private final double repeat;
  private final SplittableRandom random = new SplittableRandom(27);
  private final List<String> ids = new ArrayList<>();
  private final List<IdentityEvent> identifies = new ArrayList<>();
  private long n;

  TrackingGenerator(double repeat) {
    this.repeat = repeat;
  }

  /** The distinct ids made so far. */
  int distinctIds() {
    return ids.size();
  }

  /** The identity events made so far: one for every tenth new id. */
  List<IdentityEvent> identifies() {
    return identifies;
  }

  /** The next event; {@code time} null for the input's own increasing times. */
  TrackingEvent next(String eventIdPrefix, Instant time) {
    long i = n++;
    String id;
    if (ids.isEmpty() || random.nextDouble() >= repeat) {
      id = "anon-" + Long.toHexString(0x1000_0000_0000L + ids.size() * 7919L);
      ids.add(id);
      if (ids.size() % 10 == 0) {
        identifies.add(
            new IdentityEvent(
                "identify-" + ids.size(),
                IdentityEvent.Type.IDENTIFY,
                IdentityThroughputBenchmark.PROJECT,
                id,
                "user-" + ids.size(),
                START.plusMillis(i * 10)));
      }
    } else {
      id = ids.get(random.nextInt(ids.size()));
    }
    Map<String, Object> p = new LinkedHashMap<>();
    p.put("$insert_id", Long.toHexString(random.nextLong()));
    p.put("$browser", BROWSERS[random.nextInt(BROWSERS.length)]);
    p.put("$browser_version", 110 + random.nextInt(20));
    p.put("$os", OSES[random.nextInt(OSES.length)]);
    p.put("$current_url", "https://shop.example.com/products/" + random.nextInt(50_000));
    p.put("$referrer", "https://www.google.com/search?q=winter+boots");
    p.put("$referring_domain", "www.google.com");
    p.put("$screen_height", 1080);
    p.put("$screen_width", 1920);
    p.put("mp_lib", "web");
    p.put("$lib_version", "2.55.1");
    p.put("$city", CITIES[random.nextInt(CITIES.length)]);
    p.put("mp_country_code", "DE");
    p.put("utm_source", SOURCES[random.nextInt(SOURCES.length)]);
    p.put("utm_medium", "cpc");
    p.put("utm_campaign", "winter-sale-2026");
    p.put("plan", "pro");
    p.put("cart_value", random.nextInt(100_000) / 100.0);
    p.put("items", random.nextInt(8));
    p.put("experiment", Map.of("id", "checkout-v2", "variant", random.nextBoolean() ? "A" : "B"));
    return new TrackingEvent(
        eventIdPrefix + i,
        IdentityThroughputBenchmark.PROJECT,
        id,
        NAMES[random.nextInt(NAMES.length)],
        time == null ? START.plusMillis(i * 10) : time,
        p);
  }
}
