//! The rules an action can break, each with a stable code for clients.

use std::fmt;

/// An illegal action. A rejected action leaves the game exactly as it was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RuleError {
    /// Both marks of a move in one square, outside the last-square move.
    SameSquareTwice,
    /// A square outside 0-8.
    SquareOutOfRange,
    /// A mark in a square that already holds a classical mark.
    SquareIsClassical,
    /// A move by the player who is not to move.
    NotYourTurn,
    /// A move while a collapse choice is pending.
    CollapsePending,
    /// A collapse choice when no cycle waits to be collapsed.
    NoCollapsePending,
    /// A collapse choice by anyone but the chooser.
    NotTheChooser,
    /// A collapse choice naming a move that is not on the cycle.
    MoveNotInCycle,
    /// A collapse choice naming a square that is not one of the move's two.
    SquareNotInMove,
    /// Any action after the game ended.
    GameOver,
}

impl RuleError {
    /// Every rule error, for documentation and exhaustive tests.
    pub const ALL: [RuleError; 10] = [
        RuleError::SameSquareTwice,
        RuleError::SquareOutOfRange,
        RuleError::SquareIsClassical,
        RuleError::NotYourTurn,
        RuleError::CollapsePending,
        RuleError::NoCollapsePending,
        RuleError::NotTheChooser,
        RuleError::MoveNotInCycle,
        RuleError::SquareNotInMove,
        RuleError::GameOver,
    ];

    /// The stable code that names the broken rule, as clients see it.
    pub fn code(self) -> &'static str {
        match self {
            RuleError::SameSquareTwice => "same_square_twice",
            RuleError::SquareOutOfRange => "square_out_of_range",
            RuleError::SquareIsClassical => "square_is_classical",
            RuleError::NotYourTurn => "not_your_turn",
            RuleError::CollapsePending => "collapse_pending",
            RuleError::NoCollapsePending => "no_collapse_pending",
            RuleError::NotTheChooser => "not_the_chooser",
            RuleError::MoveNotInCycle => "move_not_in_cycle",
            RuleError::SquareNotInMove => "square_not_in_move",
            RuleError::GameOver => "game_over",
        }
    }
}

impl fmt::Display for RuleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let message = match self {
            RuleError::SameSquareTwice => {
                "a move puts its two marks in two different squares; both in one square is allowed only for the last open square"
            }
            RuleError::SquareOutOfRange => "squares are numbered 0 to 8",
            RuleError::SquareIsClassical => "that square already holds a classical mark",
            RuleError::NotYourTurn => "it is not your turn",
            RuleError::CollapsePending => "a cycle must be collapsed before the next move",
            RuleError::NoCollapsePending => "there is no cycle to collapse",
            RuleError::NotTheChooser => "only the player who did not close the cycle chooses its collapse",
            RuleError::MoveNotInCycle => "that move is not on the cycle",
            RuleError::SquareNotInMove => "that square is not one of the move's two squares",
            RuleError::GameOver => "the game is over",
        };
        f.write_str(message)
    }
}

impl std::error::Error for RuleError {}
