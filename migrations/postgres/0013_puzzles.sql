-- Puzzles, their attempts and the players' puzzle ratings. SQLite's 0015 does
-- the same; see its comments.

CREATE TABLE puzzles (
    id           BIGINT           GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    variant      TEXT             NOT NULL CHECK (variant IN ('player_choice', 'measurement')),
    position     TEXT             NOT NULL,
    solution     TEXT             NOT NULL,
    theme        TEXT             NOT NULL
        CHECK (theme IN ('double_line', 'collapse_choice', 'closing_cycle', 'last_square', 'quiet')),
    source       TEXT             NOT NULL,
    position_key BIGINT           NOT NULL,
    rating       DOUBLE PRECISION NOT NULL,
    deviation    DOUBLE PRECISION NOT NULL CHECK (deviation > 0),
    volatility   DOUBLE PRECISION NOT NULL CHECK (volatility > 0),
    attempts     BIGINT           NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    UNIQUE (variant, position_key)
);
CREATE INDEX puzzles_by_rating ON puzzles (variant, rating);

CREATE TABLE puzzle_attempts (
    id            BIGINT           GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    puzzle_id     BIGINT           NOT NULL REFERENCES puzzles (id),
    player_id     BIGINT           REFERENCES players (id),
    line          TEXT             NOT NULL,
    outcome       TEXT             CHECK (outcome IS NULL OR outcome IN ('solved', 'failed')),
    rated         BOOLEAN          NOT NULL,
    rating_before DOUBLE PRECISION,
    rating_after  DOUBLE PRECISION,
    started_at    TIMESTAMPTZ      NOT NULL,
    ended_at      TIMESTAMPTZ,
    CHECK (NOT rated OR player_id IS NOT NULL)
);
CREATE UNIQUE INDEX puzzle_attempts_rated ON puzzle_attempts (player_id, puzzle_id) WHERE rated;

CREATE TABLE puzzle_ratings (
    player_id  BIGINT           NOT NULL REFERENCES players (id),
    variant    TEXT             NOT NULL CHECK (variant IN ('player_choice', 'measurement')),
    rating     DOUBLE PRECISION NOT NULL,
    deviation  DOUBLE PRECISION NOT NULL CHECK (deviation > 0),
    volatility DOUBLE PRECISION NOT NULL CHECK (volatility > 0),
    attempts   BIGINT           NOT NULL CHECK (attempts >= 1),
    rated_at   TIMESTAMPTZ      NOT NULL,
    PRIMARY KEY (player_id, variant)
);
