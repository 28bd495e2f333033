//! The listings of games in SQLite: a page of every game, of a player's, or
//! the games of some ids, each as a listing shows it.

use std::sync::LazyLock;

use rusqlite::{Connection, Row, params};

use super::{SqliteStore, as_written};
use crate::record::{GameId, ListedGame, Page, PlayerId, Status};
use crate::store::StoreError;
use crate::store::rows::{listed_game_from_row, listing_columns};

/// The rows that `statement` finds with `params` on `connection`, each read by `read`.
pub(super) fn rows_of<T>(
    connection: &Connection,
    statement: &str,
    params: impl rusqlite::Params,
    read: impl Fn(&Row<'_>) -> Result<T, StoreError>,
) -> Result<Vec<T>, StoreError> {
    let mut select = connection.prepare_cached(statement)?;
    let mut rows = select.query(params)?;
    let mut read_rows = Vec::new();
    while let Some(row) = rows.next()? {
        read_rows.push(read(row)?);
    }
    Ok(read_rows)
}

/// The listing, of every status (along the primary key) or of one (along
/// `games_by_status`), newest first from below the page's start. One statement
/// for both, `(?1 IS NULL OR status = ?1)`, had one plan for both: a scan of
/// every newer game of another status.
pub(super) static LIST_GAMES: LazyLock<[String; 2]> = LazyLock::new(|| {
    ["", "status = ?3 AND "].map(|status| {
        format!(
            "SELECT {} FROM games WHERE {status}id < ?1 AND invite_hash IS NULL ORDER BY id DESC LIMIT ?2",
            listing_columns(as_written)
        )
    })
});
/// A player's games along `seats_by_player`, newest first from below the page's start.
pub(super) static PLAYER_GAMES: LazyLock<String> = LazyLock::new(|| {
    format!(
        "SELECT {} FROM seats JOIN games ON games.id = seats.game_id WHERE seats.player_id = ?1 \
         AND (?2 IS NULL OR games.status = ?2) AND seats.game_id < ?3 \
         ORDER BY seats.game_id DESC LIMIT ?4",
        listing_columns(as_written)
    )
});
static LISTED_GAMES: LazyLock<String> = LazyLock::new(|| {
    format!("SELECT {} FROM games WHERE id IN (SELECT value FROM json_each(?1))", listing_columns(as_written))
});
impl SqliteStore {
    pub(in crate::store) async fn list_games(&self, page: Page) -> Result<Vec<ListedGame>, StoreError> {
        self.readers
            .run(move |connection| {
                let (below, read) = (page.below(), |row: &Row<'_>| listed_game_from_row(row));
                match page.status {
                    None => rows_of(connection, &LIST_GAMES[0], params![below, page.limit], read),
                    Some(status) => {
                        rows_of(connection, &LIST_GAMES[1], params![below, page.limit, status.code()], read)
                    }
                }
            })
            .await
    }

    pub(in crate::store) async fn player_games(&self, id: PlayerId, page: Page) -> Result<Vec<ListedGame>, StoreError> {
        self.readers
            .run(move |connection| {
                let values = params![id, page.status.map(Status::code), page.below(), page.limit];
                rows_of(connection, &PLAYER_GAMES, values, |row| listed_game_from_row(row))
            })
            .await
    }

    pub(in crate::store) async fn listed_games(&self, ids: Vec<GameId>) -> Result<Vec<ListedGame>, StoreError> {
        let ids = serde_json::to_string(&ids).expect("ids serialise");
        self.readers
            .run(move |connection| rows_of(connection, &LISTED_GAMES, [ids], |row| listed_game_from_row(row)))
            .await
    }
}
