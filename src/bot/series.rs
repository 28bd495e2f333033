//! Bots against bots on the engine directly, to compare levels.

use rand::Rng;

use super::{Bot, Strategy};
use crate::engine::{Actor, Game, GameResult, Player, Variant};

/// How a series of games between two bots went, from X's side.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Tally {
    /// Games played.
    pub games: u32,
    /// Games X won.
    pub x_wins: u32,
    /// Games that ended level.
    pub draws: u32,
    /// Games O won.
    pub o_wins: u32,
    /// X's points over all games.
    pub x_points: f64,
    /// O's points over all games.
    pub o_points: f64,
    /// The lowest score difference X minus O of any game.
    pub worst_for_x: f64,
    /// The highest score difference X minus O of any game.
    pub best_for_x: f64,
}

/// Plays `games` games of `variant`, `x` as X against `o` as O.
pub fn play(x: Bot, o: Bot, variant: Variant, games: u32, rng: &mut dyn Rng) -> Tally {
    let (mut x_bot, mut o_bot) = (x.strategy(), o.strategy());
    let mut tally = Tally { worst_for_x: f64::INFINITY, best_for_x: f64::NEG_INFINITY, ..Tally::default() };
    for _ in 0..games {
        let game = play_game(&mut *x_bot, &mut *o_bot, variant, rng);
        let score = game.score();
        let difference = score.x.as_f64() - score.o.as_f64();
        tally.games += 1;
        match game.result() {
            GameResult::XWins => tally.x_wins += 1,
            GameResult::OWins => tally.o_wins += 1,
            GameResult::Draw | GameResult::Ongoing | GameResult::Aborted => tally.draws += 1,
        }
        tally.x_points += score.x.as_f64();
        tally.o_points += score.o.as_f64();
        tally.worst_for_x = tally.worst_for_x.min(difference);
        tally.best_for_x = tally.best_for_x.max(difference);
    }
    tally
}

/// A game of `variant` played to its end, `x` as X against `o` as O, with the
/// bots' choices and the measurements drawn from `rng`.
pub fn play_game(x: &mut dyn Strategy, o: &mut dyn Strategy, variant: Variant, rng: &mut dyn Rng) -> Game {
    let mut game = Game::new(variant);
    while let Some(Actor::Player(player)) = game.actor_to_act() {
        let action = match player {
            Player::X => x.choose(&game, rng),
            Player::O => o.choose(&game, rng),
        };
        game.play_measured(Actor::Player(player), action, rng).expect("a bot plays only legal actions");
    }
    game
}
