//! What the perfect player's search answers: a position's value and its best
//! action, and the number each action goes by. Below the search and the opening
//! book, which both speak them.

use crate::engine::{Action, Game, MAX_MOVES};

/// What a position is worth to X: compared by `points` first, then by `haste`.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd)]
pub struct Value {
    /// The final score difference X minus O, in points; in the measurement variant
    /// its expectation.
    pub points: f64,
    /// How much sooner the game ends than it could, signed for the winner: positive
    /// when X wins, so that X prefers a quick win and O a slow loss.
    pub haste: f64,
}

impl Value {
    pub(super) const LOWEST: Value = Value { points: f64::NEG_INFINITY, haste: 0.0 };
    pub(super) const HIGHEST: Value = Value { points: f64::INFINITY, haste: 0.0 };
    /// The worst end for X: O a point ahead, as soon as possible.
    pub(super) const WORST: Value = Value { points: -1.0, haste: -(MAX_MOVES as f64 + 1.0) };
    /// The best end for X: two points ahead, as soon as possible.
    pub(super) const BEST: Value = Value { points: 2.0, haste: MAX_MOVES as f64 + 1.0 };

    /// The value of a finished game.
    pub(super) fn of_finished(game: &Game) -> Value {
        let score = game.score();
        let points = score.x.as_f64() - score.o.as_f64();
        let moves_saved = f64::from(MAX_MOVES + 1) - game.moves().len() as f64;
        // Zero for a draw: `f64::signum` would call 0.0 positive.
        let sign = if points > 0.0 {
            1.0
        } else if points < 0.0 {
            -1.0
        } else {
            0.0
        };
        Value { points, haste: sign * moves_saved }
    }

    /// `2 self - other`: what a second outcome must be worth for the mean of the two
    /// to be `self`.
    pub(super) fn twice_minus(self, other: Value) -> Value {
        Value { points: 2.0 * self.points - other.points, haste: 2.0 * self.haste - other.haste }
    }

    pub(super) fn mean(self, other: Value) -> Value {
        Value { points: (self.points + other.points) / 2.0, haste: (self.haste + other.haste) / 2.0 }
    }

    pub(super) fn max(self, other: Value) -> Value {
        if other > self { other } else { self }
    }

    pub(super) fn min(self, other: Value) -> Value {
        if other < self { other } else { self }
    }
}

/// The best action of a position and what it is worth.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Solution {
    /// An action that reaches `value`.
    pub action: Action,
    /// What the position is worth with perfect play from here.
    pub value: Value,
}

/// One number per action of any position: a move by its two squares, a collapse
/// choice by its square. The history heuristic and the opening book both use it.
pub(super) const ACTION_CODES: usize = 81 + 9;

pub(super) fn action_code(action: Action) -> usize {
    match action {
        Action::Move { squares: [a, b] } => a.index() * 9 + b.index(),
        Action::Collapse { square, .. } => 81 + square.index(),
    }
}
