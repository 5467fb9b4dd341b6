-- Reminders: a text and a due time. A reminder stays pending until the user
-- marks it done (or removes it); delivered_at only says the tick has shown
-- it once, so cron does not mail it every minute.
CREATE TABLE reminders (
    id           INTEGER PRIMARY KEY,
    text         TEXT NOT NULL,
    due_at       TEXT NOT NULL,               -- RFC 3339, UTC, whole seconds
    status       TEXT NOT NULL DEFAULT 'pending'
                 CHECK (status IN ('pending', 'done', 'removed')),
    created_by   TEXT NOT NULL,               -- 'user' or 'model (chat session NAME)'
    created_at   TEXT NOT NULL,
    delivered_at TEXT,                        -- NULL: not yet shown by a tick
    updated_at   TEXT NOT NULL
);

CREATE INDEX reminders_pending ON reminders (status, due_at);

-- Every change to a reminder, in order: add, snooze, done, remove, deliver.
CREATE TABLE reminder_changes (
    id          INTEGER PRIMARY KEY,
    reminder_id INTEGER NOT NULL REFERENCES reminders (id),
    action      TEXT NOT NULL,
    old_due_at  TEXT,
    new_due_at  TEXT,
    at          TEXT NOT NULL,
    command     TEXT NOT NULL                 -- who directed it
);
