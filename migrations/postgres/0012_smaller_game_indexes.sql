-- The timer's, the waiting games' and the rematches' indexes hold only the
-- games their questions ask for. SQLite's 0014 does the same; see its comments.

DROP INDEX games_by_deadline;
CREATE INDEX games_by_deadline ON games (status, deadline) WHERE status = 'ongoing' AND deadline IS NOT NULL;
DROP INDEX games_by_creation;
CREATE INDEX games_by_creation ON games (status, created_at) WHERE status = 'waiting';
DROP INDEX games_by_rematch_of;
CREATE UNIQUE INDEX games_by_rematch_of ON games (rematch_of) WHERE rematch_of IS NOT NULL;
