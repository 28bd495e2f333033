//! Computer players, pure: each picks an action for the side to act, with the
//! randomness it needs passed in.

mod analysis;
pub mod book;
pub mod bookmaker;
mod parasite;
mod perfect;
pub mod protocol;
pub mod puzzle;
mod random;
pub mod series;
mod symmetry;
mod value;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use rand::Rng;

use crate::engine::{Action, Game};

pub use analysis::{Analysis, JudgedAction, Measured, Outcome, PlayerLoss};
pub use parasite::Parasite;
pub use perfect::{Perfect, Solver};
pub use random::RandomBot;
pub use value::{Solution, Value};

/// How a computer player picks its actions.
pub trait Strategy {
    /// The action this bot takes in `game`, for whoever is to act there.
    ///
    /// # Panics
    /// When nobody is to act: the game is over.
    fn choose(&mut self, game: &Game, rng: &mut dyn Rng) -> Action;
}

/// The bots a game can be played against.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Bot {
    /// A uniformly random legal action.
    Random,
    /// The original app's heuristic, which blunders with `mistake_chance`.
    Parasite {
        /// The probability of a random move instead of the heuristic's.
        mistake_chance: f64,
    },
    /// Exact game-tree search: never worse than the game's value.
    Perfect,
}

impl Bot {
    /// The parasite bot's blunder rate when none is given, as in the original app.
    pub const DEFAULT_MISTAKE_CHANCE: f64 = 0.10;

    /// The level's name, as clients write it.
    pub fn code(self) -> &'static str {
        match self {
            Bot::Random => "random",
            Bot::Parasite { .. } => "parasite",
            Bot::Perfect => "perfect",
        }
    }

    /// The bot as it plays rated games, if it does: each level at one
    /// strength, so that its rating means one thing; the parasite bot at its
    /// default mistake chance alone.
    pub fn rated(self) -> Option<Bot> {
        match self {
            Bot::Parasite { mistake_chance } if mistake_chance != Bot::DEFAULT_MISTAKE_CHANCE => None,
            bot => Some(bot),
        }
    }

    /// The strategy this bot plays.
    pub fn strategy(self) -> Box<dyn Strategy> {
        self.strategy_stopped_by(Stop::default())
    }

    /// The strategy this bot plays, giving up its search once `stop` is set.
    pub(crate) fn strategy_stopped_by(self, stop: Stop) -> Box<dyn Strategy> {
        match self {
            Bot::Random => Box::new(RandomBot),
            Bot::Parasite { mistake_chance } => Box::new(Parasite { mistake_chance }),
            Bot::Perfect => Box::new(Perfect::stopped_by(stop)),
        }
    }

    /// Whether this bot searches: its answers cost tens of milliseconds of a core,
    /// where the others cost microseconds.
    pub fn searches(self) -> bool {
        self == Bot::Perfect
    }
}

/// Tells a search to give up, from another thread: set by its asker when it no
/// longer waits for the answer.
#[derive(Debug, Clone, Default)]
pub struct Stop(Arc<AtomicBool>);

impl Stop {
    /// Tells the search to give up.
    pub fn set(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// Whether the search should give up.
    pub(crate) fn is_set(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}
