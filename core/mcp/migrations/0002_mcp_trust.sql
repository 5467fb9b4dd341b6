-- The user's approval to start a server: the hash of its entry as written
-- (command, args, env, url, headers; ${VAR} unexpanded). An entry with no
-- approval, or changed since it was approved, starts nothing.
CREATE TABLE mcp_approvals (
    server      TEXT PRIMARY KEY,
    entry_hash  TEXT NOT NULL,
    approved_at TEXT NOT NULL
);

-- Decisions belong to the server they were given to: keyed by its target
-- (a hash of the command line or URL as written, Server.TargetKey: an
-- argument may hold a token), so a server that replaces another
-- under the same name starts with none. Those recorded before, by name
-- only, cannot be told apart from a replacement's and are dropped.
DROP TABLE mcp_policy;
CREATE TABLE mcp_policy (
    server     TEXT NOT NULL,
    target     TEXT NOT NULL,
    tool       TEXT NOT NULL DEFAULT '',
    decision   TEXT NOT NULL CHECK (decision IN ('allow', 'deny')),
    updated_at TEXT NOT NULL,
    PRIMARY KEY (server, target, tool)
);
