-- The games the server aborted because nobody took their free seat, by when
-- they ended: nothing was played in them, and they are deleted after a day
-- (ABANDONED_GAME_RETENTION_HOURS), where played games are kept.
CREATE INDEX games_abandoned_by_end ON games (ended_at)
    WHERE end_reason = 'aborted' AND end_player IS NULL AND rematch_of IS NULL;
