//! The HTTP API over a real server and a real database: a SQLite file, or
//! PostgreSQL when `QTTT_TEST_POSTGRES` names a server.

mod analysis;
mod arenas;
mod bot_players;
mod bots;
mod bridge;
mod concurrency;
mod copying;
mod cors;
mod deployment;
mod docs;
mod durability;
mod encryption;
mod errors;
mod events;
mod frontend;
mod games;
mod hardening;
mod helpers;
mod instances;
mod life;
mod operations;
mod original_app;
mod outage;
mod pairing;
mod players;
mod presence;
mod process;
mod puzzles;
mod ratings;
mod scenarios;
mod scoring;
