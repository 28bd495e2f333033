-- Puzzles: positions where one action, up to the board's symmetries, is worth
-- at least half a point more than every other, with the line that follows it
-- to the end against best defence (src/bot/puzzle.rs finds them). Each is
-- rated like a player, by who tries it: solving it is a win against it.

CREATE TABLE puzzles (
    id           INTEGER PRIMARY KEY,
    variant      TEXT    NOT NULL CHECK (variant IN ('player_choice', 'measurement')),
    -- The position as a transcript in our notation, and its solution as the
    -- transcript that goes on from it.
    position     TEXT    NOT NULL,
    solution     TEXT    NOT NULL,
    theme        TEXT    NOT NULL
        CHECK (theme IN ('double_line', 'collapse_choice', 'closing_cycle', 'last_square', 'quiet')),
    -- Where the position came from, in words.
    source       TEXT    NOT NULL,
    -- The position's key up to symmetry: a position is kept once per variant.
    position_key INTEGER NOT NULL,
    rating       REAL    NOT NULL,
    deviation    REAL    NOT NULL CHECK (deviation > 0),
    volatility   REAL    NOT NULL CHECK (volatility > 0),
    -- How many rated attempts its rating counts.
    attempts     INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    UNIQUE (variant, position_key)
);
CREATE INDEX puzzles_by_rating ON puzzles (variant, rating);

-- An attempt at a puzzle, step by step: what it played so far from the
-- position (its own actions and the server's replies), and how it ended.
CREATE TABLE puzzle_attempts (
    id            INTEGER PRIMARY KEY,
    puzzle_id     INTEGER NOT NULL REFERENCES puzzles (id),
    -- The player who made it; null for an attempt without a player's token.
    player_id     INTEGER REFERENCES players (id),
    line          TEXT    NOT NULL,
    outcome       TEXT    CHECK (outcome IS NULL OR outcome IN ('solved', 'failed')),
    -- Whether it counts for the ratings: a player's first attempt at the
    -- puzzle, and no other.
    rated         INTEGER NOT NULL CHECK (rated IN (0, 1)),
    -- A rated attempt's player's puzzle rating before it and after, once it ended.
    rating_before REAL,
    rating_after  REAL,
    started_at    TEXT    NOT NULL,
    ended_at      TEXT,
    CHECK (NOT rated OR player_id IS NOT NULL)
);
-- One rated attempt per player and puzzle; every puzzle a player tried has one.
CREATE UNIQUE INDEX puzzle_attempts_rated ON puzzle_attempts (player_id, puzzle_id) WHERE rated;

-- A player's puzzle rating in a variant, as of their last rated attempt; a
-- player with none has no row, and the starting rating.
CREATE TABLE puzzle_ratings (
    player_id  INTEGER NOT NULL REFERENCES players (id),
    variant    TEXT    NOT NULL CHECK (variant IN ('player_choice', 'measurement')),
    rating     REAL    NOT NULL,
    deviation  REAL    NOT NULL CHECK (deviation > 0),
    volatility REAL    NOT NULL CHECK (volatility > 0),
    attempts   INTEGER NOT NULL CHECK (attempts >= 1),
    rated_at   TEXT    NOT NULL,
    PRIMARY KEY (player_id, variant)
);
