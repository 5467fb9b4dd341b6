-- Lines of other devices' journals refused (not entries, or changes their
-- record's owner refused), by the SHA-256 of the line: each is named to
-- the user once, not again when its journal is read again from the start.
CREATE TABLE journal_refused (hash TEXT PRIMARY KEY) WITHOUT ROWID;
