-- identity: the Cloud Spanner table behind SpannerIdentityStore (GoogleSQL dialect).
-- Writers name only the columns they change (mutations). canonical_id NULL means "maps to itself",
-- so a first sighting can be written without reading the row first.
CREATE TABLE identity_mapping (
    project_id         STRING(128) NOT NULL,
    distinct_id        STRING(256) NOT NULL,
    canonical_id       STRING(256),
    earliest_seen      TIMESTAMP,
    identify_seen      BOOL NOT NULL DEFAULT (false),
    alias_seen         BOOL NOT NULL DEFAULT (false),
    people_update_seen BOOL NOT NULL DEFAULT (false),
    updated_at         TIMESTAMP
) PRIMARY KEY (project_id, distinct_id);

-- merge: find every distinct id of a canonical id.
CREATE INDEX identity_mapping_by_canonical ON identity_mapping (project_id, canonical_id);
