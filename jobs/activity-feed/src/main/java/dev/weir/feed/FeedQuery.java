package dev.weir.feed;

/**
 * The feed as clients read it: newest first for one workspace, page by page with a keyset cursor on
 * (last_at, entry_id). The index {@code feed_entry_by_recency (workspace_id, last_at DESC, entry_id
 * DESC)} serves both statements with no sort step.
 */
public final class FeedQuery {

  /** Parameters: workspace_id, page size. */
  public static final String FIRST_PAGE =
      "SELECT entry_id, actor_id, element_type, element_id, action, first_at, last_at, event_count, recent_details"
          + " FROM feed_entry WHERE workspace_id = ?"
          + " ORDER BY last_at DESC, entry_id DESC LIMIT ?";

  /** Parameters: workspace_id, the last row's last_at and entry_id (the cursor), page size. */
  public static final String NEXT_PAGE =
      "SELECT entry_id, actor_id, element_type, element_id, action, first_at, last_at, event_count, recent_details"
          + " FROM feed_entry WHERE workspace_id = ? AND (last_at, entry_id) < (?, ?)"
          + " ORDER BY last_at DESC, entry_id DESC LIMIT ?";

  private FeedQuery() {}
}
