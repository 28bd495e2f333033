//! The ratings a client reads: a player's history in a variant, and the
//! leaderboards.

use super::GameService;
use crate::engine::Variant;
use crate::error::Error;
use crate::rating::{Rating, Standing};
use crate::record::{RatingChange, StoredPlayer, Username};

/// The most players a leaderboard lists.
pub const LEADERBOARD_SIZE: usize = 100;

/// The players a leaderboard's query reads to find [`LEADERBOARD_SIZE`] whose
/// ratings are not provisional now: some of those that were not when stored
/// have been idle long enough to become so.
const LEADERS_READ: u32 = 1000;

impl GameService {
    /// What each of the rated games of the player named `name` in `variant`
    /// did to their rating, in the order they were rated.
    ///
    /// # Errors
    /// [`Error::NotFound`]; database failures.
    pub async fn rating_history(&self, name: &Username, variant: Variant) -> Result<Vec<RatingChange>, Error> {
        let player = self.named(name).await?;
        Ok(self.store.rating_history(player.id, variant).await?)
    }

    /// The [`LEADERBOARD_SIZE`] best players in `variant` whose ratings are
    /// not provisional as they stand now, best first, bots among them; each
    /// with their rating now and how many rated games it counts.
    ///
    /// # Errors
    /// Database failures.
    pub async fn leaderboard(&self, variant: Variant) -> Result<Vec<(StoredPlayer, Rating, i64)>, Error> {
        let (now, period) = (self.now(), self.store.rating_period());
        let leaders = self.store.leaders(variant, LEADERS_READ).await?;
        Ok(leaders
            .into_iter()
            .map(|(player, standing): (StoredPlayer, Standing)| (player, standing.at(now, period), standing.games))
            .filter(|(_, rating, _)| !rating.is_provisional())
            .take(LEADERBOARD_SIZE)
            .collect())
    }
}
