-- One word, one meaning, in the database as in the API: a challenge's colour is
-- written as a seat is, X or O (or random), and the index of the games nobody
-- joined is named for them. SQLite's 0017 does the same.

ALTER TABLE challenges DROP CONSTRAINT challenges_colour_check;
UPDATE challenges SET colour = upper(colour) WHERE colour IN ('x', 'o');
ALTER TABLE challenges ADD CONSTRAINT challenges_colour_check CHECK (colour IN ('X', 'O', 'random'));

ALTER INDEX games_abandoned_by_end RENAME TO games_unjoined_by_end;
