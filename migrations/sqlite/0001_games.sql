-- Games, their logs and their seats.
--
-- The log is the truth: a game's state is never stored, it is rebuilt on every
-- request by replaying log_entries through the rules engine. The few columns of
-- `games` beyond its identity are a summary for listings, written in the same
-- transaction as the log entries they summarise.

CREATE TABLE games (
    id         INTEGER PRIMARY KEY,
    variant    TEXT    NOT NULL CHECK (variant IN ('player_choice', 'measurement')),
    created_at TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    -- Summary: the sequence number of the last log entry.
    version    INTEGER NOT NULL DEFAULT 0,
    -- Summary: waiting (a seat is free), ongoing, or finished.
    status     TEXT    NOT NULL DEFAULT 'waiting' CHECK (status IN ('waiting', 'ongoing', 'finished')),
    -- Summary: the engine's result.
    result     TEXT    NOT NULL DEFAULT 'ongoing' CHECK (result IN ('ongoing', 'x_wins', 'o_wins', 'draw'))
);

-- Listings filter by status and page newest first.
CREATE INDEX games_by_status ON games (status, id);

-- Everything that happened to a game, in order: seats taken, moves, and collapse
-- outcomes with who decided them (a player, or the measurement).
--
-- The primary key (game_id, seq) is what makes two racing writes for one game
-- impossible: both compute the same next seq, and only one insert can land.
CREATE TABLE log_entries (
    game_id    INTEGER NOT NULL REFERENCES games (id),
    seq        INTEGER NOT NULL CHECK (seq >= 1),
    kind       TEXT    NOT NULL CHECK (kind IN ('seat', 'move', 'collapse')),
    -- seat: the player seated; move: the player; collapse: 'X', 'O' or 'measurement'.
    actor      TEXT    NOT NULL CHECK (actor IN ('X', 'O', 'measurement')),
    -- move: its two squares, 0-8, ascending (equal only for the last-square move).
    square_a   INTEGER CHECK (square_a BETWEEN 0 AND 8),
    square_b   INTEGER CHECK (square_b BETWEEN 0 AND 8),
    -- collapse: the move that closed the cycle and the square it ends in.
    closing_move    INTEGER CHECK (closing_move BETWEEN 1 AND 9),
    collapse_square INTEGER CHECK (collapse_square BETWEEN 0 AND 8),
    created_at TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    PRIMARY KEY (game_id, seq),
    CHECK ((kind = 'move') = (square_a IS NOT NULL AND square_b IS NOT NULL)),
    CHECK ((kind = 'collapse') = (closing_move IS NOT NULL AND collapse_square IS NOT NULL)),
    CHECK (kind = 'collapse' OR actor IN ('X', 'O'))
) WITHOUT ROWID;

-- Who holds each seat. Only a hash of the seat's bearer token is kept, so a copy
-- of the database cannot be used to play for anyone.
CREATE TABLE seats (
    game_id    INTEGER NOT NULL REFERENCES games (id),
    player     TEXT    NOT NULL CHECK (player IN ('X', 'O')),
    token_hash BLOB    NOT NULL,
    PRIMARY KEY (game_id, player)
) WITHOUT ROWID;

-- A token is looked up by its hash within its game.
CREATE UNIQUE INDEX seats_by_token ON seats (game_id, token_hash);
