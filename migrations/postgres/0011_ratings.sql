-- Ratings: Glicko-2, one rating for each player in each variant, changed by
-- rated games alone, and the bots as players of their own. SQLite's 0013 does
-- the same; see its comments.

ALTER TABLE games ADD COLUMN rated BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE challenges ADD COLUMN rated BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE seeks ADD COLUMN rated BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE seeks ADD COLUMN rating_min BIGINT;
ALTER TABLE seeks ADD COLUMN rating_max BIGINT;

ALTER TABLE players ADD COLUMN bot TEXT CHECK (bot IS NULL OR bot IN ('random', 'parasite', 'perfect'));
CREATE UNIQUE INDEX players_by_bot ON players (bot) WHERE bot IS NOT NULL;
UPDATE players SET name = substr(name, 1, 12) || '-' || id, name_key = substr(name_key, 1, 12) || '-' || id
    WHERE name_key IN ('random', 'parasite', 'perfect');
INSERT INTO players (name, name_key, token_hash, created_at, bot) VALUES
    ('random', 'random', decode(repeat('00', 31) || '01', 'hex'), now(), 'random'),
    ('parasite', 'parasite', decode(repeat('00', 31) || '02', 'hex'), now(), 'parasite'),
    ('perfect', 'perfect', decode(repeat('00', 31) || '03', 'hex'), now(), 'perfect');

CREATE TABLE ratings (
    player_id  BIGINT           NOT NULL REFERENCES players (id),
    variant    TEXT             NOT NULL CHECK (variant IN ('player_choice', 'measurement')),
    rating     DOUBLE PRECISION NOT NULL,
    deviation  DOUBLE PRECISION NOT NULL CHECK (deviation > 0),
    volatility DOUBLE PRECISION NOT NULL CHECK (volatility > 0),
    games      BIGINT           NOT NULL CHECK (games >= 1),
    rated_at   TIMESTAMPTZ      NOT NULL,
    PRIMARY KEY (player_id, variant)
);
CREATE INDEX ratings_by_rating ON ratings (variant, rating);

CREATE TABLE rating_changes (
    player_id         BIGINT           NOT NULL REFERENCES players (id),
    variant           TEXT             NOT NULL CHECK (variant IN ('player_choice', 'measurement')),
    number            BIGINT           NOT NULL CHECK (number >= 1),
    game_id           BIGINT           NOT NULL REFERENCES games (id),
    seat              TEXT             NOT NULL CHECK (seat IN ('X', 'O')),
    rating_before     DOUBLE PRECISION NOT NULL,
    deviation_before  DOUBLE PRECISION NOT NULL,
    volatility_before DOUBLE PRECISION NOT NULL,
    rating_after      DOUBLE PRECISION NOT NULL,
    deviation_after   DOUBLE PRECISION NOT NULL,
    volatility_after  DOUBLE PRECISION NOT NULL,
    rated_at          TIMESTAMPTZ      NOT NULL,
    PRIMARY KEY (player_id, variant, number)
);
CREATE UNIQUE INDEX rating_changes_by_game ON rating_changes (game_id, seat);
