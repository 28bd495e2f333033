//! The words of a game's log: the rules, who acts, what they do, and a move
//! once placed. Below the game and the parts of the rules it calls.

use super::board::{MoveNumber, Player, Square};
use super::scoring::Scoring;

/// Who decides how a closed cycle collapses. Chosen per game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Variant {
    /// Goff's rule: the player who did not close the cycle chooses the outcome.
    PlayerChoice,
    /// The original app's rule: a simulated quantum measurement picks the outcome
    /// right after the closing move, each with probability 1/2.
    Measurement,
}

impl Variant {
    /// Both variants.
    pub const ALL: [Variant; 2] = [Variant::Measurement, Variant::PlayerChoice];

    /// The stable name clients see.
    pub fn code(self) -> &'static str {
        match self {
            Variant::PlayerChoice => "player_choice",
            Variant::Measurement => "measurement",
        }
    }

    /// The variant whose [`Variant::code`] is `code`, if one is.
    pub fn named(code: &str) -> Option<Variant> {
        Variant::ALL.into_iter().find(|variant| variant.code() == code)
    }
}

/// The rules a game is played by, both chosen when it is created.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Rules {
    /// Who decides how a closed cycle collapses.
    pub variant: Variant,
    /// How completed lines score.
    pub scoring: Scoring,
}

/// A variant alone is played with Goff's scoring, the game's own.
impl From<Variant> for Rules {
    fn from(variant: Variant) -> Rules {
        Rules { variant, scoring: Scoring::Goff }
    }
}

/// Something an actor does to the game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Action {
    /// Place the next move's two spooky marks.
    Move {
        /// The two squares; the same square twice only for the last open square.
        squares: [Square; 2],
    },
    /// Decide a pending collapse: "move `move_number` ends in `square`".
    Collapse {
        /// Any move of the cycle.
        move_number: MoveNumber,
        /// One of that move's two squares.
        square: Square,
    },
}

impl Default for Action {
    /// Only fills unused places of fixed-size storage.
    fn default() -> Action {
        Action::Move { squares: [Square::default(); 2] }
    }
}

/// One entry of a game's log: who did what. The log is the game's whole truth.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct LogEntry {
    /// Who acted: a player, or the measurement for its collapse outcomes.
    pub actor: Actor,
    /// What was done, in canonical form (see [`Game::log`]).
    pub action: Action,
}

/// A move that has been placed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Move {
    /// The move's number, from 1; it is the subscript of its marks.
    pub move_number: MoveNumber,
    /// Its two squares, ascending.
    pub squares: [Square; 2],
    /// The square its classical mark landed in, once its cycle collapsed.
    pub landed: Option<Square>,
}

impl Move {
    /// Who made the move.
    pub fn player(&self) -> Player {
        Player::of_move(self.move_number)
    }

    /// The move's square opposite `square`, if the move touches `square`.
    pub(super) fn other_square(&self, square: Square) -> Option<Square> {
        match self.squares {
            [a, b] if a == square => Some(b),
            [a, b] if b == square => Some(a),
            _ => None,
        }
    }
}

/// Who decides how a cycle collapses, and who wrote an entry of the log.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Actor {
    /// A player: moves, and collapse choices in the player-choice variant.
    Player(Player),
    /// The quantum measurement that collapses cycles in the measurement variant.
    Measurement,
}

impl Default for Actor {
    /// Only fills unused places of fixed-size storage.
    fn default() -> Actor {
        Actor::Player(Player::X)
    }
}
