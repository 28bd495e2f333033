-- The bots, found without a walk through every player or every game: a server
-- bot's games by its code, for its profile, which counts the games it played
-- against people (its seat there has no row in `seats`); and the bots by
-- name, for `GET /bots`. SQLite's 0021 does the same.
CREATE INDEX games_by_bot ON games (bot) WHERE bot IS NOT NULL;
CREATE INDEX players_bots_by_name ON players (name_key) WHERE bot IS NOT NULL OR bot_since IS NOT NULL;
