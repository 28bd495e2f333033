//! The games in SQLite, each connection driven by a thread of the store's own.
//!
//! A request's database work runs as one job on a connection's thread: a move's
//! read of the log, the rules' decision and the write are one hand-over from the
//! request's thread and one back. (A driver that hands every statement to its
//! connection's thread, as sqlx does, pays that twice per statement, and the load
//! profile showed those hand-overs, not the queries, to be most of a move's cost.)
//!
//! SQLite lets one connection write at a time. Writes therefore go through one
//! connection, so that they queue in order here instead of polling SQLite's lock
//! from several connections (its busy handler sleeps up to 100 ms between tries);
//! reads go through read-only connections of their own, which in WAL mode never
//! wait for the writer. The writes found queued together are committed together
//! (see [`Connections::write`]). Write transactions begin IMMEDIATE, and the busy
//! timeout covers other processes on the same file. The write-ahead log is copied
//! into the database file by a thread of its own, never by the writer: see
//! [`Checkpointer`].

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::str::FromStr;
use std::sync::{Arc, LazyLock, Mutex, mpsc};
use std::thread::JoinHandle;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags, OptionalExtension, Row, Transaction, TransactionBehavior, ffi, params};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode};
use sqlx::{ConnectOptions, Connection as _};
use tokio::sync::oneshot;

use super::rows::{EntryRow, GameRow, NEW_ENTRY_COLUMNS, NewEntryRow, SummaryRow, entry_columns, game_columns};
use super::{Durability, ListedGame, NewGame, Status, StoreError, StoredEntry, StoredGame, Summary, Write};
use crate::engine::Player;

/// How many connections read at once: enough for the server's workers and the
/// live streams' rereads to overlap.
const READERS: usize = 4;

/// How long a statement waits for another process's lock on the file.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// The most writes committed together. A write's answer waits for the last of its
/// batch, so this bounds that wait (at some tens of microseconds a write).
const MOST_WRITES_PER_COMMIT: usize = 64;

/// How often the write-ahead log is copied into the database file.
const CHECKPOINT_EVERY: Duration = Duration::from_millis(100);

/// The size of the write-ahead log, in pages, beyond which a checkpoint waits for
/// the writer once, so that the log starts again from its beginning: under writes
/// that never pause, checkpoints that never wait would let it grow without end.
const LOG_PAGES_BEFORE_RESTART: i64 = 8192;

static SELECT_GAME: LazyLock<String> =
    LazyLock::new(|| format!("SELECT {} FROM games WHERE id = ?", game_columns("created_at")));
static SELECT_LOG: LazyLock<String> =
    LazyLock::new(|| format!("SELECT {} FROM log_entries WHERE game_id = ? ORDER BY seq", entry_columns("created_at")));
static INSERT_ENTRY: LazyLock<String> = LazyLock::new(|| {
    format!("INSERT INTO log_entries ({NEW_ENTRY_COLUMNS}, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
});

/// The time now, as the schema's defaults write it (`strftime('%Y-%m-%dT%H:%M:%fZ',
/// 'now')`). A write stamps its rows with it instead of reading their defaults
/// back with `RETURNING`, which SQLite carries out by building a temporary table
/// per statement: in the load profile, a quarter of a move's insert.
fn now() -> String {
    // RFC 3339 in UTC with three decimals: SQLite's `'now'` is to the millisecond.
    format!("{:.3}", jiff::Timestamp::now())
}

/// The games in one SQLite file.
#[derive(Debug, Clone)]
pub struct SqliteStore {
    readers: Arc<Connections>,
    writer: Arc<Connections>,
    checkpointer: Arc<Checkpointer>,
}

/// Work for a connection's thread.
enum Job {
    /// Work on the connection as it is, outside any transaction.
    Alone(Box<dyn FnOnce(&mut Connection) + Send>),
    /// A write, to be committed with the writes queued with it.
    Write(WriteJob),
}

/// A write in a batch: it runs in a savepoint of the batch's transaction (or
/// hears why that transaction could not begin), and returns how to answer its
/// caller once the commit has succeeded or failed.
type WriteJob = Box<dyn FnOnce(Result<&mut Transaction<'_>, &rusqlite::Error>) -> Reply + Send>;

/// Answers a write's caller, told how the commit went.
type Reply = Box<dyn FnOnce(Result<(), &rusqlite::Error>)>;

/// Connections, each on a thread of its own that runs the jobs of one queue in
/// turn. A job that panics fails alone: its caller hears of it, its writes are
/// undone, and the thread goes on with the next.
#[derive(Debug)]
pub struct Connections {
    queue: Mutex<Option<mpsc::Sender<Job>>>,
    threads: Mutex<Vec<JoinHandle<()>>>,
}

impl Connections {
    fn start(name: &str, connections: Vec<Connection>) -> Connections {
        let (queue, jobs) = mpsc::channel::<Job>();
        let jobs = Arc::new(Mutex::new(jobs));
        let threads = connections
            .into_iter()
            .map(|mut connection| {
                let jobs = Arc::clone(&jobs);
                std::thread::Builder::new()
                    .name(name.to_string())
                    .spawn(move || serve(&mut connection, &jobs))
                    .expect("the system can start a thread")
            })
            .collect();
        Connections { queue: Mutex::new(Some(queue)), threads: Mutex::new(threads) }
    }

    /// Runs `work` on the next free connection, outside any transaction, and
    /// answers what it answers.
    ///
    /// # Errors
    /// Whatever `work` returns; [`StoreError::Unavailable`] once the store is
    /// closed; [`StoreError::Other`] when `work` panics.
    pub async fn run<T: Send + 'static>(
        &self,
        work: impl FnOnce(&mut Connection) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, StoreError> {
        self.ask(|answer| {
            Job::Alone(Box::new(move |connection| {
                // The caller may have gone; then nobody needs the answer.
                let _ = answer.send(work(connection));
            }))
        })
        .await
    }

    /// Runs `work` in a savepoint of a write transaction shared with the other
    /// writes queued with it, and answers what it answers once that transaction
    /// has committed. A write that fails undoes only itself.
    ///
    /// Committing the writes found queued together shares a commit's cost, its
    /// locks and its write of the changed pages to the log, among them: most of
    /// a move's cost on the writer in the load profile.
    ///
    /// # Errors
    /// Whatever `work` returns; the database's error when the transaction cannot
    /// begin or commit; as [`Connections::run`] otherwise.
    async fn write<T: Send + 'static, E: From<StoreError> + Send + 'static>(
        &self,
        work: impl FnOnce(&Connection) -> Result<T, E> + Send + 'static,
    ) -> Result<T, E> {
        let database = |error: &rusqlite::Error| E::from(StoreError::from(error));
        self.ask(|answer| {
            Job::Write(Box::new(move |transaction| {
                // A failed write's savepoint rolls back when dropped, a panic's too.
                let written = transaction.map_err(database).and_then(|transaction| {
                    let savepoint = Savepoint::begin(transaction).map_err(|error| database(&error))?;
                    let written = work(&savepoint)?;
                    savepoint.release().map_err(|error| database(&error))?;
                    Ok(written)
                });
                Box::new(move |committed| {
                    let _ = answer.send(written.and_then(|written| committed.map(|()| written).map_err(database)));
                })
            }))
        })
        .await
    }

    /// Queues the job that `job` makes around the sender of its answer, and
    /// awaits that answer.
    async fn ask<T, E: From<StoreError>>(
        &self,
        job: impl FnOnce(oneshot::Sender<Result<T, E>>) -> Job,
    ) -> Result<T, E> {
        let (answer, answered) = oneshot::channel();
        {
            let queue = self.queue.lock().expect("no job runs under this lock");
            queue.as_ref().ok_or_else(closed)?.send(job(answer)).map_err(|_| closed())?;
        }
        // A job drops its sender unanswered only when it panics.
        answered.await.map_err(|_| StoreError::Other("a database job panicked".into()))?
    }

    /// Lets the queued jobs finish, then closes the connections.
    fn close(&self) {
        self.queue.lock().expect("no job runs under this lock").take();
        for thread in self.threads.lock().expect("no job runs under this lock").drain(..) {
            let _ = thread.join();
        }
    }
}

/// A savepoint in the writer's transaction: what is written after it begins is
/// undone when it is dropped unreleased. Its statements are prepared once and
/// cached; rusqlite's savepoints parse theirs again every time.
struct Savepoint<'c> {
    connection: &'c Connection,
    released: bool,
}

impl<'c> Savepoint<'c> {
    fn begin(connection: &'c Connection) -> rusqlite::Result<Savepoint<'c>> {
        connection.prepare_cached("SAVEPOINT write")?.execute([])?;
        Ok(Savepoint { connection, released: false })
    }

    /// Keeps what was written since the savepoint began, in the transaction.
    fn release(mut self) -> rusqlite::Result<()> {
        self.connection.prepare_cached("RELEASE write")?.execute([])?;
        self.released = true;
        Ok(())
    }
}

impl Drop for Savepoint<'_> {
    fn drop(&mut self) {
        if !self.released {
            // Should this fail, so does the transaction's commit, and every write
            // of the batch hears of it.
            let _ = self.connection.prepare_cached("ROLLBACK TO write").and_then(|mut undo| undo.execute([]));
            let _ = self.connection.prepare_cached("RELEASE write").and_then(|mut release| release.execute([]));
        }
    }
}

impl std::ops::Deref for Savepoint<'_> {
    type Target = Connection;

    fn deref(&self) -> &Connection {
        self.connection
    }
}

/// Copies the write-ahead log into the database file, on a connection and a thread
/// of its own, every [`CHECKPOINT_EVERY`]. Left to itself, SQLite checkpoints inside
/// the commit that crosses its threshold, on the writer: in the load test that held
/// every write queued behind it, up to 150 ms, and made most of the moves' p99.
#[derive(Debug)]
struct Checkpointer {
    /// Dropping the sender stops the thread.
    running: Mutex<Option<(mpsc::Sender<()>, JoinHandle<()>)>>,
}

impl Checkpointer {
    fn start(connection: Connection) -> Checkpointer {
        let (stop, stopped) = mpsc::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("sqlite-checkpoint".into())
            .spawn(move || {
                while let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(CHECKPOINT_EVERY) {
                    // A checkpoint that fails (busy) is tried again at the next turn.
                    let pages = connection.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |row| row.get::<_, i64>(1));
                    if pages.is_ok_and(|pages| pages > LOG_PAGES_BEFORE_RESTART) {
                        let _ = connection.query_row("PRAGMA wal_checkpoint(RESTART)", [], |_| Ok(()));
                    }
                }
            })
            .expect("the system can start a thread");
        Checkpointer { running: Mutex::new(Some((stop, thread))) }
    }

    fn stop(&self) {
        if let Some((stop, thread)) = self.running.lock().expect("nothing panics under this lock").take() {
            drop(stop);
            let _ = thread.join();
        }
    }
}

/// Runs the jobs of `jobs` on `connection` until the queue closes: a write with
/// the writes queued right behind it, up to [`MOST_WRITES_PER_COMMIT`], in one
/// transaction.
fn serve(connection: &mut Connection, jobs: &Mutex<mpsc::Receiver<Job>>) {
    // The lock is held only while taking jobs.
    let next = || jobs.lock().expect("no job runs under this lock").recv().ok();
    let mut held = None;
    while let Some(job) = held.take().or_else(next) {
        match job {
            Job::Alone(job) => {
                let _ = catch_unwind(AssertUnwindSafe(|| job(connection)));
            }
            Job::Write(first) => {
                let mut batch = vec![first];
                while batch.len() < MOST_WRITES_PER_COMMIT {
                    match jobs.lock().expect("no job runs under this lock").try_recv() {
                        Ok(Job::Write(write)) => batch.push(write),
                        Ok(alone) => {
                            held = Some(alone);
                            break;
                        }
                        Err(_) => break,
                    }
                }
                commit_together(connection, batch);
            }
        }
    }
}

/// Runs `batch` in one IMMEDIATE transaction, commits it, then answers each write.
fn commit_together(connection: &mut Connection, batch: Vec<WriteJob>) {
    let mut transaction = connection.transaction_with_behavior(TransactionBehavior::Immediate);
    // On some errors (a full disk, a failed read or write) SQLite rolls back the
    // whole transaction. The writes after that must not run, or each would commit
    // on its own, outside the batch whose failed commit answers them.
    let ended = rusqlite::Error::SqliteFailure(
        ffi::Error::new(ffi::SQLITE_ABORT),
        Some("an earlier write of the same transaction ended it".into()),
    );
    let replies: Vec<Reply> = batch
        .into_iter()
        .filter_map(|write| {
            let transaction = match &mut transaction {
                Ok(transaction) if transaction.is_autocommit() => Err(&ended),
                Ok(transaction) => Ok(transaction),
                Err(error) => Err(&*error),
            };
            catch_unwind(AssertUnwindSafe(|| write(transaction))).ok()
        })
        .collect();
    let committed = transaction.and_then(Transaction::commit);
    for reply in replies {
        reply(committed.as_ref().copied());
    }
}

fn closed() -> StoreError {
    StoreError::Unavailable("the database is closed".into())
}

/// Opens one connection to the file at `path` with the store's settings.
fn connect(path: &Path, durability: Durability, flags: OpenFlags) -> rusqlite::Result<Connection> {
    // Each connection is used by its own thread only, so SQLite need not lock it
    // for every call (a read locked and unlocked it once per column of each row).
    let connection = Connection::open_with_flags(path, flags | OpenFlags::SQLITE_OPEN_NO_MUTEX)?;
    connection.busy_timeout(BUSY_TIMEOUT)?;
    connection.pragma_update(None, "foreign_keys", true)?;
    connection.pragma_update(
        None,
        "synchronous",
        match durability {
            Durability::Normal => "NORMAL",
            Durability::Full => "FULL",
        },
    )?;
    Ok(connection)
}

impl SqliteStore {
    /// Opens the SQLite database at `url` (created if missing), in WAL mode, and
    /// migrated.
    ///
    /// # Errors
    /// When the database cannot be opened or migrated.
    pub async fn open(url: &str, durability: Durability) -> Result<SqliteStore, String> {
        let options = SqliteConnectOptions::from_str(url).map_err(|error| error.to_string())?;
        let path = options.get_filename().to_path_buf();
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
            .map_err(|error| error.to_string())?;
        sqlx::migrate!("./migrations/sqlite").run(&mut migrator).await.map_err(|error| error.to_string())?;
        migrator.close().await.map_err(|error| error.to_string())?;

        let opened: rusqlite::Result<_> = (|| {
            let writer = connect(&path, durability, OpenFlags::SQLITE_OPEN_READ_WRITE)?;
            writer.pragma_update(None, "wal_autocheckpoint", 0)?;
            let checkpointer = connect(&path, durability, OpenFlags::SQLITE_OPEN_READ_WRITE)?;
            let readers = (0..READERS)
                .map(|_| connect(&path, durability, OpenFlags::SQLITE_OPEN_READ_ONLY))
                .collect::<rusqlite::Result<_>>()?;
            Ok((writer, checkpointer, readers))
        })();
        let (writer, checkpointer, readers) = opened.map_err(|error| error.to_string())?;
        Ok(SqliteStore {
            readers: Arc::new(Connections::start("sqlite-reader", readers)),
            writer: Arc::new(Connections::start("sqlite-writer", vec![writer])),
            checkpointer: Arc::new(Checkpointer::start(checkpointer)),
        })
    }

    /// The writer connection, for work of the load tool's own.
    pub fn writer(&self) -> &Connections {
        &self.writer
    }

    /// Lets the queued work finish, then closes every connection, which
    /// checkpoints the write-ahead log.
    pub async fn close(&self) {
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

    pub(super) async fn create_game(&self, new: NewGame) -> Result<StoredGame, StoreError> {
        self.writer
            .write(move |tx| {
                let created_at = now();
                tx.prepare_cached(
                    "INSERT INTO games (variant, status, result, bot_level, bot_mistake_chance, created_at) \
                     VALUES (?, ?, ?, ?, ?, ?)",
                )?
                .execute(params![
                    new.variant.code(),
                    new.summary.status.code(),
                    new.summary.result.code(),
                    new.bot_level(),
                    new.bot_mistake_chance(),
                    created_at
                ])?;
                let id = tx.last_insert_rowid();
                insert_seat(tx, id, new.player, &new.token_hash)?;
                let log = insert_entries(tx, id, 0, &new.entries(), &created_at)?;
                Ok(new.into_stored(id, created_at, log))
            })
            .await
    }

    pub(super) async fn load_game(&self, id: i64) -> Result<StoredGame, StoreError> {
        self.readers.run(move |connection| read_game(&*connection.transaction()?, id)).await
    }

    pub(super) async fn write(&self, id: i64, write: Write) -> Result<Vec<StoredEntry>, StoreError> {
        self.writer.write(move |tx| write_game(tx, id, &write)).await
    }

    pub(super) async fn update<T: Send + 'static, E: From<StoreError> + Send + 'static>(
        &self,
        id: i64,
        decide: impl FnOnce(StoredGame) -> Result<(Option<Write>, T), E> + Send + 'static,
    ) -> Result<(Vec<StoredEntry>, T), E> {
        self.writer
            .write(move |tx| {
                // Under the write lock from the read on: nothing can come between.
                let (write, decided) = decide(read_game(tx, id)?)?;
                let written = match write {
                    Some(write) => write_entries(tx, id, &write).map_err(StoreError::from)?,
                    None => Vec::new(),
                };
                Ok((written, decided))
            })
            .await
    }

    pub(super) async fn list_games(
        &self,
        status: Option<Status>,
        before: Option<i64>,
        limit: u32,
    ) -> Result<Vec<ListedGame>, StoreError> {
        self.readers
            .run(move |connection| {
                let mut listing = connection.prepare_cached(
                    "SELECT id, variant, created_at, status, result, \
                     (SELECT MAX(seq) FROM log_entries WHERE game_id = games.id) AS version FROM games \
                     WHERE (?1 IS NULL OR status = ?1) AND (?2 IS NULL OR id < ?2) \
                     ORDER BY id DESC LIMIT ?3",
                )?;
                let rows = listing.query_map(params![status.map(Status::code), before, limit], |row| {
                    Ok(SummaryRow {
                        id: row.get(0)?,
                        variant: row.get(1)?,
                        created_at: row.get(2)?,
                        status: row.get(3)?,
                        result: row.get(4)?,
                        version: row.get(5)?,
                    })
                })?;
                rows.map(|row| row?.into_listed()).collect()
            })
            .await
    }

    pub(super) async fn shared_game(&self) -> Result<Option<(i64, Player)>, StoreError> {
        self.readers
            .run(|connection| {
                let row: Option<(i64, String)> = connection
                    .query_row("SELECT game_id, player_mark FROM shared_game WHERE slot = 1", [], |row| {
                        Ok((row.get(0)?, row.get(1)?))
                    })
                    .optional()?;
                row.map(|(id, mark)| Ok((id, super::rows::player(&mark)?))).transpose()
            })
            .await
    }

    pub(super) async fn set_shared_game(&self, id: i64, player_mark: Player) -> Result<(), StoreError> {
        self.writer
            .write(move |tx| {
                tx.execute(
                    "INSERT INTO shared_game (slot, game_id, player_mark) VALUES (1, ?, ?) \
                     ON CONFLICT (slot) DO UPDATE SET game_id = excluded.game_id, player_mark = excluded.player_mark",
                    params![id, player_mark.to_string()],
                )?;
                Ok(())
            })
            .await
    }
}

/// Game `id` and its whole log, read in `tx`, a transaction, so that both come
/// from one snapshot.
fn read_game(tx: &Connection, id: i64) -> Result<StoredGame, StoreError> {
    let game = tx
        .prepare_cached(&SELECT_GAME)?
        .query_row([id], |row| {
            Ok(GameRow {
                id: row.get(0)?,
                variant: row.get(1)?,
                created_at: row.get(2)?,
                bot_level: row.get(3)?,
                bot_mistake_chance: row.get(4)?,
                x_token_hash: row.get(5)?,
                o_token_hash: row.get(6)?,
            })
        })
        .optional()?;
    let game = game.ok_or(StoreError::NotFound { id })?;
    let mut entries = tx.prepare_cached(&SELECT_LOG)?;
    let log = entries.query_map([id], entry_row)?.collect::<rusqlite::Result<_>>()?;
    game.into_game(log)
}

fn entry_row(row: &Row<'_>) -> rusqlite::Result<EntryRow> {
    Ok(EntryRow {
        seq: row.get(0)?,
        kind: row.get(1)?,
        actor: row.get(2)?,
        square_a: row.get(3)?,
        square_b: row.get(4)?,
        closing_move: row.get(5)?,
        collapse_square: row.get(6)?,
        by_bot: row.get(7)?,
        created_at: row.get(8)?,
    })
}

/// Carries out `write` on game `id` in `tx`, the write's savepoint, which undoes
/// it when it fails; a lost race for the next sequence number or the seat is a
/// conflict. (The race is lost at the first row: what the write inserted before
/// it, a seat at most, is not in the log whose last number the conflict reports.)
fn write_game(tx: &Connection, id: i64, write: &Write) -> Result<Vec<StoredEntry>, StoreError> {
    match write_entries(tx, id, write) {
        Err(error) if is_unique_violation(&error) => {
            let current_version = tx
                .prepare_cached("SELECT COALESCE(MAX(seq), 0) FROM log_entries WHERE game_id = ?")?
                .query_row([id], |row| row.get(0))?;
            Err(StoreError::Conflict { current_version })
        }
        other => Ok(other?),
    }
}

/// Carries out `write` on game `id` in `tx`.
fn write_entries(tx: &Connection, id: i64, write: &Write) -> rusqlite::Result<Vec<StoredEntry>> {
    if let Some((player, token_hash)) = &write.seat {
        insert_seat(tx, id, *player, token_hash)?;
    }
    let written = insert_entries(tx, id, write.after, &write.entries, &now())?;
    if let Some(summary) = write.new_summary {
        set_summary(tx, id, summary)?;
    }
    Ok(written)
}

/// Writes `entries` as the entries after `after` of game `id`, made at
/// `created_at`, and returns them as stored.
fn insert_entries(
    tx: &Connection,
    id: i64,
    after: i64,
    entries: &[super::NewEntry],
    created_at: &str,
) -> rusqlite::Result<Vec<StoredEntry>> {
    let mut insert = tx.prepare_cached(&INSERT_ENTRY)?;
    (after + 1..)
        .zip(entries)
        .map(|(seq, entry)| {
            let row = NewEntryRow::from(entry);
            insert.execute(params![
                id,
                seq,
                row.kind,
                row.actor,
                row.square_a,
                row.square_b,
                row.closing_move,
                row.collapse_square,
                row.by_bot,
                created_at
            ])?;
            Ok(StoredEntry { seq, created_at: created_at.to_string(), event: entry.event, by_bot: entry.by_bot })
        })
        .collect()
}

/// Keeps the hash of `player`'s token in game `id`.
fn insert_seat(tx: &Connection, id: i64, player: Player, token_hash: &[u8]) -> rusqlite::Result<()> {
    tx.prepare_cached("INSERT INTO seats (game_id, player, token_hash) VALUES (?, ?, ?)")?.execute(params![
        id,
        player.to_string(),
        token_hash
    ])?;
    Ok(())
}

fn set_summary(tx: &Connection, id: i64, summary: Summary) -> rusqlite::Result<()> {
    tx.prepare_cached("UPDATE games SET status = ?, result = ? WHERE id = ?")?.execute(params![
        summary.status.code(),
        summary.result.code(),
        id
    ])?;
    Ok(())
}

fn is_unique_violation(error: &rusqlite::Error) -> bool {
    error.sqlite_error().is_some_and(|error| {
        [ffi::SQLITE_CONSTRAINT_PRIMARYKEY, ffi::SQLITE_CONSTRAINT_UNIQUE].contains(&error.extended_code)
    })
}

impl From<rusqlite::Error> for StoreError {
    fn from(error: rusqlite::Error) -> StoreError {
        StoreError::from(&error)
    }
}

impl From<&rusqlite::Error> for StoreError {
    fn from(error: &rusqlite::Error) -> StoreError {
        match error.sqlite_error_code() {
            Some(ffi::ErrorCode::DatabaseBusy | ffi::ErrorCode::DatabaseLocked) => {
                StoreError::Unavailable(error.to_string())
            }
            _ => StoreError::Other(error.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `PRAGMA synchronous` of a writer and of a reader opened with `durability`.
    fn synchronous(durability: Durability) -> Vec<i64> {
        let folder = std::env::temp_dir().join(format!("qttt-store-{}-{durability:?}", std::process::id()));
        std::fs::create_dir_all(&folder).unwrap();
        let path = folder.join("qttt.db");
        let levels = [OpenFlags::default(), OpenFlags::SQLITE_OPEN_READ_ONLY]
            .into_iter()
            .map(|flags| {
                let connection = connect(&path, durability, flags).unwrap();
                connection.query_row("PRAGMA synchronous", [], |row| row.get(0)).unwrap()
            })
            .collect();
        std::fs::remove_dir_all(&folder).unwrap();
        levels
    }

    #[test]
    fn the_log_reaches_the_database_file_without_the_writer_checkpointing() {
        let folder = std::env::temp_dir().join(format!("qttt-checkpoint-{}", std::process::id()));
        std::fs::create_dir_all(&folder).unwrap();
        let path = folder.join("qttt.db");
        let (autocheckpoint, before, after) = actix_web::rt::System::new().block_on(async {
            let store = SqliteStore::open(&format!("sqlite:{}", path.display()), Durability::Normal).await.unwrap();
            let autocheckpoint = store
                .writer()
                .run(
                    |connection| Ok(connection.query_row("PRAGMA wal_autocheckpoint", [], |row| row.get::<_, i64>(0))?),
                )
                .await
                .unwrap();
            let before = std::fs::metadata(&path).unwrap().len();
            store
                .writer()
                .run(|connection| {
                    connection.execute_batch("CREATE TABLE filler (text TEXT NOT NULL)")?;
                    for _ in 0..100 {
                        connection.execute("INSERT INTO filler (text) VALUES (?)", ["x".repeat(4000)])?;
                    }
                    Ok(())
                })
                .await
                .unwrap();
            std::thread::sleep(CHECKPOINT_EVERY * 3);
            let after = std::fs::metadata(&path).unwrap().len();
            store.close().await;
            (autocheckpoint, before, after)
        });
        std::fs::remove_dir_all(&folder).unwrap();
        assert_eq!(autocheckpoint, 0, "the writer never checkpoints");
        assert!(after >= before + 100 * 4000, "the rows were copied into the file: {before} -> {after} bytes");
    }

    #[test]
    fn rebuilding_the_tables_keeps_every_row_and_reference() {
        let folder = std::env::temp_dir().join(format!("qttt-rebuild-{}", std::process::id()));
        let earlier = folder.join("earlier-migrations");
        std::fs::create_dir_all(&earlier).unwrap();
        for migration in std::fs::read_dir("migrations/sqlite").unwrap() {
            let path = migration.unwrap().path();
            if path.file_name().unwrap().to_str().unwrap() < "0005" {
                std::fs::copy(&path, earlier.join(path.file_name().unwrap())).unwrap();
            }
        }
        let url = format!("sqlite:{}", folder.join("qttt.db").display());
        let (game, listed, missing_game, checks) = actix_web::rt::System::new().block_on(async {
            // A database as the last release left it: a game against the
            // parasite bot, with a seat, a move and a measured collapse.
            let mut earlier_database =
                SqliteConnectOptions::from_str(&url).unwrap().create_if_missing(true).connect().await.unwrap();
            sqlx::migrate::Migrator::new(earlier.as_path()).await.unwrap().run(&mut earlier_database).await.unwrap();
            sqlx::raw_sql(
                "INSERT INTO games (id, variant, status, result, bot_level, bot_mistake_chance, created_at) \
                 VALUES (7, 'measurement', 'finished', 'draw', 'parasite', 0.25, '2026-01-02T03:04:05.678Z');
                 INSERT INTO seats (game_id, player, token_hash) VALUES (7, 'X', x'0102');
                 INSERT INTO log_entries (game_id, seq, kind, actor, created_at) VALUES (7, 1, 'seat', 'X', 'a');
                 INSERT INTO log_entries (game_id, seq, kind, actor, square_a, square_b, by_bot, created_at) \
                 VALUES (7, 2, 'move', 'O', 0, 1, 1, 'b');
                 INSERT INTO log_entries (game_id, seq, kind, actor, closing_move, collapse_square, created_at) \
                 VALUES (7, 3, 'collapse', 'measurement', 1, 1, 'c');
                 INSERT INTO shared_game (slot, game_id, player_mark) VALUES (1, 7, 'O');",
            )
            .execute(&mut earlier_database)
            .await
            .unwrap();
            earlier_database.close().await.unwrap();

            let store = SqliteStore::open(&url, Durability::Normal).await.unwrap();
            let game = store.load_game(7).await.unwrap();
            let listed = store.list_games(Some(Status::Finished), None, 10).await.unwrap();
            let missing_game = store
                .writer()
                .run(|connection| {
                    let inserted = connection.execute(
                        "INSERT INTO log_entries (game_id, seq, kind, actor, created_at) VALUES (8, 1, 'seat', 'X', 'd')",
                        [],
                    );
                    Ok(inserted.map_err(|error| error.to_string()))
                })
                .await
                .unwrap();
            let checks = store
                .writer()
                .run(|connection| {
                    Ok(["UPDATE games SET status = 'lost' WHERE id = 7", "UPDATE log_entries SET kind = 'x' WHERE seq = 1"]
                        .map(|update| connection.execute(update, []).map_err(|error| error.to_string())))
                })
                .await
                .unwrap();
            // The point of the rebuild: no statement of a write builds a temporary table.
            let temporary_tables = store
                .writer()
                .run(|connection| {
                    let writes = [
                        INSERT_ENTRY.as_str(),
                        "UPDATE games SET status = ?, result = ? WHERE id = ?",
                        "INSERT INTO games (variant, status, result, bot_level, created_at) VALUES (?, ?, ?, ?, ?)",
                    ];
                    writes
                        .iter()
                        .map(|write| {
                            let mut explain = connection.prepare(&format!("EXPLAIN {write}"))?;
                            // Its parameters are left unbound: only the program is read.
                            let mut opcodes = explain.raw_query();
                            let mut temporary_tables = 0;
                            while let Some(opcode) = opcodes.next()? {
                                temporary_tables += usize::from(opcode.get::<_, String>(1)? == "OpenEphemeral");
                            }
                            Ok(temporary_tables)
                        })
                        .sum::<Result<usize, StoreError>>()
                })
                .await
                .unwrap();
            assert_eq!(temporary_tables, 0, "writes build no temporary tables");
            assert_eq!(store.shared_game().await.unwrap(), Some((7, Player::O)));
            store.close().await;
            (game, listed, missing_game, checks)
        });
        std::fs::remove_dir_all(&folder).unwrap();
        assert_eq!(
            (game.variant, game.created_at.as_str(), game.opponent, game.token_hashes),
            (
                crate::engine::Variant::Measurement,
                "2026-01-02T03:04:05.678Z",
                Some(crate::bot::Level::Parasite { mistake_chance: 0.25 }),
                vec![(Player::X, vec![1, 2])]
            )
        );
        let log: Vec<_> = game.log.iter().map(|entry| (entry.seq, entry.created_at.as_str(), entry.by_bot)).collect();
        assert_eq!(log, [(1, "a", false), (2, "b", true), (3, "c", false)]);
        assert_eq!(listed.iter().map(|game| (game.id, game.version)).collect::<Vec<_>>(), [(7, 3)]);
        assert!(missing_game.unwrap_err().contains("FOREIGN KEY"), "entries still need their game");
        for refused in checks {
            assert!(refused.unwrap_err().contains("CHECK"), "the rebuilt checks still hold");
        }
    }

    /// Writes `0..count` on a writer of a fresh file with a table `written (n)`,
    /// each by `write`, all queued together behind a busy job. Answers what each
    /// write was answered, the rows left, and the frames the writes added to the
    /// write-ahead log (a commit adds one per page it changed).
    fn write_together(
        count: i64,
        write: fn(&Connection, i64) -> Result<i64, StoreError>,
    ) -> (Vec<Result<i64, StoreError>>, Vec<i64>, u64) {
        let folder = std::env::temp_dir().join(format!("qttt-together-{}-{count}", std::process::id()));
        std::fs::create_dir_all(&folder).unwrap();
        let connection = connect(&folder.join("qttt.db"), Durability::Normal, OpenFlags::default()).unwrap();
        connection.query_row("PRAGMA journal_mode = WAL", [], |_| Ok(())).unwrap();
        connection.pragma_update(None, "wal_autocheckpoint", 0).unwrap();
        connection.execute_batch("CREATE TABLE written (n INTEGER NOT NULL)").unwrap();
        let writer = Connections::start("test-writer", vec![connection]);
        let log_frames = || (std::fs::metadata(folder.join("qttt.db-wal")).unwrap().len() - 32) / (4096 + 24);
        let frames_before = log_frames();
        let (answers, rows) = actix_web::rt::System::new().block_on(async {
            let busy = writer.run(|_| {
                std::thread::sleep(Duration::from_millis(100));
                Ok(())
            });
            let writes = futures_util::future::join_all((0..count).map(|n| writer.write(move |tx| write(tx, n))));
            let ((), answers) = tokio::join!(async { busy.await.unwrap() }, writes);
            let rows = writer
                .run(|connection| {
                    let mut select = connection.prepare("SELECT n FROM written ORDER BY n")?;
                    Ok(select.query_map([], |row| row.get::<_, i64>(0))?.collect::<rusqlite::Result<Vec<_>>>()?)
                })
                .await
                .unwrap();
            (answers, rows)
        });
        let frames = log_frames() - frames_before;
        writer.close();
        std::fs::remove_dir_all(&folder).unwrap();
        (answers, rows, frames)
    }

    #[test]
    fn writes_queued_together_commit_together_and_fail_alone() {
        let (answers, rows, frames) = write_together(20, |tx, n| {
            tx.execute("INSERT INTO written (n) VALUES (?)", [n])?;
            match n {
                7 => panic!("write 7 panics after its insert"),
                n if n % 5 == 3 => Err(StoreError::Other(format!("write {n} fails"))),
                n => Ok(n),
            }
        });
        let answers: Vec<_> = answers
            .into_iter()
            .map(|answer| match answer {
                Ok(n) => n.to_string(),
                Err(StoreError::Other(detail)) => detail,
                Err(other) => format!("{other:?}"),
            })
            .collect();
        assert_eq!(
            answers,
            [
                "0",
                "1",
                "2",
                "write 3 fails",
                "4",
                "5",
                "6",
                "a database job panicked",
                "write 8 fails",
                "9",
                "10",
                "11",
                "12",
                "write 13 fails",
                "14",
                "15",
                "16",
                "17",
                "write 18 fails",
                "19"
            ]
        );
        assert_eq!(rows, [0, 1, 2, 4, 5, 6, 9, 10, 11, 12, 14, 15, 16, 17, 19], "a failed write undid only itself");
        assert!(frames <= 2, "the writes made one commit of one page, not {frames} frames");
    }

    #[test]
    fn a_write_that_ends_the_transaction_stops_the_writes_behind_it() {
        // Write 1 ends the transaction as SQLite does on a full disk.
        let (answers, rows, _) = write_together(3, |tx, n| {
            tx.execute("INSERT INTO written (n) VALUES (?)", [n])?;
            if n == 1 {
                tx.execute_batch("ROLLBACK")?;
            }
            Ok(n)
        });
        assert!(answers.iter().all(Result::is_err), "no write of the ended transaction is acknowledged: {answers:?}");
        assert_eq!(rows, [0_i64; 0], "and none was committed on its own");
    }

    #[test]
    fn rows_are_stamped_as_the_schema_stamps_them() {
        let connection = Connection::open_in_memory().unwrap();
        let (before, stamped, after) = (
            connection.query_row("SELECT strftime('%Y-%m-%dT%H:%M:%fZ', 'now')", [], |row| row.get::<_, String>(0)),
            now(),
            connection.query_row("SELECT strftime('%Y-%m-%dT%H:%M:%fZ', 'now')", [], |row| row.get::<_, String>(0)),
        );
        let (before, after) = (before.unwrap(), after.unwrap());
        assert_eq!(stamped.len(), "2026-11-30T18:38:57.985Z".len(), "{stamped}");
        assert!(before <= stamped && stamped <= after, "{before} <= {stamped} <= {after}");
    }

    #[test]
    fn every_connection_waits_for_the_disk_as_configured() {
        // SQLite's codes: 1 NORMAL, 2 FULL.
        assert_eq!(synchronous(Durability::Normal), vec![1, 1]);
        assert_eq!(synchronous(Durability::Full), vec![2, 2]);
    }
}
