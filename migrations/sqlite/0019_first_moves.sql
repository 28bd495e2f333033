-- A clocked game's clocks start once both players made their first move; a
-- player who makes none in time aborts the game: the log's kind `no_first_move`,
-- the game's end reason `no_first_move`.
--
-- As in 0018, SQLite checks a column only as its table was made, so games and
-- log_entries are made anew, their rows copied as they are.

CREATE TABLE games_anew (
    id         INTEGER PRIMARY KEY,
    variant    TEXT    NOT NULL CHECK (variant IN ('player_choice', 'measurement')),
    created_at TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    -- Summary: waiting (a seat is free), ongoing, or finished.
    status     TEXT    NOT NULL DEFAULT 'waiting'
        CHECK (status = 'waiting' OR status = 'ongoing' OR status = 'finished'),
    -- Summary: the result, by the rules or beside them (aborted).
    result     TEXT    NOT NULL DEFAULT 'ongoing'
        CHECK (result = 'ongoing' OR result = 'x_wins' OR result = 'o_wins' OR result = 'draw' OR result = 'aborted'),
    bot        TEXT    CHECK (bot = 'random' OR bot = 'parasite' OR bot = 'perfect'),
    mistake_chance REAL
        CHECK (mistake_chance IS NULL OR (bot = 'parasite' AND mistake_chance BETWEEN 0 AND 1)),
    hints      INTEGER NOT NULL DEFAULT 0 CHECK (hints IN (0, 1)),
    -- A timed game's Fischer clock: each player's time at the start, and what each
    -- action adds, in milliseconds (1 s to 7 days; up to an hour).
    clock_initial_ms   INTEGER CHECK (clock_initial_ms BETWEEN 1000 AND 604800000),
    clock_increment_ms INTEGER CHECK (clock_increment_ms BETWEEN 0 AND 3600000),
    -- Summary: when the running clock runs out (RFC 3339, as created_at), which
    -- the server's timer looks for.
    deadline   TEXT,
    -- Summary: how the game ended, and whose doing it was.
    end_reason TEXT
        CHECK (end_reason IS NULL OR end_reason = 'lines' OR end_reason = 'full_board'
            OR end_reason = 'resignation' OR end_reason = 'timeout' OR end_reason = 'aborted'
            OR end_reason = 'abandoned' OR end_reason = 'agreement' OR end_reason = 'no_first_move'),
    end_player TEXT    CHECK (end_player IN ('X', 'O')),
    -- The game this one is the rematch of: at most one rematch a game.
    rematch_of INTEGER REFERENCES games (id),
    invite_hash BLOB   CHECK (invite_hash IS NULL OR length(invite_hash) = 32),
    ended_at   TEXT,
    rated      INTEGER NOT NULL DEFAULT 0 CHECK (rated IN (0, 1)),
    CHECK ((clock_initial_ms IS NULL) = (clock_increment_ms IS NULL)),
    CHECK ((status = 'finished') = (end_reason IS NOT NULL))
);
INSERT INTO games_anew SELECT id, variant, created_at, status, result, bot, mistake_chance, hints, clock_initial_ms,
    clock_increment_ms, deadline, end_reason, end_player, rematch_of, invite_hash, ended_at, rated FROM games;
DROP TABLE games;
ALTER TABLE games_anew RENAME TO games;
CREATE INDEX games_by_status ON games (status, id);
CREATE INDEX games_by_end ON games (ended_at) WHERE ended_at IS NOT NULL;
CREATE INDEX games_by_deadline ON games (status, deadline) WHERE status = 'ongoing' AND deadline IS NOT NULL;
CREATE INDEX games_by_creation ON games (status, created_at) WHERE status = 'waiting';
CREATE UNIQUE INDEX games_by_rematch_of ON games (rematch_of) WHERE rematch_of IS NOT NULL;
CREATE INDEX games_unjoined_by_end ON games (ended_at)
    WHERE end_reason = 'aborted' AND end_player IS NULL AND rematch_of IS NULL;

CREATE TABLE log_entries_anew (
    game_id    INTEGER NOT NULL REFERENCES games (id),
    seq        INTEGER NOT NULL CHECK (seq >= 1),
    kind       TEXT    NOT NULL CHECK (kind = 'seat' OR kind = 'move' OR kind = 'collapse' OR kind = 'resign'
        OR kind = 'timeout' OR kind = 'abort' OR kind = 'rematch' OR kind = 'abandon' OR kind = 'agreement'
        OR kind = 'draw_offer' OR kind = 'draw_decline' OR kind = 'no_first_move'),
    -- seat: the player seated; move: the player; collapse: 'X', 'O' or
    -- 'measurement'; resign: who resigned; timeout: whose clock ran out; abort: who
    -- aborted, or 'server' when nobody took the free seat in time; rematch: who
    -- asked for it first; abandon: who walked away, as the other player claimed;
    -- draw_offer: who offered a draw; draw_decline: who declined it; agreement:
    -- who accepted it; no_first_move: who made no first move in time.
    actor      TEXT    NOT NULL
        CHECK (actor = 'X' OR actor = 'O' OR actor = 'measurement' OR actor = 'server'),
    -- move: its two squares, 0-8, ascending (equal only for the last-square move).
    square_a   INTEGER CHECK (square_a BETWEEN 0 AND 8),
    square_b   INTEGER CHECK (square_b BETWEEN 0 AND 8),
    -- collapse: the move that closed the cycle and the square it ends in.
    closing_move    INTEGER CHECK (closing_move BETWEEN 1 AND 9),
    square          INTEGER CHECK (square BETWEEN 0 AND 8),
    -- rematch: the game the rematch is played in.
    rematch    INTEGER REFERENCES games (id),
    created_at TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    -- Whether the bot wrote the entry.
    by_bot     INTEGER NOT NULL DEFAULT 0 CHECK (by_bot IN (0, 1)),
    PRIMARY KEY (game_id, seq),
    CHECK ((kind = 'move') = (square_a IS NOT NULL AND square_b IS NOT NULL)),
    CHECK ((kind = 'collapse') = (closing_move IS NOT NULL AND square IS NOT NULL)),
    CHECK ((kind = 'rematch') = (rematch IS NOT NULL)),
    CHECK (actor <> 'measurement' OR kind = 'collapse'),
    CHECK (actor <> 'server' OR kind = 'abort')
) WITHOUT ROWID;
INSERT INTO log_entries_anew SELECT game_id, seq, kind, actor, square_a, square_b, closing_move, square, rematch,
    created_at, by_bot FROM log_entries;
DROP TABLE log_entries;
ALTER TABLE log_entries_anew RENAME TO log_entries;
CREATE INDEX log_entries_by_rematch ON log_entries (rematch) WHERE rematch IS NOT NULL;
