-- Durable facts the monthly distillation proposed for MEMORY.md. fact_key
-- (the fact's normalised text) is unique: a fact is proposed once, ever, so
-- a rejected one is never proposed again and a second run adds nothing.
CREATE TABLE distill_proposals (
    id          INTEGER PRIMARY KEY,
    period      TEXT NOT NULL,
    action      TEXT NOT NULL CHECK (action IN ('add', 'supersede')),
    section     TEXT NOT NULL,
    text        TEXT NOT NULL,
    source      TEXT NOT NULL,
    replaces    TEXT NOT NULL DEFAULT '',
    fact_key    TEXT NOT NULL UNIQUE,
    status      TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'accepted', 'rejected')),
    created_at  TEXT NOT NULL,
    decided_at  TEXT NOT NULL DEFAULT ''
);
