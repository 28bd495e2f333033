-- One notice per game a statement writes to, carrying the game's new version,
-- instead of one per entry: a write of several entries (a move and the bot's
-- answer, or a measurement) now wakes the watchers on other instances once. A
-- write is one statement (see src/store/postgres), so this is one notice a write.
CREATE FUNCTION notify_log_entries() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('qttt_games', game_id || ' ' || max(seq)) FROM new_entries GROUP BY game_id;
    RETURN NULL;
END;
$$;

DROP TRIGGER log_entries_notify ON log_entries;
DROP FUNCTION notify_log_entry();
CREATE TRIGGER log_entries_notify AFTER INSERT ON log_entries REFERENCING NEW TABLE AS new_entries
    FOR EACH STATEMENT EXECUTE FUNCTION notify_log_entries();
