-- One word, one meaning, in the database as in the API: a challenge's colour is
-- written as a seat is, X or O (or random), and the index of the games nobody
-- joined is named for them, not for the games walked away from.
--
-- SQLite checks a column only as its table was made, so the challenges are made
-- anew, by SQLite's procedure for altering a table (the migrator runs without
-- foreign keys; the events that name a challenge name it by its id, kept).

CREATE TABLE challenges_anew (
    id            INTEGER PRIMARY KEY,
    challenger_id INTEGER NOT NULL REFERENCES players (id),
    challenged_id INTEGER NOT NULL REFERENCES players (id),
    variant       TEXT    NOT NULL CHECK (variant IN ('player_choice', 'measurement')),
    clock_initial_ms   INTEGER CHECK (clock_initial_ms BETWEEN 1000 AND 604800000),
    clock_increment_ms INTEGER CHECK (clock_increment_ms BETWEEN 0 AND 3600000),
    -- The challenger's colour: X, O, or random (drawn when the challenge is accepted).
    colour        TEXT    NOT NULL CHECK (colour IN ('X', 'O', 'random')),
    -- Open until answered; an open challenge past expires_at has expired.
    status        TEXT    NOT NULL
        CHECK (status = 'open' OR status = 'accepted' OR status = 'declined' OR status = 'cancelled'),
    decline_reason TEXT   CHECK (decline_reason IS NULL OR length(decline_reason) <= 200),
    -- The game an accepted challenge started.
    game_id       INTEGER REFERENCES games (id),
    created_at    TEXT    NOT NULL,
    expires_at    TEXT    NOT NULL,
    answered_at   TEXT,
    rated         INTEGER NOT NULL DEFAULT 0 CHECK (rated IN (0, 1)),
    CHECK ((clock_initial_ms IS NULL) = (clock_increment_ms IS NULL)),
    CHECK ((status = 'open') = (answered_at IS NULL))
);
INSERT INTO challenges_anew
SELECT id, challenger_id, challenged_id, variant, clock_initial_ms, clock_increment_ms,
       CASE colour WHEN 'x' THEN 'X' WHEN 'o' THEN 'O' ELSE colour END,
       status, decline_reason, game_id, created_at, expires_at, answered_at, rated
FROM challenges;
DROP TABLE challenges;
ALTER TABLE challenges_anew RENAME TO challenges;
CREATE INDEX challenges_by_challenger ON challenges (challenger_id, status);
CREATE INDEX challenges_by_challenged ON challenges (challenged_id, status);
CREATE INDEX challenges_by_game ON challenges (game_id) WHERE game_id IS NOT NULL;

DROP INDEX games_abandoned_by_end;
CREATE INDEX games_unjoined_by_end ON games (ended_at)
    WHERE end_reason = 'aborted' AND end_player IS NULL AND rematch_of IS NULL;
