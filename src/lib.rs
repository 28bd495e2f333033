//! qttt: a game server for Quantum Tic-Tac-Toe.
//!
//! # Layout
//! - [`engine`]: the rules, pure. Moves, the entanglement graph, collapse in both
//!   variants, scoring, legal actions, replay from a log, and the transcript
//!   notation.
//! - [`quantum`]: a small state-vector simulator, pure; the engine measures cycles
//!   and computes each square's odds with it.
//! - [`bot`]: computer players, pure: random, the original app's heuristic, and a
//!   perfect player by exact search.
//! - [`record`]: a game's record, pure: the words the store keeps and the
//!   service and the API speak (a game as stored, its log entries, its ending,
//!   summary and listing).
//! - [`service`]: the only orchestrator. Load a game's log, replay it, apply the
//!   action, append the new entries; the games, log entries and listings it
//!   hands the API; where its randomness comes from.
//! - [`store`]: the only module with SQL: games, logs and seats, in SQLite or
//!   PostgreSQL behind one set of operations, with its own error type.
//! - [`api`]: HTTP handlers, request and response views, routes, problem+json,
//!   the OpenAPI document and Swagger UI.
//! - [`error`]: what the service's operations fail with, in its own words.
//! - [`config`]: settings from the environment, with defaults.
//! - [`server`]: start-up and graceful shutdown.
//! - [`logging`]: the server's log, as text or JSON, each line about a request
//!   with its id, and clients' faults kept out of its errors.
//! - [`metrics`]: the names and meanings of the metrics, and their recorder.
//! - [`token`]: seat tokens and their hashes.
//! - [`live`]: who watches which game, for the live event streams; news of other
//!   instances' writes reaches it from the store.
//! - [`terminal`]: `qttt play`, a game in the terminal on the engine directly.
//! - [`board_text`]: the board drawn as text, for the command line.

pub mod api;
pub mod board_text;
pub mod bot;
pub mod config;
pub mod engine;
pub mod error;
pub mod live;
pub mod logging;
pub mod metrics;
pub mod quantum;
pub mod record;
pub mod server;
pub mod service;
pub mod store;
pub mod terminal;
pub mod token;
