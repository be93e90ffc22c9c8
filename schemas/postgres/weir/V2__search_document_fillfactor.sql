-- search_document is updated in place all day (a price, a name), a few columns at a time. Free room on
-- each page lets PostgreSQL keep the new row version on the same page: a HOT update, no index entry,
-- and WAL that logs only the bytes that differ from the old version. Pages filled before this keep
-- their layout until rewritten.
ALTER TABLE search_document SET (fillfactor = 75);
