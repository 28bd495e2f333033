-- Whether GET /games/{id}/hint gives the perfect player's best action while the
-- game goes on. Off by default between two people (a hint would be an advisor at
-- the table), on against a bot; the creator chooses. Games created before keep
-- what they had where they were against a bot, and become fair where they were not.
ALTER TABLE games ADD COLUMN hints BOOLEAN NOT NULL DEFAULT false;
UPDATE games SET hints = true WHERE bot IS NOT NULL;
