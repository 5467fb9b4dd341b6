-- Listing sessions costs the same however long they are: the number of
-- turns (user messages) is kept on the session, counted once here and then
-- kept by Append in the same transaction as the message, and the most
-- recently active sessions are read from an index.
ALTER TABLE sessions ADD COLUMN turns INTEGER NOT NULL DEFAULT 0;
UPDATE sessions SET turns = (SELECT count(*) FROM messages m WHERE m.session_id = sessions.id AND m.role = 'user');
CREATE INDEX sessions_by_activity ON sessions(updated_at, id);
