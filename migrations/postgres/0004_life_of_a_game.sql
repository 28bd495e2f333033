-- The life of a game around its rules: it may end by a resignation, a timeout or
-- an abort, be played on a clock, and be followed by a rematch. The log stays the
-- truth: each of these is an entry; `games` gains only what a listing and the
-- server's timer read (how a game ended, when its running clock runs out), written
-- in the same transaction as the entries that change them, and the settings a
-- game is created with. (SQLite's 0008 does the same.)

ALTER TABLE games DROP CONSTRAINT games_result_check;
ALTER TABLE games ADD CONSTRAINT games_result_check
    CHECK (result IN ('ongoing', 'x_wins', 'o_wins', 'draw', 'aborted'));
-- A timed game's Fischer clock: each player's time at the start, and what each
-- action adds, in milliseconds (1 s to 7 days; up to an hour).
ALTER TABLE games ADD COLUMN clock_initial_ms BIGINT CHECK (clock_initial_ms BETWEEN 1000 AND 604800000);
ALTER TABLE games ADD COLUMN clock_increment_ms BIGINT CHECK (clock_increment_ms BETWEEN 0 AND 3600000);
-- Summary: when the running clock runs out, which the server's timer looks for.
ALTER TABLE games ADD COLUMN deadline TIMESTAMPTZ;
-- Summary: how the game ended, and whose doing it was.
ALTER TABLE games ADD COLUMN end_reason TEXT
    CHECK (end_reason IN ('lines', 'full_board', 'resignation', 'timeout', 'aborted'));
ALTER TABLE games ADD COLUMN end_player TEXT CHECK (end_player IN ('X', 'O'));
-- The game this one is the rematch of: at most one rematch a game.
ALTER TABLE games ADD COLUMN rematch_of BIGINT REFERENCES games (id);
-- Until now a game ended by the rules alone: a draw is a full board (two lines
-- never score alike), a win a line.
UPDATE games SET end_reason = CASE WHEN result = 'draw' THEN 'full_board' ELSE 'lines' END
    WHERE status = 'finished';
ALTER TABLE games ADD CHECK ((clock_initial_ms IS NULL) = (clock_increment_ms IS NULL));
ALTER TABLE games ADD CHECK ((status = 'finished') = (end_reason IS NOT NULL));
-- The timer's two questions: which ongoing games' clocks ran out, and which games
-- waited too long for their second player.
CREATE INDEX games_by_deadline ON games (status, deadline);
CREATE INDEX games_by_creation ON games (status, created_at);
CREATE UNIQUE INDEX games_by_rematch_of ON games (rematch_of);

-- seat: the player seated; move: the player; collapse: 'X', 'O' or 'measurement';
-- resign: who resigned; timeout: whose clock ran out; abort: who aborted, or
-- 'server' when nobody took the free seat in time; rematch: who asked for it first.
ALTER TABLE log_entries DROP CONSTRAINT log_entries_kind_check;
ALTER TABLE log_entries ADD CONSTRAINT log_entries_kind_check
    CHECK (kind IN ('seat', 'move', 'collapse', 'resign', 'timeout', 'abort', 'rematch'));
ALTER TABLE log_entries DROP CONSTRAINT log_entries_actor_check;
ALTER TABLE log_entries ADD CONSTRAINT log_entries_actor_check CHECK (actor IN ('X', 'O', 'measurement', 'server'));
-- The old `kind = 'collapse' OR actor IN ('X', 'O')`, which a server's abort breaks.
ALTER TABLE log_entries DROP CONSTRAINT log_entries_check2;
ALTER TABLE log_entries ADD CHECK (actor <> 'measurement' OR kind = 'collapse');
ALTER TABLE log_entries ADD CHECK (actor <> 'server' OR kind = 'abort');
-- rematch: the game the rematch is played in.
ALTER TABLE log_entries ADD COLUMN rematch BIGINT REFERENCES games (id);
ALTER TABLE log_entries ADD CHECK ((kind = 'rematch') = (rematch IS NOT NULL));
