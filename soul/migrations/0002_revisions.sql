-- SOUL.md's revisions move, numbers and all, into the one revisions table.
INSERT INTO revisions (kind, id, name, content, removed, sha256, author, reason, created_at)
    SELECT 'soul', id, '', content, 0, sha256, author, reason, created_at FROM soul_revisions;
DROP TABLE soul_revisions;
