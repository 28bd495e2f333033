//! The server's own writes: a clock that ran out, a game that waited too long
//! for its second player, and the deletion of games that ended before the
//! retention period. Every instance runs the timer; the store's update makes
//! each such write land once.

use std::time::Duration;

use jiff::Timestamp;

use super::time::before;
use super::{GameRecord, GameService};
use crate::error::Error;
use crate::record::{Ending, Status};

/// How often the timer looks for overdue games: a timeout is written within
/// this of its deadline (and a client sees it at once: the game shows it).
pub const TIMER_EVERY: Duration = Duration::from_millis(250);

/// How many games one deletion takes: a short write, after which others' writes
/// go first.
pub const RETENTION_BATCH: usize = 100;

impl GameService {
    /// Writes down the end of every game whose running clock has run out, and
    /// aborts every game that waited longer than the waiting timeout for its
    /// second player. Answers how many it ended.
    ///
    /// # Errors
    /// Database failures; a game's own failure is logged and the others go on.
    pub async fn end_overdue_games(&self) -> Result<usize, Error> {
        let now = self.now();
        let waiting_before = self.waiting_cutoff(now);
        let overdue = self.store.overdue_games(now, waiting_before).await?;
        let mut ended = 0;
        for id in overdue {
            // As the game stands when its write is decided: another instance, or
            // an action, may have got there first.
            let ending = move |record: &GameRecord| {
                if let Some(player) = record.flagged() {
                    return Ok(Some(Ending::Timeout(player)));
                }
                let waited_too_long = waiting_before.is_some_and(|cutoff| record.stored.created_at <= cutoff);
                Ok((record.status() == Status::Waiting && waited_too_long).then_some(Ending::Abort(None)))
            };
            match self.end(id, ending).await {
                Ok(written) => ended += usize::from(written.is_some()),
                Err(Error::Conflict { .. }) => {}
                Err(error) => log::warn!("the timer could not end game {id}: {error}"),
            }
        }
        Ok(ended)
    }

    /// Deletes a batch of at most [`RETENTION_BATCH`] games that ended before the
    /// retention period, with their logs and seats; answers how many. Without a
    /// retention period, none.
    ///
    /// # Errors
    /// Database failures.
    pub async fn delete_expired_games(&self) -> Result<usize, Error> {
        let Some(retention) = self.options.retention else { return Ok(0) };
        Ok(self.store.delete_games_ended_before(before(self.now(), retention), RETENTION_BATCH).await?)
    }

    /// Before when a waiting game must have been created to be aborted now.
    fn waiting_cutoff(&self, now: Timestamp) -> Option<Timestamp> {
        Some(before(now, self.options.waiting_timeout?))
    }
}
