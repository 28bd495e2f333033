-- Arenas: tournaments of a fixed length in which whoever is free is paired
-- again at once. The standings are not kept: they are scored again from the
-- arena's games, which say whose they are (`games.arena_id`). PostgreSQL's
-- 0020 does the same.
CREATE TABLE arenas (
    id          INTEGER PRIMARY KEY,
    name        TEXT    NOT NULL CHECK (length(name) BETWEEN 1 AND 60),
    variant     TEXT    NOT NULL CHECK (variant IN ('player_choice', 'measurement')),
    -- Every game of an arena has this clock.
    clock_initial_ms   INTEGER NOT NULL CHECK (clock_initial_ms BETWEEN 1000 AND 604800000),
    clock_increment_ms INTEGER NOT NULL CHECK (clock_increment_ms BETWEEN 0 AND 3600000),
    starts_at   TEXT    NOT NULL,
    -- starts_at and the arena's minutes: nobody is paired from then on.
    ends_at     TEXT    NOT NULL,
    rated       INTEGER NOT NULL CHECK (rated IN (0, 1)),
    -- Whether bot accounts, and the server's bots its creator adds, may play.
    bots        INTEGER NOT NULL CHECK (bots IN (0, 1)),
    created_by  INTEGER NOT NULL REFERENCES players (id),
    created_at  TEXT    NOT NULL,
    CHECK (ends_at > starts_at)
);
-- The timer's question each turn (the arenas not yet ended) and the listings.
CREATE INDEX arenas_by_end ON arenas (ends_at);
CREATE INDEX arenas_by_creator ON arenas (created_by, ends_at);

-- Who joined an arena. A player who withdraws keeps their points and their
-- row, and is paired again once they join again.
CREATE TABLE arena_players (
    arena_id  INTEGER NOT NULL REFERENCES arenas (id),
    player_id INTEGER NOT NULL REFERENCES players (id),
    joined_at TEXT    NOT NULL,
    withdrawn INTEGER NOT NULL DEFAULT 0 CHECK (withdrawn IN (0, 1)),
    PRIMARY KEY (arena_id, player_id)
) WITHOUT ROWID;

-- The arena a game was paired in; retention keeps such games.
ALTER TABLE games ADD COLUMN arena_id INTEGER REFERENCES arenas (id);
CREATE INDEX games_by_arena ON games (arena_id, id) WHERE arena_id IS NOT NULL;
