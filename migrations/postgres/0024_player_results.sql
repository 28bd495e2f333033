-- How each player's finished games ended for them, counted as each game ends,
-- so that a profile reads four numbers however many games its player played
-- (it counted every game before). Counted from the games already finished.
-- SQLite's 0026 does the same.
ALTER TABLE players ADD COLUMN games_won BIGINT NOT NULL DEFAULT 0 CHECK (games_won >= 0);
ALTER TABLE players ADD COLUMN games_lost BIGINT NOT NULL DEFAULT 0 CHECK (games_lost >= 0);
ALTER TABLE players ADD COLUMN games_drawn BIGINT NOT NULL DEFAULT 0 CHECK (games_drawn >= 0);
ALTER TABLE players ADD COLUMN games_aborted BIGINT NOT NULL DEFAULT 0 CHECK (games_aborted >= 0);
UPDATE players SET games_won = counted.won, games_lost = counted.lost, games_drawn = counted.drawn,
    games_aborted = counted.aborted
FROM (SELECT mine.id,
        SUM(CASE WHEN (games.result = 'x_wins' AND mine.seat = 'X') OR (games.result = 'o_wins' AND mine.seat = 'O') THEN 1 ELSE 0 END) AS won,
        SUM(CASE WHEN (games.result = 'x_wins' AND mine.seat = 'O') OR (games.result = 'o_wins' AND mine.seat = 'X') THEN 1 ELSE 0 END) AS lost,
        SUM(CASE WHEN games.result = 'draw' THEN 1 ELSE 0 END) AS drawn,
        SUM(CASE WHEN games.result = 'aborted' THEN 1 ELSE 0 END) AS aborted
    FROM (SELECT seats.game_id, seats.player_id AS id, seats.player AS seat FROM seats
    WHERE seats.player_id IS NOT NULL
    UNION ALL SELECT seats.game_id, players.id, CASE WHEN seats.player = 'X' THEN 'O' ELSE 'X' END
    FROM games JOIN players ON players.bot = games.bot JOIN seats ON seats.game_id = games.id) mine JOIN games ON games.id = mine.game_id
    WHERE games.status = 'finished' GROUP BY mine.id) counted
WHERE players.id = counted.id;
