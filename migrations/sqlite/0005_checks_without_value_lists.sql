-- The same constraints, each `column IN (three or more values)` written as
-- comparisons. SQLite checks such a list by building a temporary table, again for
-- every row written: in the load profile that was a third of the cost of writing a
-- log entry. SQLite cannot alter a constraint, so both tables are rebuilt, their
-- rows copied as they are. (The store runs migrations on a connection without
-- foreign-key enforcement, so that `games` can be dropped under its references,
-- which point at the new table once it takes the name.)

CREATE TABLE games_new (
    id         INTEGER PRIMARY KEY,
    variant    TEXT    NOT NULL CHECK (variant IN ('player_choice', 'measurement')),
    created_at TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    -- Summary: waiting (a seat is free), ongoing, or finished.
    status     TEXT    NOT NULL DEFAULT 'waiting'
        CHECK (status = 'waiting' OR status = 'ongoing' OR status = 'finished'),
    -- Summary: the engine's result.
    result     TEXT    NOT NULL DEFAULT 'ongoing'
        CHECK (result = 'ongoing' OR result = 'x_wins' OR result = 'o_wins' OR result = 'draw'),
    bot_level  TEXT    CHECK (bot_level = 'random' OR bot_level = 'parasite' OR bot_level = 'perfect'),
    bot_mistake_chance REAL
        CHECK (bot_mistake_chance IS NULL OR (bot_level = 'parasite' AND bot_mistake_chance BETWEEN 0 AND 1))
);
INSERT INTO games_new (id, variant, created_at, status, result, bot_level, bot_mistake_chance)
    SELECT id, variant, created_at, status, result, bot_level, bot_mistake_chance FROM games;
DROP TABLE games;
ALTER TABLE games_new RENAME TO games;
CREATE INDEX games_by_status ON games (status, id);

CREATE TABLE log_entries_new (
    game_id    INTEGER NOT NULL REFERENCES games (id),
    seq        INTEGER NOT NULL CHECK (seq >= 1),
    kind       TEXT    NOT NULL CHECK (kind = 'seat' OR kind = 'move' OR kind = 'collapse'),
    -- seat: the player seated; move: the player; collapse: 'X', 'O' or 'measurement'.
    actor      TEXT    NOT NULL CHECK (actor = 'X' OR actor = 'O' OR actor = 'measurement'),
    -- move: its two squares, 0-8, ascending (equal only for the last-square move).
    square_a   INTEGER CHECK (square_a BETWEEN 0 AND 8),
    square_b   INTEGER CHECK (square_b BETWEEN 0 AND 8),
    -- collapse: the move that closed the cycle and the square it ends in.
    closing_move    INTEGER CHECK (closing_move BETWEEN 1 AND 9),
    collapse_square INTEGER CHECK (collapse_square BETWEEN 0 AND 8),
    created_at TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    -- Whether the bot wrote the entry.
    by_bot     INTEGER NOT NULL DEFAULT 0 CHECK (by_bot IN (0, 1)),
    PRIMARY KEY (game_id, seq),
    CHECK ((kind = 'move') = (square_a IS NOT NULL AND square_b IS NOT NULL)),
    CHECK ((kind = 'collapse') = (closing_move IS NOT NULL AND collapse_square IS NOT NULL)),
    CHECK (kind = 'collapse' OR actor IN ('X', 'O'))
) WITHOUT ROWID;
INSERT INTO log_entries_new
    (game_id, seq, kind, actor, square_a, square_b, closing_move, collapse_square, created_at, by_bot)
    SELECT game_id, seq, kind, actor, square_a, square_b, closing_move, collapse_square, created_at, by_bot
    FROM log_entries;
DROP TABLE log_entries;
ALTER TABLE log_entries_new RENAME TO log_entries;
