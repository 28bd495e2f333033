-- A server bot's games, found by its code: its profile counts the games it
-- played against people, whose bot seat has no row in `seats`. PostgreSQL's
-- 0019 does the same.
CREATE INDEX games_by_bot ON games (bot) WHERE bot IS NOT NULL;
