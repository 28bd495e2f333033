//! The listings of games in PostgreSQL: a page of every game, of a player's,
//! or the games of some ids, each as a listing shows it.

use super::PgStore;
use super::statements::{LIST_GAME_IDS, LISTED_GAMES};
use super::writes::PgQuery;
use crate::record::{GameId, ListedGame, Page, PlayerId, Status};
use crate::store::StoreError;
use crate::store::rows::listed_game_from_row;

/// The ids of a page of a player's games; their columns are read apart, as the
/// listing's are (see [`LIST_GAME_IDS`]).
pub(super) const PLAYER_GAME_IDS: &str = "SELECT games.id FROM seats JOIN games ON games.id = seats.game_id \
     WHERE seats.player_id = $1 AND ($2::TEXT IS NULL OR games.status = $2) AND seats.game_id < $3 \
     ORDER BY seats.game_id DESC LIMIT $4";
impl PgStore {
    pub(in crate::store) async fn list_games(&self, page: Page) -> Result<Vec<ListedGame>, StoreError> {
        self.listed_page(&|| {
            let query = sqlx::query_scalar(LIST_GAME_IDS[usize::from(page.status.is_some())])
                .bind(page.below())
                .bind(i64::from(page.limit));
            match page.status {
                Some(status) => query.bind(status.code()),
                None => query,
            }
        })
        .await
    }

    /// The games of the page whose ids `page_ids` reads, newest first, read on
    /// the same connection.
    async fn listed_page(
        &self,
        page_ids: &(dyn Fn() -> PgQuery<'static, GameId> + Sync),
    ) -> Result<Vec<ListedGame>, StoreError> {
        let rows = self
            .connections
            .run(&|connection| {
                let page_ids = page_ids();
                Box::pin(async move {
                    let ids = page_ids.fetch_all(&mut *connection).await?;
                    sqlx::query(LISTED_GAMES.as_str()).bind(ids).fetch_all(connection).await
                })
            })
            .await?;
        rows.iter().map(listed_game_from_row).collect()
    }

    pub(in crate::store) async fn player_games(&self, id: PlayerId, page: Page) -> Result<Vec<ListedGame>, StoreError> {
        let status = page.status.map(Status::code);
        self.listed_page(&|| {
            sqlx::query_scalar(PLAYER_GAME_IDS).bind(id).bind(status).bind(page.below()).bind(i64::from(page.limit))
        })
        .await
    }

    pub(in crate::store) async fn listed_games(&self, ids: Vec<GameId>) -> Result<Vec<ListedGame>, StoreError> {
        let rows = self
            .connections
            .run(&|connection| Box::pin(sqlx::query(LISTED_GAMES.as_str()).bind(ids.clone()).fetch_all(connection)))
            .await?;
        rows.iter().map(listed_game_from_row).collect()
    }
}
