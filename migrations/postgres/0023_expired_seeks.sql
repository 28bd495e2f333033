-- A seek not paired in time is swept to `expired` by the server's timer, out of
-- seeks_open, which every new seek's pairing walks. SQLite's 0025 does the same.
ALTER TABLE seeks DROP CONSTRAINT seeks_status_check;
ALTER TABLE seeks ADD CONSTRAINT seeks_status_check
    CHECK (status IN ('open', 'paired', 'cancelled', 'expired'));
