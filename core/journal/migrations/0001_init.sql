-- The journal (core/journal, docs/decisions-journal.md): user-owned records
-- travel between devices as lines in sync/journal/<device>.jsonl.

-- This device: made once per workspace-on-this-machine (machine says which:
-- a state.db copied to another machine or folder is another device there),
-- and the hybrid logical clock: the highest stamp this device has made or
-- read.
CREATE TABLE journal_device (
    one     INTEGER PRIMARY KEY CHECK (one = 1),
    device  TEXT NOT NULL,
    name    TEXT NOT NULL,                   -- the hostname, for people
    machine TEXT NOT NULL,                   -- hash of the machine id and the workspace's path
    hlc_ms  INTEGER NOT NULL DEFAULT 0,
    hlc_c   INTEGER NOT NULL DEFAULT 0
);

-- Changes made here and not yet appended to this device's journal. The
-- triggers below fill it in the transaction that changes the record, so a
-- change is never lost between the database and the file; hlc is stamped
-- before the line is written, so a line written twice (a crash between the
-- write and the delete) carries the same stamp and is applied once.
CREATE TABLE journal_outbox (
    id    INTEGER PRIMARY KEY,
    kind  TEXT NOT NULL CHECK (kind IN ('profile', 'reminder', 'job')),
    key   TEXT NOT NULL,
    op    TEXT NOT NULL,
    value TEXT,                              -- JSON; NULL: a tombstone
    hlc   TEXT                               -- NULL until stamped
);

-- Present (one row) only inside a replay's transaction: what a replay
-- writes came from a journal and must not be journalled again.
CREATE TABLE journal_applying (one INTEGER PRIMARY KEY CHECK (one = 1));

-- Every stamp applied or written here: replay is idempotent by it.
CREATE TABLE journal_applied (hlc TEXT PRIMARY KEY) WITHOUT ROWID;

-- The stamp of the change that set each record's current value: a change
-- with a lower stamp loses (last writer wins) and goes to history.
CREATE TABLE journal_clock (
    kind TEXT NOT NULL,
    key  TEXT NOT NULL,
    hlc  TEXT NOT NULL,
    PRIMARY KEY (kind, key)
) WITHOUT ROWID;

-- How far each other device's journal has been read: the no-change check
-- is a stat against size and mtime; offset and the hash of the bytes
-- before it tell whether the file only grew (read on from offset) or was
-- replaced (read again from the start, which the stamps make harmless).
CREATE TABLE journal_read (
    file        TEXT PRIMARY KEY,             -- name in sync/journal
    size        INTEGER NOT NULL,
    mtime_ns    INTEGER NOT NULL,
    offset      INTEGER NOT NULL,
    prefix_hash TEXT NOT NULL
);

-- Reminders are known across devices by a random id; the local integer id
-- stays what the user types.
ALTER TABLE reminders ADD COLUMN uid TEXT;
UPDATE reminders SET uid = lower(hex(randomblob(16)));
CREATE UNIQUE INDEX reminders_uid ON reminders (uid);

-- Profile records: the new value, or a tombstone when unset.
CREATE TRIGGER journal_profile_insert AFTER INSERT ON profile_records
WHEN NOT EXISTS (SELECT 1 FROM journal_applying)
BEGIN
    INSERT INTO journal_outbox (kind, key, op, value) VALUES ('profile', NEW.key, 'set', json_quote(NEW.value));
END;

CREATE TRIGGER journal_profile_update AFTER UPDATE OF value ON profile_records
WHEN NEW.value IS NOT OLD.value AND NOT EXISTS (SELECT 1 FROM journal_applying)
BEGIN
    INSERT INTO journal_outbox (kind, key, op, value) VALUES ('profile', NEW.key, 'set', json_quote(NEW.value));
END;

CREATE TRIGGER journal_profile_delete AFTER DELETE ON profile_records
WHEN NOT EXISTS (SELECT 1 FROM journal_applying)
BEGIN
    INSERT INTO journal_outbox (kind, key, op, value) VALUES ('profile', OLD.key, 'unset', NULL);
END;

-- Reminders: the whole user-visible state, so the last writer's line is
-- enough to rebuild it. The local tick's own bookkeeping (updated_at) does
-- not travel; delivered_at does: it is how a reminder fires once.
CREATE TRIGGER journal_reminder_insert AFTER INSERT ON reminders
WHEN NOT EXISTS (SELECT 1 FROM journal_applying)
BEGIN
    UPDATE reminders SET uid = lower(hex(randomblob(16))) WHERE id = NEW.id AND uid IS NULL;
    INSERT INTO journal_outbox (kind, key, op, value)
    SELECT 'reminder', uid, 'add', json_object('text', text, 'due_at', due_at, 'status', status,
        'created_by', created_by, 'created_at', created_at, 'delivered_at', delivered_at)
    FROM reminders WHERE id = NEW.id;
END;

CREATE TRIGGER journal_reminder_update AFTER UPDATE OF text, due_at, status, delivered_at ON reminders
WHEN (NEW.text IS NOT OLD.text OR NEW.due_at IS NOT OLD.due_at OR NEW.status IS NOT OLD.status
      OR NEW.delivered_at IS NOT OLD.delivered_at)
     AND NOT EXISTS (SELECT 1 FROM journal_applying)
BEGIN
    INSERT INTO journal_outbox (kind, key, op, value) VALUES ('reminder', NEW.uid,
        CASE WHEN NEW.status IS NOT OLD.status THEN NEW.status
             WHEN NEW.due_at IS NOT OLD.due_at THEN 'snooze'
             WHEN NEW.delivered_at IS NOT NULL AND OLD.delivered_at IS NULL THEN 'fired'
             ELSE 'edit' END,
        json_object('text', NEW.text, 'due_at', NEW.due_at, 'status', NEW.status,
            'created_by', NEW.created_by, 'created_at', NEW.created_at, 'delivered_at', NEW.delivered_at));
END;

CREATE TRIGGER journal_reminder_delete AFTER DELETE ON reminders
WHEN NOT EXISTS (SELECT 1 FROM journal_applying)
BEGIN
    INSERT INTO journal_outbox (kind, key, op, value) VALUES ('reminder', OLD.uid, 'delete', NULL);
END;

-- Jobs: what the user chose (schedule, zone, command, on or off). The run
-- state (next_at, failures, claims) is this machine's; a job turned off by
-- its own failures (disabled_reason set) is this machine's business too.
CREATE TRIGGER journal_job_insert AFTER INSERT ON jobs
WHEN NOT EXISTS (SELECT 1 FROM journal_applying)
BEGIN
    INSERT INTO journal_outbox (kind, key, op, value) VALUES ('job', NEW.name, 'add',
        json_object('schedule', NEW.schedule, 'zone', NEW.zone, 'args', json(NEW.args), 'enabled', NEW.enabled));
END;

CREATE TRIGGER journal_job_update AFTER UPDATE OF schedule, zone, args, enabled ON jobs
WHEN (NEW.schedule IS NOT OLD.schedule OR NEW.zone IS NOT OLD.zone OR NEW.args IS NOT OLD.args
      OR NEW.enabled IS NOT OLD.enabled)
     AND NEW.disabled_reason = ''
     AND NOT EXISTS (SELECT 1 FROM journal_applying)
BEGIN
    INSERT INTO journal_outbox (kind, key, op, value) VALUES ('job', NEW.name,
        CASE WHEN NEW.enabled IS NOT OLD.enabled THEN CASE NEW.enabled WHEN 1 THEN 'enable' ELSE 'disable' END
             ELSE 'edit' END,
        json_object('schedule', NEW.schedule, 'zone', NEW.zone, 'args', json(NEW.args), 'enabled', NEW.enabled));
END;

CREATE TRIGGER journal_job_delete AFTER DELETE ON jobs
WHEN NOT EXISTS (SELECT 1 FROM journal_applying)
BEGIN
    INSERT INTO journal_outbox (kind, key, op, value) VALUES ('job', OLD.name, 'remove', NULL);
END;

-- First use: what this device already holds goes into its journal once, so
-- another device learns it.
INSERT INTO journal_outbox (kind, key, op, value)
    SELECT 'profile', key, 'set', json_quote(value) FROM profile_records ORDER BY key;
INSERT INTO journal_outbox (kind, key, op, value)
    SELECT 'reminder', uid, 'add', json_object('text', text, 'due_at', due_at, 'status', status,
        'created_by', created_by, 'created_at', created_at, 'delivered_at', delivered_at)
    FROM reminders ORDER BY id;
INSERT INTO journal_outbox (kind, key, op, value)
    SELECT 'job', name, 'add', json_object('schedule', schedule, 'zone', zone, 'args', json(args), 'enabled', enabled)
    FROM jobs ORDER BY name;
