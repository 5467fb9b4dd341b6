-- Every version of MEMORY.md after a change: the agent's (a fact added or
-- superseded, by a tool, a command or the distillation) and the user's (an
-- edit made with an editor, recorded as author 'user' when first noticed).
CREATE TABLE memory_revisions (
    id         INTEGER PRIMARY KEY,
    content    TEXT NOT NULL,
    sha256     TEXT NOT NULL,
    author     TEXT NOT NULL CHECK (author IN ('user', 'agent')),
    reason     TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL
);
