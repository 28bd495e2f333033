//! The games in SQLite: the store's operations as SQL, each run as one job on the
//! threads of [`worker`].

mod checkpointer;
mod connection;
mod copy;
mod file;
mod resident;
mod tx;
mod worker;

use std::path::Path;
use std::str::FromStr;
use std::sync::{Arc, LazyLock};

use jiff::SignedDuration;

use rusqlite::{Connection, OpenFlags, Row, ffi, params};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode};
use sqlx::{ConnectOptions, Connection as _};

pub use checkpointer::SqliteConnection;
use checkpointer::{Checkpointer, open_writer};
use connection::{BUSY_TIMEOUT, connect};
use worker::{Connections, Scope};

use super::players::insert_player_events;
use super::ratings;
use super::rows::{Columns, EntryRow, NEW_ENTRY_COLUMNS, SEATS_WITH_HOLDERS, SeatRow, SummaryColumns, Value};
use super::rows::{bot_code, mistake_chance};
use super::rows::{entry_columns, game_columns, seat_columns, stored_game_from_row};
use super::{Durability, OpenError, RematchOf, SqliteSettings, StoreError, Write};
use crate::record::{
    Event, GameId, PlayerEventKind, PlayerId, StoredEntry, StoredGame, StoredSeat, Subject, Summary, stamp,
};
use tx::{SqliteTx, now};

/// How many connections read at once: enough for the server's workers and the
/// live streams' rereads to overlap.
const READERS: usize = 4;

/// The pages each reader keeps, in KiB (SQLite's default is 2 MiB). SQLite empties
/// a reader's cache whenever the file changed since its last read, so under writes
/// a read takes its pages from the operating system's cache (where [`resident`]
/// keeps them); this cache serves reads between writes. A random old game's view on
/// a million games, p99: 0.68 ms with 16 MiB against 0.76 with 2 MiB (one scale run
/// each, before the file was kept in memory). SQLite's own mapping of the file
/// (`mmap_size`), which it also drops at each change, made it 1.32 ms.
const READER_CACHE_KIB: i64 = 16 * 1024;

/// Times are kept as written: RFC 3339 text, to the millisecond.
fn as_written(column: &str) -> String {
    column.to_string()
}

static SELECT_GAME: LazyLock<String> =
    LazyLock::new(|| format!("SELECT {} FROM games WHERE id = ?", game_columns(as_written)));
static SELECT_LOG: LazyLock<String> =
    LazyLock::new(|| format!("SELECT {} FROM log_entries WHERE game_id = ? ORDER BY seq", entry_columns("created_at")));
static SELECT_SEATS: LazyLock<String> = LazyLock::new(|| {
    format!(
        "SELECT {} FROM {SEATS_WITH_HOLDERS} WHERE seats.game_id = ? ORDER BY seats.player DESC",
        seat_columns(as_written, as_written)
    )
});
// The statements of writes, named so that a test reads the programs of these very
// statements: none builds a temporary table. Every time is the service's: a row
// is stamped with it rather than reading a default back with `RETURNING`, which
// SQLite carries out by building a temporary table per statement (in the load
// profile, a quarter of a move's insert).
static INSERT_ENTRY: LazyLock<String> =
    LazyLock::new(|| format!("INSERT INTO log_entries ({NEW_ENTRY_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
/// A game, with its id (a copy's) or with none (a new game's, which SQLite
/// gives the next); nothing when a game has that id already.
const INSERT_GAME: &str = "INSERT INTO games (id, variant, created_at, bot, mistake_chance, hints, \
     clock_initial_ms, clock_increment_ms, rematch_of, status, result, end_reason, end_player, deadline, ended_at, \
     invite_hash, rated) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING";
const INSERT_SEAT: &str = "INSERT INTO seats (game_id, player, token_hash, player_id) VALUES (?, ?, ?, ?)";
const UPDATE_SUMMARY: &str =
    "UPDATE games SET status = ?, result = ?, end_reason = ?, end_player = ?, deadline = ?, ended_at = ? WHERE id = ?";
/// The file at `path`, to keep `bytes` of in memory: none when `bytes` is 0, or
/// when it cannot be mapped (a server that cannot hold it still serves).
fn resident_file(path: &Path, bytes: usize) -> Option<resident::ResidentFile> {
    if bytes == 0 {
        return None;
    }
    resident::ResidentFile::map(path, bytes)
        .inspect_err(|error| log::warn!("the database file is not kept in memory: {error}"))
        .ok()
}

/// The file of the database at `url`, if the URL can be read.
pub(super) fn file_of(url: &str) -> Option<std::path::PathBuf> {
    options_of(url).ok().map(|options| options.get_filename().to_path_buf())
}

/// The connection options `url` names, or why it names none.
fn options_of(url: &str) -> Result<SqliteConnectOptions, OpenError> {
    SqliteConnectOptions::from_str(url).map_err(OpenError::Url)
}

/// The database of `url` by its file.
pub(super) fn name_of(url: &str) -> String {
    match file_of(url) {
        Some(file) => format!("SQLite file {}", file.display()),
        None => "SQLite file (its URL cannot be read)".into(),
    }
}

/// Backs the database at `url` up into the new file `to`: see [`file::back_up`].
pub(super) async fn back_up(url: &str, to: &Path) -> Result<u64, OpenError> {
    let path = options_of(url)?.get_filename().to_path_buf();
    let to = to.to_path_buf();
    tokio::task::spawn_blocking(move || file::back_up(&path, &to)).await.map_err(OpenError::Thread)?
}

/// The games in one SQLite file.
#[derive(Debug, Clone)]
pub(super) struct SqliteStore {
    readers: Arc<Connections>,
    writer: Arc<Connections>,
    checkpointer: Arc<Checkpointer>,
}

impl SqliteStore {
    /// Opens the SQLite database at `url` (created if missing), in WAL mode, and
    /// migrated, used as `settings` say.
    ///
    /// # Errors
    /// When the database cannot be opened or migrated.
    pub(super) async fn open(url: &str, settings: SqliteSettings) -> Result<SqliteStore, OpenError> {
        let options = options_of(url)?;
        let path = options.get_filename().to_path_buf();
        let checked = path.clone();
        let migrations = sqlx::migrate!("./migrations/sqlite");
        let latest_migration = migrations.iter().map(|migration| migration.version).max().unwrap_or(0);
        tokio::task::spawn_blocking(move || file::check(&checked, latest_migration))
            .await
            .map_err(OpenError::Thread)??;
        // The migrator is sqlx's, on a connection of its own, closed before the
        // store's open: the journal mode stays with the file. It enforces no
        // foreign keys, so that a migration can rebuild a table that others
        // reference, as SQLite's procedure for altering a table needs.
        let mut migrator = options
            .create_if_missing(true)
            .foreign_keys(false)
            .journal_mode(SqliteJournalMode::Wal)
            .busy_timeout(BUSY_TIMEOUT)
            .connect()
            .await
            .map_err(OpenError::Connect)?;
        migrations.run(&mut migrator).await?;
        migrator.close().await.map_err(OpenError::Connect)?;

        let durability = settings.durability;
        let opened: rusqlite::Result<_> = (|| {
            let (writer, checkpointer) = open_writer(&path, durability, resident_file(&path, settings.resident_bytes))?;
            let readers = (0..READERS)
                .map(|_| {
                    let reader = connect(&path, durability, OpenFlags::SQLITE_OPEN_READ_ONLY)?;
                    reader.pragma_update(None, "cache_size", -READER_CACHE_KIB)?;
                    Ok(reader)
                })
                .collect::<rusqlite::Result<_>>()?;
            Ok((writer, checkpointer, readers))
        })();
        let (writer, checkpointer, readers) = opened.map_err(OpenError::Sqlite)?;
        Ok(SqliteStore {
            readers: Arc::new(Connections::readers(readers)),
            writer: Arc::new(Connections::writer(
                writer,
                Some(checkpointer.log_restart()),
                durability == Durability::Normal,
            )),
            checkpointer: Arc::new(checkpointer),
        })
    }

    /// Lets the queued work finish, then closes every connection, which
    /// checkpoints the write-ahead log.
    pub(super) async fn close(&self) {
        let store = self.clone();
        let _ = tokio::task::spawn_blocking(move || {
            store.checkpointer.stop();
            store.readers.close();
            store.writer.close();
        })
        .await;
    }

    pub(super) async fn ping(&self) -> Result<(), StoreError> {
        self.readers.run(|connection| Ok(connection.query_row("SELECT 1", [], |_| Ok(()))?)).await
    }

    pub(super) async fn create_game(
        &self,
        game: StoredGame,
        rematch: Option<RematchOf>,
        player_events: Vec<(PlayerId, PlayerEventKind)>,
    ) -> Result<GameId, StoreError> {
        self.writer
            .write(move |tx| {
                let created = insert_game(tx, &game, rematch);
                // A rematch asked for at the same moment by the other player took
                // the place in the old game's log, or the old game's one rematch.
                let id = match rematch {
                    Some(rematch) => lost_race(tx, rematch.game_id, created),
                    None => Ok(created?),
                }?;
                now(insert_player_events(&mut SqliteTx::new(tx), Subject::Game(id), &player_events, game.created_at))?;
                Ok(Ok(id))
            })
            .await
    }

    pub(super) async fn copy_game(&self, game: StoredGame, rematch: Option<RematchOf>) -> Result<bool, StoreError> {
        self.writer.write(move |tx| Ok(Ok(write_game_rows(tx, &game, Some(game.id), rematch)?.is_some()))).await
    }

    pub(super) async fn load_game(&self, id: GameId) -> Result<StoredGame, StoreError> {
        self.readers.run(move |connection| read_game(&*Scope::read(connection)?, id)).await
    }

    pub(super) async fn write(&self, id: GameId, write: Write, period: SignedDuration) -> Result<(), StoreError> {
        self.writer.write(move |tx| write_game(tx, id, &write, period).map(Ok)).await
    }

    pub(super) async fn update<T: Send + 'static, E: From<StoreError> + Send + 'static>(
        &self,
        id: GameId,
        period: SignedDuration,
        mut decide: impl FnMut(StoredGame) -> Result<(Option<Write>, T), E> + Send + 'static,
    ) -> Result<T, E> {
        self.writer
            .write(move |tx| {
                // Under the write lock from the read on: nothing can come between.
                let (write, decided) = match decide(read_game(tx, id)?) {
                    Ok(decision) => decision,
                    Err(refused) => return Ok(Err(refused)),
                };
                if let Some(write) = write {
                    write_entries(tx, id, &write)?;
                    rate(tx, id, &write, period)?;
                }
                Ok(Ok(decided))
            })
            .await
    }
}

/// Creates `game` in `tx`, and with `rematch` its entry in the game it
/// follows; answers its id.
fn insert_game(tx: &Connection, game: &StoredGame, rematch: Option<RematchOf>) -> rusqlite::Result<GameId> {
    Ok(write_game_rows(tx, game, None, rematch)?.expect("a new game is always inserted"))
}

/// [`insert_game`], or with a copy's `id` given: then nothing (`None`) is
/// written when a game has that id already.
fn write_game_rows(
    tx: &Connection,
    game: &StoredGame,
    id: Option<GameId>,
    rematch: Option<RematchOf>,
) -> rusqlite::Result<Option<GameId>> {
    let summary = SummaryColumns::of(&game.summary);
    let clock = game.clock.map(|clock| (clock.initial_ms, clock.increment_ms));
    let inserted = tx.prepare_cached(INSERT_GAME)?.execute(params![
        id,
        game.variant.code(),
        stamp(game.created_at),
        bot_code(game),
        mistake_chance(game),
        game.hints,
        clock.map(|(initial, _)| initial),
        clock.map(|(_, increment)| increment),
        game.rematch_of,
        summary.status,
        summary.result,
        summary.end_reason,
        summary.end_player,
        summary.deadline,
        summary.ended_at,
        game.invite_hash,
        game.rated
    ])?;
    if inserted == 0 {
        return Ok(None);
    }
    let id = GameId::new(tx.last_insert_rowid());
    for seat in &game.seats {
        insert_seat(tx, id, seat)?;
    }
    insert_entries(tx, id, &game.log)?;
    if let Some(RematchOf { game_id, seq, player }) = rematch {
        let event = Event::Rematch { player, game_id: id };
        insert_entries(tx, game_id, &[StoredEntry { seq, created_at: game.created_at, event, by_bot: false }])?;
    }
    Ok(Some(id))
}

/// Game `id` and its whole log, read in `tx`, a transaction, so that both come
/// from one snapshot.
fn read_game(tx: &Connection, id: GameId) -> Result<StoredGame, StoreError> {
    let mut select_game = tx.prepare_cached(&SELECT_GAME)?;
    let mut games = select_game.query([id])?;
    let game = games.next()?.ok_or(StoreError::NotFound { id })?;
    let mut select_log = tx.prepare_cached(&SELECT_LOG)?;
    let mut entries = select_log.query([id])?;
    let mut log = Vec::new();
    while let Some(entry) = entries.next()? {
        log.push(EntryRow::from_row(entry)?);
    }
    let mut select_seats = tx.prepare_cached(&SELECT_SEATS)?;
    let mut rows = select_seats.query([id])?;
    let mut seats = Vec::new();
    while let Some(seat) = rows.next()? {
        seats.push(SeatRow::from_row(seat)?);
    }
    stored_game_from_row(game, log, seats)
}

impl Columns for Row<'_> {
    fn column<T: Value>(&self, index: usize) -> Result<T, StoreError> {
        Ok(self.get(index)?)
    }
}

/// Carries out `write` on game `id` in `tx`, the write's savepoint, which undoes
/// it when it fails.
fn write_game(tx: &Connection, id: GameId, write: &Write, period: SignedDuration) -> Result<(), StoreError> {
    lost_race(tx, id, write_rows(tx, id, write))?;
    tell_players(tx, id, write)?;
    rate(tx, id, write, period)
}

/// Rates the game `id` that `write` ends, if it is rated, with rating periods
/// of length `period`.
fn rate(tx: &Connection, id: GameId, write: &Write, period: SignedDuration) -> Result<(), StoreError> {
    match &write.rated {
        Some(rated) => now(ratings::rate(&mut SqliteTx::new(tx), id, rated, period)),
        None => Ok(()),
    }
}

/// The outcome of a write to game `id`, with a lost race for its next sequence
/// number or its seat told as a conflict. (The race is lost at the first row:
/// what the write inserted before it, a seat at most, is not in the log whose
/// last number the conflict reports, and the savepoint undoes it.)
fn lost_race<T>(tx: &Connection, id: GameId, written: rusqlite::Result<T>) -> Result<T, StoreError> {
    match written {
        Err(error) if is_unique_violation(&error) => {
            let current_version = tx
                .prepare_cached("SELECT COALESCE(MAX(seq), 0) FROM log_entries WHERE game_id = ?")?
                .query_row([id], |row| row.get(0))?;
            Err(StoreError::Conflict { current_version })
        }
        other => Ok(other?),
    }
}

/// Carries out `write` on game `id` in `tx`, but for the ratings of the game
/// it ends (see [`rate`]).
fn write_entries(tx: &Connection, id: GameId, write: &Write) -> Result<(), StoreError> {
    write_rows(tx, id, write)?;
    tell_players(tx, id, write)
}

/// The game's own rows of `write` on game `id`: its seat, entries and summary.
fn write_rows(tx: &Connection, id: GameId, write: &Write) -> rusqlite::Result<()> {
    if let Some(seat) = &write.seat {
        insert_seat(tx, id, seat)?;
    }
    insert_entries(tx, id, &write.entries)?;
    if let Some(summary) = &write.summary {
        set_summary(tx, id, summary)?;
    }
    Ok(())
}

/// Writes the events `write` on game `id` tells its players, at its last entry's time.
fn tell_players(tx: &Connection, id: GameId, write: &Write) -> Result<(), StoreError> {
    match write.entries.last() {
        Some(last) => {
            now(insert_player_events(&mut SqliteTx::new(tx), Subject::Game(id), &write.player_events, last.created_at))
        }
        None => Ok(()),
    }
}

/// Writes `entries` into the log of game `id`.
fn insert_entries(tx: &Connection, id: GameId, entries: &[StoredEntry]) -> rusqlite::Result<()> {
    let mut insert = tx.prepare_cached(&INSERT_ENTRY)?;
    for entry in entries {
        let row = EntryRow::from(entry);
        insert.execute(params![
            id,
            row.seq,
            row.kind,
            row.actor,
            row.square_a,
            row.square_b,
            row.closing_move,
            row.square,
            row.rematch,
            row.by_bot,
            row.created_at
        ])?;
    }
    Ok(())
}

/// Keeps `seat` of game `id`: its token's hash and its holder.
fn insert_seat(tx: &Connection, id: GameId, seat: &StoredSeat) -> rusqlite::Result<()> {
    let holder = seat.holder.as_ref().map(|holder| holder.id);
    tx.prepare_cached(INSERT_SEAT)?.execute(params![id, seat.player.to_string(), seat.token_hash, holder])?;
    Ok(())
}

fn set_summary(tx: &Connection, id: GameId, summary: &Summary) -> rusqlite::Result<()> {
    let columns = SummaryColumns::of(summary);
    tx.prepare_cached(UPDATE_SUMMARY)?.execute(params![
        columns.status,
        columns.result,
        columns.end_reason,
        columns.end_player,
        columns.deadline,
        columns.ended_at,
        id
    ])?;
    Ok(())
}

fn is_unique_violation(error: &rusqlite::Error) -> bool {
    error.sqlite_error().is_some_and(|error| {
        [ffi::SQLITE_CONSTRAINT_PRIMARYKEY, ffi::SQLITE_CONSTRAINT_UNIQUE].contains(&error.extended_code)
    })
}

#[cfg(test)]
mod tests;
