-- Where each message stands in its session: the characters of the session's
-- transcript before it (a user message's words and context, an assistant
-- message's words; tool traffic counts nothing, as the history window
-- leaves it out), and how many of its messages the window could carry come
-- before it (user messages, assistant messages with words). The window's
-- blocks begin at multiples of a size counted in the first, and a cut
-- reports the second, so a turn finds both from the session's last
-- messages alone, however long the session is (core.Sessions.Tail). A
-- trigger keeps them for every message inserted, by any writer; the UPDATE
-- fills them for the messages stored before.
ALTER TABLE messages ADD COLUMN chars_before INTEGER NOT NULL DEFAULT 0;
ALTER TABLE messages ADD COLUMN msgs_before INTEGER NOT NULL DEFAULT 0;

UPDATE messages SET chars_before = w.chars_before, msgs_before = w.msgs_before
FROM (SELECT id,
             COALESCE(sum(chars) OVER preceding, 0) AS chars_before,
             COALESCE(sum(carried) OVER preceding, 0) AS msgs_before
      FROM (SELECT id, session_id,
                   CASE role WHEN 'user' THEN length(CAST(content AS BLOB)) + length(CAST(context AS BLOB))
                             WHEN 'assistant' THEN length(CAST(content AS BLOB)) ELSE 0 END AS chars,
                   (role = 'user' OR role = 'assistant' AND content != '') AS carried
            FROM messages)
      WINDOW preceding AS (PARTITION BY session_id ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)) AS w
WHERE w.id = messages.id;

CREATE TRIGGER messages_position AFTER INSERT ON messages
BEGIN
    UPDATE messages SET
        chars_before = COALESCE((
            SELECT p.chars_before + CASE p.role WHEN 'user' THEN length(CAST(p.content AS BLOB)) + length(CAST(p.context AS BLOB))
                                                WHEN 'assistant' THEN length(CAST(p.content AS BLOB)) ELSE 0 END
            FROM messages p WHERE p.session_id = NEW.session_id AND p.id < NEW.id ORDER BY p.id DESC LIMIT 1), 0),
        msgs_before = COALESCE((
            SELECT p.msgs_before + (p.role = 'user' OR p.role = 'assistant' AND p.content != '')
            FROM messages p WHERE p.session_id = NEW.session_id AND p.id < NEW.id ORDER BY p.id DESC LIMIT 1), 0)
    WHERE id = NEW.id;
END;
