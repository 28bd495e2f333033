-- A game's scoring, a rule chosen at its creation with its variant: Goff's, or
-- Ishizeki and Matsuura's complete or narrow win (docs/RULES.md). Every game
-- before this one was Goff's. PostgreSQL's 0021 does the same.
-- The check is written with OR, as 0019's are: an IN list of three builds a
-- temporary table on every insert.
ALTER TABLE games ADD COLUMN scoring TEXT NOT NULL DEFAULT 'goff'
    CHECK (scoring = 'goff' OR scoring = 'complete_win' OR scoring = 'narrow_win');
