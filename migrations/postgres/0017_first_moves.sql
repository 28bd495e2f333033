-- A clocked game's clocks start once both players made their first move; a
-- player who makes none in time aborts the game: the log's kind `no_first_move`,
-- the game's end reason `no_first_move`. SQLite's 0019 does the same.

ALTER TABLE games DROP CONSTRAINT games_end_reason_check;
ALTER TABLE games ADD CONSTRAINT games_end_reason_check
    CHECK (end_reason IN ('lines', 'full_board', 'resignation', 'timeout', 'aborted', 'abandoned', 'agreement',
        'no_first_move'));

-- no_first_move: who made no first move in time.
CREATE OR REPLACE FUNCTION log_entry_is_valid(
    seq BIGINT, kind TEXT, actor TEXT, square_a BIGINT, square_b BIGINT, closing_move BIGINT, square BIGINT,
    rematch BIGINT
) RETURNS BOOLEAN LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
    RETURN seq >= 1
        AND kind IN ('seat', 'move', 'collapse', 'resign', 'timeout', 'abort', 'rematch', 'abandon', 'agreement',
            'draw_offer', 'draw_decline', 'no_first_move')
        AND actor IN ('X', 'O', 'measurement', 'server')
        AND (square_a IS NULL OR square_a BETWEEN 0 AND 8)
        AND (square_b IS NULL OR square_b BETWEEN 0 AND 8)
        AND (closing_move IS NULL OR closing_move BETWEEN 1 AND 9)
        AND (square IS NULL OR square BETWEEN 0 AND 8)
        AND (kind = 'move') = (square_a IS NOT NULL AND square_b IS NOT NULL)
        AND (kind = 'collapse') = (closing_move IS NOT NULL AND square IS NOT NULL)
        AND (kind = 'rematch') = (rematch IS NOT NULL)
        AND (actor <> 'measurement' OR kind = 'collapse')
        AND (actor <> 'server' OR kind = 'abort');
END;
$$;
