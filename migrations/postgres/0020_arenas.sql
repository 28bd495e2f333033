-- Arenas: tournaments of a fixed length in which whoever is free is paired
-- again at once. The standings are not kept: they are scored again from the
-- arena's games, which say whose they are (`games.arena_id`). SQLite's 0022
-- does the same.
CREATE TABLE arenas (
    id          BIGINT      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name        TEXT        NOT NULL CHECK (length(name) BETWEEN 1 AND 60),
    variant     TEXT        NOT NULL CHECK (variant IN ('player_choice', 'measurement')),
    -- Every game of an arena has this clock.
    clock_initial_ms   BIGINT NOT NULL CHECK (clock_initial_ms BETWEEN 1000 AND 604800000),
    clock_increment_ms BIGINT NOT NULL CHECK (clock_increment_ms BETWEEN 0 AND 3600000),
    starts_at   TIMESTAMPTZ NOT NULL,
    -- starts_at and the arena's minutes: nobody is paired from then on.
    ends_at     TIMESTAMPTZ NOT NULL,
    rated       BOOLEAN     NOT NULL,
    -- Whether bot accounts, and the server's bots its creator adds, may play.
    bots        BOOLEAN     NOT NULL,
    created_by  BIGINT      NOT NULL REFERENCES players (id),
    created_at  TIMESTAMPTZ NOT NULL,
    CHECK (ends_at > starts_at)
);
-- The timer's question each turn (the arenas not yet ended) and the listings.
CREATE INDEX arenas_by_end ON arenas (ends_at);
CREATE INDEX arenas_by_creator ON arenas (created_by, ends_at);

-- Who joined an arena. A player who withdraws keeps their points and their
-- row, and is paired again once they join again.
CREATE TABLE arena_players (
    arena_id  BIGINT      NOT NULL REFERENCES arenas (id),
    player_id BIGINT      NOT NULL REFERENCES players (id),
    joined_at TIMESTAMPTZ NOT NULL,
    withdrawn BOOLEAN     NOT NULL DEFAULT false,
    PRIMARY KEY (arena_id, player_id)
);

-- The arena a game was paired in; retention keeps such games.
ALTER TABLE games ADD COLUMN arena_id BIGINT REFERENCES arenas (id);
CREATE INDEX games_by_arena ON games (arena_id, id) WHERE arena_id IS NOT NULL;
