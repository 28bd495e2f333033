//! The board as qubits: measuring a closed cycle, and each square's odds.
//!
//! Each unresolved move is one qubit of the [`quantum`](crate::quantum) simulator:
//! |0> lands it in its first square, |1> in its second.

use rand::Rng;

use super::board::{MoveNumber, Player, Square};
use super::collapse::{Collapse, CollapseOption};
use super::moves::Move;
use crate::quantum::StateVector;

/// Measures a closed cycle and returns the square its closing move ends in.
///
/// The cycle's two outcomes differ exactly in the cycle's moves (a stem lands the
/// same way in both), so the circuit puts the closing move in superposition,
/// entangles every other cycle move with it, and shifts the result onto the first
/// outcome: (|first> + |second>)/sqrt 2. Each is measured with probability 1/2.
pub(super) fn measure_cycle(moves: &[Move], pending: &Collapse, rng: &mut (impl Rng + ?Sized)) -> Square {
    let component: Vec<MoveNumber> = pending.options[0].outcome.iter().map(|&(number, _)| number).collect();
    let qubit = |number| component.iter().position(|&m| m == number).expect("cycle moves are in the component");
    let basis_state = |option: &CollapseOption| -> usize {
        option
            .outcome
            .iter()
            .filter(|&&(number, landed)| moves[usize::from(number) - 1].squares[1] == landed)
            .map(|&(number, _)| 1 << qubit(number))
            .sum()
    };
    let closing = qubit(pending.closing_move);
    let mut state = StateVector::new(component.len());
    state.h(closing);
    for &number in pending.cycle_moves.iter().filter(|&&m| m != pending.closing_move) {
        state.cnot(closing, qubit(number));
    }
    let first = basis_state(&pending.options[0]);
    for q in (0..component.len()).filter(|q| first & (1 << q) != 0) {
        state.x(q);
    }
    let measured = state.measure(rng);
    let option = pending
        .options
        .iter()
        .find(|option| basis_state(option) == measured)
        .expect("the circuit only reaches the two outcomes of the cycle");
    option.square
}

/// The odds of what a square would hold if every unresolved move were measured now.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct SquareProbabilities {
    /// The probability of an X.
    pub x: f64,
    /// The probability of an O.
    pub o: f64,
    /// The probability that it stays empty.
    pub empty: f64,
}

/// Each square's odds: a classical square is certain; the unresolved moves are put
/// in even superposition and projected onto the outcomes the board allows (no
/// square gets two marks), each of which is then equally likely.
pub(super) fn square_probabilities(moves: &[Move], classical: &[Option<MoveNumber>; 9]) -> [SquareProbabilities; 9] {
    let mut odds = [SquareProbabilities::default(); 9];
    let unresolved: Vec<&Move> = moves.iter().filter(|m| m.landed.is_none()).collect();
    let square_of = |index: usize, q: usize| unresolved[q].squares[(index >> q) & 1];
    let mut state = StateVector::new(unresolved.len());
    for q in 0..unresolved.len() {
        state.h(q);
    }
    let mut allowed = vec![false; state.len()];
    mark_allowed(&unresolved, 0, 0, 0, &mut allowed);
    state.project(|index| allowed[index]);
    for (index, probability) in state.probabilities().enumerate().filter(|&(_, p)| p > 0.0) {
        for (q, m) in unresolved.iter().enumerate() {
            let square = &mut odds[square_of(index, q).index()];
            match m.player() {
                Player::X => square.x += probability,
                Player::O => square.o += probability,
            }
        }
    }
    for (square, number) in odds.iter_mut().zip(classical) {
        match number.map(Player::of_move) {
            Some(Player::X) => square.x = 1.0,
            Some(Player::O) => square.o = 1.0,
            None => {}
        }
        square.empty = (1.0 - square.x - square.o).max(0.0);
    }
    odds
}

/// Marks in `allowed` the basis states that land the moves from `unresolved[q]` on
/// each in a square still free of `filled`, the earlier qubits given by `index`.
/// Only such states are visited: on a crowded board, a few out of hundreds.
fn mark_allowed(unresolved: &[&Move], q: usize, index: usize, filled: u16, allowed: &mut [bool]) {
    let Some(next) = unresolved.get(q) else {
        allowed[index] = true;
        return;
    };
    for (side, square) in next.squares.iter().enumerate() {
        let bit = 1 << square.index();
        if filled & bit == 0 {
            mark_allowed(unresolved, q + 1, index | side << q, filled | bit, allowed);
        }
    }
}
