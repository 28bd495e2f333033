//! The perfect player: exact game-tree search to the end of the game.
//!
//! X maximises and O minimises the final score difference X minus O; a collapse
//! chosen by a player is that player's decision, and a measured one is worth the
//! mean of its two equally likely outcomes. Alpha-beta pruning, a transposition
//! table and the board's eight symmetries keep the search small.
//!
//! Between results with the same score difference, the winner prefers the
//! quickest win and the loser the slowest loss.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use rand::Rng;

use super::symmetry::canonical_key;
use super::value::{ACTION_CODES, Solution, Value, action_code};
use super::{Stop, Strategy, book};
use crate::engine::{Action, Actor, Game, MAX_MOVES, Player, Stack};

/// What the search knows of a position: bounds on its value, and the best action
/// found there, as it reads in the key's orientation.
#[derive(Debug, Clone, Copy)]
struct Entry {
    lower: Value,
    upper: Value,
    best: Option<Action>,
}

/// A fast hasher for keys that are already well spread: a multiply and a shift.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.write_u64(u64::from(byte));
        }
    }

    fn write_u64(&mut self, key: u64) {
        self.0 = (self.0 ^ key).wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(26);
    }
}

/// An exact search, remembering every position it has valued.
pub struct Solver {
    table: HashMap<u64, Entry, BuildHasherDefault<KeyHasher>>,
    /// How often, weighted by how early, each action of each player cut a search
    /// short: actions that refuted one position tend to refute its neighbours, so
    /// they are tried first (the history heuristic).
    history: [[u64; ACTION_CODES]; 2],
    /// Positions visited so far, for benchmarks and notes.
    pub nodes: u64,
    /// Looked at every [`STOP_EVERY`] positions: once set, the search unwinds.
    stop: Stop,
    stopped: bool,
}

/// How many positions a search visits between looks at its [`Stop`]: well under
/// a millisecond of work.
const STOP_EVERY: u64 = 1024;

impl Default for Solver {
    fn default() -> Solver {
        Solver::stopped_by(Stop::default())
    }
}

impl Solver {
    /// A solver that gives up once `stop` is set: its answers are then
    /// meaningless, for an asker that no longer waits for them.
    pub fn stopped_by(stop: Stop) -> Solver {
        // Room for a mid-game search without rehashing; an opening search grows past it.
        let table = HashMap::with_capacity_and_hasher(1 << 15, BuildHasherDefault::default());
        Solver { table, history: [[0; ACTION_CODES]; 2], nodes: 0, stop, stopped: false }
    }

    /// The best action of `game` for the side to act and its value: from the
    /// opening book when it holds the position, else by search.
    ///
    /// # Panics
    /// When nobody is to act: the game is over.
    pub fn answer(&mut self, game: &Game) -> Solution {
        book::lookup(game).unwrap_or_else(|| self.solve(game))
    }

    /// The best action of `game` for the side to act, and its value, by search.
    ///
    /// # Panics
    /// When nobody is to act: the game is over.
    pub fn solve(&mut self, game: &Game) -> Solution {
        let actor = game.actor_to_act().expect("a finished game has no best action");
        if actor == Actor::Measurement {
            // The measurement has no preference: the position is worth the mean.
            let value = self.search(game, Value::LOWEST, Value::HIGHEST);
            return Solution { action: game.legal_actions()[0], value };
        }
        let maximising = actor == Actor::Player(Player::X);
        let mut best: Option<Solution> = None;
        for action in self.ordered_actions(game, actor) {
            // Only a better value matters: the window starts at the best so far, and
            // a child that does not beat it returns a bound that is not chosen.
            let (alpha, beta) = match (best, maximising) {
                (Some(best), true) => (best.value, Value::HIGHEST),
                (Some(best), false) => (Value::LOWEST, best.value),
                (None, _) => (Value::LOWEST, Value::HIGHEST),
            };
            let value = self.search(&after(game, actor, action), alpha, beta);
            let better = match best {
                None => true,
                Some(best) => (maximising && value > best.value) || (!maximising && value < best.value),
            };
            if better {
                best = Some(Solution { action, value });
            }
        }
        best.expect("an unfinished game has a legal action")
    }

    /// The value of `game` within the window (`alpha`, `beta`): exact inside it,
    /// else a bound on the side of the window it falls.
    fn search(&mut self, game: &Game, mut alpha: Value, mut beta: Value) -> Value {
        self.nodes += 1;
        if self.nodes.is_multiple_of(STOP_EVERY) && self.stop.is_set() {
            self.stopped = true;
        }
        if self.stopped {
            // Any value: nobody reads it, and it is not remembered.
            return Value::LOWEST;
        }
        let Some(actor) = game.actor_to_act() else {
            return Value::of_finished(game);
        };
        let (key, symmetry) = canonical_key(game);
        let mut remembered = None;
        if let Some(entry) = self.table.get(&key) {
            if entry.lower >= beta || entry.lower == entry.upper {
                return entry.lower;
            }
            if entry.upper <= alpha {
                return entry.upper;
            }
            alpha = alpha.max(entry.lower);
            beta = beta.min(entry.upper);
            remembered = Some(*entry);
        }
        let first = remembered.and_then(|entry| entry.best).map(|action| symmetry.undo(action));
        let mut actions = self.ordered_actions(game, actor);
        if let Some(position) = first.and_then(|first| actions.iter().position(|&a| a == first)) {
            actions[..=position].rotate_right(1);
        }
        let (value, best) = match actor {
            Actor::Measurement => {
                // Each outcome with probability 1/2. What the first is worth bounds
                // the mean, since the second lies between the worst and the best a
                // game can end (Ballard's Star1): often no second search is needed,
                // and when it is, it needs only the window that can still matter.
                let first = self.search(
                    &after(game, actor, actions[0]),
                    alpha.twice_minus(Value::BEST),
                    beta.twice_minus(Value::WORST),
                );
                let (at_most, at_least) = (first.mean(Value::BEST), first.mean(Value::WORST));
                if at_most <= alpha {
                    (at_most, None)
                } else if at_least >= beta {
                    (at_least, None)
                } else {
                    let second =
                        self.search(&after(game, actor, actions[1]), alpha.twice_minus(first), beta.twice_minus(first));
                    (first.mean(second), None)
                }
            }
            Actor::Player(player) => {
                let maximising = player == Player::X;
                let mut best = if maximising { Value::LOWEST } else { Value::HIGHEST };
                let mut best_action = None;
                let (mut low, mut high) = (alpha, beta);
                for action in actions {
                    let value = self.search(&after(game, actor, action), low, high);
                    if (maximising && value > best) || (!maximising && value < best) {
                        best = value;
                        best_action = Some(action);
                    }
                    if maximising {
                        low = low.max(value);
                    } else {
                        high = high.min(value);
                    }
                    if low >= high {
                        self.remember_cutoff(game, player, action);
                        break;
                    }
                }
                (best, best_action)
            }
        };
        let mut entry = remembered.unwrap_or(Entry { lower: Value::LOWEST, upper: Value::HIGHEST, best: None });
        if value <= alpha {
            entry.upper = entry.upper.min(value);
        } else if value >= beta {
            entry.lower = entry.lower.max(value);
        } else {
            entry.lower = value;
            entry.upper = value;
        }
        if let Some(action) = best {
            entry.best = Some(symmetry.apply(action));
        }
        if !self.stopped {
            self.table.insert(key, entry);
        }
        value
    }

    /// The actions of `game` in the order to try them: the most often decisive first.
    fn ordered_actions(&self, game: &Game, actor: Actor) -> Stack<Action, 36> {
        let mut actions = game.legal_actions();
        if let Actor::Player(player) = actor {
            let history = &self.history[player as usize];
            actions.sort_by_key(|&action| std::cmp::Reverse(history[action_code(action)]));
        }
        actions
    }

    fn remember_cutoff(&mut self, game: &Game, player: Player, action: Action) {
        // Cutoffs near the root save the most work.
        let moves_left = MAX_MOVES as usize - game.moves().len();
        self.history[player as usize][action_code(action)] += 1 << moves_left;
    }

    /// The number of positions remembered.
    pub fn remembered(&self) -> usize {
        self.table.len()
    }
}

/// `game` after `actor` takes `action`, a legal action.
pub(super) fn after(game: &Game, actor: Actor, action: Action) -> Game {
    let mut next = *game;
    next.play(actor, action).expect("a legal action is accepted");
    next
}

/// The perfect bot: plays a best action, found by [`Solver`].
#[derive(Default)]
pub struct Perfect {
    solver: Solver,
}

impl Perfect {
    /// A perfect bot whose search gives up once `stop` is set, when its answer is
    /// meaningless.
    pub fn stopped_by(stop: Stop) -> Perfect {
        Perfect { solver: Solver::stopped_by(stop) }
    }
}

impl Strategy for Perfect {
    fn choose(&mut self, game: &Game, _: &mut dyn Rng) -> Action {
        self.solver.answer(game).action
    }
}
