-- Which user message carries its session's opening (core/identity.go,
-- sessionOpening): kept as a value with the message, so the window knows
-- whether it replays one without reading its own rendered context back.
ALTER TABLE messages ADD COLUMN opening INTEGER NOT NULL DEFAULT 0;
