//! The store's operations on ratings: a player's, their history, the
//! leaderboards, and all of them at once for `qttt ratings`. A rated game's
//! end rates its players in the write that ends it (see [`super::Write`]).

use jiff::SignedDuration;

use super::{Backend, Store, StoreError, counted};
use crate::engine::Variant;
use crate::rating::Standing;
use crate::record::{NumberedChange, PlayerId, PlayerStanding, RatedGame, RatingChange, StoredPlayer, VariantRating};

/// Everything the ratings are: the rated games they are derived from, and
/// the changes and ratings written as the games ended.
#[derive(Debug, Clone, PartialEq)]
pub struct RatingsAsStored {
    /// Every rated game with a result, by id.
    pub games: Vec<RatedGame>,
    /// Every change, by player, variant and number.
    pub changes: Vec<NumberedChange>,
    /// Every player's rating in each variant they played rated games in.
    pub ratings: Vec<PlayerStanding>,
}

/// What the ratings are, derived from the rated games as stored, with rating
/// periods of a length: the changes, and the ratings.
pub type Replay = fn(&RatingsAsStored, SignedDuration) -> (Vec<NumberedChange>, Vec<PlayerStanding>);

impl Store {
    /// Player `id`'s ratings, in the variants they played rated games in.
    ///
    /// # Errors
    /// When the database fails.
    pub async fn player_ratings(&self, id: PlayerId) -> Result<Vec<VariantRating>, StoreError> {
        counted(match &self.backend {
            Backend::Sqlite(store) => store.player_ratings(id).await,
            Backend::Postgres(store) => Box::pin(store.player_ratings(id)).await,
        })
    }

    /// What each of player `id`'s rated games in `variant` did to their
    /// rating, in the order they were rated.
    ///
    /// # Errors
    /// When the database fails.
    pub async fn rating_history(&self, id: PlayerId, variant: Variant) -> Result<Vec<RatingChange>, StoreError> {
        let variant = variant.code();
        counted(match &self.backend {
            Backend::Sqlite(store) => store.rating_history(id, variant).await,
            Backend::Postgres(store) => Box::pin(store.rating_history(id, variant)).await,
        })
    }

    /// At most `most` players with the best ratings in `variant` that are not
    /// provisional as stored, best first, with their standings.
    ///
    /// # Errors
    /// When the database fails.
    pub async fn leaders(&self, variant: Variant, most: u32) -> Result<Vec<(StoredPlayer, Standing)>, StoreError> {
        let variant = variant.code();
        counted(match &self.backend {
            Backend::Sqlite(store) => store.leaders(variant, most).await,
            Backend::Postgres(store) => Box::pin(store.leaders(variant, most)).await,
        })
    }

    /// Every rated game, rating change and rating, in one snapshot.
    ///
    /// # Errors
    /// When the database fails.
    pub async fn ratings_as_stored(&self) -> Result<RatingsAsStored, StoreError> {
        counted(match &self.backend {
            Backend::Sqlite(store) => store.ratings_as_stored().await,
            Backend::Postgres(store) => Box::pin(store.ratings_as_stored()).await,
        })
    }

    /// Rewrites every rating change and rating as `replay` derives them from
    /// the ratings as stored, in one transaction that games' ends wait for;
    /// answers the ratings as they were.
    ///
    /// # Errors
    /// When the database fails.
    pub async fn rebuild_ratings(&self, replay: Replay) -> Result<RatingsAsStored, StoreError> {
        self.wrote(async {
            match &self.backend {
                Backend::Sqlite(store) => store.rebuild_ratings(replay).await,
                Backend::Postgres(store) => Box::pin(store.rebuild_ratings(replay)).await,
            }
        })
        .await
    }
}
