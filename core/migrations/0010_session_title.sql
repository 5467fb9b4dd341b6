-- A session's readable title, from the words of its first message
-- ("lisbon-flight-times"), unique among titles; its name (the clock's
-- "2026-11-22-0930" or the one given) stays its id. '' until a message
-- with words arrives; step 0011 fills the sessions stored before this.
ALTER TABLE sessions ADD COLUMN title TEXT NOT NULL DEFAULT '';
CREATE UNIQUE INDEX sessions_by_title ON sessions(title) WHERE title != '';
