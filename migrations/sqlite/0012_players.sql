-- Players: one identity across games. A player is a name and a bearer token,
-- kept only as its SHA-256, as a seat's token is; a seat a player takes names
-- them, so that the player's token acts in that game as the seat's does, and
-- their games can be listed. Anonymous seats stay as they were (no player).
--
-- Beside the players: what happens to them (their event stream, numbered per
-- player), the challenges they send each other, and the seeks that pair them.
-- A game can now also end because the player to act walked away and the other
-- claimed it: the log's kind `abandon`, the game's end reason `abandoned`.
-- SQLite cannot alter a constraint, so `games` and `log_entries` are rebuilt as
-- in 0008, their rows copied as they are, with every index they had.

CREATE TABLE players (
    id         INTEGER PRIMARY KEY,
    -- As its player wrote it: 3-20 letters, digits, `_` or `-`.
    name       TEXT    NOT NULL CHECK (length(name) BETWEEN 3 AND 20),
    -- The name in lower case: names are unique regardless of case.
    name_key   TEXT    NOT NULL,
    -- The hash of the player's token; a new token replaces it, and the old one
    -- stops working at once.
    token_hash BLOB    NOT NULL CHECK (length(token_hash) = 32),
    created_at TEXT    NOT NULL,
    -- When the player was last seen (a request with their token, or their event
    -- stream held open): every instance refreshes it, so that presence is shared.
    last_seen_at TEXT,
    -- The sequence number of the player's last event: the next one takes the one
    -- after it, in the same transaction as what it tells.
    last_event_seq INTEGER NOT NULL DEFAULT 0 CHECK (last_event_seq >= 0)
);
CREATE UNIQUE INDEX players_by_name ON players (name_key);
CREATE UNIQUE INDEX players_by_token ON players (token_hash);

-- A seat a player took, and when its holder was last seen in that game (a read
-- of it with their token, or its stream held open).
ALTER TABLE seats ADD COLUMN player_id INTEGER REFERENCES players (id);
ALTER TABLE seats ADD COLUMN last_seen_at TEXT;
-- A player's games, newest first.
CREATE INDEX seats_by_player ON seats (player_id, game_id) WHERE player_id IS NOT NULL;

CREATE TABLE challenges (
    id            INTEGER PRIMARY KEY,
    challenger_id INTEGER NOT NULL REFERENCES players (id),
    challenged_id INTEGER NOT NULL REFERENCES players (id),
    variant       TEXT    NOT NULL CHECK (variant IN ('player_choice', 'measurement')),
    clock_initial_ms   INTEGER CHECK (clock_initial_ms BETWEEN 1000 AND 604800000),
    clock_increment_ms INTEGER CHECK (clock_increment_ms BETWEEN 0 AND 3600000),
    -- The challenger's colour: x, o, or random (drawn when the challenge is accepted).
    colour        TEXT    NOT NULL CHECK (colour IN ('x', 'o', 'random')),
    -- Open until answered; an open challenge past expires_at has expired.
    status        TEXT    NOT NULL
        CHECK (status = 'open' OR status = 'accepted' OR status = 'declined' OR status = 'cancelled'),
    decline_reason TEXT   CHECK (decline_reason IS NULL OR length(decline_reason) <= 200),
    -- The game an accepted challenge started.
    game_id       INTEGER REFERENCES games (id),
    created_at    TEXT    NOT NULL,
    expires_at    TEXT    NOT NULL,
    answered_at   TEXT,
    CHECK ((clock_initial_ms IS NULL) = (clock_increment_ms IS NULL)),
    CHECK ((status = 'open') = (answered_at IS NULL))
);
-- The challenges a player sent, and those sent to them, by status.
CREATE INDEX challenges_by_challenger ON challenges (challenger_id, status);
CREATE INDEX challenges_by_challenged ON challenges (challenged_id, status);
CREATE INDEX challenges_by_game ON challenges (game_id) WHERE game_id IS NOT NULL;

CREATE TABLE seeks (
    id         INTEGER PRIMARY KEY,
    player_id  INTEGER NOT NULL REFERENCES players (id),
    variant    TEXT    NOT NULL CHECK (variant IN ('player_choice', 'measurement')),
    clock_initial_ms   INTEGER CHECK (clock_initial_ms BETWEEN 1000 AND 604800000),
    clock_increment_ms INTEGER CHECK (clock_increment_ms BETWEEN 0 AND 3600000),
    -- Open until paired or cancelled; an open seek past expires_at has expired.
    status     TEXT    NOT NULL CHECK (status = 'open' OR status = 'paired' OR status = 'cancelled'),
    -- The game a paired seek is played in.
    game_id    INTEGER REFERENCES games (id),
    created_at TEXT    NOT NULL,
    expires_at TEXT    NOT NULL,
    CHECK ((clock_initial_ms IS NULL) = (clock_increment_ms IS NULL)),
    CHECK ((status = 'paired') = (game_id IS NOT NULL))
);
-- Pairing's question: the oldest open seek of a variant.
CREATE INDEX seeks_open ON seeks (status, variant, created_at);
CREATE INDEX seeks_by_player ON seeks (player_id, status);
CREATE INDEX seeks_by_game ON seeks (game_id) WHERE game_id IS NOT NULL;

-- What happened to a player, in order, for their event stream: a game of theirs
-- started or finished, a challenge came, was accepted, declined or cancelled.
-- Written in the same transaction as what it tells; the game or challenge it is
-- about holds the rest.
CREATE TABLE player_events (
    player_id    INTEGER NOT NULL REFERENCES players (id),
    seq          INTEGER NOT NULL CHECK (seq >= 1),
    kind         TEXT    NOT NULL CHECK (kind = 'game_start' OR kind = 'game_finish' OR kind = 'challenge'
        OR kind = 'challenge_accepted' OR kind = 'challenge_declined' OR kind = 'challenge_cancelled'),
    game_id      INTEGER REFERENCES games (id),
    challenge_id INTEGER REFERENCES challenges (id),
    created_at   TEXT    NOT NULL,
    PRIMARY KEY (player_id, seq),
    CHECK ((game_id IS NULL) <> (challenge_id IS NULL))
) WITHOUT ROWID;
-- Deleting a game deletes the events about it.
CREATE INDEX player_events_by_game ON player_events (game_id) WHERE game_id IS NOT NULL;

CREATE TABLE games_new (
    id         INTEGER PRIMARY KEY,
    variant    TEXT    NOT NULL CHECK (variant IN ('player_choice', 'measurement')),
    created_at TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    -- Summary: waiting (a seat is free), ongoing, or finished.
    status     TEXT    NOT NULL DEFAULT 'waiting'
        CHECK (status = 'waiting' OR status = 'ongoing' OR status = 'finished'),
    -- Summary: the result, by the rules or beside them (aborted).
    result     TEXT    NOT NULL DEFAULT 'ongoing'
        CHECK (result = 'ongoing' OR result = 'x_wins' OR result = 'o_wins' OR result = 'draw' OR result = 'aborted'),
    bot        TEXT    CHECK (bot = 'random' OR bot = 'parasite' OR bot = 'perfect'),
    mistake_chance REAL
        CHECK (mistake_chance IS NULL OR (bot = 'parasite' AND mistake_chance BETWEEN 0 AND 1)),
    hints      INTEGER NOT NULL DEFAULT 0 CHECK (hints IN (0, 1)),
    -- A timed game's Fischer clock: each player's time at the start, and what each
    -- action adds, in milliseconds (1 s to 7 days; up to an hour).
    clock_initial_ms   INTEGER CHECK (clock_initial_ms BETWEEN 1000 AND 604800000),
    clock_increment_ms INTEGER CHECK (clock_increment_ms BETWEEN 0 AND 3600000),
    -- Summary: when the running clock runs out (RFC 3339, as created_at), which
    -- the server's timer looks for.
    deadline   TEXT,
    -- Summary: how the game ended, and whose doing it was.
    end_reason TEXT
        CHECK (end_reason IS NULL OR end_reason = 'lines' OR end_reason = 'full_board'
            OR end_reason = 'resignation' OR end_reason = 'timeout' OR end_reason = 'aborted'
            OR end_reason = 'abandoned'),
    end_player TEXT    CHECK (end_player IN ('X', 'O')),
    -- The game this one is the rematch of: at most one rematch a game.
    rematch_of INTEGER REFERENCES games_new (id),
    invite_hash BLOB   CHECK (invite_hash IS NULL OR length(invite_hash) = 32),
    ended_at   TEXT,
    CHECK ((clock_initial_ms IS NULL) = (clock_increment_ms IS NULL)),
    CHECK ((status = 'finished') = (end_reason IS NOT NULL))
);
INSERT INTO games_new (id, variant, created_at, status, result, bot, mistake_chance, hints, clock_initial_ms,
    clock_increment_ms, deadline, end_reason, end_player, rematch_of, invite_hash, ended_at)
    SELECT id, variant, created_at, status, result, bot, mistake_chance, hints, clock_initial_ms,
        clock_increment_ms, deadline, end_reason, end_player, rematch_of, invite_hash, ended_at
    FROM games;
DROP TABLE games;
ALTER TABLE games_new RENAME TO games;
CREATE INDEX games_by_status ON games (status, id);
CREATE INDEX games_by_deadline ON games (status, deadline);
CREATE INDEX games_by_creation ON games (status, created_at);
CREATE UNIQUE INDEX games_by_rematch_of ON games (rematch_of);
CREATE INDEX games_by_end ON games (ended_at) WHERE ended_at IS NOT NULL;
CREATE INDEX games_abandoned_by_end ON games (ended_at)
    WHERE end_reason = 'aborted' AND end_player IS NULL AND rematch_of IS NULL;

CREATE TABLE log_entries_new (
    game_id    INTEGER NOT NULL REFERENCES games (id),
    seq        INTEGER NOT NULL CHECK (seq >= 1),
    kind       TEXT    NOT NULL CHECK (kind = 'seat' OR kind = 'move' OR kind = 'collapse' OR kind = 'resign'
        OR kind = 'timeout' OR kind = 'abort' OR kind = 'rematch' OR kind = 'abandon'),
    -- seat: the player seated; move: the player; collapse: 'X', 'O' or
    -- 'measurement'; resign: who resigned; timeout: whose clock ran out; abort: who
    -- aborted, or 'server' when nobody took the free seat in time; rematch: who
    -- asked for it first; abandon: who walked away, as the other player claimed.
    actor      TEXT    NOT NULL
        CHECK (actor = 'X' OR actor = 'O' OR actor = 'measurement' OR actor = 'server'),
    -- move: its two squares, 0-8, ascending (equal only for the last-square move).
    square_a   INTEGER CHECK (square_a BETWEEN 0 AND 8),
    square_b   INTEGER CHECK (square_b BETWEEN 0 AND 8),
    -- collapse: the move that closed the cycle and the square it ends in.
    closing_move    INTEGER CHECK (closing_move BETWEEN 1 AND 9),
    square          INTEGER CHECK (square BETWEEN 0 AND 8),
    -- rematch: the game the rematch is played in.
    rematch    INTEGER REFERENCES games (id),
    created_at TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    -- Whether the bot wrote the entry.
    by_bot     INTEGER NOT NULL DEFAULT 0 CHECK (by_bot IN (0, 1)),
    PRIMARY KEY (game_id, seq),
    CHECK ((kind = 'move') = (square_a IS NOT NULL AND square_b IS NOT NULL)),
    CHECK ((kind = 'collapse') = (closing_move IS NOT NULL AND square IS NOT NULL)),
    CHECK ((kind = 'rematch') = (rematch IS NOT NULL)),
    CHECK (actor <> 'measurement' OR kind = 'collapse'),
    CHECK (actor <> 'server' OR kind = 'abort')
) WITHOUT ROWID;
INSERT INTO log_entries_new
    (game_id, seq, kind, actor, square_a, square_b, closing_move, square, rematch, created_at, by_bot)
    SELECT game_id, seq, kind, actor, square_a, square_b, closing_move, square, rematch, created_at, by_bot
    FROM log_entries;
DROP TABLE log_entries;
ALTER TABLE log_entries_new RENAME TO log_entries;
CREATE INDEX log_entries_by_rematch ON log_entries (rematch) WHERE rematch IS NOT NULL;
