-- Each integration's last known state: its tool list as the server gave it,
-- keyed by a hash of its resolved configuration (a changed command, URL or
-- secret lists again), and how the last start went.
CREATE TABLE mcp_servers (
    name       TEXT PRIMARY KEY,
    config_key TEXT NOT NULL,
    tools      TEXT NOT NULL DEFAULT '[]',
    listed     INTEGER NOT NULL DEFAULT 0,
    state      TEXT NOT NULL,
    last_error TEXT NOT NULL DEFAULT '',
    updated_at TEXT NOT NULL
);

-- The user's decisions: allow (run without asking) or deny (never offer)
-- a tool, or with tool '' every tool of the server.
CREATE TABLE mcp_policy (
    server     TEXT NOT NULL,
    tool       TEXT NOT NULL DEFAULT '',
    decision   TEXT NOT NULL CHECK (decision IN ('allow', 'deny')),
    updated_at TEXT NOT NULL,
    PRIMARY KEY (server, tool)
);
