//! The original app's heuristic bot, its `get_move` as it plays, on correct rules.
//!
//! For a move, the first of these that applies, each random pick uniform:
//! - one square alone is open: the last-square move (the original crashes there);
//! - with `mistake_chance`: two open squares at random;
//! - **winning path**: the first line in which at least two open squares hold the
//!   bot's spooky marks: two of those squares;
//! - **disruption**: the first line in which the opponent has a mark, spooky or
//!   classical, in at least two squares, one of them open at least: one of those
//!   open squares, paired with any other open square;
//! - **centrality**: among the open squares, those with the most distinct
//!   neighbouring squares in the entanglement graph of the unresolved moves: one
//!   of them, paired with any other open square.
//!
//! Lines are taken in the original's order: rows, columns, diagonals ([`LINES`]).
//! A collapse choice, which the original's rules do not have, is our extension:
//! the option that scores best for the bot at once.

use rand::{Rng, RngExt};

use super::Strategy;
use crate::engine::{Action, Actor, Game, LINES, Player, Square, Stack};

/// The parasite bot.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Parasite {
    /// The probability of a random move instead of the heuristic's.
    pub mistake_chance: f64,
}

impl Strategy for Parasite {
    fn choose(&mut self, game: &Game, rng: &mut dyn Rng) -> Action {
        match game.actor_to_act() {
            Some(Actor::Player(me)) if game.pending_collapse().is_some() => best_collapse(game, me),
            Some(Actor::Player(me)) => {
                let [a, b] = self.squares(game, me, rng);
                Action::Move { squares: [a.min(b), a.max(b)] }
            }
            // The measurement decides its own collapses; a bot is never asked to.
            Some(Actor::Measurement) | None => panic!("the parasite bot is not to act here"),
        }
    }
}

impl Parasite {
    /// The two squares of `me`'s move, as the original's `get_move` picks them.
    fn squares(&self, game: &Game, me: Player, rng: &mut dyn Rng) -> [Square; 2] {
        if let Some(squares) = game.forced_squares() {
            return squares;
        }
        let open: Stack<Square, 9> = game.open_squares().collect();
        if rng.random_bool(self.mistake_chance) {
            let first = pick(&open, rng);
            return [first, paired_with(first, &open, rng)];
        }
        let is_open = |square: Square| game.classical(square).is_none();
        let has_spooky = |square: Square, player: Player| game.spooky(square).any(|mark| mark.player() == player);
        let has_mark = |square: Square, player: Player| {
            game.classical(square).is_some_and(|mark| mark.player() == player) || has_spooky(square, player)
        };
        let winning_path = LINES.iter().find_map(|line| {
            let mine: Stack<Square, 3> = line.iter().copied().filter(|&s| is_open(s) && has_spooky(s, me)).collect();
            (mine.len() >= 2).then_some(mine)
        });
        if let Some(mine) = winning_path {
            let first = pick(&mine, rng);
            return [first, paired_with(first, &mine, rng)];
        }
        let disruption = LINES.iter().find_map(|line| {
            let theirs = line.iter().filter(|&&s| has_mark(s, me.other())).count();
            let targets: Stack<Square, 9> =
                line.iter().copied().filter(|&s| is_open(s) && has_mark(s, me.other())).collect();
            (theirs >= 2 && !targets.is_empty()).then_some(targets)
        });
        let targets = disruption.unwrap_or_else(|| most_connected(game, &open));
        let target = pick(&targets, rng);
        [target, paired_with(target, &open, rng)]
    }
}

/// The open squares with the most distinct neighbouring squares in the
/// entanglement graph of the unresolved moves.
fn most_connected(game: &Game, open: &[Square]) -> Stack<Square, 9> {
    let neighbours = |square: Square| {
        let mut seen = [false; 9];
        for unresolved in game.moves().iter().filter(|m| m.landed.is_none()) {
            match unresolved.squares {
                [a, b] if a == square => seen[b.index()] = true,
                [a, b] if b == square => seen[a.index()] = true,
                _ => {}
            }
        }
        seen.iter().filter(|&&seen| seen).count()
    };
    let most = open.iter().map(|&square| neighbours(square)).max().unwrap_or_default();
    open.iter().copied().filter(|&square| neighbours(square) == most).collect()
}

/// One of `squares`, each as likely as the others.
fn pick(squares: &[Square], rng: &mut dyn Rng) -> Square {
    squares[rng.random_range(0..squares.len())]
}

/// One of `squares` other than `first`, each as likely as the others.
fn paired_with(first: Square, squares: &[Square], rng: &mut dyn Rng) -> Square {
    let others: Stack<Square, 9> = squares.iter().copied().filter(|&square| square != first).collect();
    pick(&others, rng)
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

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use rand::SeedableRng;
    use rand::rngs::StdRng;

    use super::*;
    use crate::engine::{Variant, notation};

    fn game(transcript: &str) -> Game {
        let log = notation::parse(transcript, Variant::PlayerChoice).expect("a transcript");
        Game::replay(Variant::PlayerChoice, &log).expect("a legal game")
    }

    /// How often each pair of squares is answered from `position`, one answer per
    /// seed, over `answers` seeds.
    fn answers(position: &Game, mistake_chance: f64, answers: u64) -> BTreeMap<[usize; 2], u64> {
        let mut bot = Parasite { mistake_chance };
        let mut counts = BTreeMap::new();
        for seed in 0..answers {
            match bot.choose(position, &mut StdRng::seed_from_u64(seed)) {
                Action::Move { squares } => *counts.entry(squares.map(Square::index)).or_default() += 1,
                other => panic!("expected a move, got {other:?}"),
            }
        }
        counts
    }

    /// The original's answers when it picks one of `targets` at random and pairs
    /// it with a random other square of `squares`: each pair and its probability.
    fn one_of_paired_with_another(targets: &[usize], squares: &[usize]) -> BTreeMap<[usize; 2], f64> {
        let mut pairs = BTreeMap::new();
        for &target in targets {
            for &other in squares.iter().filter(|&&other| other != target) {
                let chance = 1.0 / (targets.len() as f64 * (squares.len() - 1) as f64);
                *pairs.entry([target.min(other), target.max(other)]).or_default() += chance;
            }
        }
        pairs
    }

    /// Asserts that `counts` holds exactly the pairs of `expected`, each about as
    /// often as its probability says: within five standard deviations.
    #[track_caller]
    fn assert_frequencies(counts: &BTreeMap<[usize; 2], u64>, expected: &BTreeMap<[usize; 2], f64>) {
        assert_eq!(counts.keys().collect::<Vec<_>>(), expected.keys().collect::<Vec<_>>(), "the answers given");
        let total = counts.values().sum::<u64>() as f64;
        for (pair, &chance) in expected {
            let (seen, mean) = (counts[pair] as f64, chance * total);
            let spread = 5.0 * (total * chance * (1.0 - chance)).sqrt() + 1.0;
            assert!((seen - mean).abs() <= spread, "{pair:?}: {seen} times, expected about {mean:.0}: {counts:?}");
        }
    }

    /// Every pair of `squares`, each equally likely.
    fn any_two_of(squares: &[usize]) -> BTreeMap<[usize; 2], f64> {
        one_of_paired_with_another(squares, squares)
    }

    #[test]
    fn as_x_on_the_empty_board_it_plays_all_36_pairs_alike() {
        // Centrality: nothing is entangled, so every square ties.
        let counts = answers(&game(""), 0.0, 36_000);
        assert_eq!(counts.len(), 36);
        assert_frequencies(&counts, &any_two_of(&[0, 1, 2, 3, 4, 5, 6, 7, 8]));
    }

    #[test]
    fn as_o_after_x_in_one_line_it_disrupts_one_of_xs_squares() {
        // X1 in squares 0 and 1: row 0 holds X's marks in two squares, so O puts
        // a mark on one of them, half the time each, with any of the other eight.
        let counts = answers(&game("X1+(1,2)"), 0.0, 16_000);
        let expected = one_of_paired_with_another(&[0, 1], &[0, 1, 2, 3, 4, 5, 6, 7, 8]);
        assert_eq!((expected[&[0, 1]], expected[&[0, 2]], expected[&[1, 8]]), (0.125, 0.0625, 0.0625));
        assert_frequencies(&counts, &expected);
    }

    #[test]
    fn as_o_after_x_in_no_line_it_goes_where_the_entanglement_is() {
        // X1 in squares 0 and 5, which share no line: no line holds two X marks,
        // and squares 0 and 5 are the only ones with a neighbour.
        let counts = answers(&game("X1+(1,6)"), 0.0, 16_000);
        assert_frequencies(&counts, &one_of_paired_with_another(&[0, 5], &[0, 1, 2, 3, 4, 5, 6, 7, 8]));
    }

    #[test]
    fn centrality_counts_distinct_neighbours_and_takes_the_most_connected() {
        // X1 0-5 and O2 5-6 share no line; square 5 has two neighbours, 0 and 6 one.
        let counts = answers(&game("X1+(1,6); O2+(6,7)"), 0.0, 8_000);
        assert_frequencies(&counts, &one_of_paired_with_another(&[5], &[0, 1, 2, 3, 4, 5, 6, 7, 8]));
    }

    #[test]
    fn a_winning_path_takes_two_of_its_marked_squares_in_the_first_line() {
        // X's marks are in all of row 0 (and in 2 and 5 of column 2-5-8, a later
        // line): two of row 0's three, a third of the time each.
        let position = game("X1+(1,2); O2+(4,8); X3+(3,6); O4+(7,9)");
        assert_frequencies(&answers(&position, 0.0, 6_000), &any_two_of(&[0, 1, 2]));
    }

    #[test]
    fn a_winning_path_comes_before_disruption() {
        // X1 in squares 3 and 4 of the middle row, O2 in 0 and 1 of the top row: X
        // builds on its own row rather than disrupt O's, which comes first.
        let counts = answers(&game("X1+(4,5); O2+(1,2)"), 0.0, 1_000);
        assert_eq!(counts, BTreeMap::from([([3, 4], 1_000)]));
    }

    #[test]
    fn disruption_skips_a_line_whose_opponent_marks_are_all_classical() {
        // O4 closed the cycle 0-1-2 and X put O4 in 0: O2 went to 1, X3 to 2 and
        // the stem X1 to 3. The top row's O marks are classical, so X goes on to
        // the bottom row, where O6 is spooky in 6 and 7 (X5's 5 and 6 share no line).
        let position = game("X1+(3,4); O2+(1,2); X3+(2,3); O4+(1,3); X5!O4(1); X5+(6,7); O6+(7,8)");
        let classical: Vec<_> = Square::ALL.into_iter().map(|s| position.classical(s).map(|m| m.to_string())).collect();
        assert_eq!(&classical[..4], [Some("O4".into()), Some("O2".into()), Some("X3".into()), Some("X1".into())]);
        let counts = answers(&position, 0.0, 8_000);
        assert_frequencies(&counts, &one_of_paired_with_another(&[6, 7], &[4, 5, 6, 7, 8]));
    }

    #[test]
    fn a_mistake_is_any_two_open_squares() {
        let position = game("X1+(1,2); O2+(4,8); X3+(3,6); O4+(7,9)");
        assert_frequencies(&answers(&position, 1.0, 36_000), &any_two_of(&[0, 1, 2, 3, 4, 5, 6, 7, 8]));
    }

    #[test]
    fn mistakes_come_as_often_as_their_chance() {
        // A winning path of one pair, or a mistake a quarter of the time.
        let position = game("X1+(4,5); O2+(1,2)");
        let mut expected: BTreeMap<[usize; 2], f64> =
            any_two_of(&[0, 1, 2, 3, 4, 5, 6, 7, 8]).into_iter().map(|(pair, chance)| (pair, chance / 4.0)).collect();
        *expected.get_mut(&[3, 4]).unwrap() += 0.75;
        assert_frequencies(&answers(&position, 0.25, 20_000), &expected);
    }

    #[test]
    fn on_the_last_open_square_it_plays_the_last_square_move() {
        // Four 2-cycles collapsed without a line: square 8 alone is open.
        let position = game(
            "X1+(1,2); O2+(1,2); X3!O2(2); X3+(3,4); O4+(3,4); X5!O4(4); X5+(5,6); O6+(5,6); X7!O6(5); \
             X7+(7,8); O8+(7,8); X9!O8(7)",
        );
        assert_eq!(position.open_squares().collect::<Vec<_>>(), [Square::ALL[8]]);
        assert_eq!(answers(&position, 1.0, 50), BTreeMap::from([([8, 8], 50)]));
    }

    #[test]
    fn it_takes_the_collapse_option_that_scores_best_for_it() {
        // Goff's example: X7 closes the 2-cycle 0-4 with X1. Putting X7 in the corner
        // gives O the earlier line and the win by half a point.
        let position = game("X1+(1,5); O2+(3,9); X3+(1,4); O4+(3,6); X5+(4,7); O6+(5,9); X7+(1,5)");
        let action = Parasite { mistake_chance: 0.0 }.choose(&position, &mut StdRng::seed_from_u64(0));
        assert_eq!(action, Action::Collapse { move_number: 7, square: Square::ALL[0] });
        let mut after = position;
        after.play(Actor::Player(Player::O), action).unwrap();
        assert_eq!((after.score().x.as_f64(), after.score().o.as_f64()), (0.5, 1.0));
    }
}
