//! Puzzles: those that ship with the server, added to a database that does
//! not hold them yet; serving them (by id, for a player, for the day); an
//! attempt at one, step by step, answered with the solution's reply; and the
//! puzzles found in the games a database holds (`qttt puzzles generate
//! --from-database`).

use std::collections::HashSet;

use jiff::Timestamp;

use super::copy::every_id;
use super::{Error, GameRecord, GameService};
use crate::bot::Solver;
use crate::bot::puzzle::{self, Puzzle, Step};
use crate::engine::{Action, Game, LogEntry, Variant};
use crate::error::Fault;
use crate::rating::Rating;
use crate::record::{
    AttemptId, AttemptStep, Holder, NewPuzzle, Outcome, PlayerId, PuzzleId, Status, SteppedAttempt, StoredAttempt,
    StoredPuzzle,
};
use crate::store::Store;

/// Up to `count` puzzles among the positions of the finished games of
/// `variant` in `store`, oldest games first, none the same up to symmetry as a
/// position in `seen`, which gains every position tried.
///
/// # Errors
/// Database failures; a game that does not replay.
pub async fn puzzles_in_games(
    store: &Store,
    variant: Variant,
    count: usize,
    seen: &mut HashSet<u64>,
) -> Result<Vec<Puzzle>, Error> {
    let mut solver = Solver::default();
    let mut found = Vec::new();
    for id in every_id(store).await? {
        if found.len() >= count {
            break;
        }
        let stored = store.load_game(id).await?;
        if stored.variant != variant || stored.summary.status != Status::Finished {
            continue;
        }
        // Only the game's state is looked at: no clock runs, nor any first move's time.
        let record = GameRecord::replay(stored, Timestamp::UNIX_EPOCH, super::DEFAULT_FIRST_MOVE)?;
        found.extend(puzzle::find_in_game(&record.game, &format!("game {id}"), seen, &mut solver));
    }
    found.truncate(count);
    Ok(found)
}

/// A puzzle as the service serves it: read back from its row.
#[derive(Debug, Clone, PartialEq)]
pub struct ServedPuzzle {
    /// Its id.
    pub id: PuzzleId,
    /// The puzzle.
    pub puzzle: Puzzle,
    /// Its rating now.
    pub rating: Rating,
    /// How many rated attempts the rating counts.
    pub attempts: i64,
}

/// What a step of an attempt did.
#[derive(Debug, Clone, PartialEq)]
pub struct Attempted {
    /// The attempt.
    pub id: AttemptId,
    /// Its puzzle.
    pub puzzle: ServedPuzzle,
    /// The attempt's game after the step: the action, and the reply to a right one.
    pub game: Game,
    /// Whether the action was the solution's, up to symmetry.
    pub correct: bool,
    /// The other side's defence and the measurements after a right action.
    pub reply: Vec<LogEntry>,
    /// How the attempt ended, if this step ended it.
    pub outcome: Option<Outcome>,
    /// Whether the attempt counts for the ratings.
    pub rated: bool,
    /// A rated attempt's player's puzzle rating before it and after, once it ended.
    pub rating_change: Option<(Rating, Rating)>,
    /// Whether its solution is kept from its player, whose rated attempt at
    /// the puzzle is open.
    pub solution_withheld: bool,
}

/// `puzzle` as the store adds it, rated at first as hard as the perfect player found it.
fn new_puzzle(puzzle: &Puzzle) -> NewPuzzle {
    let (position, solution) = puzzle.transcripts();
    NewPuzzle {
        variant: puzzle.position.variant(),
        position,
        solution,
        theme: puzzle.theme,
        source: puzzle.source.clone(),
        position_key: position_key(puzzle),
        rating: Rating { rating: puzzle.rating, ..Rating::START },
    }
}

/// Adds the puzzles that ship with the server to `store`, for each variant
/// whose set is not there yet, so that a new server has puzzles at once;
/// answers how many. A set is added in one write, so its last puzzle tells
/// whether it is there.
///
/// # Errors
/// Database failures.
pub async fn add_shipped_puzzles(store: &Store) -> Result<u64, Error> {
    let unread = |error| Error::Internal(Fault::new(format!("a shipped puzzle does not read: {error}")));
    let mut added = 0;
    for variant in Variant::ALL {
        // The set is read only when it is to be added: a start reads one line.
        let Some(last) = puzzle::last_shipped(variant).map_err(unread)? else { continue };
        if !store.has_puzzle(variant, position_key(&last)).await? {
            added += add_puzzles(store, &puzzle::shipped(variant).map_err(unread)?).await?;
        }
    }
    Ok(added)
}

/// The key of `puzzle`'s position up to symmetry, as the store keeps it.
fn position_key(puzzle: &Puzzle) -> i64 {
    i64::try_from(puzzle.key()).expect("nine base-91 digits fit in 63 bits")
}

/// Adds `puzzles` to `store`, but those whose position a puzzle of their
/// variant has already, up to symmetry; answers how many were new.
///
/// # Errors
/// Database failures.
pub async fn add_puzzles(store: &Store, puzzles: &[Puzzle]) -> Result<u64, Error> {
    Ok(store.add_puzzles(puzzles.iter().map(new_puzzle).collect()).await?)
}

impl GameService {
    /// The puzzle with `id`.
    ///
    /// # Errors
    /// [`Error::NotFound`]; database failures.
    pub async fn puzzle(&self, id: PuzzleId) -> Result<ServedPuzzle, Error> {
        served(self.store.puzzle(id).await?.ok_or_else(|| Error::NotFound(format!("there is no puzzle {id}")))?)
    }

    /// A puzzle of `variant` to try: for `player`, one they have not tried,
    /// rated nearest their puzzle rating; else one of the easiest.
    ///
    /// # Errors
    /// [`Error::NotFound`] when the player has tried every one; database failures.
    pub(crate) async fn next_puzzle(&self, variant: Variant, player: Option<&Holder>) -> Result<ServedPuzzle, Error> {
        let next = self.store.next_puzzle(variant, player.map(|player| player.id)).await?;
        served(next.ok_or_else(|| Error::NotFound(format!("no puzzle of {} is left to try", variant.code())))?)
    }

    /// Today's puzzle of `variant`, by the UTC date: the same on every instance.
    ///
    /// # Errors
    /// [`Error::NotFound`] when there is no puzzle; database failures.
    pub(crate) async fn daily_puzzle(&self, variant: Variant) -> Result<ServedPuzzle, Error> {
        let day = self.now().as_second().div_euclid(SECONDS_A_DAY);
        let daily = self.store.daily_puzzle(variant, day).await?;
        served(daily.ok_or_else(|| Error::NotFound(format!("there is no puzzle of {}", variant.code())))?)
    }

    /// Starts an attempt at puzzle `id` with `action`, `player`'s when a player
    /// makes it (their first at the puzzle is rated).
    ///
    /// # Errors
    /// [`Error::NotFound`]; [`Error::Rule`] for an action the rules refuse;
    /// database failures.
    pub(crate) async fn attempt_puzzle(
        &self,
        id: PuzzleId,
        player: Option<&Holder>,
        action: Action,
    ) -> Result<Attempted, Error> {
        let puzzle = self.puzzle(id).await?;
        self.step(puzzle, None, player.map(|player| player.id), action).await
    }

    /// Goes on with attempt `attempt` at puzzle `id` with `action`, by
    /// `player`: the attempt's own player, or anybody for an attempt without one.
    ///
    /// # Errors
    /// [`Error::NotFound`]; [`Error::Forbidden`] for another player's attempt;
    /// [`Error::NotOpen`] once it ended; [`Error::Rule`] for an action the
    /// rules refuse; [`Error::Conflict`] when another step landed first;
    /// database failures.
    pub(crate) async fn continue_attempt(
        &self,
        id: PuzzleId,
        attempt: AttemptId,
        player: Option<&Holder>,
        action: Action,
    ) -> Result<Attempted, Error> {
        let stored = self.store.attempt(attempt).await?.filter(|stored| stored.puzzle == id);
        let stored = stored.ok_or_else(|| Error::NotFound(format!("puzzle {id} has no attempt {attempt}")))?;
        if stored.player.is_some() && stored.player != player.map(|player| player.id) {
            return Err(Error::Forbidden(format!("attempt {attempt} is another player's: send their token")));
        }
        if let Some(outcome) = stored.outcome {
            return Err(Error::NotOpen(format!("attempt {attempt} is over: {}", outcome.code())));
        }
        let puzzle = self.puzzle(id).await?;
        let player = stored.player;
        self.step(puzzle, Some(stored), player, action).await
    }

    /// Plays `action` in `stored`, an attempt at `puzzle` by `player` (a new
    /// one when none), and writes the step.
    async fn step(
        &self,
        puzzle: ServedPuzzle,
        stored: Option<StoredAttempt>,
        player: Option<PlayerId>,
        action: Action,
    ) -> Result<Attempted, Error> {
        let line = stored.as_ref().map_or("", |stored| stored.line.as_str());
        let game = puzzle.puzzle.attempt(line).map_err(|reason| corrupt(puzzle.id, &reason))?;
        let (game, step) = puzzle.puzzle.step(&game, action)?;
        let (correct, reply, outcome) = match step {
            Step::Wrong => (false, Vec::new(), Some(Outcome::Failed)),
            Step::Right { reply, solved } => (true, reply, solved.then_some(Outcome::Solved)),
        };
        let step = AttemptStep {
            attempt: stored.map(|stored| (stored.id, stored.line)),
            puzzle: puzzle.id,
            variant: puzzle.puzzle.position.variant(),
            player,
            line: puzzle.puzzle.line_of(&game),
            outcome,
            at: self.now(),
        };
        let written = self.store.step_attempt(step).await?.ok_or_else(|| Error::Conflict {
            detail: "another action of this attempt landed first".into(),
            current_version: None,
        })?;
        let SteppedAttempt { id, rated, rating_change, solution_withheld } = written;
        Ok(Attempted { id, puzzle, game, correct, reply, outcome, rated, rating_change, solution_withheld })
    }
}

const SECONDS_A_DAY: i64 = 24 * 60 * 60;

/// The puzzle of `stored`, read back.
fn served(stored: StoredPuzzle) -> Result<ServedPuzzle, Error> {
    let StoredPuzzle { id, puzzle: new, attempts } = stored;
    let (variant, rating) = (new.variant, new.rating.rating);
    let puzzle = Puzzle::from_transcripts(variant, &new.position, &new.solution, new.theme, rating, &new.source)
        .map_err(|reason| corrupt(id, &reason))?;
    Ok(ServedPuzzle { id, puzzle, rating: new.rating, attempts })
}

/// The fault of puzzle `id`'s row, which does not read for `reason`.
fn corrupt(id: PuzzleId, reason: &str) -> Error {
    Error::Internal(Fault::new(format!("puzzle {id} does not read: {reason}")))
}
