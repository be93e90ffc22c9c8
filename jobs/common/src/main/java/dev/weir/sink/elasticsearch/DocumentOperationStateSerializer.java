package dev.weir.sink.elasticsearch;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import org.apache.flink.connector.base.sink.writer.AsyncSinkWriterStateSerializer;

/** Checkpoints the operations still buffered in the writer. */
final class DocumentOperationStateSerializer
    extends AsyncSinkWriterStateSerializer<DocumentOperation> {

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
  }

  @Override
  protected DocumentOperation deserializeRequestFromStream(long requestSize, DataInputStream in)
      throws IOException {
    String index = in.readUTF();
    String id = in.readUTF();
    long version = in.readLong();
    if (in.readBoolean()) {
      return DocumentOperation.delete(index, id, version);
    }
    byte[] source = new byte[in.readInt()];
    in.readFully(source);
    return DocumentOperation.index(index, id, version, source);
  }

  @Override
  public int getVersion() {
    return 1;
  }
}
