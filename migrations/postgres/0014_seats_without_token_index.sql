-- The index of the seats by token was read by no question. SQLite's 0016 drops
-- it too; see its comments.

DROP INDEX seats_by_token;
