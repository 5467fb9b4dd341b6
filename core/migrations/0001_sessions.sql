-- Conversations. The user's message is stored before the model is called and
-- the reply after, so nothing reported as said is lost.
CREATE TABLE sessions (
    id         INTEGER PRIMARY KEY,
    name       TEXT NOT NULL UNIQUE,
    model      TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);

CREATE TABLE messages (
    id                INTEGER PRIMARY KEY,
    session_id        INTEGER NOT NULL REFERENCES sessions(id),
    role              TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'tool')),
    content           TEXT NOT NULL,
    tool_calls        TEXT NOT NULL DEFAULT '',  -- JSON, assistant turns only
    tool_name         TEXT NOT NULL DEFAULT '',  -- tool results only
    status            TEXT NOT NULL DEFAULT 'complete'
                      CHECK (status IN ('complete', 'interrupted', 'error')),
    prompt_eval_count INTEGER NOT NULL DEFAULT 0,
    eval_count        INTEGER NOT NULL DEFAULT 0,
    created_at        TEXT NOT NULL
);

CREATE INDEX messages_by_session ON messages(session_id, id);

-- Measured characters per token for each model, from Ollama's
-- prompt_eval_count; makes the context budget match what the model counts.
CREATE TABLE model_calibration (
    model           TEXT PRIMARY KEY,
    chars_per_token REAL NOT NULL,
    updated_at      TEXT NOT NULL
);
