-- Profile records: the agent's and the user's identity. Written only on the
-- user's explicit direction; every change is recorded in profile_history.
CREATE TABLE profile_records (
    key        TEXT PRIMARY KEY,             -- 'agent.name', 'user.pref.coffee'
    scope      TEXT NOT NULL CHECK (scope IN ('agent', 'user')),
    value      TEXT NOT NULL,
    updated_at TEXT NOT NULL                 -- RFC 3339, UTC
);

CREATE TABLE profile_history (
    id         INTEGER PRIMARY KEY,
    key        TEXT NOT NULL,
    old_value  TEXT,                         -- NULL: the key was not set
    new_value  TEXT,                         -- NULL: the key was unset
    changed_at TEXT NOT NULL,
    command    TEXT NOT NULL                 -- the user command that directed it
);

-- Proposals are the only way the model touches the profile: recorded here,
-- applied only by `agent profile accept ID`.
CREATE TABLE profile_proposals (
    id          INTEGER PRIMARY KEY,
    key         TEXT NOT NULL,
    value       TEXT NOT NULL,
    reason      TEXT NOT NULL DEFAULT '',
    proposed_by TEXT NOT NULL,               -- e.g. 'chat session work'
    status      TEXT NOT NULL DEFAULT 'pending'
                CHECK (status IN ('pending', 'accepted', 'rejected')),
    created_at  TEXT NOT NULL,
    decided_at  TEXT
);
