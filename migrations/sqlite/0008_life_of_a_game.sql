-- The life of a game around its rules: it may end by a resignation, a timeout or
-- an abort, be played on a clock, and be followed by a rematch. The log stays the
-- truth: each of these is an entry; `games` gains only what a listing and the
-- server's timer read (how a game ended, when its running clock runs out), written
-- in the same transaction as the entries that change them, and the settings a
-- game is created with.
--
-- SQLite cannot alter a constraint, so both tables are rebuilt as in 0005, their
-- rows copied as they are, and checks of three or more values written as
-- comparisons (a value list makes SQLite build a temporary table for every row).

CREATE TABLE games_new (
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
            OR end_reason = 'resignation' OR end_reason = 'timeout' OR end_reason = 'aborted'),
    end_player TEXT    CHECK (end_player IN ('X', 'O')),
    -- The game this one is the rematch of: at most one rematch a game.
    rematch_of INTEGER REFERENCES games_new (id),
    CHECK ((clock_initial_ms IS NULL) = (clock_increment_ms IS NULL)),
    CHECK ((status = 'finished') = (end_reason IS NOT NULL))
);
INSERT INTO games_new (id, variant, created_at, status, result, bot, mistake_chance, hints, end_reason)
    SELECT id, variant, created_at, status, result, bot, mistake_chance, hints,
           -- Until now a game ended by the rules alone: a draw is a full board
           -- (two lines never score alike), a win a line.
           CASE WHEN status <> 'finished' THEN NULL WHEN result = 'draw' THEN 'full_board' ELSE 'lines' END
    FROM games;
DROP TABLE games;
ALTER TABLE games_new RENAME TO games;
CREATE INDEX games_by_status ON games (status, id);
-- The timer's two questions: which ongoing games' clocks ran out, and which games
-- waited too long for their second player.
CREATE INDEX games_by_deadline ON games (status, deadline);
CREATE INDEX games_by_creation ON games (status, created_at);
CREATE UNIQUE INDEX games_by_rematch_of ON games (rematch_of);

CREATE TABLE log_entries_new (
    game_id    INTEGER NOT NULL REFERENCES games (id),
    seq        INTEGER NOT NULL CHECK (seq >= 1),
    kind       TEXT    NOT NULL CHECK (kind = 'seat' OR kind = 'move' OR kind = 'collapse' OR kind = 'resign'
        OR kind = 'timeout' OR kind = 'abort' OR kind = 'rematch'),
    -- seat: the player seated; move: the player; collapse: 'X', 'O' or
    -- 'measurement'; resign: who resigned; timeout: whose clock ran out; abort: who
    -- aborted, or 'server' when nobody took the free seat in time; rematch: who
    -- asked for it first.
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
INSERT INTO log_entries_new
    (game_id, seq, kind, actor, square_a, square_b, closing_move, square, created_at, by_bot)
    SELECT game_id, seq, kind, actor, square_a, square_b, closing_move, square, created_at, by_bot
    FROM log_entries;
DROP TABLE log_entries;
ALTER TABLE log_entries_new RENAME TO log_entries;
