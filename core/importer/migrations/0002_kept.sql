-- A file an undo kept because the user had edited it stays recorded, marked
-- kept: it holds its conversation's words, so a later import of the same
-- conversation does not write (and index) them a second time while the
-- file is there.
ALTER TABLE import_items ADD COLUMN kept INTEGER NOT NULL DEFAULT 0;
