//! The words of puzzles: a puzzle as the store keeps it, and an attempt at one,
//! step by step. Pure, as the rest of the record.

use jiff::Timestamp;

use super::{AttemptId, PlayerId, PuzzleId};
use crate::bot::puzzle::Theme;
use crate::engine::Variant;
use crate::rating::Rating;

/// A puzzle before the database gives it an id: its transcripts as
/// [`crate::bot::puzzle::Puzzle::from_transcripts`] reads them.
#[derive(Debug, Clone, PartialEq)]
pub struct NewPuzzle {
    /// Its variant.
    pub variant: Variant,
    /// The position, as a transcript.
    pub position: String,
    /// The solution, as the transcript that goes on from the position.
    pub solution: String,
    /// What the solution turns on.
    pub theme: Theme,
    /// Where the position came from, in words.
    pub source: String,
    /// The position's key up to symmetry: one puzzle per key and variant.
    pub position_key: i64,
    /// Its first rating.
    pub rating: Rating,
}

/// A puzzle as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredPuzzle {
    /// Its id.
    pub id: PuzzleId,
    /// What it holds.
    pub puzzle: NewPuzzle,
    /// How many rated attempts its rating counts.
    pub attempts: i64,
}

/// How an attempt at a puzzle ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Every action of the solution was played: a win against the puzzle.
    Solved,
    /// An action was not the solution's: a loss.
    Failed,
}

impl Outcome {
    /// Both outcomes.
    pub const ALL: [Outcome; 2] = [Outcome::Solved, Outcome::Failed];

    /// The name used in the database and the API.
    pub fn code(self) -> &'static str {
        match self {
            Outcome::Solved => "solved",
            Outcome::Failed => "failed",
        }
    }
}

/// An attempt at a puzzle as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredAttempt {
    /// Its id.
    pub id: AttemptId,
    /// The puzzle.
    pub puzzle: PuzzleId,
    /// Who made it: none without a player's token.
    pub player: Option<PlayerId>,
    /// What it played from the position, as a transcript.
    pub line: String,
    /// How it ended; none while it goes on.
    pub outcome: Option<Outcome>,
    /// Whether it counts for the ratings: its player's first at the puzzle.
    pub rated: bool,
}

/// One step of an attempt to write: a new attempt's first, or the next of one
/// that goes on, as it was read.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct AttemptStep {
    /// The attempt to go on with, at the line it was read with; none for a new one.
    pub attempt: Option<(AttemptId, String)>,
    /// The puzzle.
    pub puzzle: PuzzleId,
    /// Its variant, whose puzzle rating a rated end changes.
    pub variant: Variant,
    /// Who makes it.
    pub player: Option<PlayerId>,
    /// What it has played after this step.
    pub line: String,
    /// How it ended, if this step ends it.
    pub outcome: Option<Outcome>,
    /// When.
    pub at: Timestamp,
}

/// What a step written did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct SteppedAttempt {
    /// The attempt's id.
    pub id: AttemptId,
    /// Whether it counts for the ratings.
    pub rated: bool,
    /// A rated attempt's player's puzzle rating before it and after, once it ended.
    pub rating_change: Option<(Rating, Rating)>,
    /// Whether its solution is kept from its player: an unrated attempt of
    /// theirs that the step ended while their rated attempt at the puzzle is open.
    pub solution_withheld: bool,
}
