//! The original app's heuristic bot, on top of correct rules.
//!
//! For a move, in this order: with `mistake_chance` any legal move; else
//! 1. a winning path: the two open squares of a line that holds the bot's marks
//!    and none of the opponent's classical ones;
//! 2. disruption: the open square of a line where the opponent has marks in the
//!    other two squares, paired with the most entangled other open square;
//! 3. centrality: the open square with the most spooky marks, paired with the next.
//!
//! Ties go to the line or square that comes first (lines: rows, columns,
//! diagonals; squares: 0-8). For a collapse it picks the option that scores best
//! for it right away.

use rand::{Rng, RngExt};

use super::Bot;
use super::random::random_action;
use crate::engine::{Action, Actor, Game, LINES, Player, Square};

/// The parasite bot.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Parasite {
    /// The probability of a random move instead of the heuristic's.
    pub mistake_chance: f64,
}

impl Bot for Parasite {
    fn choose(&mut self, game: &Game, rng: &mut dyn Rng) -> Action {
        match game.actor_to_act() {
            Some(Actor::Player(me)) if game.pending_collapse().is_some() => best_collapse(game, me),
            Some(Actor::Player(me)) => {
                if rng.random_bool(self.mistake_chance) {
                    random_action(game, rng)
                } else {
                    heuristic_move(game, me)
                }
            }
            // The measurement decides its own collapses; a bot is never asked to.
            Some(Actor::Measurement) | None => panic!("the parasite bot is not to act here"),
        }
    }
}

/// The collapse option that leaves `me` furthest ahead.
fn best_collapse(game: &Game, me: Player) -> Action {
    let margin = |action: &Action| {
        let mut after = *game;
        after.play(Actor::Player(me), *action).expect("a listed option is legal");
        let score = after.score();
        i16::from(score.of(me).halves) - i16::from(score.of(me.other()).halves)
    };
    let options = game.legal_actions();
    // `max_by_key` keeps the last of equals; reversing keeps the first.
    *options.iter().rev().max_by_key(|action| margin(action)).expect("a collapse has two options")
}

/// The heuristic's move for `me`.
fn heuristic_move(game: &Game, me: Player) -> Action {
    let open: Vec<Square> = game.open_squares().collect();
    if let [last] = open[..] {
        return Action::Move { squares: [last, last] };
    }
    let has_mark = |square: Square, player: Player| {
        game.classical(square).is_some_and(|mark| mark.player() == player)
            || game.spooky(square).any(|mark| mark.player() == player)
    };
    let is_open = |square: &Square| game.classical(*square).is_none();
    let entanglement = |square: Square| game.spooky(square).count();
    // Open squares, most entangled first, then by number.
    let mut by_entanglement = open.clone();
    by_entanglement.sort_by_key(|&square| std::cmp::Reverse(entanglement(square)));
    let most_entangled_except =
        |taken: Square| *by_entanglement.iter().find(|&&square| square != taken).expect("two squares are open");

    let winning_path = LINES.iter().find_map(|line| {
        let theirs_classical = line.iter().any(|&s| game.classical(s).is_some_and(|mark| mark.player() != me));
        let open_in_line: Vec<Square> = line.iter().copied().filter(is_open).collect();
        if theirs_classical || open_in_line.len() < 2 || !line.iter().any(|&s| has_mark(s, me)) {
            return None;
        }
        // Cover the squares that lack the bot's marks first.
        let mut squares = open_in_line;
        squares.sort_by_key(|&s| has_mark(s, me));
        Some([squares[0], squares[1]])
    });
    let disruption = || {
        LINES.iter().find_map(|line| {
            let gaps: Vec<Square> = line.iter().copied().filter(|&s| !has_mark(s, me.other())).collect();
            match gaps[..] {
                [gap] if is_open(&gap) => Some([gap, most_entangled_except(gap)]),
                _ => None,
            }
        })
    };
    let centrality = || [by_entanglement[0], by_entanglement[1]];
    let [a, b] = winning_path.or_else(disruption).unwrap_or_else(centrality);
    Action::Move { squares: [a.min(b), a.max(b)] }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand::rngs::StdRng;

    use crate::engine::{Variant, notation};

    fn game(transcript: &str) -> Game {
        let log = notation::parse(transcript, Variant::PlayerChoice).expect("a transcript");
        Game::replay(Variant::PlayerChoice, &log).expect("a legal game")
    }

    fn squares(action: Action) -> [usize; 2] {
        match action {
            Action::Move { squares } => squares.map(Square::index),
            Action::Collapse { .. } => panic!("expected a move, got {action:?}"),
        }
    }

    fn choose(game: &Game) -> Action {
        let mut never_blunders = Parasite { mistake_chance: 0.0 };
        never_blunders.choose(game, &mut StdRng::seed_from_u64(0))
    }

    #[test]
    fn it_opens_on_the_first_two_squares_when_nothing_else_applies() {
        assert_eq!(squares(choose(&game(""))), [0, 1]);
    }

    #[test]
    fn centrality_pairs_the_most_entangled_open_squares() {
        // X1 in squares 0 and 5, which share no line: O has no marks and X no two
        // in a line, so O goes where the entanglement is.
        assert_eq!(squares(choose(&game("X1+(1,6)"))), [0, 5]);
    }

    #[test]
    fn a_winning_path_builds_on_a_line_with_its_marks_first() {
        // X1 landed in the centre, O2 in the corner 8. The first line through X's
        // mark without an O is row 3-4-5.
        let position = game("X1+(5,9); O2+(5,9); X3!O2(9)");
        assert_eq!(position.classical(Square::ALL[4]).map(|m| m.to_string()).as_deref(), Some("X1"));
        assert_eq!(squares(choose(&position)), [3, 5]);
    }

    #[test]
    fn disruption_takes_the_gap_of_a_line_where_the_opponent_has_two_marks() {
        // X1 in squares 0 and 1: row 0 holds X's marks in two squares; O has none,
        // so it takes the gap, 2, and pairs it with the most entangled square, 0.
        assert_eq!(squares(choose(&game("X1+(1,2)"))), [0, 2]);
    }

    #[test]
    fn the_winning_path_comes_before_disruption() {
        // X has marks in squares 0 and 1 of row 0, O in squares 3 and 4 of row 1:
        // O builds on row 1, covering its empty square 5 first, rather than block.
        assert_eq!(squares(choose(&game("X1+(1,2); O2+(4,5); X3+(7,8)"))), [3, 5]);
    }

    #[test]
    fn it_takes_the_collapse_option_that_scores_best_for_it() {
        // Goff's example: X7 closes the 2-cycle 0-4 with X1. Putting X7 in the corner
        // gives O the earlier line and the win by half a point.
        let position = game("X1+(1,5); O2+(3,9); X3+(1,4); O4+(3,6); X5+(4,7); O6+(5,9); X7+(1,5)");
        let action = choose(&position);
        assert_eq!(action, Action::Collapse { move_number: 7, square: Square::ALL[0] });
        let mut after = position;
        after.play(Actor::Player(Player::O), action).unwrap();
        assert_eq!((after.score().x.as_f64(), after.score().o.as_f64()), (0.5, 1.0));
    }

    #[test]
    fn with_certain_mistakes_it_plays_a_random_legal_move() {
        let position = game("");
        let mut blunderer = Parasite { mistake_chance: 1.0 };
        let mut rng = StdRng::seed_from_u64(9);
        let picks: std::collections::BTreeSet<[usize; 2]> =
            (0..50).map(|_| squares(blunderer.choose(&position, &mut rng))).collect();
        assert!(picks.len() > 10, "{picks:?}");
    }
}
