-- Every version of a file the agent may change, by kind: 'soul' (SOUL.md),
-- 'memory' (MEMORY.md), 'skill' (skills/NAME/SKILL.md, name = NAME). The
-- agent's changes and the user's (an edit made with an editor, recorded as
-- author 'user' when first noticed); a removal is removed = 1, content ''.
-- Revision numbers count per kind. Each kind's older table is moved in by
-- its own package's next migration.
CREATE TABLE revisions (
    kind       TEXT NOT NULL,
    id         INTEGER NOT NULL,
    name       TEXT NOT NULL DEFAULT '',
    content    TEXT NOT NULL,
    removed    INTEGER NOT NULL DEFAULT 0 CHECK (removed IN (0, 1)),
    sha256     TEXT NOT NULL,
    author     TEXT NOT NULL CHECK (author IN ('user', 'agent')),
    reason     TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL,
    PRIMARY KEY (kind, id)
);

CREATE INDEX revisions_by_name ON revisions (kind, name, id);
