//! The integration tests, in one binary to keep build time down.

mod analysis;
mod api;
mod bots;
mod command_line;
mod documentation;
mod fixtures;
mod layers;
mod notation;
#[path = "../support/postgres.rs"]
mod postgres;
mod properties;
mod quantum;
mod scenarios;
mod schemas;
mod terminal;
