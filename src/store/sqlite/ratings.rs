//! Ratings in SQLite: a rated game's end rates its players in the write that
//! ends it.

use std::sync::LazyLock;

use jiff::SignedDuration;
use rusqlite::{Connection, OptionalExtension, params};

use super::super::rows::{
    every_rating, every_rating_change, numbered_change_from_row, player_columns, player_standing_from_row,
    rated_game_from_row, rated_games, rated_player_from_row, rating_change_columns, rating_change_from_row,
    standing_columns, standing_from_row, variant_rating_from_row,
};
use super::super::{RatingsAsStored, Replay, StoreError, Write};
use super::{SqliteStore, as_written, rows_of};
use crate::engine::Player;
use crate::rating::{Rating, Standing, rate_game};
use crate::record::{
    GameId, NumberedChange, PlayerId, PlayerStanding, RatedEnd, Rater, RatingChange, StoredPlayer, VariantRating, stamp,
};

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

static RATED_GAMES: LazyLock<String> = LazyLock::new(|| rated_games(as_written));
static EVERY_CHANGE: LazyLock<String> = LazyLock::new(|| every_rating_change(as_written));
static EVERY_RATING: LazyLock<String> = LazyLock::new(|| every_rating(as_written));

impl SqliteStore {
    pub(in crate::store) async fn ratings_as_stored(&self) -> Result<RatingsAsStored, StoreError> {
        // One snapshot of the three tables.
        self.readers
            .run(move |connection| {
                let snapshot = connection.unchecked_transaction()?;
                read_ratings(&snapshot)
            })
            .await
    }

    pub(in crate::store) async fn rebuild_ratings(&self, replay: Replay) -> Result<RatingsAsStored, StoreError> {
        let period = self.rating_period;
        self.writer
            .write(move |tx| {
                let stored = read_ratings(tx)?;
                let (changes, ratings) = replay(&stored, period);
                tx.execute_batch("DELETE FROM rating_changes; DELETE FROM ratings")?;
                for change in &changes {
                    insert_change(tx, change)?;
                }
                for rating in &ratings {
                    set_standing(tx, rating)?;
                }
                Ok(Ok(stored))
            })
            .await
    }

    pub(in crate::store) async fn player_ratings(&self, id: PlayerId) -> Result<Vec<VariantRating>, StoreError> {
        self.readers
            .run(move |connection| rows_of(connection, &PLAYER_RATINGS, [id], |row| variant_rating_from_row(row)))
            .await
    }

    pub(in crate::store) async fn rating_history(
        &self,
        id: PlayerId,
        variant: &'static str,
    ) -> Result<Vec<RatingChange>, StoreError> {
        self.readers
            .run(move |connection| {
                rows_of(connection, &RATING_HISTORY, params![id, variant], |row| rating_change_from_row(row))
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
                rows_of(connection, &LEADERS, params![variant, most], |row| rated_player_from_row(row))
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
    for (player, seat, before, after) in [(x, Player::X, x_before, x_after), (o, Player::O, o_before, o_after)] {
        let change = RatingChange { game_id: id, before: before.rating, after: after.rating, rated_at: ended_at };
        insert_change(tx, &NumberedChange { player, variant, number: after.games, seat, change })?;
        set_standing(tx, &PlayerStanding { player, variant, standing: after })?;
    }
    Ok(())
}

/// Writes `change` in `tx`.
fn insert_change(tx: &Connection, numbered: &NumberedChange) -> rusqlite::Result<()> {
    let NumberedChange { player, variant, number, seat, change } = numbered;
    let (before, after) = (change.before, change.after);
    tx.prepare_cached(INSERT_CHANGE)?.execute(params![
        player,
        variant.code(),
        number,
        change.game_id,
        seat.to_string(),
        before.rating,
        before.deviation,
        before.volatility,
        after.rating,
        after.deviation,
        after.volatility,
        stamp(change.rated_at)
    ])?;
    Ok(())
}

/// Writes `rating` in `tx`, over the player's rating in its variant.
fn set_standing(tx: &Connection, rating: &PlayerStanding) -> rusqlite::Result<()> {
    let PlayerStanding { player, variant, standing } = rating;
    let Standing { rating, games, rated_at } = standing;
    tx.prepare_cached(SET_RATING)?.execute(params![
        player,
        variant.code(),
        rating.rating,
        rating.deviation,
        rating.volatility,
        games,
        rated_at.map(stamp)
    ])?;
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

/// The rated games, every rating change and every rating, read on `connection`.
fn read_ratings(connection: &Connection) -> Result<RatingsAsStored, StoreError> {
    Ok(RatingsAsStored {
        games: rows_of(connection, &RATED_GAMES, [], |row| rated_game_from_row(row))?,
        changes: rows_of(connection, &EVERY_CHANGE, [], |row| numbered_change_from_row(row))?,
        ratings: rows_of(connection, &EVERY_RATING, [], |row| player_standing_from_row(row))?,
    })
}
