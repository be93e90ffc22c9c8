package dev.weir.feed;

import dev.weir.schema.ActivityEvent;
import org.apache.flink.api.common.typeinfo.TypeInfo;

/** Events with the same key may collate into one entry. */
@TypeInfo(CollationKeySerializer.Factory.class)
public record CollationKey(
    String workspaceId, String actorId, String elementType, String elementId, String action) {

  public static CollationKey of(ActivityEvent e) {
    return new CollationKey(
        e.workspaceId(), e.actorId(), e.elementType(), e.elementId(), e.action());
  }
}
