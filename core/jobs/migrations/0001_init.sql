-- Scheduled jobs: an agent command (never a shell line) and when to run it.
CREATE TABLE jobs (
    id              INTEGER PRIMARY KEY,
    name            TEXT NOT NULL UNIQUE,
    schedule        TEXT NOT NULL,              -- as typed: "0 8 * * *", "@daily", "every 1h"
    zone            TEXT NOT NULL,              -- IANA name the schedule is read in
    args            TEXT NOT NULL,              -- JSON array of the agent's own arguments
    enabled         INTEGER NOT NULL DEFAULT 1,
    failures        INTEGER NOT NULL DEFAULT 0, -- failed runs in a row
    disabled_reason TEXT NOT NULL DEFAULT '',   -- set when failures disabled it
    next_at         TEXT NOT NULL,              -- RFC 3339 UTC: when it is next due
    running_since   TEXT,                       -- the claim of the process running it
    last_at         TEXT,
    last_status     TEXT NOT NULL DEFAULT '',
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL
);

-- Every run: what it printed and how it ended.
CREATE TABLE job_runs (
    id           INTEGER PRIMARY KEY,
    job_name     TEXT NOT NULL,
    trigger      TEXT NOT NULL CHECK (trigger IN ('tick', 'run')),
    scheduled_at TEXT,                          -- the due time a tick ran it for
    started_at   TEXT NOT NULL,
    finished_at  TEXT,
    status       TEXT NOT NULL CHECK (status IN ('running', 'ok', 'failed', 'deferred')),
    exit_code    INTEGER,
    stdout       TEXT NOT NULL DEFAULT '',
    stderr       TEXT NOT NULL DEFAULT ''
);

CREATE INDEX job_runs_by_name ON job_runs (job_name, id);

-- Every change to a job: add, remove, enable, disable, and auto-disable.
CREATE TABLE job_changes (
    id       INTEGER PRIMARY KEY,
    job_name TEXT NOT NULL,
    action   TEXT NOT NULL,
    detail   TEXT NOT NULL DEFAULT '',
    at       TEXT NOT NULL
);
