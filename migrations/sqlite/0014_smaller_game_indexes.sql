-- The timer's, the waiting games' and the rematches' indexes hold only the
-- games their questions ask for: the ongoing games with a clock, the waiting
-- games, the rematches. Each held every game, and was written at every
-- creation and every change of status: at one client a creation cost the
-- writer 37 us more than before these indexes were added (with all else that
-- came since). Their columns stay as they were: without statistics, SQLite
-- takes an index that matches the status by equality over one that holds only
-- that status.

DROP INDEX games_by_deadline;
CREATE INDEX games_by_deadline ON games (status, deadline) WHERE status = 'ongoing' AND deadline IS NOT NULL;
DROP INDEX games_by_creation;
CREATE INDEX games_by_creation ON games (status, created_at) WHERE status = 'waiting';
DROP INDEX games_by_rematch_of;
CREATE UNIQUE INDEX games_by_rematch_of ON games (rematch_of) WHERE rematch_of IS NOT NULL;
