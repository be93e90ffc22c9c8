-- activity-feed: cold store. An entry lives either here or in feed_entry, never in both.
CREATE TABLE feed_archive (
    workspace_id   text        NOT NULL,
    entry_id       text        NOT NULL,
    actor_id       text        NOT NULL,
    element_type   text        NOT NULL,
    element_id     text        NOT NULL,
    action         text        NOT NULL,
    first_at       timestamptz NOT NULL,
    last_at        timestamptz NOT NULL,
    event_count    integer     NOT NULL CHECK (event_count > 0),
    recent_details jsonb       NOT NULL DEFAULT '[]'::jsonb,
    archived_at    timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT feed_archive_pk PRIMARY KEY (workspace_id, entry_id)
);
