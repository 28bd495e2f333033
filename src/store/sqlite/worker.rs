//! The threads that drive SQLite connections, and how a write is committed.
//!
//! A request's database work runs as one job on a connection's thread: one
//! hand-over from the request's thread and one back, not two per statement as
//! with sqlx, whose hand-overs were most of a move's cost in the load profile.
//!
//! SQLite lets one connection write at a time, so the store's writes queue in
//! order here for one connection, rather than poll SQLite's lock from several;
//! reads go through read-only connections, which in WAL mode never wait for the
//! writer. Writes found queued together are committed together (see
//! [`Connections::write`]); the log is copied into the file by [`Checkpointer`].
//!
//! A write that is the only one in flight is committed on its caller's thread,
//! with no hand-over at all, where a commit does not wait for the disk
//! (`synchronous = NORMAL`); the one commit that does even then, which starts
//! the log again, is left to the writer's thread (see [`LogRestart`]).

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use rusqlite::{Connection, ffi};
use tokio::sync::oneshot;

use super::checkpointer::LogRestart;
use super::connection::BUSY_TIMEOUT;
use crate::metrics::{STORE_BATCHES, STORE_QUEUE};
use crate::store::StoreError;

/// The most writes committed together. A write's answer waits for the last of its
/// batch, so this bounds that wait (at some tens of microseconds a write).
const MOST_WRITES_PER_COMMIT: usize = 64;

/// Work for a connection's thread.
enum Job {
    /// Work on the connection as it is, outside any transaction.
    Alone(Box<dyn FnOnce(&mut Connection) + Send>),
    /// A write, to be committed with the writes queued with it.
    Write(WriteJob),
}

/// A write in a batch: it runs in the batch's transaction (or hears why that
/// transaction could not begin or went on), and tells what it did.
type WriteJob = Box<dyn for<'s, 'c> FnOnce(Result<Transaction<'s, 'c>, &'s StoreError>) -> Ran + Send>;

/// The transaction a write runs in: its own, when it is alone in its batch, or
/// one shared with the writes queued with it, in a savepoint so that it can fail
/// alone (a savepoint, which copies aside each page it changes, costs a write).
#[derive(Clone, Copy)]
enum Transaction<'s, 'c> {
    Own(&'s Scope<'c>),
    Shared(&'s Scope<'c>),
}

/// What a write did: how to answer its caller once the commit is done; whether
/// what it wrote is kept; and the database's error it ran into, which the
/// batch's other writes are answered if it ended the transaction.
struct Ran {
    reply: Reply,
    kept: bool,
    failure: Option<StoreError>,
}

/// Answers a write's caller, told how the commit went.
type Reply = Box<dyn FnOnce(Result<(), &StoreError>)>;

/// Connections, each on a thread of its own that runs the jobs of one queue in
/// turn. A job that panics fails alone: its caller hears of it, its writes are
/// undone, and the thread goes on with the next.
#[derive(Debug)]
pub(super) struct Connections {
    queue: Mutex<Option<mpsc::Sender<Job>>>,
    threads: Mutex<Vec<JoinHandle<()>>>,
    /// The writes asked for and not answered yet.
    writes_in_flight: AtomicUsize,
    /// The writer's, when a write may run on its caller's thread: see
    /// [`Connections::write`].
    writes_here: Option<WritesHere>,
}

/// The queued jobs, which the connections' threads take in turn.
#[derive(Debug)]
struct Jobs(Mutex<mpsc::Receiver<Job>>);

impl Jobs {
    /// The next job, once there is one; none once the queue is closed and empty.
    fn next(&self) -> Option<Job> {
        self.0.lock().expect("no job runs under this lock").recv().ok()
    }

    /// The next job if one is waiting.
    fn next_waiting(&self) -> Option<Job> {
        self.0.lock().expect("no job runs under this lock").try_recv().ok()
    }
}

/// A write not answered yet, counted in its connections' writes in flight for
/// as long as it is.
struct InFlight<'a>(&'a AtomicUsize);

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// A connection, which its thread takes for each job; gone once that thread
/// has ended.
type SharedConnection = Arc<Mutex<Option<Connection>>>;

/// What a write on its caller's thread takes: the writer's connection, and the
/// checkpointer's hold on the log, which the writer's thread waits for.
#[derive(Debug)]
struct WritesHere {
    connection: SharedConnection,
    log_restart: Option<Arc<LogRestart>>,
}

impl WritesHere {
    /// Commits `write` alone on this thread when the writer's connection is
    /// free and nothing else holds the file's write lock; else gives it back.
    fn commit(&self, write: WriteJob) -> Option<WriteJob> {
        let Ok(connection) = self.connection.try_lock() else { return Some(write) };
        let Some(connection) = connection.as_ref() else { return Some(write) };
        if self.log_restart.as_deref().is_some_and(LogRestart::is_due) {
            return Some(write);
        }
        // Another connection's lock is waited for on the writer's thread only.
        let began = connection.busy_timeout(Duration::ZERO).and_then(|()| Scope::begin(connection, &BATCH));
        let _ = connection.busy_timeout(BUSY_TIMEOUT);
        match began {
            Err(error) if error.sqlite_error_code() == Some(ffi::ErrorCode::DatabaseBusy) => Some(write),
            began => {
                commit_in(began.map_err(StoreError::from), vec![write]);
                None
            }
        }
    }
}

impl Connections {
    /// Starts a thread for each of `connections`, which only read.
    pub(super) fn readers(connections: Vec<Connection>) -> Connections {
        Connections::start("sqlite-reader", connections.into_iter().map(shared).collect(), None, None)
    }

    /// Starts the thread of `connection`, which writes, and waits for
    /// `log_restart` before each batch. With `here` (only where a commit does
    /// not wait for the disk), a write may run on its caller's thread.
    pub(super) fn writer(connection: Connection, log_restart: Option<Arc<LogRestart>>, here: bool) -> Connections {
        let connection = shared(connection);
        let writes_here =
            here.then(|| WritesHere { connection: Arc::clone(&connection), log_restart: log_restart.clone() });
        Connections::start("sqlite-writer", vec![connection], log_restart, writes_here)
    }

    fn start(
        name: &str,
        connections: Vec<SharedConnection>,
        log_restart: Option<Arc<LogRestart>>,
        writes_here: Option<WritesHere>,
    ) -> Connections {
        let (queue, queued) = mpsc::channel::<Job>();
        let jobs = Arc::new(Jobs(Mutex::new(queued)));
        let threads = connections
            .into_iter()
            .map(|connection| {
                let (jobs, log_restart) = (Arc::clone(&jobs), log_restart.clone());
                std::thread::Builder::new()
                    .name(name.to_string())
                    .spawn(move || serve(&connection, &jobs, log_restart.as_deref()))
                    .expect("the system can start a thread")
            })
            .collect();
        Connections {
            queue: Mutex::new(Some(queue)),
            threads: Mutex::new(threads),
            writes_in_flight: AtomicUsize::new(0),
            writes_here,
        }
    }

    /// Runs `work` on the next free connection, outside any transaction, and
    /// answers what it answers.
    ///
    /// # Errors
    /// Whatever `work` returns; [`StoreError::Unavailable`] once the store is
    /// closed; [`StoreError::Other`] when `work` panics.
    pub(super) async fn run<T: Send + 'static>(
        &self,
        work: impl FnOnce(&mut Connection) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, StoreError> {
        self.ask(false, |answer| {
            Job::Alone(Box::new(move |connection| {
                // The caller may have gone; then nobody needs the answer.
                let _ = answer.send(work(connection));
            }))
        })
        .await
    }

    /// Runs `work` in a write transaction shared with the other writes queued
    /// with it (in a savepoint of its own) or in one of its own, and answers what
    /// it answers once that transaction has committed. A write that fails undoes
    /// only itself. `work` answers the database's errors apart from its own
    /// outcome, so that an error that ends the transaction is told to the
    /// batch's other writes. A write may run on its caller's thread (see the
    /// module's doc and [`WritesHere::commit`]).
    ///
    /// # Errors
    /// Whatever `work` returns; the database's error when the transaction cannot
    /// begin or commit; as [`Connections::run`] otherwise.
    pub(super) async fn write<T: Send + 'static, E: From<StoreError> + Send + 'static>(
        &self,
        work: impl FnOnce(&Connection) -> Result<Result<T, E>, StoreError> + Send + 'static,
    ) -> Result<T, E> {
        // Only a write that is the one in flight may run here: where writes
        // overlap, they are committed together on the writer's thread, and a
        // request's thread that committed one alone would hold its other
        // requests back.
        let alone = self.writes_in_flight.fetch_add(1, Ordering::Relaxed) == 0;
        let _answered = InFlight(&self.writes_in_flight);
        let queued = Instant::now();
        self.ask(alone, |answer| {
            Job::Write(Box::new(move |transaction| {
                STORE_QUEUE.record(queued.elapsed());
                let written = transaction.map_err(Clone::clone).and_then(|transaction| match transaction {
                    Transaction::Own(transaction) => work(transaction),
                    Transaction::Shared(transaction) => {
                        // A failed write's savepoint rolls back when dropped, a panic's too.
                        let savepoint = Scope::begin(transaction, &SAVEPOINT)?;
                        let written = work(&savepoint)?;
                        if written.is_ok() {
                            savepoint.end()?;
                        }
                        Ok(written)
                    }
                });
                let kept = matches!(written, Ok(Ok(_)));
                let failure = written.as_ref().err().cloned();
                let reply: Reply = Box::new(move |committed| {
                    let answered = match written {
                        Err(failure) => Err(E::from(failure)),
                        Ok(decided) => decided.and_then(|written| {
                            committed.map(|()| written).map_err(|failure| E::from(failure.clone()))
                        }),
                    };
                    let _ = answer.send(answered);
                });
                Ran { reply, kept, failure }
            }))
        })
        .await
    }

    /// Queues the job that `job` makes around the sender of its answer, or runs
    /// it `here` when it is a write that may (see [`Connections::write`]), and
    /// awaits that answer.
    async fn ask<T, E: From<StoreError>>(
        &self,
        here: bool,
        job: impl FnOnce(oneshot::Sender<Result<T, E>>) -> Job,
    ) -> Result<T, E> {
        let (answer, answered) = oneshot::channel();
        let job = job(answer);
        if let Some(job) = if here { self.run_here(job) } else { Some(job) } {
            let queue = self.queue.lock().expect("no job runs under this lock");
            queue.as_ref().ok_or_else(closed)?.send(job).map_err(|_| closed())?;
        }
        // A job drops its sender unanswered only when it panics.
        answered.await.map_err(|_| StoreError::Other("a database job panicked".into()))?
    }

    /// Runs `job` on this thread when it is a write and the writer's
    /// connection is free (see [`WritesHere::commit`]); else gives it back.
    fn run_here(&self, job: Job) -> Option<Job> {
        match (job, &self.writes_here) {
            (Job::Write(write), Some(here)) => here.commit(write).map(Job::Write),
            (job, _) => Some(job),
        }
    }

    /// Lets the queued jobs finish, then closes the connections.
    pub(super) fn close(&self) {
        self.queue.lock().expect("no job runs under this lock").take();
        for thread in self.threads.lock().expect("no job runs under this lock").drain(..) {
            let _ = thread.join();
        }
    }
}

/// A batch's transaction (begun IMMEDIATE), a write's savepoint in it, or a
/// reader's snapshot: kept once it ends, undone when dropped before. Its
/// statements are prepared once, where rusqlite's parse theirs every time.
pub(super) struct Scope<'c> {
    connection: &'c Connection,
    statements: &'static ScopeStatements,
    ended: bool,
}

/// How a [`Scope`] begins, ends and is undone.
struct ScopeStatements {
    begin: &'static str,
    end: &'static str,
    undo: &'static [&'static str],
}

const BATCH: ScopeStatements = ScopeStatements { begin: "BEGIN IMMEDIATE", end: "COMMIT", undo: &["ROLLBACK"] };

const SAVEPOINT: ScopeStatements =
    ScopeStatements { begin: "SAVEPOINT write", end: "RELEASE write", undo: &["ROLLBACK TO write", "RELEASE write"] };

const READ: ScopeStatements = ScopeStatements { begin: "BEGIN", end: "COMMIT", undo: &["ROLLBACK"] };

impl<'c> Scope<'c> {
    /// A read's transaction: its statements see the database as it was when the
    /// first of them ran. It writes nothing: dropping it ends it.
    pub(super) fn read(connection: &'c Connection) -> rusqlite::Result<Scope<'c>> {
        Scope::begin(connection, &READ)
    }

    fn begin(connection: &'c Connection, statements: &'static ScopeStatements) -> rusqlite::Result<Scope<'c>> {
        connection.prepare_cached(statements.begin)?.execute([])?;
        Ok(Scope { connection, statements, ended: false })
    }

    /// Keeps what was written since the scope began: commits the transaction,
    /// or releases the savepoint into it.
    fn end(mut self) -> rusqlite::Result<()> {
        self.connection.prepare_cached(self.statements.end)?.execute([])?;
        self.ended = true;
        Ok(())
    }
}

impl Drop for Scope<'_> {
    fn drop(&mut self) {
        // A transaction that an error ended is over already, with its savepoints.
        // Should a savepoint's undoing fail, so does the transaction's commit, and
        // every write of the batch hears of it.
        if !self.ended && !self.connection.is_autocommit() {
            for undo in self.statements.undo {
                let _ = self.connection.prepare_cached(undo).and_then(|mut undo| undo.execute([]));
            }
        }
    }
}

impl std::ops::Deref for Scope<'_> {
    type Target = Connection;

    fn deref(&self) -> &Connection {
        self.connection
    }
}

/// Runs the jobs of `jobs` on `connection` until the queue closes, then closes
/// it: a write with the writes queued right behind it, up to
/// [`MOST_WRITES_PER_COMMIT`], in one transaction, each batch after `log_restart`.
fn serve(connection: &Mutex<Option<Connection>>, jobs: &Jobs, log_restart: Option<&LogRestart>) {
    let mut held = None;
    while let Some(job) = held.take().or_else(|| jobs.next()) {
        match job {
            Job::Alone(job) => {
                let mut connection = connection.lock().expect("no job panics under this lock");
                let connection = connection.as_mut().expect("the connection is closed by this thread only");
                let _ = catch_unwind(AssertUnwindSafe(|| job(connection)));
            }
            Job::Write(first) => {
                let mut batch = vec![first];
                while batch.len() < MOST_WRITES_PER_COMMIT {
                    match jobs.next_waiting() {
                        Some(Job::Write(write)) => batch.push(write),
                        Some(alone) => {
                            held = Some(alone);
                            break;
                        }
                        None => break,
                    }
                }
                if let Some(log_restart) = log_restart {
                    log_restart.wait();
                }
                let connection = connection.lock().expect("no job panics under this lock");
                let connection = connection.as_ref().expect("the connection is closed by this thread only");
                if let Some(log_restart) = log_restart {
                    log_restart.committing();
                }
                commit_in(Scope::begin(connection, &BATCH).map_err(StoreError::from), batch);
            }
        }
    }
    connection.lock().expect("no job panics under this lock").take();
}

/// Runs `batch` in `transaction` (begun IMMEDIATE, or the error that stopped
/// it), commits it, then answers each write.
fn commit_in(transaction: Result<Scope<'_>, StoreError>, batch: Vec<WriteJob>) {
    STORE_BATCHES.record(u32::try_from(batch.len()).expect("a batch is short"));
    let shared = batch.len() > 1;
    // On some errors (a full disk, a failed read or write) SQLite rolls back the
    // whole transaction. The writes after that must not run, or each would commit
    // on its own, outside the batch whose failed commit answers them; they, and
    // those before, are answered the error that ended it.
    let mut ended = None;
    // A write alone in its transaction that fails (or panics) is undone with it.
    let mut undone = false;
    let mut replies = Vec::with_capacity(batch.len());
    for write in batch {
        let given = match (&transaction, &ended) {
            (Err(error), _) => Err(error),
            (Ok(_), Some(error)) => Err(error),
            (Ok(transaction), None) if shared => Ok(Transaction::Shared(transaction)),
            (Ok(transaction), None) => Ok(Transaction::Own(transaction)),
        };
        let failure = match catch_unwind(AssertUnwindSafe(|| write(given))) {
            Ok(Ran { reply, kept, failure }) => {
                replies.push(reply);
                undone = !shared && !kept;
                failure
            }
            Err(_) => {
                undone = !shared;
                None
            }
        };
        if ended.is_none() && transaction.as_ref().is_ok_and(|transaction| transaction.is_autocommit()) {
            ended = Some(failure.unwrap_or_else(|| {
                StoreError::Other("a write ended the transaction of the writes committed with it".into())
            }));
        }
    }
    let committed = match ended {
        Some(error) => Err(error),
        // The failed write's answer is its own failure.
        None if undone => {
            drop(transaction);
            Err(StoreError::Other("the transaction's one write failed".into()))
        }
        None => transaction.and_then(|transaction| transaction.end().map_err(StoreError::from)),
    };
    for reply in replies {
        reply(committed.as_ref().copied());
    }
}

fn shared(connection: Connection) -> SharedConnection {
    Arc::new(Mutex::new(Some(connection)))
}

fn closed() -> StoreError {
    StoreError::Unavailable("the database is closed".into())
}

#[cfg(test)]
mod tests {
    use futures_util::FutureExt;

    use std::path::Path;

    use rusqlite::OpenFlags;

    use super::super::checkpointer::open_writer;
    use super::super::connection::connect;
    use super::*;
    use crate::store::Durability;

    /// A writer, with writes on their callers' threads if `here`, of a fresh
    /// file with a table `written (n)`, with no checkpointer.
    fn writer_of_a_fresh_file(folder: &Path, here: bool, log_restart: Option<Arc<LogRestart>>) -> Connections {
        let (connection, checkpointer) = open_writer(&folder.join("qttt.db"), Durability::Normal, None).unwrap();
        checkpointer.stop();
        connection.execute_batch("CREATE TABLE written (n INTEGER NOT NULL)").unwrap();
        Connections::writer(connection, log_restart, here)
    }

    /// Writes `n` on `writer`, once the writer's connection is free: its thread
    /// lets it go a moment after it has answered the last write, and a write that
    /// comes before would be queued for that thread, whatever the rule under test.
    async fn write_on(writer: &Connections, n: i64) -> Result<std::thread::ThreadId, StoreError> {
        if let Some(here) = &writer.writes_here {
            let deadline = Instant::now() + Duration::from_secs(10);
            while here.connection.try_lock().is_err() {
                assert!(Instant::now() < deadline, "the writer's connection stays held");
                std::thread::yield_now();
            }
        }
        writer
            .write(move |tx| {
                tx.execute("INSERT INTO written (n) VALUES (?)", [n])?;
                Ok(Ok(std::thread::current().id()))
            })
            .await
    }

    #[test]
    fn a_write_that_finds_the_writer_free_is_committed_on_its_callers_thread_where_writes_may_run_here() {
        let caller = std::thread::current().id();
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        for here in [true, false] {
            let folder = tempfile::tempdir().unwrap();
            let writer = writer_of_a_fresh_file(folder.path(), here, None);
            let ran_on = runtime.block_on(write_on(&writer, 1)).unwrap();
            let written =
                runtime.block_on(writer.run(|connection| {
                    Ok(connection.query_row("SELECT n FROM written", [], |row| row.get::<_, i64>(0))?)
                }));
            writer.close();
            assert_eq!(ran_on == caller, here, "where writes may run here: {here}");
            assert_eq!(written, Ok(1), "and the write was committed");
        }
    }

    #[test]
    fn a_write_alone_in_its_transaction_that_fails_or_panics_leaves_nothing_written() {
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        for here in [true, false] {
            let folder = tempfile::tempdir().unwrap();
            let writer = writer_of_a_fresh_file(folder.path(), here, None);
            let insert_then = |n: i64| {
                writer.write(move |tx| {
                    tx.execute("INSERT INTO written (n) VALUES (?)", [n])?;
                    match n {
                        1 => Ok(Err(StoreError::Other("write 1 fails".into()))),
                        2 => panic!("write 2 panics after its insert"),
                        3 => {
                            tx.execute("INSERT INTO written (n) VALUES (NULL)", [])?;
                            Ok(Ok(n))
                        }
                        n => Ok(Ok(n)),
                    }
                })
            };
            let answers: Vec<_> = (1..=4).map(|n| runtime.block_on(insert_then(n))).collect();
            let rows = runtime
                .block_on(writer.run(|connection| {
                    let mut select = connection.prepare("SELECT n FROM written ORDER BY n")?;
                    Ok(select.query_map([], |row| row.get::<_, i64>(0))?.collect::<rusqlite::Result<Vec<_>>>()?)
                }))
                .unwrap();
            writer.close();
            assert_eq!(answers[0], Err(StoreError::Other("write 1 fails".into())));
            assert_eq!(answers[1], Err(StoreError::Other("a database job panicked".into())));
            assert!(matches!(answers[2], Err(StoreError::Other(_))), "{:?}", answers[2]);
            assert_eq!(answers[3], Ok(4));
            assert_eq!(rows, [4], "where writes may run here: {here}");
        }
    }

    #[test]
    fn a_write_that_finds_the_file_locked_by_another_connection_waits_on_the_writers_thread() {
        let folder = tempfile::tempdir().unwrap();
        let writer = writer_of_a_fresh_file(folder.path(), true, None);
        let other = connect(&folder.path().join("qttt.db"), Durability::Normal, OpenFlags::default()).unwrap();
        other.execute_batch("BEGIN IMMEDIATE").unwrap();
        let released = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            other.execute_batch("COMMIT").unwrap();
        });
        let asked = Instant::now();
        let mut write = std::pin::pin!(write_on(&writer, 1));
        assert!(write.as_mut().now_or_never().is_none(), "the write is queued, not refused");
        let queued_in = asked.elapsed();
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let ran_on = runtime.block_on(write).unwrap();
        let answered_in = asked.elapsed();
        released.join().unwrap();
        writer.close();
        assert!(queued_in < Duration::from_millis(100), "the caller's thread waited {queued_in:?}");
        assert_ne!(ran_on, std::thread::current().id());
        assert!(answered_in >= Duration::from_millis(250), "answered in {answered_in:?}, before the lock was released");
    }

    #[test]
    fn a_commit_that_may_start_the_log_again_is_left_to_the_writers_thread() {
        let folder = tempfile::tempdir().unwrap();
        let log_restart = Arc::new(LogRestart::default());
        let writer = writer_of_a_fresh_file(folder.path(), true, Some(Arc::clone(&log_restart)));
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let caller = std::thread::current().id();
        let ran_on = runtime.block_on(async {
            let before = write_on(&writer, 1).await.unwrap();
            log_restart.may_start_again();
            let due = write_on(&writer, 2).await.unwrap();
            let after = write_on(&writer, 3).await.unwrap();
            [before, due, after].map(|thread| thread == caller)
        });
        writer.close();
        assert_eq!(ran_on, [true, false, true], "which writes ran on the caller's thread");
    }

    /// Writes `0..count` on a writer of a fresh file with a table `written (n)`,
    /// each by `write`, all queued together behind a busy job. Answers what each
    /// write was answered, the rows left, and the frames the writes added to the
    /// write-ahead log (a commit adds one per page it changed).
    fn write_together(
        count: i64,
        write: fn(&Connection, i64) -> Result<i64, StoreError>,
    ) -> (Vec<Result<i64, StoreError>>, Vec<i64>, u64) {
        let folder = tempfile::tempdir().unwrap();
        let (connection, checkpointer) = open_writer(&folder.path().join("qttt.db"), Durability::Normal, None).unwrap();
        // Left in the log, the frames can be counted.
        checkpointer.stop();
        connection.execute_batch("CREATE TABLE written (n INTEGER NOT NULL)").unwrap();
        let writer = Connections::writer(connection, None, true);
        let log_frames = || (std::fs::metadata(folder.path().join("qttt.db-wal")).unwrap().len() - 32) / (4096 + 24);
        let frames_before = log_frames();
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let (answers, rows) = runtime.block_on(async {
            let (started, busy_started) = mpsc::channel();
            let mut busy = std::pin::pin!(writer.run(move |_| {
                started.send(()).unwrap();
                std::thread::sleep(Duration::from_millis(100));
                Ok(())
            }));
            // Queued once polled; once it runs, the writes find the writer busy.
            assert!(busy.as_mut().now_or_never().is_none());
            busy_started.recv().unwrap();
            let writes =
                futures_util::future::join_all((0..count).map(|n| writer.write(move |tx| write(tx, n).map(Ok))));
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
        let expected: Vec<String> = (0..20)
            .map(|n| match n {
                7 => "a database job panicked".to_string(),
                n if n % 5 == 3 => format!("write {n} fails"),
                n => n.to_string(),
            })
            .collect();
        assert_eq!(answers, expected);
        assert_eq!(rows, [0, 1, 2, 4, 5, 6, 9, 10, 11, 12, 14, 15, 16, 17, 19], "a failed write undid only itself");
        assert!(frames <= 2, "the writes made one commit of one page, not {frames} frames");
    }

    #[test]
    fn a_write_that_ends_the_transaction_stops_the_writes_behind_it_and_tells_them_why() {
        // Write 1 ends the transaction as SQLite does on a full disk.
        let (answers, rows, _) = write_together(3, |tx, n| {
            tx.execute("INSERT INTO written (n) VALUES (?)", [n])?;
            if n == 1 {
                tx.execute_batch("ROLLBACK")?;
                return Err(StoreError::Full("database or disk is full".into()));
            }
            Ok(n)
        });
        let full = Err(StoreError::Full("database or disk is full".into()));
        assert_eq!(answers, [full.clone(), full.clone(), full], "no write of the ended transaction is acknowledged");
        assert_eq!(rows, [0_i64; 0], "and none was committed on its own");
    }
}
