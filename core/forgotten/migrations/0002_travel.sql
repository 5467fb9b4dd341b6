-- A forget travels to the other devices (docs/decisions-forgetsync.md):
-- this device's forget is journalled once (journalled), and a phrase
-- another device forgot arrives by its hash as a pending row, which the
-- next command searches this device for and replaces (then pending = 0).
-- A row made before this: not yet journalled, told at the next forget.
ALTER TABLE forgotten ADD COLUMN pending INTEGER NOT NULL DEFAULT 0;
ALTER TABLE forgotten ADD COLUMN journalled INTEGER NOT NULL DEFAULT 0;
