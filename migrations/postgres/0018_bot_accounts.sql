-- A bot account: a player whose games a program plays, as they asked before
-- their first game (`POST /players/me/bot`), for good. `bot` still names the
-- server's own bots; a bot account has none, and `bot_since` says when it
-- became one. SQLite's 0020 does the same.
ALTER TABLE players ADD COLUMN bot_since TIMESTAMPTZ;
