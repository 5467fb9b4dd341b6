-- A session's compaction summary: the model's summary of the turns the
-- window had dropped, one checked line per item, each citing the logged
-- turn it came from (JSON array of {"text","source"}). One row a session:
-- compacting again replaces it. through_id is the last message it covers.
CREATE TABLE session_summaries (
    session_id  INTEGER PRIMARY KEY REFERENCES sessions(id),
    items       TEXT NOT NULL,
    through_id  INTEGER NOT NULL,
    turns       INTEGER NOT NULL,
    created_at  TEXT NOT NULL
);
