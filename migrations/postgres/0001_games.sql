-- Games, their logs and their seats: the schema the SQLite migrations 0001-0004
-- arrive at, in one step, for PostgreSQL.
--
-- The log is the truth: a game's state is never stored, it is rebuilt on every
-- request by replaying log_entries through the rules engine. status and result in
-- `games` are a summary for listings, written in the same transaction as the log
-- entries that change them; a game's version is read from its log.

CREATE TABLE games (
    id         BIGINT      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    variant    TEXT        NOT NULL CHECK (variant IN ('player_choice', 'measurement')),
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    -- Summary: waiting (a seat is free), ongoing, or finished.
    status     TEXT        NOT NULL DEFAULT 'waiting' CHECK (status IN ('waiting', 'ongoing', 'finished')),
    -- Summary: the engine's result.
    result     TEXT        NOT NULL DEFAULT 'ongoing' CHECK (result IN ('ongoing', 'x_wins', 'o_wins', 'draw')),
    -- In a game against the computer, the bot that holds the seat the creator left.
    -- It has no token, so its seat appears only in the log; its settings are kept
    -- because it answers again after every human action.
    bot_level  TEXT        CHECK (bot_level IN ('random', 'parasite', 'perfect')),
    bot_mistake_chance DOUBLE PRECISION
        CHECK (bot_mistake_chance IS NULL OR (bot_level = 'parasite' AND bot_mistake_chance BETWEEN 0 AND 1))
);

-- Listings filter by status and page newest first.
CREATE INDEX games_by_status ON games (status, id);

-- Everything that happened to a game, in order: seats taken, moves, and collapse
-- outcomes with who decided them (a player, or the measurement).
--
-- The primary key (game_id, seq) is what makes two racing writes for one game
-- impossible, whichever instance of the server they reach: both compute the same
-- next seq, and only one insert can land.
CREATE TABLE log_entries (
    game_id    BIGINT      NOT NULL REFERENCES games (id),
    seq        BIGINT      NOT NULL CHECK (seq >= 1),
    kind       TEXT        NOT NULL CHECK (kind IN ('seat', 'move', 'collapse')),
    -- seat: the player seated; move: the player; collapse: 'X', 'O' or 'measurement'.
    actor      TEXT        NOT NULL CHECK (actor IN ('X', 'O', 'measurement')),
    -- move: its two squares, 0-8, ascending (equal only for the last-square move).
    square_a   BIGINT      CHECK (square_a BETWEEN 0 AND 8),
    square_b   BIGINT      CHECK (square_b BETWEEN 0 AND 8),
    -- collapse: the move that closed the cycle and the square it ends in.
    closing_move    BIGINT CHECK (closing_move BETWEEN 1 AND 9),
    collapse_square BIGINT CHECK (collapse_square BETWEEN 0 AND 8),
    -- Whether the game's bot wrote it. A replay reads its actions like any other
    -- and never runs the bot again.
    by_bot     BOOLEAN     NOT NULL DEFAULT false,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (game_id, seq),
    CHECK ((kind = 'move') = (square_a IS NOT NULL AND square_b IS NOT NULL)),
    CHECK ((kind = 'collapse') = (closing_move IS NOT NULL AND collapse_square IS NOT NULL)),
    CHECK (kind = 'collapse' OR actor IN ('X', 'O'))
);

-- Who holds each seat. Only a hash of the seat's bearer token is kept, so a copy
-- of the database cannot be used to play for anyone.
CREATE TABLE seats (
    game_id    BIGINT NOT NULL REFERENCES games (id),
    player     TEXT   NOT NULL CHECK (player IN ('X', 'O')),
    token_hash BYTEA  NOT NULL,
    PRIMARY KEY (game_id, player)
);

-- A token is looked up by its hash within its game.
CREATE UNIQUE INDEX seats_by_token ON seats (game_id, token_hash);

-- The original web app plays exactly one game, with no ids and no tokens: its
-- routes (/state, /reset, /move) play the game this single row points at. /reset
-- points it at a new game; the old one stays in the log like any other.
CREATE TABLE shared_game (
    slot        INTEGER PRIMARY KEY CHECK (slot = 1),
    game_id     BIGINT  NOT NULL REFERENCES games (id),
    -- The mark the original app's player chose at /reset (in PvE, the bot holds the other).
    player_mark TEXT    NOT NULL CHECK (player_mark IN ('X', 'O'))
);

-- Every instance hears of every write, whoever made it: each new log entry
-- notifies the channel qttt_games with "game_id seq", delivered on commit. A
-- listener that hears it rereads the log; the notice itself carries no state.
CREATE FUNCTION notify_log_entry() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('qttt_games', NEW.game_id || ' ' || NEW.seq);
    RETURN NULL;
END;
$$;

CREATE TRIGGER log_entries_notify AFTER INSERT ON log_entries
    FOR EACH ROW EXECUTE FUNCTION notify_log_entry();
