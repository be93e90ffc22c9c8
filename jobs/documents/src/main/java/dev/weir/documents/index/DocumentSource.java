package dev.weir.documents.index;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import com.fasterxml.jackson.core.util.ByteArrayBuilder;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The Elasticsearch document of a declared document: each field's JSON value as it is, then the
 * content hash in hex. One writer for the streaming job (from the join's values) and the backfill
 * (from the copy's), so both send the same document.
 */
public final class DocumentSource {

  private DocumentSource() {}

  /** The definitions' field names, quoted: as many as the declared documents have fields. */
  private static final Map<String, byte[]> QUOTED_NAMES = new ConcurrentHashMap<>();

  private static final byte[] NULL = "null".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] CONTENT_HASH =
      "\"content_hash\":".getBytes(StandardCharsets.US_ASCII);

  /**
   * @param names the document's fields, in order
   * @param values each field's value as JSON text (null: JSON null)
   */
  public static byte[] json(List<String> names, String[] values, byte[] contentHash) {
    // The values are JSON text already: their UTF-8 bytes go in as they are. String.getBytes copies
    // an ASCII string in one vectorised pass where a JsonGenerator's raw write encodes it char by
    // char (most of the backfill's time). A lone surrogate becomes '?', as the copy's JDBC
    // write stores it.
    ByteArrayBuilder out = new ByteArrayBuilder(estimatedSize(values));
    out.append('{');
    for (int i = 0; i < names.size(); i++) {
      out.write(quoted(names.get(i)));
      out.append(':');
      out.write(values[i] == null ? NULL : values[i].getBytes(StandardCharsets.UTF_8));
      out.append(',');
    }
    out.write(CONTENT_HASH);
    if (contentHash == null) {
      out.write(NULL);
    } else {
      out.append('"');
      out.write(HexFormat.of().formatHex(contentHash).getBytes(StandardCharsets.US_ASCII));
      out.append('"');
    }
    out.append('}');
    return out.toByteArray();
  }

  /** A field name as a JSON string, escaped as a JsonGenerator escapes it; once per name. */
  private static byte[] quoted(String name) {
    return QUOTED_NAMES.computeIfAbsent(name, DocumentSource::quote);
  }

  private static byte[] quote(String name) {
    byte[] escaped = JsonStringEncoder.getInstance().quoteAsUTF8(name);
    byte[] quoted = new byte[escaped.length + 2];
    quoted[0] = '"';
    System.arraycopy(escaped, 0, quoted, 1, escaped.length);
    quoted[quoted.length - 1] = '"';
    return quoted;
  }

  /**
   * At least the size of {@link #json} of these values (a name or value may take more bytes when
   * escaped, which only makes the real size larger): for a limit, counted without writing.
   */
  public static long sizeAtLeast(List<String> names, String[] values) {
    long size = 2 + "\"content_hash\":".length() + 66;
    for (int i = 0; i < names.size(); i++) {
      size += names.get(i).length() + 4;
      size += values[i] == null ? 4 : utf8Length(values[i]);
    }
    return size;
  }

  private static long utf8Length(String s) {
    long bytes = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < 0x80) {
        bytes++;
      } else if (c < 0x800) {
        bytes += 2;
      } else if (Character.isHighSurrogate(c)
          && i + 1 < s.length()
          && Character.isLowSurrogate(s.charAt(i + 1))) {
        bytes += 4;
        i++;
      } else if (Character.isSurrogate(c)) {
        bytes++; // a lone surrogate is written as '?'
      } else {
        bytes += 3;
      }
    }
    return bytes;
  }

  private static int estimatedSize(String[] values) {
    int size = 128;
    for (String v : values) {
      size += 16 + (v == null ? 4 : v.length());
    }
    return size;
  }
}
