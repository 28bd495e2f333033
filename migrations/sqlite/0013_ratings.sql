-- Ratings: Glicko-2, one rating for each player in each variant, changed by
-- rated games alone. A rating is derived from the rated games, as a game's
-- state is from its log: `qttt ratings check` recomputes them.
--
-- The bots are players of their own (`bot` names which), so that a rated game
-- against one rates the bot too. Their token hashes are constants whose
-- SHA-256 preimages nobody knows: no token acts for a bot. A person who took
-- one of the bots' names before them is renamed, their id appended.

ALTER TABLE games ADD COLUMN rated INTEGER NOT NULL DEFAULT 0 CHECK (rated IN (0, 1));
ALTER TABLE challenges ADD COLUMN rated INTEGER NOT NULL DEFAULT 0 CHECK (rated IN (0, 1));
ALTER TABLE seeks ADD COLUMN rated INTEGER NOT NULL DEFAULT 0 CHECK (rated IN (0, 1));
-- A rated seek's range: it pairs with players rated within it (both ends
-- included), whose own range holds its player.
ALTER TABLE seeks ADD COLUMN rating_min INTEGER;
ALTER TABLE seeks ADD COLUMN rating_max INTEGER;

ALTER TABLE players ADD COLUMN bot TEXT CHECK (bot IS NULL OR bot IN ('random', 'parasite', 'perfect'));
CREATE UNIQUE INDEX players_by_bot ON players (bot) WHERE bot IS NOT NULL;
UPDATE players SET name = substr(name, 1, 12) || '-' || id, name_key = substr(name_key, 1, 12) || '-' || id
    WHERE name_key IN ('random', 'parasite', 'perfect');
INSERT INTO players (name, name_key, token_hash, created_at, bot) VALUES
    ('random', 'random', X'0000000000000000000000000000000000000000000000000000000000000001',
        strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), 'random'),
    ('parasite', 'parasite', X'0000000000000000000000000000000000000000000000000000000000000002',
        strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), 'parasite'),
    ('perfect', 'perfect', X'0000000000000000000000000000000000000000000000000000000000000003',
        strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), 'perfect');

-- A player's rating in a variant as of their last rated game; a player with
-- no rated game in a variant has no row, and the starting rating.
CREATE TABLE ratings (
    player_id  INTEGER NOT NULL REFERENCES players (id),
    variant    TEXT    NOT NULL CHECK (variant IN ('player_choice', 'measurement')),
    rating     REAL    NOT NULL,
    deviation  REAL    NOT NULL CHECK (deviation > 0),
    volatility REAL    NOT NULL CHECK (volatility > 0),
    -- How many rated games the rating counts: the number of the last change.
    games      INTEGER NOT NULL CHECK (games >= 1),
    -- When the last of them ended: the deviation grows with the time since.
    rated_at   TEXT    NOT NULL,
    PRIMARY KEY (player_id, variant)
);
CREATE INDEX ratings_by_rating ON ratings (variant, rating);

-- What each rated game did to each of its two players' ratings: the rating as
-- stored before it, and after. A player's changes are numbered in the order
-- they were written, which is the order the check replays them in.
CREATE TABLE rating_changes (
    player_id         INTEGER NOT NULL REFERENCES players (id),
    variant           TEXT    NOT NULL CHECK (variant IN ('player_choice', 'measurement')),
    number            INTEGER NOT NULL CHECK (number >= 1),
    game_id           INTEGER NOT NULL REFERENCES games (id),
    -- The player's seat in the game: the bot's, in a game against one.
    seat              TEXT    NOT NULL CHECK (seat IN ('X', 'O')),
    rating_before     REAL    NOT NULL,
    deviation_before  REAL    NOT NULL,
    volatility_before REAL    NOT NULL,
    rating_after      REAL    NOT NULL,
    deviation_after   REAL    NOT NULL,
    volatility_after  REAL    NOT NULL,
    rated_at          TEXT    NOT NULL,
    PRIMARY KEY (player_id, variant, number)
);
CREATE UNIQUE INDEX rating_changes_by_game ON rating_changes (game_id, seat);
