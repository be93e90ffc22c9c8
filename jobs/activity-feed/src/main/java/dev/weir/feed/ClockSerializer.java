package dev.weir.feed;

import dev.weir.common.types.FastStringSerializer;
import dev.weir.common.types.SerializerTypeInfo;
import dev.weir.feed.Clock.Dirty;
import dev.weir.feed.Clock.SeenId;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.base.TypeSerializerSingleton;
import org.apache.flink.api.java.typeutils.runtime.PojoSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * A key's {@link Clock}, field by field without reflection: it is read and written once per event
 * and per timer, and a POJO serializer would take its dozen fields and up to 16 remembered ids
 * through {@code Field.get}/{@code set} and boxing each time. Format: a byte (0: null, 1: this
 * layout), the scalar fields, then the remembered ids (their count, -1: null) and the dirty entries
 * (their count), each id or entry in turn; strings (null too) as {@link FastStringSerializer}
 * writes them.
 *
 * <p>A clock that Flink's POJO serializer wrote (weir before this serializer) restores: its
 * snapshot is compatible after migration, and Flink rewrites the clocks with this one.
 */
public final class ClockSerializer extends TypeSerializerSingleton<Clock> {

  private static final long serialVersionUID = 1L;

  public static final ClockSerializer INSTANCE = new ClockSerializer();

  public static final SerializerTypeInfo<Clock> TYPE = new ClockType();

  private static final int NULL = 0;

  private static final int LAYOUT = 1;

  @Override
  public boolean isImmutableType() {
    return false;
  }

  @Override
  public Clock createInstance() {
    return new Clock();
  }

  @Override
  public Clock copy(Clock from) {
    if (from == null) {
      return null;
    }
    Clock to = new Clock();
    to.openEntryId = from.openEntryId;
    to.frontier = from.frontier;
    to.flushAt = from.flushAt;
    to.releaseAt = from.releaseAt;
    to.patienceAt = from.patienceAt;
    to.waiting = from.waiting;
    to.latestWaitingAt = from.latestWaitingAt;
    to.entryTimerAt = from.entryTimerAt;
    to.shown = from.shown;
    if (from.seenIds == null) {
      to.seenIds = null;
    } else {
      to.seenIds = new ArrayList<>(from.seenIds.size());
      for (SeenId id : from.seenIds) {
        to.seenIds.add(new SeenId(id.eventId, id.at));
      }
    }
    to.dirty = new ArrayList<>(from.dirty.size());
    for (Dirty d : from.dirty) {
      to.dirty.add(new Dirty(d.entryId, d.changed, d.created));
    }
    return to;
  }

  @Override
  public Clock copy(Clock from, Clock reuse) {
    return copy(from);
  }

  @Override
  public int getLength() {
    return -1;
  }

  @Override
  public void serialize(Clock clock, DataOutputView out) throws IOException {
    if (clock == null) {
      out.writeByte(NULL);
      return;
    }
    out.writeByte(LAYOUT);
    FastStringSerializer.write(clock.openEntryId, out);
    out.writeLong(clock.frontier);
    out.writeLong(clock.flushAt);
    out.writeLong(clock.releaseAt);
    out.writeLong(clock.patienceAt);
    out.writeInt(clock.waiting);
    out.writeLong(clock.latestWaitingAt);
    out.writeLong(clock.entryTimerAt);
    out.writeBoolean(clock.shown);
    List<SeenId> ids = clock.seenIds;
    out.writeInt(ids == null ? -1 : ids.size());
    if (ids != null) {
      for (SeenId id : ids) {
        FastStringSerializer.write(id.eventId, out);
        out.writeLong(id.at);
      }
    }
    out.writeInt(clock.dirty.size());
    for (Dirty d : clock.dirty) {
      FastStringSerializer.write(d.entryId, out);
      out.writeInt(d.changed);
      out.writeBoolean(d.created);
    }
  }

  @Override
  public Clock deserialize(DataInputView in) throws IOException {
    int layout = in.readByte();
    if (layout == NULL) {
      return null;
    }
    if (layout != LAYOUT) {
      throw new IOException("Not a clock written by this serializer: layout " + layout);
    }
    Clock clock = new Clock();
    clock.openEntryId = FastStringSerializer.read(in);
    clock.frontier = in.readLong();
    clock.flushAt = in.readLong();
    clock.releaseAt = in.readLong();
    clock.patienceAt = in.readLong();
    clock.waiting = in.readInt();
    clock.latestWaitingAt = in.readLong();
    clock.entryTimerAt = in.readLong();
    clock.shown = in.readBoolean();
    int ids = in.readInt();
    if (ids < 0) {
      clock.seenIds = null;
    } else {
      clock.seenIds = new ArrayList<>(Math.max(ids, Clock.IDS_IN_CLOCK));
      for (int i = 0; i < ids; i++) {
        clock.seenIds.add(new SeenId(FastStringSerializer.read(in), in.readLong()));
      }
    }
    int dirty = in.readInt();
    clock.dirty = new ArrayList<>(dirty);
    for (int i = 0; i < dirty; i++) {
      clock.dirty.add(new Dirty(FastStringSerializer.read(in), in.readInt(), in.readBoolean()));
    }
    return clock;
  }

  @Override
  public Clock deserialize(Clock reuse, DataInputView in) throws IOException {
    return deserialize(in);
  }

  @Override
  public void copy(DataInputView source, DataOutputView target) throws IOException {
    serialize(deserialize(source), target);
  }

  @Override
  public TypeSerializerSnapshot<Clock> snapshotConfiguration() {
    return new Snapshot();
  }

  /** Its snapshot; also takes over clocks written by the POJO serializer (after migration). */
  public static final class Snapshot extends SimpleTypeSerializerSnapshot<Clock> {

    public Snapshot() {
      super(() -> INSTANCE);
    }

    @Override
    public TypeSerializerSchemaCompatibility<Clock> resolveSchemaCompatibility(
        TypeSerializerSnapshot<Clock> oldSerializerSnapshot) {
      if (oldSerializerSnapshot instanceof PojoSerializerSnapshot<?>) {
        return TypeSerializerSchemaCompatibility.compatibleAfterMigration();
      }
      return super.resolveSchemaCompatibility(oldSerializerSnapshot);
    }
  }

  private static final class ClockType extends SerializerTypeInfo<Clock> {

    private static final long serialVersionUID = 1L;

    ClockType() {
      super(Clock.class, "Clock");
    }

    @Override
    protected TypeSerializer<Clock> serializer(SerializerConfig config) {
      return INSTANCE;
    }
  }
}
