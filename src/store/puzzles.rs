//! The store's operations on puzzles, each written once over [`Tx`]: adding
//! them, picking one (by id, for a player, for the day), and an attempt at one,
//! step by step, whose end rates its player and the puzzle in one transaction,
//! holding the player's row (two first attempts at once are never both rated)
//! and the puzzle's (no rating of it is lost).

use std::sync::LazyLock;

use jiff::SignedDuration;

use super::challenges::{HOLD_PLAYER, new_id};
use super::rows::{corrupt, rating_from_row, variant};
use super::sql::Sql;
use super::tx::{Arg, Row, Tx};
use super::write::PUZZLE_STANDINGS;
use super::{Store, StoreError, counted};
use crate::bot::puzzle::Theme;
use crate::engine::Variant;
use crate::rating::{Rating, rate_attempt};
use crate::record::{
    AttemptId, AttemptStep, NewPuzzle, Outcome, PlayerId, PlayerStanding, PuzzleId, SteppedAttempt, StoredAttempt,
    StoredPuzzle, VariantRating,
};

/// How many of the easiest puzzles one is picked from, at random, for a caller
/// without a player's token.
const EASIEST: u32 = 50;

/// How far apart in the order of ids the puzzles of two days in a row are:
/// a prime, so that the days go through every puzzle before one comes again
/// (unless the count is a multiple of it).
const DAILY_STRIDE: i64 = 7919;

const PUZZLE_COLUMNS: &str =
    "id, variant, position, solution, theme, source, position_key, rating, deviation, volatility, attempts";

static INSERT_PUZZLE: Sql = Sql::new(
    "INSERT INTO puzzles (variant, position, solution, theme, source, position_key, rating, deviation, \
         volatility) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (variant, position_key) DO NOTHING",
);
static HAS_PUZZLE: Sql =
    Sql::new("SELECT EXISTS (SELECT 1 FROM puzzles WHERE variant = $1 AND position_key = $2) AS found");
static PUZZLE: LazyLock<Sql> =
    LazyLock::new(|| Sql::built(format!("SELECT {PUZZLE_COLUMNS} FROM puzzles WHERE id = $1")));
/// The puzzle of variant `$1` that player `$2` has not tried whose rating is
/// nearest theirs (the start's, before their first).
static NEXT_FOR_PLAYER: LazyLock<Sql> = LazyLock::new(|| {
    Sql::built(format!(
        "SELECT {PUZZLE_COLUMNS} FROM puzzles WHERE variant = $1 AND NOT EXISTS (SELECT 1 FROM puzzle_attempts \
         WHERE puzzle_attempts.player_id = $2 AND puzzle_attempts.puzzle_id = puzzles.id AND puzzle_attempts.rated) \
         ORDER BY abs(rating - coalesce((SELECT rating FROM puzzle_ratings WHERE player_id = $2 AND variant = $1), \
         {START})), id LIMIT 1",
        START = Rating::START.rating
    ))
});
/// One of the easiest puzzles of variant `$1`, at random.
static NEXT_EASY: LazyLock<Sql> = LazyLock::new(|| {
    Sql::built(format!(
        "SELECT {PUZZLE_COLUMNS} FROM (SELECT * FROM puzzles WHERE variant = $1 ORDER BY rating, id \
         LIMIT {EASIEST}) AS easiest ORDER BY random() LIMIT 1"
    ))
});
/// The puzzle of variant `$1` for day `$2`: the puzzles in order of id, a
/// stride at a time.
static DAILY: LazyLock<Sql> = LazyLock::new(|| {
    Sql::built(format!(
        "SELECT {PUZZLE_COLUMNS} FROM puzzles WHERE variant = $1 ORDER BY id LIMIT 1 \
         OFFSET ($2 * {DAILY_STRIDE}) % greatest(1, (SELECT count(*) FROM puzzles WHERE variant = $1))"
    ))
});
static ATTEMPT: Sql =
    Sql::new("SELECT id, puzzle_id, player_id, line, outcome, rated FROM puzzle_attempts WHERE id = $1");
static HAS_RATED_ATTEMPT: Sql = Sql::new(
    "SELECT EXISTS (SELECT 1 FROM puzzle_attempts WHERE player_id = $1 AND puzzle_id = $2 AND rated) AS found",
);
static HAS_RATED_ATTEMPT_OPEN: Sql = Sql::new(
    "SELECT EXISTS (SELECT 1 FROM puzzle_attempts WHERE player_id = $1 AND puzzle_id = $2 AND rated \
     AND outcome IS NULL) AS found",
);
/// Player `$1`'s rated attempts left open at puzzles other than `$2`, with
/// their puzzles' variants.
static ABANDONED_ATTEMPTS: Sql = Sql::new(
    "SELECT puzzle_attempts.id, puzzle_attempts.puzzle_id, puzzle_attempts.line, puzzles.variant \
     FROM puzzle_attempts JOIN puzzles ON puzzles.id = puzzle_attempts.puzzle_id \
     WHERE puzzle_attempts.player_id = $1 AND puzzle_attempts.rated AND puzzle_attempts.outcome IS NULL \
     AND puzzle_attempts.puzzle_id <> $2",
);
static INSERT_ATTEMPT: LazyLock<Sql> = LazyLock::new(|| {
    Sql::insert(
        "INSERT INTO puzzle_attempts (puzzle_id, player_id, line, outcome, rated, started_at, ended_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7)",
    )
});
/// Goes on with attempt `$1` if it still has played `$2` and goes on.
static STEP_ATTEMPT: Sql = Sql::new(
    "UPDATE puzzle_attempts SET line = $3, outcome = $4, ended_at = $5 \
         WHERE id = $1 AND line = $2 AND outcome IS NULL RETURNING rated",
);
static HOLD_PUZZLE_RATING: Sql = Sql::new("SELECT rating, deviation, volatility FROM puzzles WHERE id = $1 FOR UPDATE");
static SET_PUZZLE_RATING: Sql =
    Sql::new("UPDATE puzzles SET rating = $2, deviation = $3, volatility = $4, attempts = attempts + 1 WHERE id = $1");
static SET_ATTEMPT_RATINGS: Sql =
    Sql::new("UPDATE puzzle_attempts SET rating_before = $2, rating_after = $3 WHERE id = $1");

impl Store {
    /// Adds `puzzles`, but those whose position a puzzle of their variant has
    /// already, up to symmetry; answers how many were new.
    pub async fn add_puzzles(&self, puzzles: Vec<NewPuzzle>) -> Result<u64, StoreError> {
        self.wrote(async { run!(self, Write, |tx| add_puzzles(tx, &puzzles)) }).await
    }

    /// Whether a puzzle of `variant` has the position whose key is `position_key`.
    pub(crate) async fn has_puzzle(&self, variant: Variant, position_key: i64) -> Result<bool, StoreError> {
        counted(run!(self, Read, |tx| found(tx, &HAS_PUZZLE, &[variant.code().into(), position_key.into()])))
    }

    /// The puzzle with `id`, if there is one.
    pub async fn puzzle(&self, id: PuzzleId) -> Result<Option<StoredPuzzle>, StoreError> {
        counted(run!(self, Read, |tx| tx.row(&PUZZLE, &[id.into()], puzzle_from_row)))
    }

    /// A puzzle of `variant` to try next: for `player`, the one they have not
    /// tried whose rating is nearest their puzzle rating; for nobody, one of
    /// the [`EASIEST`] at random. None when there is none left.
    pub(crate) async fn next_puzzle(
        &self,
        variant: Variant,
        player: Option<PlayerId>,
    ) -> Result<Option<StoredPuzzle>, StoreError> {
        let (next, args) = match player {
            Some(player) => (&*NEXT_FOR_PLAYER, vec![variant.code().into(), player.into()]),
            None => (&*NEXT_EASY, vec![variant.code().into()]),
        };
        counted(run!(self, Read, |tx| tx.row(next, &args, puzzle_from_row)))
    }

    /// The puzzle of `variant` for day `day` (days since 1970-01-01, UTC):
    /// the same on every instance that shares the database.
    pub(crate) async fn daily_puzzle(&self, variant: Variant, day: i64) -> Result<Option<StoredPuzzle>, StoreError> {
        counted(run!(self, Read, |tx| tx.row(&DAILY, &[variant.code().into(), day.into()], puzzle_from_row)))
    }

    /// Player `id`'s puzzle ratings, in the variants they made rated attempts in.
    pub async fn puzzle_ratings(&self, id: PlayerId) -> Result<Vec<VariantRating>, StoreError> {
        counted(run!(self, Read, |tx| PUZZLE_STANDINGS.every(tx, id)))
    }

    /// The attempt with `id`, if there is one.
    pub async fn attempt(&self, id: AttemptId) -> Result<Option<StoredAttempt>, StoreError> {
        counted(run!(self, Read, |tx| attempt(tx, id)))
    }

    /// Writes `step`: a new attempt (rated when it is its player's first at the
    /// puzzle), or the next step of one as it was read, and rates a rated one's
    /// end; `None`, writing nothing, when the attempt moved on since it was read.
    pub(crate) async fn step_attempt(&self, step: AttemptStep) -> Result<Option<SteppedAttempt>, StoreError> {
        let period = self.rating_period();
        self.wrote(async { run!(self, Write, |tx| step_attempt(tx, &step, period)) }).await
    }
}

async fn add_puzzles(tx: &mut impl Tx, puzzles: &[NewPuzzle]) -> Result<u64, StoreError> {
    let mut added = 0;
    for new in puzzles {
        let args = [
            new.variant.code().into(),
            new.position.as_str().into(),
            new.solution.as_str().into(),
            new.theme.code().into(),
            new.source.as_str().into(),
            new.position_key.into(),
            new.rating.rating.into(),
            new.rating.deviation.into(),
            new.rating.volatility.into(),
        ];
        added += tx.execute(&INSERT_PUZZLE, &args).await?;
    }
    Ok(added)
}

/// Whether `statement`, an `EXISTS` named `found`, finds anything with `args`.
async fn found(tx: &mut impl Tx, statement: &'static Sql, args: &[Arg<'_>]) -> Result<bool, StoreError> {
    let found = tx.row(statement, args, |row| row.get("found")).await?;
    found.ok_or_else(|| StoreError::Other("EXISTS without a row".into()))
}

/// The puzzle in `row`, read with [`PUZZLE_COLUMNS`].
fn puzzle_from_row(row: &Row<'_>) -> Result<StoredPuzzle, StoreError> {
    let theme: String = row.get("theme")?;
    let puzzle = NewPuzzle {
        variant: variant(&row.get::<String>("variant")?)?,
        position: row.get("position")?,
        solution: row.get("solution")?,
        theme: Theme::of_code(&theme).ok_or_else(|| corrupt("theme", &theme))?,
        source: row.get("source")?,
        position_key: row.get("position_key")?,
        rating: rating_from_row(row, "")?,
    };
    Ok(StoredPuzzle { id: row.get("id")?, puzzle, attempts: row.get("attempts")? })
}

async fn attempt(tx: &mut impl Tx, id: AttemptId) -> Result<Option<StoredAttempt>, StoreError> {
    let read = |row: &Row<'_>| {
        let outcome = row
            .get::<Option<String>>("outcome")?
            .map(|text| Outcome::ALL.into_iter().find(|o| o.code() == text).ok_or_else(|| corrupt("outcome", &text)))
            .transpose()?;
        Ok(StoredAttempt {
            id: row.get("id")?,
            puzzle: row.get("puzzle_id")?,
            player: row.get("player_id")?,
            line: row.get("line")?,
            outcome,
            rated: row.get("rated")?,
        })
    };
    tx.row(&ATTEMPT, &[id.into()], read).await
}

/// Writes `step`, and rates a rated attempt that it ends; `None` when the
/// attempt had moved on or ended since it was read. A player's new attempt
/// first fails their rated attempts left open at other puzzles: a rated
/// attempt is never left unfinished to dodge its loss.
async fn step_attempt(
    tx: &mut impl Tx,
    step: &AttemptStep,
    period: SignedDuration,
) -> Result<Option<SteppedAttempt>, StoreError> {
    if let Some(player) = step.player {
        tx.hold(&HOLD_PLAYER, &[player.into()]).await?;
        if step.attempt.is_none() {
            fail_abandoned(tx, player, step, period).await?;
        }
    }
    let Some((id, rated)) = write_step(tx, step).await? else { return Ok(None) };
    let rating_change = match (step.outcome, step.player) {
        (Some(outcome), Some(player)) if rated => Some(rate(tx, id, step, player, outcome, period).await?),
        _ => None,
    };
    // A solution shows once its attempt is over: only the step that ends one asks.
    let solution_withheld = match step.player {
        Some(player) if !rated && step.outcome.is_some() => {
            found(tx, &HAS_RATED_ATTEMPT_OPEN, &[player.into(), step.puzzle.into()]).await?
        }
        _ => false,
    };
    Ok(Some(SteppedAttempt { id, rated, rating_change, solution_withheld }))
}

/// Fails and rates `player`'s rated attempts left open at puzzles other than
/// `step`'s, as of `step`.
async fn fail_abandoned(
    tx: &mut impl Tx,
    player: PlayerId,
    step: &AttemptStep,
    period: SignedDuration,
) -> Result<(), StoreError> {
    let read = |row: &Row<'_>| {
        let line: String = row.get("line")?;
        Ok(AttemptStep {
            attempt: Some((row.get("id")?, line.clone())),
            puzzle: row.get("puzzle_id")?,
            variant: variant(&row.get::<String>("variant")?)?,
            player: Some(player),
            line,
            outcome: Some(Outcome::Failed),
            at: step.at,
        })
    };
    for abandoned in tx.rows(&ABANDONED_ATTEMPTS, &[player.into(), step.puzzle.into()], read).await? {
        if let Some((id, true)) = write_step(tx, &abandoned).await? {
            rate(tx, id, &abandoned, player, Outcome::Failed, period).await?;
        }
    }
    Ok(())
}

/// Writes `step`, a new attempt or the next step of one as it was read;
/// answers the attempt and whether it is rated, or `None` when it had moved on.
async fn write_step(tx: &mut impl Tx, step: &AttemptStep) -> Result<Option<(AttemptId, bool)>, StoreError> {
    let (outcome, ended_at) = (step.outcome.map(Outcome::code), step.outcome.map(|_| step.at));
    let (id, rated) = match &step.attempt {
        None => {
            let rated = match step.player {
                Some(player) => !found(tx, &HAS_RATED_ATTEMPT, &[player.into(), step.puzzle.into()]).await?,
                None => false,
            };
            let args = [
                step.puzzle.into(),
                step.player.into(),
                step.line.as_str().into(),
                outcome.into(),
                rated.into(),
                step.at.into(),
                ended_at.into(),
            ];
            (AttemptId::new(new_id(tx.insert(&INSERT_ATTEMPT, &args).await?)?), rated)
        }
        Some((id, line)) => {
            let args = [(*id).into(), line.as_str().into(), step.line.as_str().into(), outcome.into(), ended_at.into()];
            let Some(rated) = tx.row(&STEP_ATTEMPT, &args, |row| row.get("rated")).await? else { return Ok(None) };
            (*id, rated)
        }
    };
    Ok(Some((id, rated)))
}

/// Rates attempt `id` of `player`, which ended with `outcome`: their puzzle
/// rating and the puzzle's; answers the player's before and after.
async fn rate(
    tx: &mut impl Tx,
    id: AttemptId,
    step: &AttemptStep,
    player: PlayerId,
    outcome: Outcome,
    period: SignedDuration,
) -> Result<(Rating, Rating), StoreError> {
    let standing = PUZZLE_STANDINGS.of(tx, player, step.variant).await?;
    // On PostgreSQL the puzzle's row is held until the rating is written.
    let puzzle = tx.row(&HOLD_PUZZLE_RATING, &[step.puzzle.into()], |row| rating_from_row(row, "")).await?;
    let puzzle = puzzle.ok_or_else(|| corrupt("puzzle", &step.puzzle.to_string()))?;
    let (after, puzzle_after) = rate_attempt(&standing, puzzle, outcome == Outcome::Solved, step.at, period);
    let (before, rating) = (standing.at(step.at, period), after.rating);
    PUZZLE_STANDINGS.set(tx, &PlayerStanding { player, variant: step.variant, standing: after }).await?;
    let args =
        [step.puzzle.into(), puzzle_after.rating.into(), puzzle_after.deviation.into(), puzzle_after.volatility.into()];
    tx.execute(&SET_PUZZLE_RATING, &args).await?;
    tx.execute(&SET_ATTEMPT_RATINGS, &[id.into(), before.rating.into(), rating.rating.into()]).await?;
    Ok((before, rating))
}
