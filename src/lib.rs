//! qttt: a game server for Quantum Tic-Tac-Toe.
//!
//! # Layout
//! - [`engine`]: the rules, pure. Moves, the entanglement graph, collapse in both
//!   variants, scoring, legal actions, replay from a log, and the transcript
//!   notation.
//! - [`quantum`]: a small state-vector simulator, pure; the engine measures cycles
//!   and computes each square's odds with it.
//! - [`board_text`]: the board drawn as text, for the command line.

pub mod board_text;
pub mod engine;
pub mod quantum;
