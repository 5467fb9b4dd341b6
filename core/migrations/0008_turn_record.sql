-- What a user message's context carries, kept as values with it so that
-- nothing later reads the rendered context back (core/window):
--   recall_at  the byte at which its recalled passages begin (0: none); a
--              window that folds the message replays context[:recall_at];
--   recalled   those passages, JSON: path, lines, heading and a hash of the
--              fenced text, so recall knows what the window carries.
-- For the messages stored before this migration both are derived here,
-- once, from the context as that agent rendered it (the "\n\nRecalled
-- memory: " header, then one <memory source="…"> fence a passage); such a
-- passage is kept by its citation and fenced text, which the reader hashes.
ALTER TABLE messages ADD COLUMN recall_at INTEGER NOT NULL DEFAULT 0;
ALTER TABLE messages ADD COLUMN recalled TEXT NOT NULL DEFAULT '';

UPDATE messages
SET recall_at = instr(CAST(context AS BLOB), CAST(char(10, 10) || 'Recalled memory: passages from the user''s own notes' AS BLOB)) - 1
WHERE role = 'user' AND instr(CAST(context AS BLOB), CAST(char(10, 10) || 'Recalled memory: passages from the user''s own notes' AS BLOB)) > 1;

-- fence walks a context's fences: rest is what follows the last one read;
-- each step takes the next '<memory source="CITATION"…>\nTEXT\n</memory>'.
WITH RECURSIVE fence(id, rest, citation, body) AS (
    SELECT id, CAST(substr(CAST(context AS BLOB), recall_at + 1) AS TEXT), NULL, NULL
    FROM messages WHERE recall_at > 0
    UNION ALL
    SELECT id,
        substr(substr(rest, instr(rest, '<memory source="')),
            instr(substr(rest, instr(rest, '<memory source="')), char(10) || '</memory>') + 10),
        substr(substr(rest, instr(rest, '<memory source="')), 17,
            instr(substr(substr(rest, instr(rest, '<memory source="')), 17), '"') - 1),
        substr(substr(rest, instr(rest, '<memory source="')),
            instr(substr(rest, instr(rest, '<memory source="')), '>' || char(10)) + 2,
            instr(substr(rest, instr(rest, '<memory source="')), char(10) || '</memory>')
                - instr(substr(rest, instr(rest, '<memory source="')), '>' || char(10)) - 2)
    FROM fence
    WHERE instr(rest, '<memory source="') > 0
        AND instr(substr(rest, instr(rest, '<memory source="')), char(10) || '</memory>') > 0
)
UPDATE messages
SET recalled = (SELECT json_group_array(json_object('citation', citation, 'text', body))
    FROM fence WHERE fence.id = messages.id AND fence.citation IS NOT NULL)
WHERE recall_at > 0;

-- Where a user message's turn was logged (core/chat.go, logTurn): its log
-- and the lines of its entry, heading to last, so that compaction and
-- recall find the turn by its place, not by the session's name in the
-- log's headings. log_path is '' for a turn not logged (--no-log, or not
-- finished) and NULL for one stored before this migration: where that
-- was logged is not known here.
ALTER TABLE messages ADD COLUMN log_path TEXT;
ALTER TABLE messages ADD COLUMN log_start INTEGER NOT NULL DEFAULT 0;
ALTER TABLE messages ADD COLUMN log_end INTEGER NOT NULL DEFAULT 0;
