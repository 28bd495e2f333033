//! Puzzles as a client sees them: the position drawn as a game's, and an
//! attempt's step with its reply and, once it is over, the solution.

use serde::Serialize;
use utoipa::ToSchema;

use super::{
    ActionView, ActorName, CellView, CollapseView, LineView, MoveView, PlayerName, ScoreView, ScoringName, ToAct,
    VariantName, board_of,
};
use crate::bot::puzzle::{Puzzle, Theme};
use crate::engine::{Actor, Game, LogEntry, notation};
use crate::record::{AttemptId, Outcome, PuzzleId};
use crate::service::{Attempted, ServedPuzzle};

/// A puzzle: a position in which one action, up to the board's symmetries,
/// is worth at least half a point more than every other. Its solution is shown
/// once an attempt at it is over.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct PuzzleView {
    /// The puzzle's id.
    #[schema(value_type = i64)]
    pub id: PuzzleId,
    /// How cycles collapse.
    pub variant: VariantName,
    /// How lines score in its position: the puzzles are Goff's, `goff`.
    pub scoring: ScoringName,
    /// What the solution turns on.
    pub theme: ThemeName,
    /// The side to find the action for.
    pub player: PlayerName,
    /// Its puzzle rating (Glicko-2): at first how hard the perfect player finds
    /// it (how many actions to choose from, how little the wrong ones lose,
    /// how long the solution is), then as its attempts make it.
    pub rating: f64,
    /// How many rated attempts the rating counts.
    pub attempts: i64,
    /// Where the position came from, in words.
    pub source: String,
    /// The position as a transcript in the server's notation.
    pub transcript: String,
    /// The position, drawn as a game is.
    pub position: PositionView,
}

/// A position, with the fields of a game's view that draw it, and the legal actions.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct PositionView {
    /// The nine squares, 0-8 row-major from the top-left.
    #[schema(min_items = 9, max_items = 9)]
    pub board: Vec<CellView>,
    /// Who acts now and how; null once the game is over.
    #[schema(required = true)]
    pub to_act: Option<ToAct>,
    /// The closed cycle waiting for the chooser's decision, or null.
    #[schema(required = true)]
    pub pending_collapse: Option<CollapseView>,
    /// Every collapse so far, in order.
    pub collapses: Vec<CollapseView>,
    /// Each player's points.
    pub score: ScoreView,
    /// Every completed line.
    pub lines: Vec<LineView>,
    /// Every move placed, in order.
    pub moves: Vec<MoveView>,
    /// Every action the side to act may take; none once the game is over.
    #[schema(max_items = 36)]
    pub legal_actions: Vec<ActionView>,
}

/// What a puzzle's solution turns on.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum ThemeName {
    /// It ends with two lines of the puzzle's side.
    DoubleLine,
    /// Its first action is a collapse choice.
    CollapseChoice,
    /// Its first action is a move that closes a cycle.
    ClosingCycle,
    /// It reaches the last-square move.
    LastSquare,
    /// None of the above.
    Quiet,
}

/// A step of an attempt at a puzzle.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct AttemptView {
    /// The attempt's id: post its next action to `/puzzles/{id}/attempts/{attempt}`.
    #[schema(value_type = i64)]
    pub id: AttemptId,
    /// The puzzle's id.
    #[schema(value_type = i64)]
    pub puzzle_id: PuzzleId,
    /// Whether the action was the solution's (or its mirror image, in a
    /// symmetric position).
    pub correct: bool,
    /// `ongoing` after a right action that is not the last; `solved` after the
    /// last; `failed` after a wrong one.
    pub status: AttemptStatus,
    /// The answer to a right action: the other side's best defence and the
    /// measurements, in order, up to your next turn; empty otherwise.
    pub reply: Vec<ReplyStepView>,
    /// The position after the action and the reply.
    pub position: PositionView,
    /// The solution from the puzzle's position, every action of both sides,
    /// once the attempt is over; null while it goes on, and for a player's
    /// unrated attempt while their rated attempt at the puzzle is open.
    #[schema(required = true)]
    pub solution: Option<Vec<SolutionStepView>>,
    /// Whether the attempt counts for the puzzle ratings: a player's first at the puzzle.
    pub rated: bool,
    /// A rated attempt's change of its player's puzzle rating, once it is
    /// over; null before and for an attempt that is not rated.
    #[schema(required = true)]
    pub rating: Option<PuzzleRatingChange>,
}

/// Where an attempt is.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum AttemptStatus {
    /// It waits for the next action.
    Ongoing,
    /// Every action was the solution's.
    Solved,
    /// An action was not.
    Failed,
}

/// An action of a reply, and who took it.
#[derive(Debug, Serialize, ToSchema)]
pub struct ReplyStepView {
    /// A player, or the measurement.
    pub actor: ActorName,
    /// The action.
    pub action: ActionView,
}

/// An action of a solution, who took it, and the position it leaves: a page
/// steps through the solution on the board.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct SolutionStepView {
    /// A player, or the measurement.
    pub actor: ActorName,
    /// The action.
    pub action: ActionView,
    /// The position right after it.
    pub position: PositionView,
}

/// What a rated attempt did to its player's puzzle rating.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct PuzzleRatingChange {
    /// The rating before the attempt.
    pub rating_before: f64,
    /// The rating after it.
    pub rating_after: f64,
    /// `rating_after - rating_before`: positive for a solved puzzle, negative for a failed one.
    pub rating_diff: f64,
    /// The deviation after it.
    pub deviation: f64,
}

impl From<Theme> for ThemeName {
    fn from(theme: Theme) -> ThemeName {
        match theme {
            Theme::DoubleLine => ThemeName::DoubleLine,
            Theme::CollapseChoice => ThemeName::CollapseChoice,
            Theme::ClosingCycle => ThemeName::ClosingCycle,
            Theme::LastSquare => ThemeName::LastSquare,
            Theme::Quiet => ThemeName::Quiet,
        }
    }
}

impl From<&Game> for PositionView {
    fn from(game: &Game) -> PositionView {
        let to_act = match game.actor_to_act() {
            Some(Actor::Player(player)) => Some(ToAct::of(game, player)),
            Some(Actor::Measurement) | None => None,
        };
        PositionView {
            board: board_of(game, game.is_over()),
            to_act,
            pending_collapse: game.pending_collapse().map(CollapseView::from),
            collapses: game.collapses().iter().map(CollapseView::from).collect(),
            score: ScoreView { x: game.score().x.as_f64(), o: game.score().o.as_f64() },
            lines: game.lines().iter().map(LineView::from).collect(),
            moves: game.moves().iter().map(MoveView::from).collect(),
            legal_actions: game.legal_actions().into_iter().map(ActionView::from).collect(),
        }
    }
}

impl From<&ServedPuzzle> for PuzzleView {
    fn from(served: &ServedPuzzle) -> PuzzleView {
        let puzzle = &served.puzzle;
        PuzzleView {
            id: served.id,
            variant: puzzle.position.variant().into(),
            scoring: puzzle.position.scoring().into(),
            theme: puzzle.theme.into(),
            player: puzzle.player().into(),
            rating: served.rating.rating,
            attempts: served.attempts,
            source: puzzle.source.clone(),
            transcript: notation::write(&puzzle.position),
            position: PositionView::from(&puzzle.position),
        }
    }
}

impl From<&LogEntry> for ReplyStepView {
    fn from(entry: &LogEntry) -> ReplyStepView {
        ReplyStepView { actor: entry.actor.into(), action: entry.action.into() }
    }
}

/// The steps of `puzzle`'s solution, each with the position it leaves.
fn solution_of(puzzle: &Puzzle) -> Vec<SolutionStepView> {
    let steps = puzzle.solution.iter().zip(puzzle.solution_positions());
    steps
        .map(|(entry, after)| SolutionStepView {
            actor: entry.actor.into(),
            action: entry.action.into(),
            position: PositionView::from(&after),
        })
        .collect()
}

impl From<&Attempted> for AttemptView {
    fn from(attempted: &Attempted) -> AttemptView {
        let status = match attempted.outcome {
            None => AttemptStatus::Ongoing,
            Some(Outcome::Solved) => AttemptStatus::Solved,
            Some(Outcome::Failed) => AttemptStatus::Failed,
        };
        AttemptView {
            id: attempted.id,
            puzzle_id: attempted.puzzle.id,
            correct: attempted.correct,
            status,
            reply: attempted.reply.iter().map(ReplyStepView::from).collect(),
            position: PositionView::from(&attempted.game),
            solution: attempted
                .outcome
                .filter(|_| !attempted.solution_withheld)
                .map(|_| solution_of(&attempted.puzzle.puzzle)),
            rated: attempted.rated,
            rating: attempted.rating_change.map(|(before, after)| PuzzleRatingChange {
                rating_before: before.rating,
                rating_after: after.rating,
                rating_diff: after.rating - before.rating,
                deviation: after.deviation,
            }),
        }
    }
}
