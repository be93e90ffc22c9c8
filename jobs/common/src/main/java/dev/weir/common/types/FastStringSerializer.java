package dev.weir.common.types;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.types.StringValue;

/**
 * A string in the very bytes of Flink's {@link StringSerializer} ({@link StringValue}'s format: the
 * length plus one, then each character, both as 7-bit groups), written and read a block at a time
 * when the text is ASCII, as ids and names are. {@code StringValue} moves each character in a call
 * of its own and looks up a thread-local buffer per string, a large share of the time of a thread
 * that reads and writes keys, clocks, waiting events and timers. Its snapshot takes over state
 * written by {@link StringSerializer} as is.
 */
public final class FastStringSerializer extends StringTypeSerializer {

  private static final long serialVersionUID = 1L;

  public static final FastStringSerializer INSTANCE = new FastStringSerializer();

  private static final int HIGH_BIT = 0x80;

  @Override
  public void serialize(String record, DataOutputView target) throws IOException {
    write(record, target);
  }

  @Override
  public String deserialize(DataInputView source) throws IOException {
    return read(source);
  }

  @Override
  public void copy(DataInputView source, DataOutputView target) throws IOException {
    StringValue.copyString(source, target);
  }

  /** Writes {@code value} (null too) as {@link StringValue#writeString} does. */
  public static void write(String value, DataOutputView out) throws IOException {
    if (value == null || !isAscii(value)) {
      StringValue.writeString(value, out);
      return;
    }
    int length = value.length() + 1; // zero means null
    while (length >= HIGH_BIT) {
      out.write(length | HIGH_BIT);
      length >>>= 7;
    }
    out.write(length);
    out.write(value.getBytes(StandardCharsets.ISO_8859_1)); // ASCII: a byte per character
  }

  private static boolean isAscii(String value) {
    for (int i = 0; i < value.length(); i++) {
      if (value.charAt(i) >= HIGH_BIT) {
        return false;
      }
    }
    return true;
  }

  /**
   * Reads a string {@link StringValue#writeString} wrote. The first {@code length} bytes are read
   * at once: every character takes at least one byte, so they never reach past the string.
   */
  public static String read(DataInputView in) throws IOException {
    int length = readLength(in);
    if (length == 0) {
      return null;
    }
    length--;
    byte[] bytes = new byte[length];
    in.readFully(bytes);
    int ascii = 0;
    while (ascii < length && bytes[ascii] >= 0) {
      ascii++;
    }
    if (ascii == length) {
      return new String(bytes, StandardCharsets.ISO_8859_1);
    }
    char[] chars = new char[length];
    for (int i = 0; i < ascii; i++) {
      chars[i] = (char) bytes[i];
    }
    int next = ascii; // the next unread byte of bytes; past them, the input's
    for (int i = ascii; i < length; i++) {
      int b = next < length ? bytes[next++] & 0xff : in.readUnsignedByte();
      if (b >= HIGH_BIT) {
        int c = b & 0x7f;
        int shift = 7;
        while ((b = next < length ? bytes[next++] & 0xff : in.readUnsignedByte()) >= HIGH_BIT) {
          c |= (b & 0x7f) << shift;
          shift += 7;
        }
        b = c | (b << shift);
      }
      chars[i] = (char) b;
    }
    return new String(chars);
  }

  private static int readLength(DataInputView in) throws IOException {
    int length = in.readUnsignedByte();
    if (length >= HIGH_BIT) {
      int shift = 7;
      int b;
      length &= 0x7f;
      while ((b = in.readUnsignedByte()) >= HIGH_BIT) {
        length |= (b & 0x7f) << shift;
        shift += 7;
      }
      length |= b << shift;
    }
    return length;
  }

  @Override
  public TypeSerializerSnapshot<String> snapshotConfiguration() {
    return new Snapshot();
  }

  /** Its snapshot; also takes over state written by {@link StringSerializer} (the same bytes). */
  public static final class Snapshot extends SimpleTypeSerializerSnapshot<String> {

    public Snapshot() {
      super(() -> INSTANCE);
    }

    @Override
    public TypeSerializerSchemaCompatibility<String> resolveSchemaCompatibility(
        TypeSerializerSnapshot<String> oldSerializerSnapshot) {
      if (oldSerializerSnapshot instanceof StringSerializer.StringSerializerSnapshot) {
        return TypeSerializerSchemaCompatibility.compatibleAsIs();
      }
      return super.resolveSchemaCompatibility(oldSerializerSnapshot);
    }
  }
}
