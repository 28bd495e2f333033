-- One word per idea, the same in the code, the API and the database: the bot a
-- game is played against is its `bot` (and the parasite bot's `mistake_chance`),
-- the square a collapse's closing move ends in is its `square`, and the seat the
-- creator of the original app's game took is `play_as`. SQLite renames a column
-- in the constraints that name it too.
ALTER TABLE games RENAME COLUMN bot_level TO bot;
ALTER TABLE games RENAME COLUMN bot_mistake_chance TO mistake_chance;
ALTER TABLE log_entries RENAME COLUMN collapse_square TO square;
ALTER TABLE shared_game RENAME COLUMN player_mark TO play_as;
