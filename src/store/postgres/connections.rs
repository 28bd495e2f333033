//! The store's own connections to PostgreSQL.
//!
//! Not sqlx's pool, which pings the server whenever a connection goes back to
//! it: a round trip per request. Here a connection is trusted until it fails as
//! a connection does; then it is dropped (as is one whose work was cancelled
//! half-way, its state unknown), and the work may be tried on a fresh one.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use sqlx::Connection;
use sqlx::postgres::{PgConnectOptions, PgConnection};
use tokio::sync::{Semaphore, SemaphorePermit};

use super::super::StoreError;
use crate::metrics::STORE_QUEUE;

/// At most `size` connections to one database, opened when first needed.
#[derive(Debug)]
pub(super) struct Connections {
    options: PgConnectOptions,
    idle: Mutex<Vec<PgConnection>>,
    permits: Semaphore,
    /// The longest a caller waits for a connection, opening it included.
    wait: Duration,
    /// How many callers wait for a connection now, and the most that may.
    waiting: AtomicUsize,
    most_waiting: usize,
}

/// The callers that may wait for each connection: enough for bursts far beyond
/// the connections, few enough that an outage with thousands of live streams
/// does not queue work that would time out before the database could do it.
const WAITING_PER_CONNECTION: usize = 32;

/// A connection in one caller's hands. It goes back to the idle ones only by
/// [`Held::finish`]; dropped otherwise.
pub(super) struct Held<'a> {
    connections: &'a Connections,
    connection: PgConnection,
    /// Whether it was opened for this caller: its failure is the database's, not
    /// a stale connection's, and trying again would not help.
    fresh: bool,
    _permit: SemaphorePermit<'a>,
}

impl Connections {
    pub(super) fn new(options: PgConnectOptions, size: u32, wait: Duration) -> Connections {
        let size = usize::try_from(size).unwrap_or(usize::MAX);
        Connections {
            options,
            idle: Mutex::default(),
            permits: Semaphore::new(size),
            wait,
            waiting: AtomicUsize::new(0),
            most_waiting: size.saturating_mul(WAITING_PER_CONNECTION),
        }
    }

    /// A connection: an idle one, or a new one while fewer than the most are open.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`] when none is free in time, or as many callers
    /// wait for one as may, or a new one cannot be opened, or the store is closed.
    pub(super) async fn get(&self) -> Result<Held<'_>, StoreError> {
        let waited = tokio::time::timeout(self.wait, async {
            let started = Instant::now();
            let permit = match self.permits.try_acquire() {
                Ok(permit) => permit,
                Err(_) => self.wait_for_permit().await?,
            };
            STORE_QUEUE.record(started.elapsed());
            let idle = self.idle.lock().expect("nothing panics under this lock").pop();
            let (connection, fresh) = match idle {
                Some(connection) => (connection, false),
                None => (self.open().await?, true),
            };
            Ok(Held { connections: self, connection, fresh, _permit: permit })
        });
        waited.await.unwrap_or_else(|_| {
            Err(StoreError::Unavailable(format!("no connection to the database within {} ms", self.wait.as_millis())))
        })
    }

    /// A permit, waited for among at most [`Connections::most_waiting`] callers.
    async fn wait_for_permit(&self) -> Result<SemaphorePermit<'_>, StoreError> {
        if self.waiting.fetch_add(1, Ordering::Relaxed) >= self.most_waiting {
            self.waiting.fetch_sub(1, Ordering::Relaxed);
            return Err(StoreError::Unavailable(format!(
                "{} requests wait for a database connection already",
                self.most_waiting
            )));
        }
        // Counted down however the wait ends, a timeout's cancellation included.
        struct Waiting<'a>(&'a AtomicUsize);
        impl Drop for Waiting<'_> {
            fn drop(&mut self) {
                self.0.fetch_sub(1, Ordering::Relaxed);
            }
        }
        let _waiting = Waiting(&self.waiting);
        self.permits.acquire().await.map_err(|_| StoreError::Unavailable("the store is closed".into()))
    }

    async fn open(&self) -> Result<PgConnection, StoreError> {
        PgConnection::connect_with(&self.options).await.map_err(StoreError::from)
    }

    /// Refuses new work and closes the idle connections; those in use close as
    /// their work ends.
    pub(super) async fn close(&self) {
        self.permits.close();
        let idle = std::mem::take(&mut *self.idle.lock().expect("nothing panics under this lock"));
        for connection in idle {
            let _ = connection.close().await;
        }
    }
}

impl Held<'_> {
    /// The connection, for one piece of work.
    pub(super) fn connection(&mut self) -> &mut PgConnection {
        &mut self.connection
    }

    /// Whether `error` says that the connection was broken before it was given
    /// to this caller: then the work may be tried again on a fresh one.
    pub(super) fn may_retry(&self, error: &sqlx::Error) -> bool {
        self.is_reused() && is_broken(error)
    }

    /// Whether the connection was used before this caller's: broken, it may
    /// have been broken before, and the work may be tried again on a fresh one.
    pub(super) fn is_reused(&self) -> bool {
        !self.fresh
    }

    /// Replaces the connection with a new one.
    ///
    /// # Errors
    /// When the database cannot be reached.
    pub(super) async fn reopen(&mut self) -> Result<(), StoreError> {
        self.connection = self.connections.open().await?;
        self.fresh = true;
        Ok(())
    }

    /// Ends the caller's work with outcome `done`: the connection goes back to
    /// the idle ones unless `done` says it is broken.
    ///
    /// # Errors
    /// `done`'s error, in the store's terms.
    pub(super) fn finish<T>(self, done: Result<T, sqlx::Error>) -> Result<T, StoreError> {
        self.release(done.as_ref().is_err_and(is_broken));
        Ok(done?)
    }

    /// Ends the caller's work with `error`, as [`Held::finish`] does.
    pub(super) fn fail(self, error: sqlx::Error) -> StoreError {
        self.release(is_broken(&error));
        error.into()
    }

    /// Gives the connection back to the idle ones, unless it is `broken`.
    pub(super) fn release(self, broken: bool) {
        if !broken && !self.connections.permits.is_closed() {
            self.connections.idle.lock().expect("nothing panics under this lock").push(self.connection);
        }
    }
}

/// Whether `error` is one after which the connection cannot be used again: its
/// socket failed, or the server ended the session (57P01-57P03, or class 08).
pub(super) fn is_broken(error: &sqlx::Error) -> bool {
    match error {
        sqlx::Error::Io(_) | sqlx::Error::Tls(_) | sqlx::Error::Protocol(_) => true,
        sqlx::Error::Database(database) => {
            database.code().is_some_and(|code| code.starts_with("08") || ["57P01", "57P02", "57P03"].contains(&&*code))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn as_many_callers_wait_for_a_connection_as_may_and_the_next_is_refused_at_once() {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
        runtime.block_on(async {
            let connections = Connections::new(PgConnectOptions::new(), 1, Duration::from_secs(60));
            let _busy = connections.permits.try_acquire().unwrap();
            let waiters: Vec<_> = (0..WAITING_PER_CONNECTION).map(|_| Box::pin(connections.get())).collect();
            let mut waiters = futures_util::future::select_all(waiters);
            // Each waiter is polled once, and waits.
            assert!(futures_util::FutureExt::now_or_never(&mut waiters).is_none());
            assert_eq!(connections.waiting.load(Ordering::Relaxed), WAITING_PER_CONNECTION);
            let refused = tokio::time::timeout(Duration::from_secs(1), connections.get()).await;
            assert_eq!(
                refused.expect("refused at once").err(),
                Some(StoreError::Unavailable("32 requests wait for a database connection already".into()))
            );
            drop(waiters);
            assert_eq!(connections.waiting.load(Ordering::Relaxed), 0, "a wait given up is no longer counted");
        });
    }
}
