-- Chat histories imported from other assistants (agent import). Each import
-- is one row; each conversation file it wrote is an item, with the SHA-256
-- of the bytes written, so undo removes a file only if nobody edited it.
CREATE TABLE imports (
    id            INTEGER PRIMARY KEY,
    origin        TEXT NOT NULL,            -- 'chatgpt' or 'claude'
    source        TEXT NOT NULL,            -- the file imported, as given
    at            TEXT NOT NULL,            -- RFC 3339, UTC
    conversations INTEGER NOT NULL,         -- files written
    messages      INTEGER NOT NULL,         -- messages written
    skipped       INTEGER NOT NULL,         -- conversations skipped (no text)
    undone_at     TEXT                      -- NULL while its files are in place
);

CREATE TABLE import_items (
    id              INTEGER PRIMARY KEY,
    import_id       INTEGER NOT NULL REFERENCES imports (id),
    origin          TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    path            TEXT NOT NULL,          -- workspace-relative
    sha256          BLOB NOT NULL,
    message_ids     TEXT NOT NULL           -- the messages written, one id a line
);

CREATE INDEX import_items_conversation ON import_items (origin, conversation_id);
CREATE INDEX import_items_import ON import_items (import_id);
