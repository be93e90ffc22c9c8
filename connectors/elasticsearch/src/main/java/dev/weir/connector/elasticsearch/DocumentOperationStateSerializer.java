package dev.weir.connector.elasticsearch;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import org.apache.flink.connector.base.sink.writer.AsyncSinkWriterStateSerializer;
import org.apache.flink.connector.base.sink.writer.BufferedRequestState;

/**
 * Checkpoints the operations still buffered in the writer. Version 2 adds whether an operation
 * requires an alias; version 1's operations (before it existed) are read as not requiring one.
 * Version 3 adds the routing and, for a move, the previous routing; earlier operations have none.
 */
final class DocumentOperationStateSerializer
    extends AsyncSinkWriterStateSerializer<DocumentOperation> {

  private static final int VERSION = 3;

  /** The version of the state being read (the base class does not pass it on). */
  private int reading = VERSION;

  @Override
  public BufferedRequestState<DocumentOperation> deserialize(int version, byte[] serialized)
      throws IOException {
    if (version < 1 || version > VERSION) {
      throw new IOException("unknown Elasticsearch sink state version " + version);
    }
    reading = version;
    try {
      return super.deserialize(version, serialized);
    } finally {
      reading = VERSION;
    }
  }

  @Override
  protected void serializeRequestToStream(DocumentOperation op, DataOutputStream out)
      throws IOException {
    out.writeUTF(op.index());
    out.writeUTF(op.id());
    out.writeLong(op.version());
    out.writeBoolean(op.isDelete());
    if (!op.isDelete()) {
      out.writeInt(op.source().length);
      out.write(op.source());
    }
    out.writeBoolean(op.requiresAlias());
    writeNullable(out, op.routing());
    out.writeBoolean(op.moved());
    if (op.moved()) {
      writeNullable(out, op.previousRouting());
    }
  }

  private static void writeNullable(DataOutputStream out, String value) throws IOException {
    out.writeBoolean(value != null);
    if (value != null) {
      out.writeUTF(value);
    }
  }

  private static String readNullable(DataInputStream in) throws IOException {
    return in.readBoolean() ? in.readUTF() : null;
  }

  @Override
  protected DocumentOperation deserializeRequestFromStream(long requestSize, DataInputStream in)
      throws IOException {
    String index = in.readUTF();
    String id = in.readUTF();
    long version = in.readLong();
    DocumentOperation op;
    if (in.readBoolean()) {
      op = DocumentOperation.delete(index, id, version);
    } else {
      byte[] source = new byte[in.readInt()];
      in.readFully(source);
      op = DocumentOperation.index(index, id, version, source);
    }
    if (reading >= 2 && in.readBoolean()) {
      op = op.requiringAlias();
    }
    if (reading >= 3) {
      op = op.routedBy(readNullable(in));
      if (in.readBoolean()) {
        op = op.movedFrom(readNullable(in));
      }
    }
    return op;
  }

  @Override
  public int getVersion() {
    return VERSION;
  }
}
