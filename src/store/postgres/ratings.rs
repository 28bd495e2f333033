//! Ratings in PostgreSQL: a rated game's end rates its players in the
//! transaction that ends it, their rows held until it commits, so that on any
//! instance each player's rated games are rated one after the other.

use std::sync::LazyLock;

use jiff::SignedDuration;
use sqlx::postgres::PgConnection;

use super::super::StoreError;
use super::super::rows::{
    player_columns, rated_player_from_row, rating_change_columns, rating_change_from_row, standing_columns,
    standing_from_row, variant_rating_from_row,
};
use super::PgStore;
use super::statements::rfc3339;
use crate::rating::{Rating, Standing, rate_game};
use crate::record::{GameId, PlayerId, RatedEnd, Rater, RatingChange, StoredPlayer, VariantRating, stamp};

const HOLD_PLAYERS: &str = "SELECT id FROM players WHERE id = ANY($1) ORDER BY id FOR UPDATE";
static STANDING: LazyLock<String> = LazyLock::new(|| {
    format!("SELECT {} FROM ratings WHERE player_id = $1 AND variant = $2", standing_columns(rfc3339))
});
const SET_RATING: &str = "INSERT INTO ratings (player_id, variant, rating, deviation, volatility, games, rated_at) \
     VALUES ($1, $2, $3, $4, $5, $6, $7::TIMESTAMPTZ) ON CONFLICT (player_id, variant) DO UPDATE SET \
     rating = excluded.rating, deviation = excluded.deviation, volatility = excluded.volatility, \
     games = excluded.games, rated_at = excluded.rated_at";
const INSERT_CHANGE: &str = "INSERT INTO rating_changes (player_id, variant, number, game_id, seat, rating_before, \
     deviation_before, volatility_before, rating_after, deviation_after, volatility_after, rated_at) \
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::TIMESTAMPTZ)";

static RATING_HISTORY: LazyLock<String> = LazyLock::new(|| {
    format!(
        "SELECT {} FROM rating_changes WHERE player_id = $1 AND variant = $2 ORDER BY number",
        rating_change_columns(rfc3339)
    )
});
/// The best ratings of variant $1 that are not provisional as stored, at
/// most $2: whether they still are is the service's to say.
static LEADERS: LazyLock<String> = LazyLock::new(|| {
    format!(
        "SELECT {}, {} FROM ratings JOIN players ON players.id = ratings.player_id \
         WHERE ratings.variant = $1 AND ratings.deviation < {} ORDER BY ratings.rating DESC, players.id LIMIT $2",
        player_columns("players", rfc3339),
        standing_columns(rfc3339),
        Rating::PROVISIONAL_DEVIATION
    )
});

static PLAYER_RATINGS: LazyLock<String> = LazyLock::new(|| {
    format!("SELECT variant, {} FROM ratings WHERE player_id = $1 ORDER BY variant", standing_columns(rfc3339))
});

impl PgStore {
    pub(in crate::store) async fn player_ratings(&self, id: PlayerId) -> Result<Vec<VariantRating>, StoreError> {
        let rows = self.fetch_all(&PLAYER_RATINGS, |query| query.bind(id)).await?;
        rows.iter().map(variant_rating_from_row).collect()
    }

    pub(in crate::store) async fn rating_history(
        &self,
        id: PlayerId,
        variant: &'static str,
    ) -> Result<Vec<RatingChange>, StoreError> {
        let rows = self.fetch_all(&RATING_HISTORY, |query| query.bind(id).bind(variant)).await?;
        rows.iter().map(rating_change_from_row).collect()
    }

    pub(in crate::store) async fn leaders(
        &self,
        variant: &'static str,
        most: u32,
    ) -> Result<Vec<(StoredPlayer, Standing)>, StoreError> {
        let rows = self.fetch_all(&LEADERS, |query| query.bind(variant).bind(i64::from(most))).await?;
        rows.iter().map(rated_player_from_row).collect()
    }
}

/// Rates game `id`, which `rated` ends, with rating periods of length
/// `period`: each player's rating and its change, in `tx`.
pub(super) async fn rate(
    tx: &mut PgConnection,
    id: GameId,
    rated: &RatedEnd,
    period: SignedDuration,
) -> Result<(), sqlx::Error> {
    let RatedEnd { variant, x, o, result, ended_at } = *rated;
    let (x, o) = (rater_id(tx, x).await?, rater_id(tx, o).await?);
    sqlx::query(HOLD_PLAYERS).bind(vec![x, o]).execute(&mut *tx).await?;
    let (x_before, o_before) = (standing(tx, x, variant.code()).await?, standing(tx, o, variant.code()).await?);
    let Some((x_after, o_after)) = rate_game(&x_before, &o_before, result, ended_at, period) else { return Ok(()) };
    let at = stamp(ended_at);
    for (player, seat, before, after) in [(x, "X", x_before, x_after), (o, "O", o_before, o_after)] {
        let (was, now) = (before.rating, after.rating);
        sqlx::query(SET_RATING)
            .bind(player)
            .bind(variant.code())
            .bind(now.rating)
            .bind(now.deviation)
            .bind(now.volatility)
            .bind(after.games)
            .bind(&at)
            .execute(&mut *tx)
            .await?;
        sqlx::query(INSERT_CHANGE)
            .bind(player)
            .bind(variant.code())
            .bind(after.games)
            .bind(id)
            .bind(seat)
            .bind(was.rating)
            .bind(was.deviation)
            .bind(was.volatility)
            .bind(now.rating)
            .bind(now.deviation)
            .bind(now.volatility)
            .bind(&at)
            .execute(&mut *tx)
            .await?;
    }
    Ok(())
}

/// The player who rates as `rater`: a bot's own.
async fn rater_id(tx: &mut PgConnection, rater: Rater) -> Result<PlayerId, sqlx::Error> {
    match rater {
        Rater::Player(id) => Ok(id),
        Rater::Bot(code) => sqlx::query_scalar("SELECT id FROM players WHERE bot = $1").bind(code).fetch_one(tx).await,
    }
}

/// Player `player`'s standing in `variant` as stored, read in `tx`.
async fn standing(tx: &mut PgConnection, player: PlayerId, variant: &str) -> Result<Standing, sqlx::Error> {
    let row = sqlx::query(STANDING.as_str()).bind(player).bind(variant).fetch_optional(tx).await?;
    row.map_or(Ok(Standing::NEW), |row| {
        standing_from_row(&row, 0).map_err(|error| sqlx::Error::Decode(Box::new(error)))
    })
}
