//! The random bot: any legal action, each as likely as the others.

use rand::{Rng, RngExt};

use super::Strategy;
use crate::engine::{Action, Game};

/// Picks uniformly among the legal actions.
#[derive(Debug, Clone, Copy, Default)]
pub struct RandomBot;

impl Strategy for RandomBot {
    fn choose(&mut self, game: &Game, rng: &mut dyn Rng) -> Action {
        random_action(game, rng)
    }
}

/// A uniformly random legal action of `game`.
///
/// # Panics
/// When the game is over.
pub(super) fn random_action(game: &Game, rng: &mut dyn Rng) -> Action {
    let actions = game.legal_actions();
    assert!(!actions.is_empty(), "nobody is to act in a finished game");
    actions[rng.random_range(0..actions.len())]
}
