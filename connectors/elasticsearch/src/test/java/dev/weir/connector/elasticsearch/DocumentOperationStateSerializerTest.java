package dev.weir.connector.elasticsearch;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import org.apache.flink.connector.base.sink.writer.AsyncSinkWriterStateSerializer;
import org.apache.flink.connector.base.sink.writer.BufferedRequestState;
import org.apache.flink.connector.base.sink.writer.RequestEntryWrapper;
import org.junit.jupiter.api.Test;

class DocumentOperationStateSerializerTest {

  private final DocumentOperationStateSerializer serializer =
      new DocumentOperationStateSerializer();

  @Test
  void bufferedOperationsKeepWhetherTheyRequireTheAlias() throws IOException {
    DocumentOperation index =
        DocumentOperation.index("products", "1", 7, "{\"a\":1}".getBytes()).requiringAlias();
    DocumentOperation delete = DocumentOperation.delete("products", "2", 9).requiringAlias();
    DocumentOperation concrete = DocumentOperation.index("products-v2", "3", 5, "{}".getBytes());
    List<DocumentOperation> back =
        roundTrip(serializer.serialize(state(index, delete, concrete)), serializer.getVersion());
    assertThat(back)
        .extracting(DocumentOperation::toString)
        .containsExactly("index products/1@7", "delete products/2@9", "index products-v2/3@5");
    assertThat(back)
        .extracting(DocumentOperation::requiresAlias)
        .containsExactly(true, true, false);
    assertThat(back.get(0).source()).isEqualTo("{\"a\":1}".getBytes());
  }

  @Test
  void bufferedOperationsKeepTheirRoutingAndWhereAMovedDocumentWas() throws IOException {
    DocumentOperation moved =
        DocumentOperation.index("books", "1", 7, "{}".getBytes()).routedBy("b").movedFrom("a");
    DocumentOperation movedFromItsId =
        DocumentOperation.index("books", "2", 7, "{}".getBytes()).routedBy("b").movedFrom(null);
    DocumentOperation delete = DocumentOperation.delete("books", "3", 9).routedBy("c");
    List<DocumentOperation> back =
        roundTrip(
            serializer.serialize(state(moved, movedFromItsId, delete)), serializer.getVersion());
    assertThat(back)
        .extracting(DocumentOperation::toString)
        .containsExactly(
            "index books/1@7 routing b (moved from routing a)",
            "index books/2@7 routing b (moved from routing null)",
            "delete books/3@9 routing c");
  }

  @Test
  void stateOfVersionOneIsReadAsNotRequiringAnAlias() throws IOException {
    DocumentOperation index = DocumentOperation.index("products", "1", 7, "{}".getBytes());
    DocumentOperation delete = DocumentOperation.delete("products", "2", 9);
    byte[] v1 = new VersionOne().serialize(state(index, delete));
    List<DocumentOperation> back = roundTrip(v1, 1);
    assertThat(back)
        .extracting(DocumentOperation::toString)
        .containsExactly("index products/1@7", "delete products/2@9");
    assertThat(back).extracting(DocumentOperation::requiresAlias).containsExactly(false, false);
  }

  private List<DocumentOperation> roundTrip(byte[] bytes, int version) throws IOException {
    return serializer.deserialize(version, bytes).getBufferedRequestEntries().stream()
        .map(RequestEntryWrapper::getRequestEntry)
        .toList();
  }

  private static BufferedRequestState<DocumentOperation> state(DocumentOperation... ops) {
    return new BufferedRequestState<>(
        Arrays.stream(ops).map(op -> new RequestEntryWrapper<>(op, op.sizeInBytes())).toList());
  }

  /** The format of version 1, before operations could require an alias. */
  private static final class VersionOne extends AsyncSinkWriterStateSerializer<DocumentOperation> {
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
    protected DocumentOperation deserializeRequestFromStream(long requestSize, DataInputStream in) {
      throw new UnsupportedOperationException();
    }

    @Override
    public int getVersion() {
      return 1;
    }
  }
}
