-- index.db schema. The index is derived data: any change to this file bumps
-- schemaVersion in index.go, and an index.db of another version is rebuilt
-- from the files rather than migrated.

-- Small facts about the index: the stat digest of the last walk, when the
-- last reindex ran.
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value ANY
) WITHOUT ROWID;

-- The manifest: one row per file the last walk saw. A file whose size and
-- mtime still match is not read again; one whose content hash still matches
-- is not re-chunked. Files that could not be indexed keep a row with the
-- problem, so they are warned about once per change, not on every search.
CREATE TABLE files (
    id          INTEGER PRIMARY KEY,
    path        TEXT NOT NULL UNIQUE,   -- workspace-relative, slash-separated
    size        INTEGER NOT NULL,
    mtime_ns    INTEGER NOT NULL,
    hash        BLOB,                   -- SHA-256 of the content; NULL when not indexed
    problem     TEXT,                   -- why the file is not indexed; NULL when it is
    racy        INTEGER NOT NULL DEFAULT 0, -- mtime too close to the indexing time to trust
    first_chunk INTEGER,                -- the file's chunks are ids first_chunk..last_chunk
    last_chunk  INTEGER
);

-- The chunks, stored once: the FTS table below indexes them as its external
-- content, so hits carry their text without reading the files again.
CREATE TABLE chunks (
    id         INTEGER PRIMARY KEY,
    file_id    INTEGER NOT NULL,
    start_line INTEGER NOT NULL,
    end_line   INTEGER NOT NULL,
    heading    TEXT NOT NULL,   -- heading path, "Trip planning › Flights"
    date       TEXT NOT NULL,   -- "2026-11-20" for daily logs, "" otherwise
    text       TEXT NOT NULL,
    by         TEXT NOT NULL DEFAULT '' -- 'assistant': a logged turn's reply; '': the user's words
);

-- A search that names days ("yesterday", --since) reads their chunks.
CREATE INDEX chunks_date ON chunks(date);

-- Porter stemming over unicode61 so "painting" finds "paints" and "café"
-- finds "cafe"; heading and text are separate columns so bm25 can weigh the
-- heading above the body.
CREATE VIRTUAL TABLE chunks_fts USING fts5(
    heading, text,
    content = 'chunks', content_rowid = 'id',
    tokenize = 'porter unicode61 remove_diacritics 2'
);

-- The index's vocabulary, the terms (stems) and how many chunks hold each:
-- a query word with no hit is matched to its nearest term (typo.go).
CREATE VIRTUAL TABLE chunks_vocab USING fts5vocab(chunks_fts, 'row');
