-- activity-feed: hot store. One row per collated entry, updated in place.
CREATE TABLE feed_entry (
    workspace_id   text        NOT NULL,
    entry_id       text        NOT NULL,  -- deterministic: derived from the collation key and the entry's first event
    actor_id       text        NOT NULL,
    element_type   text        NOT NULL,
    element_id     text        NOT NULL,
    action         text        NOT NULL,
    first_at       timestamptz NOT NULL,
    last_at        timestamptz NOT NULL,
    event_count    integer     NOT NULL CHECK (event_count > 0),
    recent_details jsonb       NOT NULL DEFAULT '[]'::jsonb,  -- bounded list, newest first
    CONSTRAINT feed_entry_pk PRIMARY KEY (workspace_id, entry_id)
);

-- Serves "newest first for a workspace, page by page" with no sort step:
--   WHERE workspace_id = ? AND (last_at, entry_id) < (?, ?) ORDER BY last_at DESC, entry_id DESC LIMIT ?
-- The equality column leads; the sort key (last_at, entry_id) is the suffix.
CREATE INDEX feed_entry_by_recency ON feed_entry (workspace_id, last_at DESC, entry_id DESC);

-- identity: one row per (project, distinct id). Writers name only the columns they change.
CREATE TABLE identity_mapping (
    project_id         text        NOT NULL,
    distinct_id        text        NOT NULL,
    canonical_id       text        NOT NULL,
    earliest_seen      timestamptz,
    identify_seen      boolean     NOT NULL DEFAULT false,
    alias_seen         boolean     NOT NULL DEFAULT false,
    people_update_seen boolean     NOT NULL DEFAULT false,
    updated_at         timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT identity_mapping_pk PRIMARY KEY (project_id, distinct_id)
);

-- merge: find every distinct id of a canonical id.
CREATE INDEX identity_mapping_by_canonical ON identity_mapping (project_id, canonical_id);

-- search-index: the denormalised copy, one row per product; the source for Elasticsearch and for backfills.
CREATE TABLE search_document (
    product_id     bigint      NOT NULL,
    sku            text,
    name           text,
    description    text,                  -- large (several kB): TOASTed, never re-sent when unchanged
    attributes     jsonb,
    brand_id       bigint,
    brand_name     text,
    category_id    bigint,
    category_path  text[],                -- root to leaf
    price          numeric(14, 4),
    currency       char(3),
    price_version  bigint,
    updated_at     timestamptz,           -- the catalog's updated_at
    content_hash   bytea       NOT NULL,  -- hash of the indexed content: skip work when it did not change
    doc_version    bigint      NOT NULL,  -- monotonic; the Elasticsearch external version
    CONSTRAINT search_document_pk PRIMARY KEY (product_id)
);
