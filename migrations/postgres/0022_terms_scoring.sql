-- The scoring of the game a challenge, a seek or an arena asks for, a term
-- beside its variant (docs/RULES.md). Every row before this one asked for
-- Goff's. SQLite's 0024 does the same.
ALTER TABLE challenges ADD COLUMN scoring TEXT NOT NULL DEFAULT 'goff'
    CHECK (scoring IN ('goff', 'complete_win', 'narrow_win'));
ALTER TABLE seeks ADD COLUMN scoring TEXT NOT NULL DEFAULT 'goff'
    CHECK (scoring IN ('goff', 'complete_win', 'narrow_win'));
ALTER TABLE arenas ADD COLUMN scoring TEXT NOT NULL DEFAULT 'goff'
    CHECK (scoring IN ('goff', 'complete_win', 'narrow_win'));
