-- The window's positions count words only: a user message's and an
-- assistant message's words, no longer a user message's stored context.
-- The window now replays only its newest contexts in full and older ones
-- folded to their time (core/context.go, fitHistory), so what decides how
-- much of the session a window holds is the words; counting contexts made
-- its blocks as small as one exchange when each carries its recall
-- (docs/decisions.md, the window's folds). A session's blocks move once,
-- here, and its next turn is evaluated anew.
DROP TRIGGER messages_position;

UPDATE messages SET chars_before = w.chars_before
FROM (SELECT id,
             COALESCE(sum(chars) OVER preceding, 0) AS chars_before
      FROM (SELECT id, session_id,
                   CASE WHEN role IN ('user', 'assistant') THEN length(CAST(content AS BLOB)) ELSE 0 END AS chars
            FROM messages)
      WINDOW preceding AS (PARTITION BY session_id ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)) AS w
WHERE w.id = messages.id;

CREATE TRIGGER messages_position AFTER INSERT ON messages
BEGIN
    UPDATE messages SET
        chars_before = COALESCE((
            SELECT p.chars_before + CASE WHEN p.role IN ('user', 'assistant') THEN length(CAST(p.content AS BLOB)) ELSE 0 END
            FROM messages p WHERE p.session_id = NEW.session_id AND p.id < NEW.id ORDER BY p.id DESC LIMIT 1), 0),
        msgs_before = COALESCE((
            SELECT p.msgs_before + (p.role = 'user' OR p.role = 'assistant' AND p.content != '')
            FROM messages p WHERE p.session_id = NEW.session_id AND p.id < NEW.id ORDER BY p.id DESC LIMIT 1), 0)
    WHERE id = NEW.id;
END;
