-- When `agent jobs tick` last ran on this machine (one row), and when the
-- user was last told that nothing runs it: a reminder with no tick never
-- fires, and `remind` and doctor say so (issue 48). Machine-local: no
-- journal trigger watches it.
CREATE TABLE tick_beats (
	id INTEGER PRIMARY KEY CHECK (id = 1),
	beat_at TEXT,
	told_at TEXT
);
