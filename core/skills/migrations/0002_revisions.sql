-- The skills' revisions move, numbers and all, into the one revisions table.
INSERT INTO revisions (kind, id, name, content, removed, sha256, author, reason, created_at)
    SELECT 'skill', id, name, content, removed, sha256, author, reason, created_at FROM skill_revisions;
DROP TABLE skill_revisions;
