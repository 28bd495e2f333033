//! Puzzles in PostgreSQL. An attempt's step holds its player's row, so that
//! two first attempts at once by one player are never both rated, and the
//! puzzle's row while it rates it, so that no rating of it is lost.

use std::sync::LazyLock;

use jiff::SignedDuration;
use sqlx::postgres::PgConnection;

use super::players::HOLD_PLAYER;
use super::statements::rfc3339;
use super::{PgStore, decode};
use crate::rating::{Rating, Standing, rate_attempt};
use crate::record::{
    AttemptId, AttemptStep, NewPuzzle, Outcome, PlayerId, PuzzleId, SteppedAttempt, StoredAttempt, StoredPuzzle,
    VariantRating, stamp,
};
use crate::store::StoreError;
use crate::store::puzzles::{DAILY_STRIDE, EASIEST};
use crate::store::rows::{
    ATTEMPT_COLUMNS, PUZZLE_COLUMNS, attempt_from_row, puzzle_from_row, puzzle_standing_columns, rating_from_row,
    standing_from_row, variant_rating_from_row,
};

const INSERT_PUZZLE: &str = "INSERT INTO puzzles (variant, position, solution, theme, source, position_key, rating, \
     deviation, volatility) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) \
     ON CONFLICT (variant, position_key) DO NOTHING";
const HAS_PUZZLE: &str = "SELECT EXISTS (SELECT 1 FROM puzzles WHERE variant = $1 AND position_key = $2)";
static PUZZLE: LazyLock<String> = LazyLock::new(|| format!("SELECT {PUZZLE_COLUMNS} FROM puzzles WHERE id = $1"));
/// See the SQLite store's.
static NEXT_FOR_PLAYER: LazyLock<String> = LazyLock::new(|| {
    format!(
        "SELECT {PUZZLE_COLUMNS} FROM puzzles WHERE variant = $1 AND NOT EXISTS (SELECT 1 FROM puzzle_attempts \
         WHERE puzzle_attempts.player_id = $2 AND puzzle_attempts.puzzle_id = puzzles.id AND puzzle_attempts.rated) \
         ORDER BY abs(rating - coalesce((SELECT rating FROM puzzle_ratings WHERE player_id = $2 AND variant = $1), \
         {START})), id LIMIT 1",
        START = Rating::START.rating
    )
});
/// See the SQLite store's.
static NEXT_EASY: LazyLock<String> = LazyLock::new(|| {
    format!(
        "SELECT {PUZZLE_COLUMNS} FROM (SELECT * FROM puzzles WHERE variant = $1 ORDER BY rating, id \
         LIMIT {EASIEST}) AS easiest ORDER BY random() LIMIT 1"
    )
});
/// See the SQLite store's.
static DAILY: LazyLock<String> = LazyLock::new(|| {
    format!(
        "SELECT {PUZZLE_COLUMNS} FROM puzzles WHERE variant = $1 ORDER BY id LIMIT 1 \
         OFFSET ($2 * {DAILY_STRIDE}) % greatest(1, (SELECT count(*) FROM puzzles WHERE variant = $1))"
    )
});
static ATTEMPT: LazyLock<String> =
    LazyLock::new(|| format!("SELECT {ATTEMPT_COLUMNS} FROM puzzle_attempts WHERE id = $1"));
const HAS_RATED_ATTEMPT: &str =
    "SELECT EXISTS (SELECT 1 FROM puzzle_attempts WHERE player_id = $1 AND puzzle_id = $2 AND rated)";
const INSERT_ATTEMPT: &str = "INSERT INTO puzzle_attempts (puzzle_id, player_id, line, outcome, rated, started_at, \
     ended_at) VALUES ($1, $2, $3, $4, $5, $6::TIMESTAMPTZ, $7::TIMESTAMPTZ) RETURNING id";
/// See the SQLite store's.
const STEP_ATTEMPT: &str = "UPDATE puzzle_attempts SET line = $3, outcome = $4, ended_at = $5::TIMESTAMPTZ \
     WHERE id = $1 AND line = $2 AND outcome IS NULL RETURNING rated";
static PUZZLE_STANDING: LazyLock<String> = LazyLock::new(|| {
    format!("SELECT {} FROM puzzle_ratings WHERE player_id = $1 AND variant = $2", puzzle_standing_columns(rfc3339))
});
static PUZZLE_RATINGS: LazyLock<String> = LazyLock::new(|| {
    format!(
        "SELECT variant, {} FROM puzzle_ratings WHERE player_id = $1 ORDER BY variant",
        puzzle_standing_columns(rfc3339)
    )
});
const HOLD_PUZZLE_RATING: &str = "SELECT rating, deviation, volatility FROM puzzles WHERE id = $1 FOR UPDATE";
const SET_PUZZLE_STANDING: &str = "INSERT INTO puzzle_ratings (player_id, variant, rating, deviation, volatility, \
     attempts, rated_at) VALUES ($1, $2, $3, $4, $5, $6, $7::TIMESTAMPTZ) ON CONFLICT (player_id, variant) DO UPDATE \
     SET rating = excluded.rating, deviation = excluded.deviation, volatility = excluded.volatility, \
     attempts = excluded.attempts, rated_at = excluded.rated_at";
const SET_PUZZLE_RATING: &str =
    "UPDATE puzzles SET rating = $2, deviation = $3, volatility = $4, attempts = attempts + 1 WHERE id = $1";
const SET_ATTEMPT_RATINGS: &str = "UPDATE puzzle_attempts SET rating_before = $2, rating_after = $3 WHERE id = $1";

impl PgStore {
    pub(in crate::store) async fn add_puzzles(&self, puzzles: Vec<NewPuzzle>) -> Result<u64, StoreError> {
        self.in_transaction(|tx| {
            let puzzles = puzzles.clone();
            Box::pin(async move {
                let mut added = 0;
                for new in &puzzles {
                    added += sqlx::query(INSERT_PUZZLE)
                        .bind(new.variant.code())
                        .bind(&new.position)
                        .bind(&new.solution)
                        .bind(new.theme.code())
                        .bind(&new.source)
                        .bind(new.position_key)
                        .bind(new.rating.rating)
                        .bind(new.rating.deviation)
                        .bind(new.rating.volatility)
                        .execute(&mut *tx)
                        .await?
                        .rows_affected();
                }
                Ok(added)
            })
        })
        .await
    }

    pub(in crate::store) async fn has_puzzle(
        &self,
        variant: &'static str,
        position_key: i64,
    ) -> Result<bool, StoreError> {
        self.connections
            .run(&|connection| {
                Box::pin(sqlx::query_scalar(HAS_PUZZLE).bind(variant).bind(position_key).fetch_one(connection))
            })
            .await
    }

    pub(in crate::store) async fn puzzle(&self, id: PuzzleId) -> Result<Option<StoredPuzzle>, StoreError> {
        let row = self.fetch_optional(&PUZZLE, |query| query.bind(id)).await?;
        row.map(|row| puzzle_from_row(&row)).transpose()
    }

    pub(in crate::store) async fn next_puzzle(
        &self,
        variant: &'static str,
        player: Option<PlayerId>,
    ) -> Result<Option<StoredPuzzle>, StoreError> {
        let row = match player {
            Some(player) => self.fetch_optional(&NEXT_FOR_PLAYER, |query| query.bind(variant).bind(player)).await?,
            None => self.fetch_optional(&NEXT_EASY, |query| query.bind(variant)).await?,
        };
        row.map(|row| puzzle_from_row(&row)).transpose()
    }

    pub(in crate::store) async fn daily_puzzle(
        &self,
        variant: &'static str,
        day: i64,
    ) -> Result<Option<StoredPuzzle>, StoreError> {
        let row = self.fetch_optional(&DAILY, |query| query.bind(variant).bind(day)).await?;
        row.map(|row| puzzle_from_row(&row)).transpose()
    }

    pub(in crate::store) async fn puzzle_ratings(&self, id: PlayerId) -> Result<Vec<VariantRating>, StoreError> {
        let rows = self.fetch_all(&PUZZLE_RATINGS, |query| query.bind(id)).await?;
        rows.iter().map(variant_rating_from_row).collect()
    }

    pub(in crate::store) async fn attempt(&self, id: AttemptId) -> Result<Option<StoredAttempt>, StoreError> {
        let row = self.fetch_optional(&ATTEMPT, |query| query.bind(id)).await?;
        row.map(|row| attempt_from_row(&row)).transpose()
    }

    pub(in crate::store) async fn step_attempt(&self, step: AttemptStep) -> Result<Option<SteppedAttempt>, StoreError> {
        let period = self.rating_period;
        self.in_transaction(|tx| {
            let step = step.clone();
            Box::pin(async move { step_attempt(tx, &step, period).await })
        })
        .await
    }
}

/// Writes `step` in `tx`, and rates a rated attempt that it ends; `None` when
/// the attempt had moved on or ended since it was read.
async fn step_attempt(
    tx: &mut PgConnection,
    step: &AttemptStep,
    period: SignedDuration,
) -> Result<Option<SteppedAttempt>, sqlx::Error> {
    if let Some(player) = step.player {
        sqlx::query(HOLD_PLAYER).bind(player).execute(&mut *tx).await?;
    }
    let (outcome, ended_at) = (step.outcome.map(Outcome::code), step.outcome.map(|_| stamp(step.at)));
    let (id, rated) = match &step.attempt {
        None => {
            let rated = match step.player {
                Some(player) => {
                    let tried: bool = sqlx::query_scalar(HAS_RATED_ATTEMPT)
                        .bind(player)
                        .bind(step.puzzle)
                        .fetch_one(&mut *tx)
                        .await?;
                    !tried
                }
                None => false,
            };
            let id: AttemptId = sqlx::query_scalar(INSERT_ATTEMPT)
                .bind(step.puzzle)
                .bind(step.player)
                .bind(&step.line)
                .bind(outcome)
                .bind(rated)
                .bind(stamp(step.at))
                .bind(&ended_at)
                .fetch_one(&mut *tx)
                .await?;
            (id, rated)
        }
        Some((id, line)) => {
            let rated: Option<bool> = sqlx::query_scalar(STEP_ATTEMPT)
                .bind(id)
                .bind(line)
                .bind(&step.line)
                .bind(outcome)
                .bind(&ended_at)
                .fetch_optional(&mut *tx)
                .await?;
            let Some(rated) = rated else { return Ok(None) };
            (*id, rated)
        }
    };
    let rating_change = match (step.outcome, step.player) {
        (Some(outcome), Some(player)) if rated => Some(rate(tx, id, step, player, outcome, period).await?),
        _ => None,
    };
    Ok(Some(SteppedAttempt { id, rated, rating_change }))
}

/// Rates attempt `id` of `player`, which ended with `outcome`: their puzzle
/// rating and the puzzle's; answers the player's before and after.
async fn rate(
    tx: &mut PgConnection,
    id: AttemptId,
    step: &AttemptStep,
    player: PlayerId,
    outcome: Outcome,
    period: SignedDuration,
) -> Result<(Rating, Rating), sqlx::Error> {
    let variant = step.variant.code();
    let row = sqlx::query(PUZZLE_STANDING.as_str()).bind(player).bind(variant).fetch_optional(&mut *tx).await?;
    let standing = row.map_or(Ok(Standing::NEW), |row| standing_from_row(&row, 0)).map_err(decode)?;
    let row = sqlx::query(HOLD_PUZZLE_RATING).bind(step.puzzle).fetch_one(&mut *tx).await?;
    let puzzle = rating_from_row(&row, 0).map_err(decode)?;
    let (after, puzzle_after) = rate_attempt(&standing, puzzle, outcome == Outcome::Solved, step.at, period);
    let (before, rating) = (standing.at(step.at, period), after.rating);
    sqlx::query(SET_PUZZLE_STANDING)
        .bind(player)
        .bind(variant)
        .bind(rating.rating)
        .bind(rating.deviation)
        .bind(rating.volatility)
        .bind(after.games)
        .bind(stamp(step.at))
        .execute(&mut *tx)
        .await?;
    sqlx::query(SET_PUZZLE_RATING)
        .bind(step.puzzle)
        .bind(puzzle_after.rating)
        .bind(puzzle_after.deviation)
        .bind(puzzle_after.volatility)
        .execute(&mut *tx)
        .await?;
    sqlx::query(SET_ATTEMPT_RATINGS).bind(id).bind(before.rating).bind(rating.rating).execute(&mut *tx).await?;
    Ok((before, rating))
}
