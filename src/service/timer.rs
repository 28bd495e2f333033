//! The server's own writes: a clock that ran out, a game that waited too long
//! for its second player, a seek that expired, and the deletion of games that
//! ended before the retention period. Every instance runs the timer; the store's update makes
//! each such write land once.

use std::time::Duration;

use futures_util::{StreamExt, stream};

use super::time::before;
use super::{GameRecord, GameService};
use crate::error::Error;
use crate::record::{Ending, GameId, Status};
use crate::store::Ended;

/// How often the timer looks for overdue games: a timeout is written within
/// this of its deadline (and a client sees it at once: the game shows it).
pub const TIMER_EVERY: Duration = Duration::from_millis(250);

/// How many overdue games of one kind the timer takes at a time.
pub const TIMER_BATCH: u32 = 100;

/// How many of a batch's games the timer ends at once: enough for the store to
/// take several of their writes together, few enough that a request, or a
/// timeout, never waits for a database connection behind a whole batch.
const ENDED_AT_ONCE: usize = 8;

/// How many games one deletion takes: a short write, after which others' writes
/// go first.
pub const RETENTION_BATCH: usize = 100;

impl GameService {
    /// Writes down the end of every game whose running clock has run out, the
    /// earliest deadline first, a batch at a time until none is left. Answers
    /// how many it ended. Waiting games to abort have a queue of their own
    /// ([`GameService::abort_unjoined_games`]), so that however many there are,
    /// a timeout never waits behind them.
    ///
    /// # Errors
    /// Database failures; a game's own failure is logged and the others go on.
    pub async fn end_timed_out_games(&self) -> Result<usize, Error> {
        let mut ended = 0;
        loop {
            let due = self.store.timed_out_games(self.now(), TIMER_BATCH).await?;
            let batch = self.end_each(&due, |record| Ok(record.overdue())).await;
            ended += batch;
            // A batch that ended nothing was ended elsewhere, or fails: the next turn looks again.
            if due.len() < TIMER_BATCH as usize || batch == 0 {
                return Ok(ended);
            }
        }
    }

    /// Aborts a batch of the games that waited longer than the waiting timeout
    /// for their second player, those that waited longest first; answers how many.
    ///
    /// # Errors
    /// Database failures; a game's own failure is logged and the others go on.
    pub async fn abort_unjoined_games(&self) -> Result<usize, Error> {
        let Some(timeout) = self.options.waiting_timeout else { return Ok(0) };
        let cutoff = before(self.now(), timeout);
        let due = self.store.unjoined_games(cutoff, TIMER_BATCH).await?;
        let unjoined = move |record: &GameRecord| {
            let waited_too_long = record.status() == Status::Waiting && record.stored.created_at <= cutoff;
            Ok(waited_too_long.then_some(Ending::Abort(None)))
        };
        Ok(self.end_each(&due, unjoined).await)
    }

    /// Ends each game of `ids` as `ending` decides, [`ENDED_AT_ONCE`] at a
    /// time, as the game stands when its write is decided (another instance, or
    /// an action, may have got there first); answers how many it ended. A game's
    /// own failure is logged.
    async fn end_each(
        &self,
        ids: &[GameId],
        ending: impl Fn(&GameRecord) -> Result<Option<Ending>, Error> + Clone + Send + 'static,
    ) -> usize {
        let ends = ids.iter().map(|&id| {
            let ending = ending.clone();
            async move { (id, self.end(id, ending).await) }
        });
        let ended: Vec<_> = stream::iter(ends).buffer_unordered(ENDED_AT_ONCE).collect().await;
        let ended = ended.into_iter().filter(|(id, ended)| match ended {
            Ok(written) => written.is_some(),
            Err(Error::Conflict { .. }) => false,
            Err(error) => {
                log::warn!("the timer could not end game {id}: {error}");
                false
            }
        });
        ended.count()
    }

    /// Writes the seeks that expired unpaired expired, a batch of
    /// [`TIMER_BATCH`] at a time until none is left; answers how many.
    ///
    /// # Errors
    /// Database failures.
    pub async fn expire_seeks(&self) -> Result<u64, Error> {
        let mut expired = 0;
        loop {
            let batch = self.store.expire_seeks(self.now(), TIMER_BATCH).await?;
            expired += batch;
            if batch < u64::from(TIMER_BATCH) {
                return Ok(expired);
            }
            tokio::task::yield_now().await;
        }
    }

    /// Deletes a batch of at most [`RETENTION_BATCH`] games of each kind that
    /// ended before its retention period, with their logs and seats: every
    /// ended game, and the games the server aborted because nobody joined them;
    /// answers the larger batch. Without a retention period, none of that kind.
    ///
    /// # Errors
    /// Database failures.
    pub async fn delete_expired_games(&self) -> Result<usize, Error> {
        let mut most = 0;
        for (ended, retention) in
            [(Ended::Any, self.options.retention), (Ended::Unjoined, self.options.unjoined_retention)]
        {
            let Some(retention) = retention else { continue };
            let batch = self.store.delete_games_ended_before(ended, before(self.now(), retention), RETENTION_BATCH);
            most = most.max(batch.await?);
        }
        Ok(most)
    }
}
