//! The writes to games that wait to be written together, several games' in
//! one statement (see [`super::writes`]): one a game, and none of a game whose
//! last batch is being written.

use std::collections::{HashSet, VecDeque};
use std::sync::Mutex;

use jiff::SignedDuration;
use tokio::sync::oneshot;

use super::super::StoreError;
use crate::record::{GameId, StoredGame, Write};

/// The most tasks that write batches at once, each on a connection of the pool:
/// few enough to leave connections to reads.
const FLUSHERS: usize = 2;

/// The most writes in one batch.
const MOST_BATCHED: usize = 64;

/// The writes that wait to be written together.
#[derive(Debug, Default)]
pub(super) struct Batches {
    queue: Mutex<Queue>,
}

#[derive(Debug, Default)]
struct Queue {
    waiting: VecDeque<Waiting>,
    /// The games of the batches being written: their next writes wait.
    writing: HashSet<GameId>,
    /// The tasks that write batches now.
    flushers: usize,
}

/// A write of game `id` that waits, with the game as it stands once the write
/// lands, and where to tell how it went.
#[derive(Debug)]
pub(super) struct Waiting {
    pub(super) id: GameId,
    pub(super) write: Write,
    /// How long a rating period lasts: the store's, the same for every write.
    pub(super) period: SignedDuration,
    pub(super) after: StoredGame,
    pub(super) told: oneshot::Sender<Landing>,
}

/// How a write in a batch went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Landing {
    Landed,
    /// Another write took its sequence number first, or another write of the
    /// batch broke a rule: it is to be decided again on the log, alone.
    Lost,
    /// The connection broke as the batch was sent: it may have landed.
    Unsure,
    /// The database could not take the batch: it is out of time, or of room.
    Failed(StoreError),
}

impl Batches {
    /// Queues `waiting`; answers whether a flusher is to be started for it.
    pub(super) fn push(&self, waiting: Waiting) -> bool {
        let mut queue = self.queue.lock().expect("nothing panics under this lock");
        queue.waiting.push_back(waiting);
        let start = queue.flushers < FLUSHERS;
        queue.flushers += usize::from(start);
        start
    }

    /// Adds to `batch` the writes that wait, in order, up to [`MOST_BATCHED`]:
    /// one a game, and none of a game being written. When `batch` is still
    /// empty, the flusher that asks stops.
    pub(super) fn take(&self, batch: &mut Vec<Waiting>) {
        let mut queue = self.queue.lock().expect("nothing panics under this lock");
        let Queue { waiting, writing, .. } = &mut *queue;
        let mut left = VecDeque::new();
        while let Some(next) = waiting.pop_front() {
            if batch.len() < MOST_BATCHED && writing.insert(next.id) {
                batch.push(next);
            } else {
                left.push_back(next);
            }
        }
        *waiting = left;
        if batch.is_empty() {
            queue.flushers -= 1;
        }
        // In the order of their games, as every instance writes them: two batches
        // that race for the same games wait for each other in that order, never
        // in a circle.
        batch.sort_unstable_by_key(|waiting| waiting.id);
    }

    /// Ends the writing of `batch`: the next writes of its games may go.
    pub(super) fn written(&self, batch: &[Waiting]) {
        let mut queue = self.queue.lock().expect("nothing panics under this lock");
        for waiting in batch {
            queue.writing.remove(&waiting.id);
        }
    }
}
