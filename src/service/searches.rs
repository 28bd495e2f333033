//! The perfect searches, hints, analyses and the perfect bot's answers: tens of
//! milliseconds of a core each, where any other request costs a fraction of one.
//! So that no client can take the cores from the others, they run at most one
//! per search thread at once behind a short queue, and beyond it are refused
//! (503 `busy`); a search whose asker has gone gives up; and the hint and the
//! analysis of a game version are searched once, then served from small caches.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use quick_cache::sync::Cache;
use tokio::sync::Semaphore;

use super::off_request_threads;
use crate::bot::{Analysis, Solution, Solver, Stop};
use crate::engine::Game;
use crate::error::Error;
use crate::record::GameId;

/// How many searches wait for a thread, for each thread: a short queue, which
/// drains in a fraction of a second.
const QUEUED_PER_THREAD: usize = 4;

/// How many game versions' hints are kept.
const HINTS_KEPT: usize = 4096;

/// How many game versions' analyses are kept: about a kilobyte and a half each.
const ANALYSES_KEPT: usize = 1024;

/// The searches of one server.
#[derive(Debug)]
pub struct Searches {
    /// A permit for each search thread, held for as long as a search runs.
    threads: Arc<Semaphore>,
    /// The searches running or waiting for a thread.
    admitted: AtomicUsize,
    /// The most that may run or wait.
    most: usize,
    /// The hint of each (game id, version) searched lately.
    hints: Cache<(GameId, i64), Solution>,
    /// The analysis of each (game id, version) searched lately.
    analyses: Cache<(GameId, i64), Arc<Analysis>>,
    /// How many searches have begun, for tests and figures.
    begun: AtomicU64,
}

impl Searches {
    /// At most `threads` searches at once.
    pub fn new(threads: usize) -> Searches {
        Searches {
            threads: Arc::new(Semaphore::new(threads)),
            admitted: AtomicUsize::new(0),
            most: threads * (1 + QUEUED_PER_THREAD),
            hints: Cache::new(HINTS_KEPT),
            analyses: Cache::new(ANALYSES_KEPT),
            begun: AtomicU64::new(0),
        }
    }

    /// How many searches have begun since the server started.
    pub(crate) fn begun(&self) -> u64 {
        self.begun.load(Ordering::Relaxed)
    }

    /// The best action of `game`, version `version` of game `id`: searched once
    /// however many ask at once, then remembered.
    ///
    /// # Errors
    /// [`Error::Busy`] when the queue is full.
    pub async fn hint(&self, id: GameId, version: i64, game: Game) -> Result<Solution, Error> {
        self.once(&self.hints, (id, version), move |stop| Solver::stopped_by(stop).answer(&game)).await
    }

    /// The analysis of `game`, version `version` of game `id`: searched once
    /// however many ask at once, then remembered.
    ///
    /// # Errors
    /// [`Error::Busy`] when the queue is full.
    pub async fn analysis(&self, id: GameId, version: i64, game: Game) -> Result<Arc<Analysis>, Error> {
        self.once(&self.analyses, (id, version), move |stop| {
            Arc::new(Analysis::of(&game, &mut Solver::stopped_by(stop)))
        })
        .await
    }

    /// What `search` finds for `key`, from `cache` when it holds it: searched
    /// once however many ask at once, then kept there.
    async fn once<T: Clone + Send + 'static>(
        &self,
        cache: &Cache<(GameId, i64), T>,
        key: (GameId, i64),
        search: impl FnOnce(Stop) -> T + Send + 'static,
    ) -> Result<T, Error> {
        // The askers of one key wait for the first; if it goes, the next searches.
        match cache.get_value_or_guard_async(&key).await {
            Ok(found) => Ok(found),
            Err(placeholder) => {
                let found = self.run(move |stop| Ok(search(stop))).await?;
                // Another asker may have filled it first; either answer is the same.
                let _ = placeholder.insert(found.clone());
                Ok(found)
            }
        }
    }

    /// Runs `search` on a thread for blocking work once a search thread is free.
    /// If the returned future is dropped (its client went away), `search`'s
    /// [`Stop`] is set.
    ///
    /// # Errors
    /// [`Error::Busy`] when as many searches run and wait as may; what `search`
    /// fails with.
    pub async fn run<T: Send + 'static>(
        &self,
        search: impl FnOnce(Stop) -> Result<T, Error> + Send + 'static,
    ) -> Result<T, Error> {
        if self.admitted.fetch_add(1, Ordering::AcqRel) >= self.most {
            self.admitted.fetch_sub(1, Ordering::AcqRel);
            return Err(Error::Busy);
        }
        let _admitted = Admitted(&self.admitted);
        let permit = Arc::clone(&self.threads).acquire_owned().await.expect("the semaphore is never closed");
        self.begun.fetch_add(1, Ordering::Relaxed);
        let stop = StopOnDrop(Stop::default());
        let stopper = stop.0.clone();
        off_request_threads("a search", move || {
            // The thread is taken until the search ends, even once nobody waits.
            let _permit = permit;
            search(stopper)
        })
        .await
    }
}

/// Counts a search out when it ends, or is dropped while it waits.
struct Admitted<'a>(&'a AtomicUsize);

impl Drop for Admitted<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Stops a search when its asker stops waiting for it.
struct StopOnDrop(Stop);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.set();
    }
}
