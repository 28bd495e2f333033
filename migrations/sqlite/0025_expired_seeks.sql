-- A seek not paired in time is swept to `expired` by the server's timer, out of
-- seeks_open, which every new seek's pairing walks. PostgreSQL's 0023 does the same.
--
-- SQLite checks a column only as its table was made, so seeks is made anew, by
-- SQLite's procedure for altering a table (as 0018 does games), its rows copied
-- as they are, its columns in the order PostgreSQL's table has them.

CREATE TABLE seeks_anew (
    id         INTEGER PRIMARY KEY,
    player_id  INTEGER NOT NULL REFERENCES players (id),
    variant    TEXT    NOT NULL CHECK (variant IN ('player_choice', 'measurement')),
    clock_initial_ms   INTEGER CHECK (clock_initial_ms BETWEEN 1000 AND 604800000),
    clock_increment_ms INTEGER CHECK (clock_increment_ms BETWEEN 0 AND 3600000),
    -- Open until paired, cancelled or swept when past expires_at.
    status     TEXT    NOT NULL
        CHECK (status = 'open' OR status = 'paired' OR status = 'cancelled' OR status = 'expired'),
    -- The game a paired seek is played in.
    game_id    INTEGER REFERENCES games (id),
    created_at TEXT    NOT NULL,
    expires_at TEXT    NOT NULL,
    rated      INTEGER NOT NULL DEFAULT 0 CHECK (rated IN (0, 1)),
    rating_min INTEGER,
    rating_max INTEGER,
    scoring    TEXT    NOT NULL DEFAULT 'goff'
        CHECK (scoring = 'goff' OR scoring = 'complete_win' OR scoring = 'narrow_win'),
    CHECK ((clock_initial_ms IS NULL) = (clock_increment_ms IS NULL)),
    CHECK ((status = 'paired') = (game_id IS NOT NULL))
);
INSERT INTO seeks_anew SELECT id, player_id, variant, clock_initial_ms, clock_increment_ms, status, game_id,
    created_at, expires_at, rated, rating_min, rating_max, scoring FROM seeks;
DROP TABLE seeks;
ALTER TABLE seeks_anew RENAME TO seeks;
CREATE INDEX seeks_open ON seeks (status, variant, created_at);
CREATE INDEX seeks_by_player ON seeks (player_id, status);
CREATE INDEX seeks_by_game ON seeks (game_id) WHERE game_id IS NOT NULL;
