-- The scoring of the game a challenge, a seek or an arena asks for, a term
-- beside its variant (docs/RULES.md). Every row before this one asked for
-- Goff's. PostgreSQL's 0022 does the same; the checks are written with OR, as
-- 0023's is.
ALTER TABLE challenges ADD COLUMN scoring TEXT NOT NULL DEFAULT 'goff'
    CHECK (scoring = 'goff' OR scoring = 'complete_win' OR scoring = 'narrow_win');
ALTER TABLE seeks ADD COLUMN scoring TEXT NOT NULL DEFAULT 'goff'
    CHECK (scoring = 'goff' OR scoring = 'complete_win' OR scoring = 'narrow_win');
ALTER TABLE arenas ADD COLUMN scoring TEXT NOT NULL DEFAULT 'goff'
    CHECK (scoring = 'goff' OR scoring = 'complete_win' OR scoring = 'narrow_win');
