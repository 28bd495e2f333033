//! The rules of Quantum Tic-Tac-Toe, pure: no I/O, no clock, no randomness of its
//! own (a measurement takes the caller's random number generator).
//!
//! A [`Game`] is a fold over its log: [`Game::replay`] of the entries that
//! [`Game::log`] returns gives the same game as playing it step by step.

mod board;
mod collapse;
mod error;
mod game;
mod graph;
mod measurement;
mod moves;
pub mod notation;
mod scoring;
mod stack;

pub use board::{LINES, MAX_MOVES, Mark, MoveNumber, Player, Square};
pub use collapse::{Collapse, CollapseOption};
pub use error::RuleError;
pub use game::{Game, ReplayError};
pub use measurement::SquareProbabilities;
pub use moves::{Action, Actor, LogEntry, Move, Rules, Variant};
pub use scoring::{GameResult, Line, Points, Score, Scoring};
pub use stack::Stack;
