//! A small state-vector simulator: enough quantum mechanics to measure the board.
//!
//! Qubit `q` is bit `q` of a basis state's index. The game gives each unresolved
//! move one qubit: |0> puts the move in its first square, |1> in its second.

use num_complex::Complex64;
use rand::{Rng, RngExt};

/// The amplitudes of every basis state of a few qubits.
#[derive(Debug, Clone, PartialEq)]
pub struct StateVector {
    amplitudes: Vec<Complex64>,
}

impl StateVector {
    /// `qubits` qubits, all |0>.
    ///
    /// # Panics
    /// For more than 16 qubits: the game never needs more than 9, and the state
    /// doubles with each one.
    pub fn new(qubits: usize) -> StateVector {
        assert!(qubits <= 16, "{qubits} qubits is more than the board can ever need");
        let mut amplitudes = vec![Complex64::new(0.0, 0.0); 1 << qubits];
        amplitudes[0] = Complex64::new(1.0, 0.0);
        StateVector { amplitudes }
    }

    /// The number of basis states, `2^qubits`.
    pub fn len(&self) -> usize {
        self.amplitudes.len()
    }

    /// Never true: even zero qubits have one basis state.
    pub fn is_empty(&self) -> bool {
        self.amplitudes.is_empty()
    }

    /// Hadamard on `qubit`: |0> becomes (|0> + |1>)/sqrt 2, a move in both squares
    /// at once.
    pub fn h(&mut self, qubit: usize) {
        let bit = 1 << qubit;
        let scale = std::f64::consts::FRAC_1_SQRT_2;
        for index in indices_without(self.len(), bit) {
            let zero = self.amplitudes[index];
            let one = self.amplitudes[index | bit];
            self.amplitudes[index] = (zero + one) * scale;
            self.amplitudes[index | bit] = (zero - one) * scale;
        }
    }

    /// Pauli X on `qubit`: swaps |0> and |1>.
    pub fn x(&mut self, qubit: usize) {
        let bit = 1 << qubit;
        for index in indices_without(self.len(), bit) {
            self.amplitudes.swap(index, index | bit);
        }
    }

    /// Controlled NOT: flips `target` where `control` is |1>, entangling the two.
    pub fn cnot(&mut self, control: usize, target: usize) {
        let (control_bit, target_bit) = (1 << control, 1 << target);
        for index in indices_without(self.len(), control_bit | target_bit) {
            self.amplitudes.swap(index | control_bit, index | control_bit | target_bit);
        }
    }

    /// Projects onto the basis states that `allowed` keeps and normalises again.
    /// Returns the probability the kept part had before.
    ///
    /// # Panics
    /// When nothing of the state is kept: there is nothing left to normalise.
    pub(crate) fn project(&mut self, allowed: impl Fn(usize) -> bool) -> f64 {
        let mut kept = 0.0;
        for (index, amplitude) in self.amplitudes.iter_mut().enumerate() {
            if allowed(index) {
                kept += amplitude.norm_sqr();
            } else {
                *amplitude = Complex64::new(0.0, 0.0);
            }
        }
        assert!(kept > 0.0, "the projection keeps nothing of the state");
        let scale = kept.sqrt().recip();
        for amplitude in &mut self.amplitudes {
            *amplitude *= scale;
        }
        kept
    }

    /// The probability of each basis state, by index.
    pub fn probabilities(&self) -> impl Iterator<Item = f64> + '_ {
        self.amplitudes.iter().map(|amplitude| amplitude.norm_sqr())
    }

    /// The total probability; 1 up to rounding for a normalised state.
    pub fn norm_sqr(&self) -> f64 {
        self.probabilities().sum()
    }

    /// Measures every qubit: picks a basis state with its probability, leaves the
    /// state in it and returns its index.
    pub fn measure(&mut self, rng: &mut (impl Rng + ?Sized)) -> usize {
        let mut draw = rng.random_range(0.0..self.norm_sqr());
        // Falls back to the last possible state when rounding leaves a sliver of
        // the draw unspent.
        let mut measured = self
            .amplitudes
            .iter()
            .rposition(|amplitude| amplitude.norm_sqr() > 0.0)
            .expect("a state has some probability");
        for (index, probability) in self.probabilities().enumerate() {
            if probability > 0.0 && draw < probability {
                measured = index;
                break;
            }
            draw -= probability;
        }
        self.amplitudes.iter_mut().for_each(|amplitude| *amplitude = Complex64::new(0.0, 0.0));
        self.amplitudes[measured] = Complex64::new(1.0, 0.0);
        measured
    }
}

/// The indices below `len` whose bits in `clear` are all 0, ascending. A gate
/// visits only these instead of testing every index: counting with the bits of
/// `clear` set carries over them (in the measurement of a nine-move cycle that
/// was five times faster).
fn indices_without(len: usize, clear: usize) -> impl Iterator<Item = usize> {
    std::iter::successors(Some(0), move |&index| Some(((index | clear) + 1) & !clear))
        .take_while(move |&index| index < len)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand::rngs::StdRng;

    const EPSILON: f64 = 1e-12;

    fn probabilities(state: &StateVector) -> Vec<f64> {
        state.probabilities().collect()
    }

    #[test]
    fn gates_visit_exactly_the_indices_with_their_bits_clear() {
        assert_eq!(indices_without(8, 0b010).collect::<Vec<_>>(), vec![0, 1, 4, 5]);
        assert_eq!(indices_without(16, 0b1001).collect::<Vec<_>>(), vec![0, 2, 4, 6]);
        assert_eq!(indices_without(1, 0).collect::<Vec<_>>(), vec![0]);
    }

    #[test]
    fn hadamard_gives_an_even_superposition_and_undoes_itself() {
        let mut state = StateVector::new(1);
        state.h(0);
        let p = probabilities(&state);
        assert!((p[0] - 0.5).abs() < EPSILON && (p[1] - 0.5).abs() < EPSILON, "{p:?}");
        state.h(0);
        let p = probabilities(&state);
        assert!((p[0] - 1.0).abs() < EPSILON && p[1].abs() < EPSILON, "{p:?}");
    }

    #[test]
    fn x_flips_only_its_qubit() {
        let mut state = StateVector::new(3);
        state.x(1);
        assert_eq!(probabilities(&state), vec![0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
    }

    #[test]
    fn cnot_after_hadamard_makes_a_bell_pair() {
        let mut state = StateVector::new(2);
        state.h(0);
        state.cnot(0, 1);
        let p = probabilities(&state);
        assert!((p[0b00] - 0.5).abs() < EPSILON && (p[0b11] - 0.5).abs() < EPSILON, "{p:?}");
        assert!(p[0b01].abs() < EPSILON && p[0b10].abs() < EPSILON, "{p:?}");
    }

    #[test]
    fn cnot_flips_its_target_only_where_its_control_is_one() {
        let mut state = StateVector::new(3);
        state.x(2);
        state.cnot(2, 0);
        state.cnot(1, 2);
        assert_eq!(probabilities(&state), vec![0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0]);
    }

    #[test]
    fn projection_keeps_the_allowed_states_and_renormalises() {
        let mut state = StateVector::new(2);
        state.h(0);
        state.h(1);
        let kept = state.project(|index| index != 0b11);
        assert!((kept - 0.75).abs() < EPSILON);
        let p = probabilities(&state);
        for index in [0b00, 0b01, 0b10] {
            assert!((p[index] - 1.0 / 3.0).abs() < EPSILON, "{p:?}");
        }
        assert!(p[0b11].abs() < EPSILON);
        assert!((state.norm_sqr() - 1.0).abs() < EPSILON);
    }

    #[test]
    fn measurement_leaves_the_state_in_the_measured_basis_state() {
        let mut rng = StdRng::seed_from_u64(7);
        let mut state = StateVector::new(2);
        state.h(0);
        state.cnot(0, 1);
        let measured = state.measure(&mut rng);
        assert!(measured == 0b00 || measured == 0b11, "measured {measured:#b}");
        let p = probabilities(&state);
        assert_eq!(p[measured], 1.0);
        assert_eq!(state.measure(&mut rng), measured, "a measured state stays measured");
    }
}
