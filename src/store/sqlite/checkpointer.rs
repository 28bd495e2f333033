//! The checkpointer: a connection and a thread of their own that copy SQLite's
//! write-ahead log into the database file, in the writer's stead, and keep the
//! log's file bounded.

use std::ffi::c_int;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use ::metrics::gauge;
use rusqlite::hooks::{CheckpointMode, Wal};
use rusqlite::{Connection, OpenFlags};

use super::connection::{BUSY_TIMEOUT, connect};
use super::resident::ResidentFile;
use crate::metrics::SQLITE_RESIDENT_BYTES;
use crate::store::{Durability, StoreError};

/// How often the write-ahead log is copied into the database file.
const CHECKPOINT_EVERY: Duration = Duration::from_millis(100);

/// The size of the write-ahead log, in pages, beyond which a checkpoint waits for
/// the writer once, so that the log starts again from its beginning: under writes
/// that never pause, checkpoints that never wait would let it grow without end.
const LOG_PAGES_BEFORE_RESTART: i64 = 8192;

/// The size the write-ahead log's file is cut back to when the writer starts the
/// log again from its beginning, once a checkpoint has copied all of it: what
/// writes that go on fill again, up to the restart's size and the turn's writes
/// beyond it. Cut back further, each cycle of the log grows the file anew, page
/// by page, in the writer's commits.
const LOG_BYTES_UNDER_WRITES: i64 = 2 * LOG_PAGES_BEFORE_RESTART * PAGE_BYTES;

/// The most of the write-ahead log's file a quiet server keeps (SQLite would
/// keep it at the largest it ever grew): see [`start_again`].
const LOG_BYTES_KEPT_QUIET: i64 = 4 * 1024 * 1024;

/// The size of the write-ahead log, in pages, past which the writer itself copies
/// it into the file, after the commit that took it there: for when the
/// checkpointer's turns fall behind, as they did on a busy machine.
const LOG_PAGES_MOST: i64 = LOG_PAGES_BEFORE_RESTART * 3 / 2;

/// The size of a page of the database, SQLite's default: a page of the log is one.
const PAGE_BYTES: i64 = 4096;

/// Held by the checkpointer while it starts the write-ahead log again, which
/// takes SQLite's write lock; the writer waits for it before each batch, or a
/// writer that is never idle would take the lock back after each commit and
/// the log would grow without end. It also says when the next commit starts
/// the log again, flushing its new header to the disk even with `synchronous =
/// NORMAL`: a commit left to the writer's thread, not to a request's.
#[derive(Debug, Default)]
pub(super) struct LogRestart {
    held: Mutex<()>,
    header_due: AtomicBool,
}

impl LogRestart {
    /// Says that the log is being started again, for as long as the answer
    /// lives: the writer waits until then.
    pub(super) fn restarting(&self) -> std::sync::MutexGuard<'_, ()> {
        self.held.lock().expect("nothing panics under this lock")
    }

    /// Whether the log is being started again, or the next commit may start it.
    pub(super) fn is_due(&self) -> bool {
        self.header_due.load(Ordering::Relaxed) || self.held.try_lock().is_err()
    }

    /// Says that the next commit may start the log again.
    pub(super) fn may_start_again(&self) {
        self.header_due.store(true, Ordering::Relaxed);
    }

    /// Says that the writer's thread holds the connection for the next commit.
    pub(super) fn committing(&self) {
        self.header_due.store(false, Ordering::Relaxed);
    }

    /// Waits while the log is being started again.
    pub(super) fn wait(&self) {
        drop(self.restarting());
    }
}

/// Copies the write-ahead log into the database file, on a connection and a thread
/// of its own, every [`CHECKPOINT_EVERY`]. Left to itself, SQLite checkpoints inside
/// the commit that crosses its threshold, on the writer, and every write queued
/// behind it waits (most of the moves' p99 in the load test).
#[derive(Debug)]
pub(super) struct Checkpointer {
    /// Dropping the sender stops the thread.
    running: Mutex<Option<(mpsc::Sender<()>, JoinHandle<()>)>>,
    log_restart: Arc<LogRestart>,
}

impl Checkpointer {
    pub(super) fn start(connection: Connection, mut resident: Option<ResidentFile>) -> Checkpointer {
        let log_restart = Arc::new(LogRestart::default());
        let held = Arc::clone(&log_restart);
        let (stop, stopped) = mpsc::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("sqlite-checkpoint".into())
            .spawn(move || {
                let log_file = connection.path().map(|database| format!("{database}-wal"));
                let log_bytes =
                    || log_file.as_ref().and_then(|file| std::fs::metadata(file).ok()).map_or(0, |file| file.len());
                let mut logged_before = 0;
                while let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(CHECKPOINT_EVERY) {
                    match resident.as_mut().map(ResidentFile::hold_growth) {
                        #[expect(clippy::cast_precision_loss, reason = "exact below 2^53 bytes")]
                        Some(Ok(held)) => gauge!(SQLITE_RESIDENT_BYTES).set(held as f64),
                        Some(Err(error)) => {
                            log::warn!("the database file is no longer kept in memory: {error}");
                            resident = None;
                        }
                        None => {}
                    }
                    // Said before the checkpoint, which may copy all of the log,
                    // so that no commit after it starts the log on a request's thread.
                    held.may_start_again();
                    // A checkpoint that fails (busy) is tried again at the next turn.
                    let pages = connection.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |row| {
                        Ok((row.get::<_, i64>(1)?, row.get::<_, i64>(2)?))
                    });
                    let Ok((logged, copied)) = pages else { continue };
                    let again = start_again(logged, copied, logged_before, log_bytes);
                    logged_before = logged;
                    let Some(again) = again else { continue };
                    let _writer_waits = held.restarting();
                    let _ = connection.query_row(&format!("PRAGMA wal_checkpoint({again})"), [], |_| Ok(()));
                    held.may_start_again();
                }
            })
            .expect("the system can start a thread");
        Checkpointer { running: Mutex::new(Some((stop, thread))), log_restart }
    }

    /// What the writer waits for before each batch.
    pub(super) fn log_restart(&self) -> Arc<LogRestart> {
        Arc::clone(&self.log_restart)
    }

    pub(super) fn stop(&self) {
        if let Some((stop, thread)) = self.running.lock().expect("nothing panics under this lock").take() {
            drop(stop);
            let _ = thread.join();
        }
    }
}

/// How the checkpointer starts the log again after a passive checkpoint found
/// `logged` pages in it, `copied` of them in the file, where the turn before
/// found `logged_before`, the log's file as large as `log_bytes` says (asked
/// only for a quiet log copied whole); none to go on.
fn start_again(logged: i64, copied: i64, logged_before: i64, log_bytes: impl FnOnce() -> u64) -> Option<&'static str> {
    if logged > LOG_PAGES_BEFORE_RESTART {
        Some("RESTART")
    } else if logged == logged_before && logged == copied && log_bytes() > LOG_BYTES_KEPT_QUIET.unsigned_abs() {
        // A quiet server may write nothing for hours, and only the next write
        // would cut the file back.
        Some("TRUNCATE")
    } else if logged == copied && logged > LOG_BYTES_KEPT_QUIET / PAGE_BYTES {
        // While writes go on, the log starts again from its beginning (the
        // writer does not always start it again by itself: without this,
        // writes that never paused took it past twice the restart's size).
        Some("RESTART")
    } else {
        None
    }
}

/// Opens the connection that writes to the file at `path`, in WAL mode, and the
/// checkpointer that copies its log into the file in its stead.
pub(super) fn open_writer(
    path: &Path,
    durability: Durability,
    resident: Option<ResidentFile>,
) -> rusqlite::Result<(Connection, Checkpointer)> {
    let writer = connect(path, durability, OpenFlags::default())?;
    // The journal mode stays with the file: a reader opened later finds it.
    writer.query_row("PRAGMA journal_mode = WAL", [], |_| Ok(()))?;
    writer.pragma_update(None, "wal_autocheckpoint", 0)?;
    writer.wal_hook(Some(copy_a_log_past_its_bound));
    // The writer cuts the log back when it starts it again from its beginning.
    writer.pragma_update(None, "journal_size_limit", LOG_BYTES_UNDER_WRITES)?;
    let checkpointer = Checkpointer::start(connect(path, durability, OpenFlags::SQLITE_OPEN_READ_WRITE)?, resident);
    Ok((writer, checkpointer))
}

/// After each of the writer's commits, with the log at `pages` pages: past
/// [`LOG_PAGES_MOST`], the writer copies the whole log into the file and starts
/// it again before it writes anything more, waiting up to [`BUSY_TIMEOUT`] for
/// the checkpointer's copy under way and for readers to leave the log, so that
/// the log is bounded by the writer's own pace. The commit stands whatever the
/// copy does.
fn copy_a_log_past_its_bound(wal: &Wal, pages: c_int) -> rusqlite::Result<()> {
    if i64::from(pages) <= LOG_PAGES_MOST {
        return Ok(());
    }
    let deadline = Instant::now() + BUSY_TIMEOUT;
    while wal.checkpoint_v2(CheckpointMode::RESTART).is_err() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(1));
    }
    Ok(())
}

/// A connection of its own to a SQLite file, created if missing, with the
/// settings and the checkpointer of the store's writer: for a tool that measures
/// the cheapest write on the store's terms (the load benchmark's floor), on a file
/// of its own.
pub struct SqliteConnection {
    connection: Connection,
    checkpointer: Checkpointer,
}

impl SqliteConnection {
    /// Opens the file at `path`, creating it if missing.
    ///
    /// # Errors
    /// When the file cannot be opened or set up.
    pub fn open(path: &Path, durability: Durability) -> Result<SqliteConnection, StoreError> {
        let (connection, checkpointer) = open_writer(path, durability, None)?;
        Ok(SqliteConnection { connection, checkpointer })
    }
}

impl std::ops::Deref for SqliteConnection {
    type Target = Connection;

    fn deref(&self) -> &Connection {
        &self.connection
    }
}

impl Drop for SqliteConnection {
    fn drop(&mut self) {
        self.checkpointer.stop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The write-ahead log's size after a burst of `pages` pages in one
    /// transaction, and once it is at most `kept` bytes (or 30 s have passed),
    /// with a small write every 200 ms if `writes_after`.
    fn log_after_a_burst(pages: usize, writes_after: bool, kept: u64) -> (u64, u64) {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("qttt.db");
        let log = folder.path().join("qttt.db-wal");
        let (mut writer, checkpointer) = open_writer(&path, Durability::Normal, None).unwrap();
        writer.execute_batch("CREATE TABLE filler (text TEXT NOT NULL)").unwrap();
        let burst = writer.transaction().unwrap();
        for _ in 0..pages {
            burst.execute("INSERT INTO filler (text) VALUES (?)", ["x".repeat(4000)]).unwrap();
        }
        burst.commit().unwrap();
        let grown = std::fs::metadata(&log).unwrap().len();
        let deadline = Instant::now() + Duration::from_secs(30);
        let shrunk = loop {
            std::thread::sleep(CHECKPOINT_EVERY * 2);
            if writes_after {
                writer.execute("INSERT INTO filler (text) VALUES ('y')", []).unwrap();
            }
            let size = std::fs::metadata(&log).unwrap().len();
            if size <= kept || Instant::now() > deadline {
                break size;
            }
        };
        checkpointer.stop();
        (grown, shrunk)
    }

    #[test]
    fn the_log_shrinks_back_after_a_burst_once_it_is_copied_into_the_file() {
        // 40 MB in one transaction, all of it in the log at once: once the
        // checkpointer has copied it, the next write starts the log again.
        let (grown, shrunk) = log_after_a_burst(10_000, true, 8 * 1024 * 1024);
        assert!(grown > 30 * 1024 * 1024, "the burst grew the log to {grown} bytes");
        assert!(shrunk <= 8 * 1024 * 1024, "the log stayed at {shrunk} bytes");
    }

    #[test]
    fn the_log_shrinks_back_after_a_burst_with_nothing_written_after() {
        let (grown, shrunk) = log_after_a_burst(3_000, false, 1024 * 1024);
        assert!(grown > 10 * 1024 * 1024, "the burst grew the log to {grown} bytes");
        assert!(shrunk <= 1024 * 1024, "the log stayed at {shrunk} bytes");
    }

    #[test]
    fn the_writer_alone_keeps_the_log_within_its_bound_under_writes_that_never_pause() {
        // The checkpointer stopped, and no reader: what bounds the log is the
        // writer's own copy after a commit past LOG_PAGES_MOST, which nothing
        // here can hold up. (How the checkpointer's turns keep the log far
        // smaller depends on the scheduler: the scale benchmark measures it.)
        // The commits write three times as many bytes as the bound holds.
        let folder = tempfile::tempdir().unwrap();
        let (mut writer, checkpointer) = open_writer(&folder.path().join("qttt.db"), Durability::Normal, None).unwrap();
        checkpointer.stop();
        writer.execute_batch("CREATE TABLE filler (n INTEGER, text TEXT); CREATE INDEX by_n ON filler (n)").unwrap();
        let log = folder.path().join("qttt.db-wal");
        let (mut written, mut largest) = (0, 0);
        while written < 3 * LOG_PAGES_MOST * PAGE_BYTES {
            let commit = writer.transaction().unwrap();
            for _ in 0..12 {
                commit
                    .execute("INSERT INTO filler (n, text) VALUES (?, ?)", (rand::random::<i64>(), "x".repeat(4000)))
                    .unwrap();
                written += 4000;
            }
            commit.commit().unwrap();
            largest = largest.max(std::fs::metadata(&log).unwrap().len());
        }
        let bound = u64::try_from(LOG_PAGES_BEFORE_RESTART * PAGE_BYTES * 2).unwrap();
        assert!(largest < bound, "{written} bytes written, the log grew to {largest} bytes");
    }

    #[test]
    fn the_log_is_emptied_only_after_a_turn_that_wrote_nothing() {
        // Cutting the log's file back while writes go on makes each of them grow
        // it anew: while they do, the log starts again in the file it has.
        let (pages, past_quiet) = (LOG_BYTES_KEPT_QUIET / PAGE_BYTES + 1, LOG_BYTES_KEPT_QUIET.unsigned_abs() + 1);
        assert_eq!(start_again(pages, pages, pages - 10, || past_quiet), Some("RESTART"), "written since");
        assert_eq!(start_again(pages, pages, pages, || past_quiet), Some("TRUNCATE"), "a quiet turn");
        assert_eq!(start_again(pages, pages - 1, pages, || past_quiet), None, "not all of it copied yet");
        assert_eq!(start_again(pages, pages, pages, || 4096), Some("RESTART"), "a file already small");
        assert_eq!(start_again(10, 10, 10, || 40_960), None, "a short log");
        assert_eq!(start_again(LOG_PAGES_BEFORE_RESTART + 1, 0, 0, || past_quiet), Some("RESTART"), "past its size");
    }

    #[test]
    fn the_log_reaches_the_database_file_without_the_writer_checkpointing() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("qttt.db");
        let (writer, checkpointer) = open_writer(&path, Durability::Normal, None).unwrap();
        let autocheckpoint: i64 = writer.query_row("PRAGMA wal_autocheckpoint", [], |row| row.get(0)).unwrap();
        let before = std::fs::metadata(&path).unwrap().len();
        writer.execute_batch("CREATE TABLE filler (text TEXT NOT NULL)").unwrap();
        for _ in 0..100 {
            writer.execute("INSERT INTO filler (text) VALUES (?)", ["x".repeat(4000)]).unwrap();
        }
        std::thread::sleep(CHECKPOINT_EVERY * 3);
        let after = std::fs::metadata(&path).unwrap().len();
        checkpointer.stop();
        assert_eq!(autocheckpoint, 0, "the writer never checkpoints");
        assert!(after >= before + 100 * 4000, "the rows were copied into the file: {before} -> {after} bytes");
    }
}
