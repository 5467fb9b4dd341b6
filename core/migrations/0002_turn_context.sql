-- The context a user's message was sent with (its time and recalled
-- memory), replayed byte for byte in later requests so the conversation
-- stays a prefix the model keeps evaluated; and the last request of each
-- session, to report how much of the next one it shares.
ALTER TABLE messages ADD COLUMN context TEXT NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN last_request TEXT NOT NULL DEFAULT '';
