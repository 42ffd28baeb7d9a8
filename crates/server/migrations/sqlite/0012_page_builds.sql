-- The builds of the page the servers started with (docs/PROTOCOL.md §9,
-- "The page on the record"): each is logged once, as a page record, so
-- that anyone can tell whether the page served is the one on the record.
-- A server starting with the build of the newest row adds none. Never edit
-- a migration once released.
CREATE TABLE page_builds (
    id              INTEGER PRIMARY KEY,
    fingerprint     BLOB NOT NULL,
    files           INTEGER NOT NULL,
    published_at_ms INTEGER NOT NULL,
    log_index       INTEGER
);
CREATE INDEX page_builds_unlogged ON page_builds (id) WHERE log_index IS NULL;
