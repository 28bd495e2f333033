-- Players: one identity across games, their events, challenges and seeks, and a
-- game's end when the player to act walked away (the log's kind `abandon`, the
-- end reason `abandoned`). SQLite's 0012 does the same; see its comments.

CREATE TABLE players (
    id         BIGINT      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name       TEXT        NOT NULL CHECK (length(name) BETWEEN 3 AND 20),
    name_key   TEXT        NOT NULL,
    token_hash BYTEA       NOT NULL CHECK (octet_length(token_hash) = 32),
    created_at TIMESTAMPTZ NOT NULL,
    last_seen_at TIMESTAMPTZ,
    -- The next event of a player takes the number after this one: the update
    -- that takes it holds the player's row until its transaction commits, so
    -- that a player's events commit in the order of their numbers, on any
    -- instance, and a stream that resumes after one never misses an earlier one.
    last_event_seq BIGINT  NOT NULL DEFAULT 0 CHECK (last_event_seq >= 0)
);
CREATE UNIQUE INDEX players_by_name ON players (name_key);
CREATE UNIQUE INDEX players_by_token ON players (token_hash);

ALTER TABLE seats ADD COLUMN player_id BIGINT REFERENCES players (id);
ALTER TABLE seats ADD COLUMN last_seen_at TIMESTAMPTZ;
CREATE INDEX seats_by_player ON seats (player_id, game_id) WHERE player_id IS NOT NULL;

CREATE TABLE challenges (
    id            BIGINT      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    challenger_id BIGINT      NOT NULL REFERENCES players (id),
    challenged_id BIGINT      NOT NULL REFERENCES players (id),
    variant       TEXT        NOT NULL CHECK (variant IN ('player_choice', 'measurement')),
    clock_initial_ms   BIGINT CHECK (clock_initial_ms BETWEEN 1000 AND 604800000),
    clock_increment_ms BIGINT CHECK (clock_increment_ms BETWEEN 0 AND 3600000),
    colour        TEXT        NOT NULL CHECK (colour IN ('x', 'o', 'random')),
    status        TEXT        NOT NULL CHECK (status IN ('open', 'accepted', 'declined', 'cancelled')),
    decline_reason TEXT       CHECK (decline_reason IS NULL OR length(decline_reason) <= 200),
    game_id       BIGINT      REFERENCES games (id),
    created_at    TIMESTAMPTZ NOT NULL,
    expires_at    TIMESTAMPTZ NOT NULL,
    answered_at   TIMESTAMPTZ,
    CHECK ((clock_initial_ms IS NULL) = (clock_increment_ms IS NULL)),
    CHECK ((status = 'open') = (answered_at IS NULL))
);
CREATE INDEX challenges_by_challenger ON challenges (challenger_id, status);
CREATE INDEX challenges_by_challenged ON challenges (challenged_id, status);
CREATE INDEX challenges_by_game ON challenges (game_id) WHERE game_id IS NOT NULL;

CREATE TABLE seeks (
    id         BIGINT      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    player_id  BIGINT      NOT NULL REFERENCES players (id),
    variant    TEXT        NOT NULL CHECK (variant IN ('player_choice', 'measurement')),
    clock_initial_ms   BIGINT CHECK (clock_initial_ms BETWEEN 1000 AND 604800000),
    clock_increment_ms BIGINT CHECK (clock_increment_ms BETWEEN 0 AND 3600000),
    status     TEXT        NOT NULL CHECK (status IN ('open', 'paired', 'cancelled')),
    game_id    BIGINT      REFERENCES games (id),
    created_at TIMESTAMPTZ NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL,
    CHECK ((clock_initial_ms IS NULL) = (clock_increment_ms IS NULL)),
    CHECK ((status = 'paired') = (game_id IS NOT NULL))
);
CREATE INDEX seeks_open ON seeks (status, variant, created_at);
CREATE INDEX seeks_by_player ON seeks (player_id, status);
CREATE INDEX seeks_by_game ON seeks (game_id) WHERE game_id IS NOT NULL;

CREATE TABLE player_events (
    player_id    BIGINT      NOT NULL REFERENCES players (id),
    seq          BIGINT      NOT NULL CHECK (seq >= 1),
    kind         TEXT        NOT NULL CHECK (kind IN ('game_start', 'game_finish', 'challenge', 'challenge_accepted',
        'challenge_declined', 'challenge_cancelled')),
    game_id      BIGINT      REFERENCES games (id),
    challenge_id BIGINT      REFERENCES challenges (id),
    created_at   TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (player_id, seq),
    CHECK ((game_id IS NULL) <> (challenge_id IS NULL))
);
CREATE INDEX player_events_by_game ON player_events (game_id) WHERE game_id IS NOT NULL;

ALTER TABLE games DROP CONSTRAINT games_end_reason_check;
ALTER TABLE games ADD CONSTRAINT games_end_reason_check
    CHECK (end_reason IN ('lines', 'full_board', 'resignation', 'timeout', 'aborted', 'abandoned'));

-- abandon: who walked away, as the other player claimed.
CREATE OR REPLACE FUNCTION log_entry_is_valid(
    seq BIGINT, kind TEXT, actor TEXT, square_a BIGINT, square_b BIGINT, closing_move BIGINT, square BIGINT,
    rematch BIGINT
) RETURNS BOOLEAN LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
    RETURN seq >= 1
        AND kind IN ('seat', 'move', 'collapse', 'resign', 'timeout', 'abort', 'rematch', 'abandon')
        AND actor IN ('X', 'O', 'measurement', 'server')
        AND (square_a IS NULL OR square_a BETWEEN 0 AND 8)
        AND (square_b IS NULL OR square_b BETWEEN 0 AND 8)
        AND (closing_move IS NULL OR closing_move BETWEEN 1 AND 9)
        AND (square IS NULL OR square BETWEEN 0 AND 8)
        AND (kind = 'move') = (square_a IS NOT NULL AND square_b IS NOT NULL)
        AND (kind = 'collapse') = (closing_move IS NOT NULL AND square IS NOT NULL)
        AND (kind = 'rematch') = (rematch IS NOT NULL)
        AND (actor <> 'measurement' OR kind = 'collapse')
        AND (actor <> 'server' OR kind = 'abort');
END;
$$;
