-- What each forget did, never what it forgot: a phrase is kept only as a
-- salted SHA-256 of its lower-cased form (with its length in characters),
-- so a later import can recognise and skip it; a session deletion keeps
-- only its counts. id is the forget's journal id: the row is written in the
-- same transaction as the forget's changes to state.db, so its presence is
-- the commit point a half-finished forget is replayed or rolled back by.
CREATE TABLE forgotten (
    id       TEXT PRIMARY KEY,
    kind     TEXT NOT NULL CHECK (kind IN ('phrase', 'sessions')),
    hash     TEXT NOT NULL DEFAULT '',
    salt     BLOB,
    runes    INTEGER NOT NULL DEFAULT 0,
    files    INTEGER NOT NULL,   -- workspace files rewritten
    rows     INTEGER NOT NULL,   -- state.db values changed
    sessions INTEGER NOT NULL,   -- sessions deleted
    at       TEXT NOT NULL       -- RFC 3339, UTC
);
