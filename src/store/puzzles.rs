//! The store's operations on puzzles: adding them, picking one (by id, for a
//! player, for the day), and an attempt at one, step by step, whose end rates
//! its player and the puzzle in the same transaction.

use super::{Backend, Store, StoreError, counted};
use crate::engine::Variant;
use crate::record::{
    AttemptId, AttemptStep, NewPuzzle, PlayerId, PuzzleId, SteppedAttempt, StoredAttempt, StoredPuzzle, VariantRating,
};

/// How many of the easiest puzzles one is picked from, at random, for a caller
/// without a player's token.
pub(super) const EASIEST: u32 = 50;

/// How far apart in the order of ids the puzzles of two days in a row are:
/// a prime, so that the days go through every puzzle before one comes again
/// (unless the count is a multiple of it).
pub(super) const DAILY_STRIDE: i64 = 7919;

impl Store {
    /// Adds `puzzles`, but those whose position a puzzle of their variant has
    /// already, up to symmetry; answers how many were new.
    ///
    /// # Errors
    /// When the database fails.
    pub async fn add_puzzles(&self, puzzles: Vec<NewPuzzle>) -> Result<u64, StoreError> {
        self.wrote(async {
            match &self.backend {
                Backend::Sqlite(store) => store.add_puzzles(puzzles).await,
                Backend::Postgres(store) => Box::pin(store.add_puzzles(puzzles)).await,
            }
        })
        .await
    }

    /// Whether a puzzle of `variant` has the position whose key is `position_key`.
    ///
    /// # Errors
    /// When the database fails.
    pub async fn has_puzzle(&self, variant: Variant, position_key: i64) -> Result<bool, StoreError> {
        let variant = variant.code();
        counted(match &self.backend {
            Backend::Sqlite(store) => store.has_puzzle(variant, position_key).await,
            Backend::Postgres(store) => Box::pin(store.has_puzzle(variant, position_key)).await,
        })
    }

    /// The puzzle with `id`, if there is one.
    ///
    /// # Errors
    /// When the database fails.
    pub async fn puzzle(&self, id: PuzzleId) -> Result<Option<StoredPuzzle>, StoreError> {
        counted(match &self.backend {
            Backend::Sqlite(store) => store.puzzle(id).await,
            Backend::Postgres(store) => Box::pin(store.puzzle(id)).await,
        })
    }

    /// A puzzle of `variant` to try next: for `player`, the one they have not
    /// tried whose rating is nearest their puzzle rating; for nobody, one of
    /// the [`EASIEST`] at random. None when there is none left.
    ///
    /// # Errors
    /// When the database fails.
    pub async fn next_puzzle(
        &self,
        variant: Variant,
        player: Option<PlayerId>,
    ) -> Result<Option<StoredPuzzle>, StoreError> {
        let variant = variant.code();
        counted(match &self.backend {
            Backend::Sqlite(store) => store.next_puzzle(variant, player).await,
            Backend::Postgres(store) => Box::pin(store.next_puzzle(variant, player)).await,
        })
    }

    /// The puzzle of `variant` for day `day` (days since 1970-01-01, UTC):
    /// the same on every instance that shares the database.
    ///
    /// # Errors
    /// When the database fails.
    pub async fn daily_puzzle(&self, variant: Variant, day: i64) -> Result<Option<StoredPuzzle>, StoreError> {
        let variant = variant.code();
        counted(match &self.backend {
            Backend::Sqlite(store) => store.daily_puzzle(variant, day).await,
            Backend::Postgres(store) => Box::pin(store.daily_puzzle(variant, day)).await,
        })
    }

    /// Player `id`'s puzzle ratings, in the variants they made rated attempts in.
    ///
    /// # Errors
    /// When the database fails.
    pub async fn puzzle_ratings(&self, id: PlayerId) -> Result<Vec<VariantRating>, StoreError> {
        counted(match &self.backend {
            Backend::Sqlite(store) => store.puzzle_ratings(id).await,
            Backend::Postgres(store) => Box::pin(store.puzzle_ratings(id)).await,
        })
    }

    /// The attempt with `id`, if there is one.
    ///
    /// # Errors
    /// When the database fails.
    pub async fn attempt(&self, id: AttemptId) -> Result<Option<StoredAttempt>, StoreError> {
        counted(match &self.backend {
            Backend::Sqlite(store) => store.attempt(id).await,
            Backend::Postgres(store) => Box::pin(store.attempt(id)).await,
        })
    }

    /// Writes `step`: a new attempt, rated when it is its player's first at
    /// the puzzle, or the next step of one as it was read; a rated attempt's
    /// end rates its player and the puzzle. `None`, writing nothing, when the
    /// attempt moved on or ended since it was read.
    ///
    /// # Errors
    /// When the database fails.
    pub async fn step_attempt(&self, step: AttemptStep) -> Result<Option<SteppedAttempt>, StoreError> {
        self.wrote(async {
            match &self.backend {
                Backend::Sqlite(store) => store.step_attempt(step).await,
                Backend::Postgres(store) => Box::pin(store.step_attempt(step)).await,
            }
        })
        .await
    }
}
