-- The workspace's forget keys (core/forgotten, docs/decisions-forgetsync.md):
-- what a forget journals is an HMAC of the phrase under a key only the
-- user's devices hold, kept here, in state.db, which never leaves the
-- machine. The newest is the one a forget made here uses; an older one
-- (this device's own before the user copied another's) still reads the
-- forgets made with it.
CREATE TABLE forget_keys (
    id       TEXT PRIMARY KEY,   -- hex of an HMAC of a fixed text: names the key, says nothing of it
    secret   BLOB NOT NULL,
    added_at TEXT NOT NULL
);

-- Which key a phrase's hash was made with: '' for a plain salted SHA-256
-- (rows made before keys: kept to recognise the phrase here, never told
-- to another device).
ALTER TABLE forgotten ADD COLUMN key_id TEXT NOT NULL DEFAULT '';
