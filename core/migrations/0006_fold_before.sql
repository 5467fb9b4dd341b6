-- Where a session's window stops replaying recalled passages: every user
-- message with an id below fold_before is replayed with its time only
-- (core/context.go, fitHistory). Kept with the session, not derived each
-- turn, so a fold is never undone: a window that moves and so has room
-- again must not replay a passage that a later message has recalled anew.
ALTER TABLE sessions ADD COLUMN fold_before INTEGER NOT NULL DEFAULT 0;
