-- Every saved version of SOUL.md, including edits made with an editor
-- (recorded as author 'user' when first noticed).
CREATE TABLE soul_revisions (
    id         INTEGER PRIMARY KEY,
    content    TEXT NOT NULL,
    sha256     TEXT NOT NULL,
    author     TEXT NOT NULL CHECK (author IN ('user', 'agent')),
    reason     TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL
);
