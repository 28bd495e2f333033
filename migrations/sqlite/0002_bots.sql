-- Games against a computer player.
--
-- The bot holds the seat the creator left; it has no token, so its seat appears
-- only in the log. Its settings are kept with the game, because the bot answers
-- again after every human action.
ALTER TABLE games ADD COLUMN bot_level TEXT CHECK (bot_level IN ('random', 'parasite', 'perfect'));
ALTER TABLE games ADD COLUMN bot_mistake_chance REAL
    CHECK (bot_mistake_chance IS NULL OR (bot_level = 'parasite' AND bot_mistake_chance BETWEEN 0 AND 1));

-- Which entries the bot wrote. A replay reads its actions like any other and never
-- runs the bot again; readers of the log see who acted.
ALTER TABLE log_entries ADD COLUMN by_bot INTEGER NOT NULL DEFAULT 0 CHECK (by_bot IN (0, 1));
