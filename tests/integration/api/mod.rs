//! The HTTP API over a real server and a real SQLite file.

mod bots;
mod concurrency;
mod cors;
mod docs;
mod durability;
mod errors;
mod events;
mod games;
mod helpers;
mod legacy;
mod scenarios;
