//! A game judged by the perfect player: for every action a player took, what the
//! position was worth before it, a best action there, what the position was worth
//! after it, and how much it gave away.
//!
//! Values are the final score difference X minus O with perfect play from both
//! sides; in the measurement variant their expectation over the measurements.

use super::perfect::Solver;
use super::value::{Solution, Value};
use crate::engine::{Action, Actor, Game, MoveNumber, Player, Square, Variant};

/// Every action a player took in a game, judged.
#[derive(Debug, Clone, PartialEq)]
pub struct Analysis {
    /// The game's collapse rule: it says whether the values are sure or expected.
    pub variant: Variant,
    /// The players' actions, in log order; the measurements' entries are judged
    /// with the move that closed their cycle.
    pub actions: Vec<JudgedAction>,
}

/// One action of a player, judged.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JudgedAction {
    /// The action's place in the game's log (`Game::log`), from 0.
    pub entry: usize,
    /// The number of the move it places, or for a collapse choice of the move
    /// its chooser places next: the turn Goff's notation writes it under.
    pub turn: MoveNumber,
    /// Who took it.
    pub player: Player,
    /// What was taken.
    pub action: Action,
    /// What the position before it was worth.
    pub value_before: f64,
    /// An action that keeps `value_before`.
    pub best: Action,
    /// What the position after it was worth: in the measurement variant, after a
    /// move that closed a cycle, the mean of its two outcomes' values.
    pub value_after: f64,
    /// How much of the value the action gave away, from its player's side: 0
    /// for an action as good as `best`, never negative.
    pub loss: f64,
    /// The measurement of the cycle the action closed, in the measurement variant.
    pub measurement: Option<Measured>,
}

/// A cycle's measurement: what each outcome was worth, and which came.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Measured {
    /// Both outcomes, by the square the closing move ends in, ascending.
    pub outcomes: [Outcome; 2],
    /// The square the closing move ended in; `None` while the log stops before
    /// the measurement (a transcript cut short).
    pub happened: Option<Square>,
}

/// One outcome of a measurement and what the position after it is worth.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Outcome {
    /// The square the closing move ends in.
    pub square: Square,
    /// The value of the position after it.
    pub value: f64,
}

/// What one player gave away over a game.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct PlayerLoss {
    /// The sum of the player's losses.
    pub loss: f64,
    /// How many actions the player took.
    pub actions: usize,
    /// How many of them gave something away.
    pub actions_with_loss: usize,
}

impl Analysis {
    /// Judges every action of a player in `game`'s log, replaying it from the
    /// start with `solver`, whose table the positions of one game share.
    pub fn of(game: &Game, solver: &mut Solver) -> Analysis {
        let log = game.log();
        let mut position = Game::new(game.variant());
        // The solution of the position reached, kept for the next action's
        // `value_before`: each position is searched once.
        let mut known: Option<(Game, Solution)> = None;
        let mut actions = Vec::new();
        for (entry, logged) in log.iter().enumerate() {
            let before = position;
            position.play(logged.actor, logged.action).expect("a game's own log replays");
            let Actor::Player(player) = logged.actor else { continue };
            let solution = match known.take() {
                Some((game, solution)) if game == before => solution,
                _ => solver.answer(&before),
            };
            let (value_after, measurement) = if position.actor_to_act() == Some(Actor::Measurement) {
                let happened = log.get(entry + 1).and_then(|next| match next.action {
                    Action::Collapse { square, .. } if next.actor == Actor::Measurement => Some(square),
                    _ => None,
                });
                let (measured, reached) = measure(&position, happened, solver);
                known = reached;
                let [first, second] = measured.outcomes;
                ((first.value + second.value) / 2.0, Some(measured))
            } else {
                let (value, solution) = value_of(&position, solver);
                known = solution.map(|solution| (position, solution));
                (value, None)
            };
            let value_before = solution.value.points;
            // Exact: every value is a sum of halves of halves, which f64 holds.
            let loss = match player {
                Player::X => value_before - value_after,
                Player::O => value_after - value_before,
            };
            actions.push(JudgedAction {
                entry,
                turn: before.next_move_number(),
                player,
                action: logged.action,
                value_before,
                best: solution.action,
                value_after,
                loss,
                measurement,
            });
        }
        Analysis { variant: game.variant(), actions }
    }

    /// What `player` gave away over the game.
    pub fn loss_of(&self, player: Player) -> PlayerLoss {
        self.actions.iter().filter(|judged| judged.player == player).fold(PlayerLoss::default(), |total, judged| {
            PlayerLoss {
                loss: total.loss + judged.loss,
                actions: total.actions + 1,
                actions_with_loss: total.actions_with_loss + usize::from(judged.loss > 0.0),
            }
        })
    }
}

/// Both outcomes of the measurement `game` waits for, valued, and `happened`
/// among them; with the position that outcome reached and its solution, when
/// someone is to act there.
fn measure(game: &Game, happened: Option<Square>, solver: &mut Solver) -> (Measured, Option<(Game, Solution)>) {
    let mut reached = None;
    let options = game.legal_actions();
    let mut outcome = |option: Action| {
        let Action::Collapse { square, .. } = option else { unreachable!("a measurement collapses") };
        let mut measured = *game;
        measured.play(Actor::Measurement, option).expect("a legal outcome is accepted");
        let (value, solution) = value_of(&measured, solver);
        if happened == Some(square) {
            reached = solution.map(|solution| (measured, solution));
        }
        Outcome { square, value }
    };
    let outcomes = [outcome(options[0]), outcome(options[1])];
    (Measured { outcomes, happened }, reached)
}

/// The value of `game` for perfect play, with its solution when someone is to
/// act; a finished game is worth its score difference.
fn value_of(game: &Game, solver: &mut Solver) -> (f64, Option<Solution>) {
    if game.actor_to_act().is_none() {
        return (Value::of_finished(game).points, None);
    }
    let solution = solver.answer(game);
    (solution.value.points, Some(solution))
}
