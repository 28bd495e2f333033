//! Every game of one database into another (`qttt copy`): the way from SQLite to
//! PostgreSQL, ids kept, so that players' tokens and links keep working.
//!
//! Each game is copied in one statement, so an interrupted copy leaves whole
//! games only, and a game already there is skipped: running the copy again
//! finishes it. A rematch entry is copied with the rematch it names (the two
//! reference each other), and at the end every copied game is read back from
//! both databases, compared, and replayed. The players go first (the games'
//! seats name them; the bots' players replace the target's own, which nothing
//! names yet), their challenges, seeks, events and ratings after, then the
//! puzzles with their attempts and the puzzle ratings, row for row, ids kept,
//! each table's rows counted on both sides at the end. Sightings of a game's
//! seats are not copied: on the new database everyone is unseen in a game
//! until they come back to it.

use jiff::Timestamp;

use super::{Error, GameRecord};
use crate::error::Fault;
use crate::record::{Event, GameId, RematchOf, StoredGame};
use crate::store::{Store, Table};

/// The games read from the source at once.
const PAGE: u32 = 1000;

/// The rows of a table read from the source at once.
const ROWS_AT_ONCE: u32 = 1000;

/// What a copy did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Copied {
    /// Rows of the players' tables written into the target: players, their
    /// challenges, seeks and events.
    pub rows: u64,
    /// Games written into the target.
    pub games: usize,
    /// Their log entries.
    pub entries: usize,
    /// Games the target had already, left as they were.
    pub skipped: usize,
}

/// Copies every game of `from` into `to`, keeping their ids, and points the
/// original app's routes at the same game. Unless `skip_existing`, a target that
/// holds any game is refused. `progress` hears (games done, games in all) as it goes.
///
/// # Errors
/// [`Error::Conflict`] for a target that holds games; [`Error::Internal`] for a
/// copied game that reads back otherwise than its original, or does not replay;
/// database failures.
pub async fn copy_games(
    from: &Store,
    to: &Store,
    skip_existing: bool,
    mut progress: impl FnMut(usize, usize),
) -> Result<Copied, Error> {
    if !skip_existing && !to.game_ids(GameId::new(0), 1).await?.is_empty() {
        return Err(Error::Conflict {
            detail: "the target already holds games: --skip-existing copies only those it lacks \
                     (to finish a copy that was interrupted)"
                .into(),
            current_version: None,
        });
    }
    let ids = every_id(from).await?;
    let mut copied = Copied::default();
    // The target's own bots make way for the source's, whose ids the games name.
    to.remove_unused_bots().await?;
    for &table in Table::BEFORE_GAMES {
        copied.rows += copy_rows(from, to, table).await?;
    }
    let mut copied_ids = Vec::new();
    for (done, &id) in ids.iter().enumerate() {
        let game = from.load_game(id).await?;
        let first = match game.rematch_of {
            Some(first) => Some(from.load_game(first).await?),
            None => None,
        };
        let (game, rematch) = as_copied(game, first.as_ref());
        let entries = game.log.len() + usize::from(rematch.is_some());
        if to.copy_game(game, rematch).await? {
            copied.games += 1;
            copied.entries += entries;
            copied_ids.push(id);
        } else {
            copied.skipped += 1;
        }
        progress(done + 1, ids.len());
    }
    for &table in Table::AFTER_GAMES {
        copied.rows += copy_rows(from, to, table).await?;
    }
    if let Some((id, play_as)) = from.original_app_game().await? {
        to.set_original_app_game(id, play_as).await?;
    }
    for table in Table::ALL {
        let (rows, copies) = (from.count_rows(table).await?, to.count_rows(table).await?);
        if copies < rows {
            return Err(Error::Internal(Fault::new(format!(
                "{} holds {copies} rows where its original holds {rows}",
                table.name()
            ))));
        }
    }
    for id in copied_ids {
        let (original, copy) = (from.load_game(id).await?, to.load_game(id).await?);
        if unseen(copy.clone()) != unseen(original) {
            return Err(Error::Internal(Fault::new(format!("game {id} reads back otherwise than its original"))));
        }
        replays(copy)?;
    }
    Ok(copied)
}

/// What a check of every game found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Checked {
    /// Games, each of which replays.
    pub games: usize,
    /// Their log entries.
    pub entries: usize,
}

/// Replays every game of `store` (a backup's, say), and counts them.
///
/// # Errors
/// [`Error::Internal`] for a game that does not replay; database failures.
pub async fn check_games(store: &Store) -> Result<Checked, Error> {
    let mut checked = Checked::default();
    for id in every_id(store).await? {
        let game = store.load_game(id).await?;
        checked.games += 1;
        checked.entries += game.log.len();
        replays(game)
            .map_err(|error| Error::Internal(Fault::caused_by(format!("game {id} does not replay"), error)))?;
    }
    Ok(checked)
}

/// The ids of every game of `store`, in order.
pub(super) async fn every_id(store: &Store) -> Result<Vec<GameId>, Error> {
    let mut ids: Vec<GameId> = Vec::new();
    loop {
        let page = store.game_ids(ids.last().copied().unwrap_or(GameId::new(0)), PAGE).await?;
        if page.is_empty() {
            return Ok(ids);
        }
        ids.extend(page);
    }
}

/// Copies every row of `table` from `from` into `to`, a page at a time;
/// answers how many were new there.
async fn copy_rows(from: &Store, to: &Store, table: Table) -> Result<u64, Error> {
    let (mut after, mut written) = ((0, 0), 0);
    loop {
        let (rows, count, last) = from.rows_after(table, after, ROWS_AT_ONCE).await?;
        if count == 0 {
            return Ok(written);
        }
        written += to.put_rows(table, rows).await?;
        after = last;
    }
}

/// `game` with no sighting of its seats, which a copy leaves out.
fn unseen(mut game: StoredGame) -> StoredGame {
    for seat in &mut game.seats {
        seat.last_seen_at = None;
    }
    game
}

/// `game`, read from another database, as [`Store::copy_game`] takes it:
/// without the entry that asked for its rematch, which goes with the rematch it
/// names; and when it is a rematch, with that entry of `first`, the game it
/// follows.
pub fn as_copied(mut game: StoredGame, first: Option<&StoredGame>) -> (StoredGame, Option<RematchOf>) {
    game.log.retain(|entry| !matches!(entry.event, Event::Rematch { .. }));
    let rematch = first.and_then(|first| rematch_entry(first, game.id));
    (game, rematch)
}

/// The entry of `first` that asked for its rematch, game `rematch`.
fn rematch_entry(first: &StoredGame, rematch: GameId) -> Option<RematchOf> {
    first.log.iter().find_map(|entry| match entry.event {
        Event::Rematch { player, game_id } if game_id == rematch => {
            Some(RematchOf { game_id: first.id, seq: entry.seq, player })
        }
        _ => None,
    })
}

/// Checks that `game` replays: its log is one the rules accept.
fn replays(game: StoredGame) -> Result<(), Error> {
    GameRecord::replay(game, Timestamp::UNIX_EPOCH, super::DEFAULT_FIRST_MOVE).map(drop)
}
