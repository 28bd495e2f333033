//! Puzzles in SQLite: an attempt's step, and the ratings its end changes, are
//! one job of the writer.

use std::sync::LazyLock;

use jiff::SignedDuration;
use rusqlite::{Connection, OptionalExtension, params};

use super::{SqliteStore, as_written, rows_of};
use crate::rating::{Rating, Standing, rate_attempt};
use crate::record::{
    AttemptId, AttemptStep, NewPuzzle, Outcome, PlayerId, PuzzleId, SteppedAttempt, StoredAttempt, StoredPuzzle,
    VariantRating, stamp,
};
use crate::store::StoreError;
use crate::store::rows::{
    ATTEMPT_COLUMNS, PUZZLE_COLUMNS, attempt_from_row, puzzle_from_row, puzzle_standing_columns, rating_from_row,
    standing_from_row, variant_rating_from_row,
};

const INSERT_PUZZLE: &str = "INSERT INTO puzzles (variant, position, solution, theme, source, position_key, rating, \
     deviation, volatility) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (variant, position_key) DO NOTHING";
const HAS_PUZZLE: &str = "SELECT EXISTS (SELECT 1 FROM puzzles WHERE variant = ? AND position_key = ?)";
static PUZZLE: LazyLock<String> = LazyLock::new(|| format!("SELECT {PUZZLE_COLUMNS} FROM puzzles WHERE id = ?"));
/// The puzzle of variant `?1` that player `?2` has not tried whose rating is
/// nearest theirs (the start's, before their first).
static NEXT_FOR_PLAYER: LazyLock<String> = LazyLock::new(|| {
    format!(
        "SELECT {PUZZLE_COLUMNS} FROM puzzles WHERE variant = ?1 AND NOT EXISTS (SELECT 1 FROM puzzle_attempts \
         WHERE puzzle_attempts.player_id = ?2 AND puzzle_attempts.puzzle_id = puzzles.id AND puzzle_attempts.rated) \
         ORDER BY abs(rating - coalesce((SELECT rating FROM puzzle_ratings WHERE player_id = ?2 AND variant = ?1), \
         {START})), id LIMIT 1",
        START = Rating::START.rating
    )
});
/// One of the easiest puzzles of variant `?1`, at random.
static NEXT_EASY: LazyLock<String> = LazyLock::new(|| {
    format!(
        "SELECT {PUZZLE_COLUMNS} FROM (SELECT * FROM puzzles WHERE variant = ?1 ORDER BY rating, id LIMIT {EASIEST}) \
         ORDER BY random() LIMIT 1",
        EASIEST = crate::store::puzzles::EASIEST
    )
});
/// The puzzle of variant `?1` for day `?2`: the puzzles in order of id, a
/// stride at a time.
static DAILY: LazyLock<String> = LazyLock::new(|| {
    format!(
        "SELECT {PUZZLE_COLUMNS} FROM puzzles WHERE variant = ?1 ORDER BY id LIMIT 1 \
         OFFSET (?2 * {STRIDE}) % max(1, (SELECT count(*) FROM puzzles WHERE variant = ?1))",
        STRIDE = crate::store::puzzles::DAILY_STRIDE
    )
});
static ATTEMPT: LazyLock<String> =
    LazyLock::new(|| format!("SELECT {ATTEMPT_COLUMNS} FROM puzzle_attempts WHERE id = ?"));
const HAS_RATED_ATTEMPT: &str =
    "SELECT EXISTS (SELECT 1 FROM puzzle_attempts WHERE player_id = ? AND puzzle_id = ? AND rated)";
const INSERT_ATTEMPT: &str = "INSERT INTO puzzle_attempts (puzzle_id, player_id, line, outcome, rated, started_at, \
     ended_at) VALUES (?, ?, ?, ?, ?, ?, ?)";
/// Goes on with attempt `?1` if it still has played `?2` and goes on.
const STEP_ATTEMPT: &str = "UPDATE puzzle_attempts SET line = ?3, outcome = ?4, ended_at = ?5 \
     WHERE id = ?1 AND line = ?2 AND outcome IS NULL RETURNING rated";
static PUZZLE_STANDING: LazyLock<String> = LazyLock::new(|| {
    format!("SELECT {} FROM puzzle_ratings WHERE player_id = ? AND variant = ?", puzzle_standing_columns(as_written))
});
static PUZZLE_RATINGS: LazyLock<String> = LazyLock::new(|| {
    format!(
        "SELECT variant, {} FROM puzzle_ratings WHERE player_id = ? ORDER BY variant",
        puzzle_standing_columns(as_written)
    )
});
const PUZZLE_RATING: &str = "SELECT rating, deviation, volatility FROM puzzles WHERE id = ?";
const SET_PUZZLE_STANDING: &str = "INSERT INTO puzzle_ratings (player_id, variant, rating, deviation, volatility, \
     attempts, rated_at) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (player_id, variant) DO UPDATE SET \
     rating = excluded.rating, deviation = excluded.deviation, volatility = excluded.volatility, \
     attempts = excluded.attempts, rated_at = excluded.rated_at";
const SET_PUZZLE_RATING: &str =
    "UPDATE puzzles SET rating = ?2, deviation = ?3, volatility = ?4, attempts = attempts + 1 WHERE id = ?1";
const SET_ATTEMPT_RATINGS: &str = "UPDATE puzzle_attempts SET rating_before = ?2, rating_after = ?3 WHERE id = ?1";

impl SqliteStore {
    pub(in crate::store) async fn add_puzzles(&self, puzzles: Vec<NewPuzzle>) -> Result<u64, StoreError> {
        self.writer
            .write(move |tx| {
                let mut added = 0;
                let mut insert = tx.prepare_cached(INSERT_PUZZLE)?;
                for new in &puzzles {
                    added += insert.execute(params![
                        new.variant.code(),
                        new.position,
                        new.solution,
                        new.theme.code(),
                        new.source,
                        new.position_key,
                        new.rating.rating,
                        new.rating.deviation,
                        new.rating.volatility
                    ])? as u64;
                }
                Ok(Ok(added))
            })
            .await
    }

    pub(in crate::store) async fn has_puzzle(
        &self,
        variant: &'static str,
        position_key: i64,
    ) -> Result<bool, StoreError> {
        self.readers
            .run(move |connection| {
                Ok(connection
                    .prepare_cached(HAS_PUZZLE)?
                    .query_row(params![variant, position_key], |row| row.get(0))?)
            })
            .await
    }

    pub(in crate::store) async fn puzzle(&self, id: PuzzleId) -> Result<Option<StoredPuzzle>, StoreError> {
        self.readers.run(move |connection| one_puzzle(connection, &PUZZLE, params![id])).await
    }

    pub(in crate::store) async fn next_puzzle(
        &self,
        variant: &'static str,
        player: Option<PlayerId>,
    ) -> Result<Option<StoredPuzzle>, StoreError> {
        self.readers
            .run(move |connection| match player {
                Some(player) => one_puzzle(connection, &NEXT_FOR_PLAYER, params![variant, player]),
                None => one_puzzle(connection, &NEXT_EASY, params![variant]),
            })
            .await
    }

    pub(in crate::store) async fn daily_puzzle(
        &self,
        variant: &'static str,
        day: i64,
    ) -> Result<Option<StoredPuzzle>, StoreError> {
        self.readers.run(move |connection| one_puzzle(connection, &DAILY, params![variant, day])).await
    }

    pub(in crate::store) async fn puzzle_ratings(&self, id: PlayerId) -> Result<Vec<VariantRating>, StoreError> {
        self.readers
            .run(move |connection| rows_of(connection, &PUZZLE_RATINGS, [id], |row| variant_rating_from_row(row)))
            .await
    }

    pub(in crate::store) async fn attempt(&self, id: AttemptId) -> Result<Option<StoredAttempt>, StoreError> {
        self.readers
            .run(move |connection| {
                let mut select = connection.prepare_cached(&ATTEMPT)?;
                select.query_row([id], |row| Ok(attempt_from_row(row))).optional()?.transpose()
            })
            .await
    }

    pub(in crate::store) async fn step_attempt(&self, step: AttemptStep) -> Result<Option<SteppedAttempt>, StoreError> {
        let period = self.rating_period;
        self.writer.write(move |tx| step_attempt(tx, &step, period).map(Ok)).await
    }
}

/// The puzzle, if any, that `statement` finds with `params`.
fn one_puzzle(
    connection: &Connection,
    statement: &str,
    params: impl rusqlite::Params,
) -> Result<Option<StoredPuzzle>, StoreError> {
    let mut select = connection.prepare_cached(statement)?;
    select.query_row(params, |row| Ok(puzzle_from_row(row))).optional()?.transpose()
}

/// Writes `step` in `tx`, and rates a rated attempt that it ends; `None` when
/// the attempt had moved on or ended since it was read.
fn step_attempt(
    tx: &Connection,
    step: &AttemptStep,
    period: SignedDuration,
) -> Result<Option<SteppedAttempt>, StoreError> {
    let (outcome, ended_at) = (step.outcome.map(Outcome::code), step.outcome.map(|_| stamp(step.at)));
    let (id, rated) = match &step.attempt {
        None => {
            let rated = match step.player {
                Some(player) => {
                    let tried: bool = tx
                        .prepare_cached(HAS_RATED_ATTEMPT)?
                        .query_row(params![player, step.puzzle], |row| row.get(0))?;
                    !tried
                }
                None => false,
            };
            tx.prepare_cached(INSERT_ATTEMPT)?.execute(params![
                step.puzzle,
                step.player,
                step.line,
                outcome,
                rated,
                stamp(step.at),
                ended_at
            ])?;
            (AttemptId::new(tx.last_insert_rowid()), rated)
        }
        Some((id, line)) => {
            let mut update = tx.prepare_cached(STEP_ATTEMPT)?;
            let rated = update
                .query_row(params![id, line, step.line, outcome, ended_at], |row| row.get::<_, bool>(0))
                .optional()?;
            let Some(rated) = rated else { return Ok(None) };
            (*id, rated)
        }
    };
    let rating_change = match (step.outcome, step.player) {
        (Some(outcome), Some(player)) if rated => Some(rate(tx, id, step, player, outcome, period)?),
        _ => None,
    };
    Ok(Some(SteppedAttempt { id, rated, rating_change }))
}

/// Rates attempt `id` of `player`, which ended with `outcome`: their puzzle
/// rating and the puzzle's; answers the player's before and after.
fn rate(
    tx: &Connection,
    id: AttemptId,
    step: &AttemptStep,
    player: PlayerId,
    outcome: Outcome,
    period: SignedDuration,
) -> Result<(Rating, Rating), StoreError> {
    let variant = step.variant.code();
    let standing = tx
        .prepare_cached(&PUZZLE_STANDING)?
        .query_row(params![player, variant], |row| Ok(standing_from_row(row, 0)))
        .optional()?
        .transpose()?
        .unwrap_or(Standing::NEW);
    let puzzle = tx.prepare_cached(PUZZLE_RATING)?.query_row([step.puzzle], |row| Ok(rating_from_row(row, 0)))??;
    let (after, puzzle_after) = rate_attempt(&standing, puzzle, outcome == Outcome::Solved, step.at, period);
    let (before, rating) = (standing.at(step.at, period), after.rating);
    tx.prepare_cached(SET_PUZZLE_STANDING)?.execute(params![
        player,
        variant,
        rating.rating,
        rating.deviation,
        rating.volatility,
        after.games,
        stamp(step.at)
    ])?;
    tx.prepare_cached(SET_PUZZLE_RATING)?.execute(params![
        step.puzzle,
        puzzle_after.rating,
        puzzle_after.deviation,
        puzzle_after.volatility
    ])?;
    tx.prepare_cached(SET_ATTEMPT_RATINGS)?.execute(params![id, before.rating, rating.rating])?;
    Ok((before, rating))
}
