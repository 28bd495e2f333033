-- The original web app plays exactly one game, with no ids and no tokens: its
-- routes (/state, /reset, /move) play the game this single row points at. /reset
-- points it at a new game; the old one stays in the log like any other.
CREATE TABLE shared_game (
    slot        INTEGER PRIMARY KEY CHECK (slot = 1),
    game_id     INTEGER NOT NULL REFERENCES games (id),
    -- The mark the original app's player chose at /reset (in PvE, the bot holds the other).
    player_mark TEXT    NOT NULL CHECK (player_mark IN ('X', 'O'))
);
