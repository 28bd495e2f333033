//! What the API reads and writes: request bodies and views, with their schemas.

mod actions;
mod analysis;
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
pub use analysis::*;
pub use game::*;
pub use log::*;
pub use names::*;
pub use pairing::*;
pub use players::*;
pub use puzzles::*;
pub use requests::*;

/// The process answers.
#[derive(Debug, Serialize, ToSchema)]
pub struct Health {
    /// `ok`, or `ready` once the database answers too.
    #[schema(example = "ok")]
    pub status: String,
}

/// The squares as numbers 0-8, as the API writes them.
fn squares_of<const N: usize>(squares: [Square; N]) -> Vec<u8> {
    squares.iter().map(|s| s.number()).collect()
}
