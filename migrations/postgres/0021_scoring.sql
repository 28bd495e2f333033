-- A game's scoring, a rule chosen at its creation with its variant: Goff's, or
-- Ishizeki and Matsuura's complete or narrow win (docs/RULES.md). Every game
-- before this one was Goff's. SQLite's 0023 does the same.
ALTER TABLE games ADD COLUMN scoring TEXT NOT NULL DEFAULT 'goff'
    CHECK (scoring IN ('goff', 'complete_win', 'narrow_win'));
