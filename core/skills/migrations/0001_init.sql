-- Every saved version of a workspace skill's SKILL.md (<home>/skills/NAME/),
-- including edits made with an editor (recorded as author 'user' when first
-- noticed) and removals (removed = 1, content '').
CREATE TABLE skill_revisions (
    id         INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    content    TEXT NOT NULL,
    removed    INTEGER NOT NULL DEFAULT 0 CHECK (removed IN (0, 1)),
    sha256     TEXT NOT NULL,
    author     TEXT NOT NULL CHECK (author IN ('user', 'agent')),
    reason     TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL
);

CREATE INDEX skill_revisions_by_name ON skill_revisions (name, id);
