-- A game's version is the sequence number of its last log entry: listings read it
-- from the log (one index seek per game), so that an ordinary move is a single
-- INSERT, atomic on its own, with no summary row to update beside it. status and
-- result change only when a seat is taken or the game ends; those writes update
-- them in the same transaction as their entries.
ALTER TABLE games DROP COLUMN version;
