//! Ratings in PostgreSQL: a rated game's end rates its players in the
//! transaction that ends it, their rows held until it commits, so that on any
//! instance each player's rated games are rated one after the other.

use std::sync::LazyLock;

use jiff::SignedDuration;
use sqlx::postgres::{PgConnection, PgRow};

use super::super::rows::{
    every_rating, every_rating_change, numbered_change_from_row, player_columns, player_standing_from_row,
    rated_game_from_row, rated_games, rated_player_from_row, rating_change_columns, rating_change_from_row,
    standing_columns, standing_from_row, variant_rating_from_row,
};
use super::super::{RatingsAsStored, Replay, StoreError};
use super::statements::rfc3339;
use super::{PgStore, decode};
use crate::engine::Player;
use crate::rating::{Rating, Standing, rate_game};
use crate::record::{
    GameId, NumberedChange, PlayerId, PlayerStanding, RatedEnd, Rater, RatingChange, StoredPlayer, VariantRating, stamp,
};

const HOLD_PLAYERS: &str = "SELECT id FROM players WHERE id = ANY($1) ORDER BY id FOR NO KEY UPDATE";
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

static RATED_GAMES: LazyLock<String> = LazyLock::new(|| rated_games(rfc3339));
static EVERY_CHANGE: LazyLock<String> = LazyLock::new(|| every_rating_change(rfc3339));
static EVERY_RATING: LazyLock<String> = LazyLock::new(|| every_rating(rfc3339));

impl PgStore {
    pub(in crate::store) async fn ratings_as_stored(&self) -> Result<RatingsAsStored, StoreError> {
        self.in_transaction(|tx| {
            Box::pin(async move {
                // One snapshot of the three tables.
                sqlx::query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY").execute(&mut *tx).await?;
                read_ratings(tx).await
            })
        })
        .await
    }

    pub(in crate::store) async fn rebuild_ratings(&self, replay: Replay) -> Result<RatingsAsStored, StoreError> {
        let period = self.rating_period;
        self.in_transaction(move |tx| {
            Box::pin(async move {
                // A game's end that rates waits until the rebuild is done, and
                // then rates on the rebuilt ratings.
                sqlx::query("LOCK TABLE ratings, rating_changes IN ACCESS EXCLUSIVE MODE").execute(&mut *tx).await?;
                let stored = read_ratings(tx).await?;
                let (changes, ratings) = replay(&stored, period);
                sqlx::query("DELETE FROM rating_changes").execute(&mut *tx).await?;
                sqlx::query("DELETE FROM ratings").execute(&mut *tx).await?;
                for change in &changes {
                    insert_change(tx, change).await?;
                }
                for rating in &ratings {
                    set_standing(tx, rating).await?;
                }
                Ok(stored)
            })
        })
        .await
    }

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
    for (player, seat, before, after) in [(x, Player::X, x_before, x_after), (o, Player::O, o_before, o_after)] {
        let change = RatingChange { game_id: id, before: before.rating, after: after.rating, rated_at: ended_at };
        insert_change(tx, &NumberedChange { player, variant, number: after.games, seat, change }).await?;
        set_standing(tx, &PlayerStanding { player, variant, standing: after }).await?;
    }
    Ok(())
}

/// Writes `change` in `tx`.
async fn insert_change(tx: &mut PgConnection, numbered: &NumberedChange) -> Result<(), sqlx::Error> {
    let NumberedChange { player, variant, number, seat, change } = numbered;
    let (before, after) = (change.before, change.after);
    sqlx::query(INSERT_CHANGE)
        .bind(player)
        .bind(variant.code())
        .bind(number)
        .bind(change.game_id)
        .bind(seat.to_string())
        .bind(before.rating)
        .bind(before.deviation)
        .bind(before.volatility)
        .bind(after.rating)
        .bind(after.deviation)
        .bind(after.volatility)
        .bind(stamp(change.rated_at))
        .execute(tx)
        .await?;
    Ok(())
}

/// Writes `rating` in `tx`, over the player's rating in its variant.
async fn set_standing(tx: &mut PgConnection, rating: &PlayerStanding) -> Result<(), sqlx::Error> {
    let PlayerStanding { player, variant, standing } = rating;
    let Standing { rating, games, rated_at } = standing;
    sqlx::query(SET_RATING)
        .bind(player)
        .bind(variant.code())
        .bind(rating.rating)
        .bind(rating.deviation)
        .bind(rating.volatility)
        .bind(games)
        .bind(rated_at.map(stamp))
        .execute(tx)
        .await?;
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
    row.map_or(Ok(Standing::NEW), |row| standing_from_row(&row, 0).map_err(decode))
}

/// The rated games, every rating change and every rating, read in `tx`.
async fn read_ratings(tx: &mut PgConnection) -> Result<RatingsAsStored, sqlx::Error> {
    Ok(RatingsAsStored {
        games: every(tx, &RATED_GAMES, rated_game_from_row).await?,
        changes: every(tx, &EVERY_CHANGE, numbered_change_from_row).await?,
        ratings: every(tx, &EVERY_RATING, player_standing_from_row).await?,
    })
}

/// The rows of `statement` in `tx`, each read by `read`.
async fn every<T>(
    tx: &mut PgConnection,
    statement: &'static str,
    read: impl Fn(&PgRow) -> Result<T, StoreError>,
) -> Result<Vec<T>, sqlx::Error> {
    let rows = sqlx::query(statement).fetch_all(tx).await?;
    rows.iter().map(|row| read(row).map_err(decode)).collect()
}
