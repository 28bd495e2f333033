//! Ratings in SQLite: a rated game's end rates its players in the write that
//! ends it.

use std::sync::LazyLock;

use jiff::SignedDuration;
use rusqlite::{Connection, OptionalExtension, params};

use super::super::rows::{
    player_columns, rated_player_from_row, rating_change_columns, rating_change_from_row, standing_columns,
    standing_from_row, variant_rating_from_row,
};
use super::super::{StoreError, Write};
use super::{SqliteStore, as_written};
use crate::rating::{Rating, Standing, rate_game};
use crate::record::{GameId, PlayerId, RatedEnd, Rater, RatingChange, StoredPlayer, VariantRating, stamp};

static STANDING: LazyLock<String> = LazyLock::new(|| {
    format!("SELECT {} FROM ratings WHERE player_id = ? AND variant = ?", standing_columns(as_written))
});
const SET_RATING: &str = "INSERT INTO ratings (player_id, variant, rating, deviation, volatility, games, rated_at) \
     VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (player_id, variant) DO UPDATE SET rating = excluded.rating, \
     deviation = excluded.deviation, volatility = excluded.volatility, games = excluded.games, \
     rated_at = excluded.rated_at";
const INSERT_CHANGE: &str = "INSERT INTO rating_changes (player_id, variant, number, game_id, seat, rating_before, \
     deviation_before, volatility_before, rating_after, deviation_after, volatility_after, rated_at) \
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

static RATING_HISTORY: LazyLock<String> = LazyLock::new(|| {
    format!(
        "SELECT {} FROM rating_changes WHERE player_id = ? AND variant = ? ORDER BY number",
        rating_change_columns(as_written)
    )
});
/// The best ratings of variant ? that are not provisional as stored, at
/// most ?: whether they still are is the service's to say.
static LEADERS: LazyLock<String> = LazyLock::new(|| {
    format!(
        "SELECT {}, {} FROM ratings JOIN players ON players.id = ratings.player_id \
         WHERE ratings.variant = ? AND ratings.deviation < {} ORDER BY ratings.rating DESC, players.id LIMIT ?",
        player_columns("players", as_written),
        standing_columns(as_written),
        Rating::PROVISIONAL_DEVIATION
    )
});

static PLAYER_RATINGS: LazyLock<String> = LazyLock::new(|| {
    format!("SELECT variant, {} FROM ratings WHERE player_id = ? ORDER BY variant", standing_columns(as_written))
});

impl SqliteStore {
    pub(in crate::store) async fn player_ratings(&self, id: PlayerId) -> Result<Vec<VariantRating>, StoreError> {
        self.readers
            .run(move |connection| {
                let mut select = connection.prepare_cached(&PLAYER_RATINGS)?;
                let mut rows = select.query([id])?;
                let mut ratings = Vec::new();
                while let Some(row) = rows.next()? {
                    ratings.push(variant_rating_from_row(row)?);
                }
                Ok(ratings)
            })
            .await
    }

    pub(in crate::store) async fn rating_history(
        &self,
        id: PlayerId,
        variant: &'static str,
    ) -> Result<Vec<RatingChange>, StoreError> {
        self.readers
            .run(move |connection| {
                let mut select = connection.prepare_cached(&RATING_HISTORY)?;
                let mut rows = select.query(params![id, variant])?;
                let mut changes = Vec::new();
                while let Some(row) = rows.next()? {
                    changes.push(rating_change_from_row(row)?);
                }
                Ok(changes)
            })
            .await
    }

    pub(in crate::store) async fn leaders(
        &self,
        variant: &'static str,
        most: u32,
    ) -> Result<Vec<(StoredPlayer, Standing)>, StoreError> {
        self.readers
            .run(move |connection| {
                let mut select = connection.prepare_cached(&LEADERS)?;
                let mut rows = select.query(params![variant, most])?;
                let mut leaders = Vec::new();
                while let Some(row) = rows.next()? {
                    leaders.push(rated_player_from_row(row)?);
                }
                Ok(leaders)
            })
            .await
    }
}

/// Rates the game `id` that `write` ends, if it is rated, with rating periods
/// of length `period`: each player's rating and its change, in `tx`.
pub(super) fn rate(tx: &Connection, id: GameId, write: &Write, period: SignedDuration) -> Result<(), StoreError> {
    let Some(RatedEnd { variant, x, o, result, ended_at }) = write.rated else { return Ok(()) };
    let (x, o) = (rater_id(tx, x)?, rater_id(tx, o)?);
    let (x_before, o_before) = (standing(tx, x, variant.code())?, standing(tx, o, variant.code())?);
    let Some((x_after, o_after)) = rate_game(&x_before, &o_before, result, ended_at, period) else { return Ok(()) };
    for (player, seat, before, after) in [(x, "X", x_before, x_after), (o, "O", o_before, o_after)] {
        let (rating, at) = (after.rating, stamp(ended_at));
        let values = (rating.rating, rating.deviation, rating.volatility, after.games);
        tx.prepare_cached(SET_RATING)?.execute(params![
            player,
            variant.code(),
            values.0,
            values.1,
            values.2,
            values.3,
            at
        ])?;
        let was = before.rating;
        tx.prepare_cached(INSERT_CHANGE)?.execute(params![
            player,
            variant.code(),
            after.games,
            id,
            seat,
            was.rating,
            was.deviation,
            was.volatility,
            rating.rating,
            rating.deviation,
            rating.volatility,
            at
        ])?;
    }
    Ok(())
}

/// The player who rates as `rater`: a bot's own.
fn rater_id(tx: &Connection, rater: Rater) -> Result<PlayerId, StoreError> {
    match rater {
        Rater::Player(id) => Ok(id),
        Rater::Bot(code) => {
            Ok(tx.prepare_cached("SELECT id FROM players WHERE bot = ?")?.query_row([code], |row| row.get(0))?)
        }
    }
}

/// Player `player`'s standing in `variant` as stored.
fn standing(tx: &Connection, player: PlayerId, variant: &str) -> Result<Standing, StoreError> {
    let mut select = tx.prepare_cached(&STANDING)?;
    let row = select.query_row(params![player, variant], |row| Ok(standing_from_row(row, 0))).optional()?;
    row.unwrap_or(Ok(Standing::NEW))
}
