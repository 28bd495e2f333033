//! The simulator: normalisation, the measurement's odds, and each square's odds.

use qttt::engine::{Action, Actor, Game, Player, Variant};
use qttt::quantum::StateVector;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

use crate::fixtures::square;

#[test]
fn random_circuits_keep_the_state_normalised() {
    let mut rng = StdRng::seed_from_u64(1);
    for _ in 0..500 {
        let qubits = rng.random_range(1..=9);
        let mut state = StateVector::new(qubits);
        for _ in 0..40 {
            let (a, b) = (rng.random_range(0..qubits), rng.random_range(0..qubits));
            match rng.random_range(0..3) {
                0 => state.h(a),
                1 => state.x(a),
                _ if a != b => state.cnot(a, b),
                _ => {}
            }
            assert!((state.norm_sqr() - 1.0).abs() < 1e-9, "norm {}", state.norm_sqr());
        }
        state.measure(&mut rng);
        assert!((state.norm_sqr() - 1.0).abs() < 1e-12);
    }
}

/// Plays `moves` as alternating players in the measurement variant, measuring the
/// last one `trials` times; returns how often the closing move ended in its first
/// square.
fn first_square_count(moves: &[[i64; 2]], trials: u32, rng: &mut StdRng) -> u32 {
    let mut game = Game::new(Variant::Measurement);
    let (last, earlier) = moves.split_last().unwrap();
    for (i, &[a, b]) in earlier.iter().enumerate() {
        let player = if i % 2 == 0 { Player::X } else { Player::O };
        game.play(Actor::Player(player), Action::Move { squares: [square(a), square(b)] }).unwrap();
    }
    let closer = Actor::Player(if earlier.len() % 2 == 0 { Player::X } else { Player::O });
    let closing_move = u8::try_from(moves.len()).unwrap();
    let first = square(last[0].min(last[1]));
    let first_square = (0..trials)
        .filter(|_| {
            let mut measured = game;
            measured.play_measured(closer, Action::Move { squares: [square(last[0]), square(last[1])] }, rng).unwrap();
            measured.moves()[usize::from(closing_move) - 1].landed == Some(first)
        })
        .count();
    u32::try_from(first_square).unwrap()
}

#[test]
fn measuring_a_cycle_picks_each_outcome_half_the_time_within_binomial_bounds() {
    let mut rng = StdRng::seed_from_u64(2026);
    let trials = 4000;
    // Five standard deviations of a fair binomial: a false alarm about once in 1.7 million runs.
    let bound = 5.0 * (f64::from(trials) / 4.0).sqrt();
    let cycles: [&[[i64; 2]]; 3] = [
        &[[0, 1], [0, 1]],                         // a 2-cycle
        &[[0, 1], [1, 4], [0, 4]],                 // Goff's 3-cycle
        &[[0, 1], [1, 2], [2, 5], [5, 8], [0, 2]], // a cycle with a chain of two stems
    ];
    for moves in cycles {
        let count = first_square_count(moves, trials, &mut rng);
        let deviation = (f64::from(count) - f64::from(trials) / 2.0).abs();
        assert!(deviation <= bound, "{moves:?}: first square {count} of {trials}");
        assert!(count > 0 && count < trials);
    }
}

#[test]
fn square_odds_count_every_consistent_outcome_once() {
    let mut game = Game::new(Variant::PlayerChoice);
    game.play(Actor::Player(Player::X), Action::Move { squares: [square(0), square(1)] }).unwrap();
    let odds = game.square_probabilities();
    assert!((odds[0].x - 0.5).abs() < 1e-12 && (odds[0].empty - 0.5).abs() < 1e-12, "{:?}", odds[0]);
    assert_eq!(odds[4].empty, 1.0);

    // X1 (0,1) and O2 (1,2): three ways to land, X1 in 0 in two of them.
    game.play(Actor::Player(Player::O), Action::Move { squares: [square(1), square(2)] }).unwrap();
    let odds = game.square_probabilities();
    let third = 1.0 / 3.0;
    let expected = [(2.0 * third, 0.0), (third, third), (0.0, 2.0 * third)];
    for (i, (x, o)) in expected.into_iter().enumerate() {
        assert!((odds[i].x - x).abs() < 1e-12 && (odds[i].o - o).abs() < 1e-12, "square {i}: {:?}", odds[i]);
    }

    // A closed cycle waiting for its collapse has just its two outcomes.
    game.play(Actor::Player(Player::X), Action::Move { squares: [square(0), square(2)] }).unwrap();
    let odds = game.square_probabilities();
    assert!((odds[0].x - 1.0).abs() < 1e-12, "X1 or X3 fills square 0 either way: {:?}", odds[0]);
    assert!((odds[1].x - 0.5).abs() < 1e-12 && (odds[1].o - 0.5).abs() < 1e-12, "{:?}", odds[1]);
}
