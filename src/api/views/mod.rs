//! What the API reads and writes: request bodies and views, with their schemas.

mod actions;
mod analysis;
mod arenas;
mod game;
mod log;
mod names;
mod pairing;
mod players;
mod puzzles;
mod requests;

use serde::Serialize;
use utoipa::ToSchema;

use crate::engine::Square;

pub use actions::*;
pub(crate) use analysis::*;
pub(crate) use arenas::*;
pub use game::*;
pub(crate) use log::*;
pub use names::*;
pub(crate) use pairing::*;
pub use players::*;
pub use puzzles::*;
pub(crate) use requests::*;

/// The process answers.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct Health {
    /// `ok`, or `ready` once the database answers too.
    #[schema(example = "ok")]
    pub status: String,
}

/// The squares as numbers 0-8, as the API writes them.
fn squares_of<const N: usize>(squares: [Square; N]) -> Vec<u8> {
    squares.iter().map(|s| s.number()).collect()
}
