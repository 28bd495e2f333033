-- Private games and the retention of finished ones.
--
-- A private game is joined only with the invite its creator was given: the
-- invite's SHA-256 is kept, as a seat token's is, and such a game is not listed.
--
-- When a game ended is kept beside its summary, so that the server can delete
-- the games that ended before the retention period (RETENTION_DAYS) without
-- reading every log. Games that ended before this migration are given the time of
-- their last entry. An entry's reference to the rematch it asked for gets an
-- index of its own, as a later game's rematch_of has one: without it, deleting
-- one game would make the database scan every entry for references to it. It
-- holds only the entries that have such a reference.
ALTER TABLE games ADD COLUMN invite_hash BYTEA CHECK (invite_hash IS NULL OR octet_length(invite_hash) = 32);
ALTER TABLE games ADD COLUMN ended_at TIMESTAMPTZ;
UPDATE games SET ended_at = (SELECT max(created_at) FROM log_entries WHERE game_id = games.id)
    WHERE status = 'finished';
CREATE INDEX games_by_end ON games (ended_at) WHERE ended_at IS NOT NULL;
CREATE INDEX log_entries_by_rematch ON log_entries (rematch) WHERE rematch IS NOT NULL;
