//! Puzzles found in the games a database holds: `qttt puzzles generate
//! --from-database`.

use std::collections::HashSet;

use jiff::Timestamp;

use super::copy::every_id;
use super::{Error, GameRecord};
use crate::bot::Solver;
use crate::bot::puzzle::{self, Puzzle};
use crate::engine::Variant;
use crate::record::Status;
use crate::store::Store;

/// Up to `count` puzzles among the positions of the finished games of
/// `variant` in `store`, oldest games first, none the same up to symmetry as a
/// position in `seen`, which gains every position tried.
///
/// # Errors
/// Database failures; a game that does not replay.
pub async fn puzzles_in_games(
    store: &Store,
    variant: Variant,
    count: usize,
    seen: &mut HashSet<u64>,
) -> Result<Vec<Puzzle>, Error> {
    let mut solver = Solver::default();
    let mut found = Vec::new();
    for id in every_id(store).await? {
        if found.len() >= count {
            break;
        }
        let stored = store.load_game(id).await?;
        if stored.variant != variant || stored.summary.status != Status::Finished {
            continue;
        }
        let record = GameRecord::replay(stored, Timestamp::UNIX_EPOCH)?;
        found.extend(puzzle::find_in_game(&record.game, &format!("game {id}"), seen, &mut solver));
    }
    found.truncate(count);
    Ok(found)
}
