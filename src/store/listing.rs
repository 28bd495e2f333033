//! The listings of games: a page of every public game (the lobby), a page of
//! a player's games, or the games of some ids, each as a listing shows it.
//! Written once, over [`Tx`]. A page's ids are read apart from their games'
//! columns: PostgreSQL plans a statement that finds a page anew at each run,
//! and planning the columns' twenty subqueries each time was most of the
//! listing's cost at a million games; the columns of some ids have one plan
//! for any ids, made once per connection.

use std::sync::LazyLock;

use super::rows::{bot_of, clock_of, rules_of, seat_rating_columns, seat_ratings_from_row, summary_from_row, username};
use super::sql::Sql;
use super::tx::{Arg, Row, Tx};
use super::{Store, StoreError, counted};
use crate::engine::Player;
use crate::record::{GameId, ListedGame, Page, PlayerId, Status};

/// The ids of a page of the lobby, of every status (along the primary key) or
/// of one (along `games_by_status`), newest first from below the page's start:
/// a statement for each, as one for both had one plan for both on SQLite.
pub(super) static LOBBY_PAGE: LazyLock<[Sql; 2]> = LazyLock::new(|| {
    ["", "status = $3 AND "].map(|status| {
        Sql::built(format!(
            "SELECT id FROM games WHERE {status}id < $1 AND invite_hash IS NULL ORDER BY id DESC LIMIT $2"
        ))
    })
});
/// The ids of a page of player `$1`'s games of status `$2` (any when null),
/// private ones too unless `$5`, along `seats_by_player`, newest first from
/// below the page's start.
pub(super) static PLAYER_PAGE: Sql = Sql::new(
    "SELECT games.id FROM seats JOIN games ON games.id = seats.game_id WHERE seats.player_id = $1 \
         AND ($2::TEXT IS NULL OR games.status = $2) AND seats.game_id < $3 \
         AND NOT ($5::BOOLEAN AND games.invite_hash IS NOT NULL) ORDER BY seats.game_id DESC LIMIT $4",
);
/// The listing's columns of the games `$1` names, newest first.
pub(super) static LISTED_GAMES: LazyLock<Sql> = LazyLock::new(|| {
    let name = |seat: &str| {
        format!(
            "(SELECT players.name FROM seats JOIN players ON players.id = seats.player_id \
             WHERE seats.game_id = games.id AND seats.player = '{seat}')"
        )
    };
    Sql::built(format!(
        "SELECT games.id, games.variant, games.scoring, games.created_at, \
         (SELECT COALESCE(MAX(seq), 0) FROM log_entries WHERE game_id = games.id) AS version, games.status, \
         games.result, games.end_reason, games.end_player, games.deadline, games.ended_at, {} AS x_name, \
         {} AS o_name, games.bot, games.mistake_chance, games.rated, games.clock_initial_ms, \
         games.clock_increment_ms, games.arena_id, {} FROM games WHERE id = ANY($1) \
         ORDER BY id DESC",
        name("X"),
        name("O"),
        seat_rating_columns()
    ))
});

impl Store {
    /// The games of `page` of the lobby, newest first.
    pub(crate) async fn list_games(&self, page: Page) -> Result<Vec<ListedGame>, StoreError> {
        counted(run!(self, Read, |tx| lobby(tx, page)))
    }

    /// The games of `page` in which player `id` holds a seat, newest first,
    /// private ones too unless `public_only`.
    pub(crate) async fn player_games(
        &self,
        id: PlayerId,
        page: Page,
        public_only: bool,
    ) -> Result<Vec<ListedGame>, StoreError> {
        let (status, below) = (page.status.map(Status::code).into(), page.below().into());
        let args = [id.into(), status, below, page.limit.into(), public_only.into()];
        counted(run!(self, Read, |tx| listed_page(tx, &PLAYER_PAGE, &args)))
    }

    /// The games of `ids` that are still there, as a listing shows them, newest first.
    pub(crate) async fn listed_games(&self, ids: Vec<GameId>) -> Result<Vec<ListedGame>, StoreError> {
        let ids = [Arg::Ids(ids.iter().map(|id| id.get()).collect())];
        counted(run!(self, Read, |tx| tx.rows(&LISTED_GAMES, &ids, listed_game_from_row)))
    }
}

pub(super) async fn lobby(tx: &mut impl Tx, page: Page) -> Result<Vec<ListedGame>, StoreError> {
    let (below, limit) = (page.below().into(), page.limit.into());
    match page.status {
        None => listed_page(tx, &LOBBY_PAGE[0], &[below, limit]).await,
        Some(status) => listed_page(tx, &LOBBY_PAGE[1], &[below, limit, status.code().into()]).await,
    }
}

/// The games of the page whose ids `page` answers with `args`.
async fn listed_page(tx: &mut impl Tx, page: &'static Sql, args: &[Arg<'_>]) -> Result<Vec<ListedGame>, StoreError> {
    let ids = tx.rows(page, args, |row| row.get::<i64>("id")).await?;
    tx.rows(&LISTED_GAMES, &[Arg::Ids(ids)], listed_game_from_row).await
}

/// The game in `row`, read with [`LISTED_GAMES`].
fn listed_game_from_row(row: &Row<'_>) -> Result<ListedGame, StoreError> {
    let summary = summary_from_row(row)?;
    let mut holders = Vec::new();
    for (player, column) in [(Player::X, "x_name"), (Player::O, "o_name")] {
        if let Some(name) = row.get::<Option<String>>(column)? {
            holders.push((player, username(&name)?));
        }
    }
    let rules = rules_of(row)?;
    Ok(ListedGame {
        id: row.get("id")?,
        variant: rules.variant,
        scoring: rules.scoring,
        created_at: row.get("created_at")?,
        version: row.get("version")?,
        status: summary.status,
        result: summary.result,
        end: summary.end,
        holders,
        opponent: bot_of(row.get::<Option<String>>("bot")?.as_deref(), row.get("mistake_chance")?)?,
        rated: row.get("rated")?,
        clock: clock_of(row.get("clock_initial_ms")?, row.get("clock_increment_ms")?)?,
        ratings: seat_ratings_from_row(row)?,
        arena: row.get("arena_id")?,
    })
}
