//! The store's operations on ratings, each written once over [`Tx`]: a
//! player's, their history, the leaderboards, and all of them at once for
//! `qttt ratings`. A rated game's end rates its players in the write that ends
//! it (see [`super::write`]).

use std::sync::LazyLock;

use jiff::SignedDuration;

use super::players::{player_columns, player_from_row};
use super::rows::{holder_id, player, rating_from_row, standing_from_row, variant};
use super::sql::Sql;
use super::tx::{Row, Tx};
use super::write::{GAME_STANDINGS, insert_change};
use super::{Store, StoreError, counted};
use crate::engine::{GameResult, Variant};
use crate::rating::{Rating, Standing};
use crate::record::{
    NumberedChange, PlayerId, PlayerStanding, RatedGame, RatingChange, RatingsAsStored, Replay, StoredPlayer,
    VariantRating,
};

/// The columns of a rating change, as [`rating_change_from_row`] reads them.
const CHANGE_COLUMNS: &str = "game_id, rating_before, deviation_before, volatility_before, rating_after, \
     deviation_after, volatility_after, rated_at";

/// The last `$4` changes of player `$1` in variant `$2` numbered below `$3`, the latest first.
static RATING_HISTORY: LazyLock<Sql> = LazyLock::new(|| {
    Sql::built(format!(
        "SELECT number, {CHANGE_COLUMNS} FROM rating_changes WHERE player_id = $1 AND variant = $2 AND number < $3 \
         ORDER BY number DESC LIMIT $4"
    ))
});
/// The best ratings of variant `$1` that are not provisional as stored, at
/// most `$2`: whether they still are is the service's to say.
static LEADERS: LazyLock<Sql> = LazyLock::new(|| {
    Sql::built(format!(
        "SELECT {}, rating, deviation, volatility, games, rated_at FROM ratings \
         JOIN players ON players.id = ratings.player_id \
         WHERE ratings.variant = $1 AND ratings.deviation < {} ORDER BY ratings.rating DESC, players.id LIMIT $2",
        player_columns("players", ""),
        Rating::PROVISIONAL_DEVIATION
    ))
});
/// Every rated game with a result.
static RATED_GAMES: LazyLock<Sql> = LazyLock::new(|| {
    let number = |seat: &str| {
        format!(
            "(SELECT number FROM rating_changes WHERE rating_changes.game_id = games.id AND rating_changes.seat = '{seat}')"
        )
    };
    let server_bot =
        |seat: &str| format!("(SELECT players.bot IS NOT NULL FROM players WHERE players.id = {})", holder_id(seat));
    Sql::built(format!(
        "SELECT games.id, games.variant, {} AS x, {} AS o, games.result, games.ended_at, {} AS x_number, \
         {} AS o_number, {} AS x_bot, {} AS o_bot FROM games \
         WHERE games.rated AND games.result IN ('x_wins', 'o_wins', 'draw') ORDER BY games.id",
        holder_id("X"),
        holder_id("O"),
        number("X"),
        number("O"),
        server_bot("X"),
        server_bot("O")
    ))
});
static EVERY_CHANGE: LazyLock<Sql> = LazyLock::new(|| {
    Sql::built(format!(
        "SELECT player_id, variant, number, seat, {CHANGE_COLUMNS} FROM rating_changes \
         ORDER BY player_id, variant, number"
    ))
});
static EVERY_RATING: Sql = Sql::new(
    "SELECT player_id, variant, rating, deviation, volatility, games, rated_at FROM ratings \
         ORDER BY player_id, variant",
);
/// A rebuild's: nothing rates while it rewrites every rating.
static HOLD_RATINGS: Sql = Sql::new("LOCK TABLE ratings, rating_changes IN ACCESS EXCLUSIVE MODE");
static DELETE_RATINGS: LazyLock<[Sql; 2]> =
    LazyLock::new(|| [Sql::new("DELETE FROM rating_changes"), Sql::new("DELETE FROM ratings")]);

impl Store {
    /// Player `id`'s ratings, in the variants they played rated games in.
    pub(crate) async fn player_ratings(&self, id: PlayerId) -> Result<Vec<VariantRating>, StoreError> {
        counted(run!(self, Read, |tx| GAME_STANDINGS.every(tx, id)))
    }

    /// What the last `most` of player `id`'s rated games in `variant` whose
    /// numbers are below `before` did to their rating, each with its number,
    /// the latest first.
    pub async fn rating_history(
        &self,
        id: PlayerId,
        variant: Variant,
        before: i64,
        most: u32,
    ) -> Result<Vec<(i64, RatingChange)>, StoreError> {
        let args = [id.into(), variant.code().into(), before.into(), most.into()];
        let read = |row: &Row<'_>| Ok((row.get("number")?, rating_change_from_row(row)?));
        counted(run!(self, Read, |tx| tx.rows(&RATING_HISTORY, &args, read)))
    }

    /// At most `most` players with the best ratings in `variant` that are not
    /// provisional as stored, best first, with their standings.
    pub async fn leaders(&self, variant: Variant, most: u32) -> Result<Vec<(StoredPlayer, Standing)>, StoreError> {
        counted(run!(self, Read, |tx| leaders(tx, variant, most)))
    }

    /// Every rated game, rating change and rating, in one snapshot.
    pub(crate) async fn ratings_as_stored(&self) -> Result<RatingsAsStored, StoreError> {
        counted(run!(self, Snapshot, |tx| read_ratings(tx)))
    }

    /// Rewrites every rating change and rating as `replay` derives them from
    /// the ratings as stored, in one transaction that games' ends wait for;
    /// answers the ratings as they were.
    pub async fn rebuild_ratings(&self, replay: Replay) -> Result<RatingsAsStored, StoreError> {
        let period = self.rating_period();
        self.wrote(async { run!(self, Write, |tx| rebuild_ratings(tx, replay, period)) }).await
    }
}

async fn leaders(tx: &mut impl Tx, variant: Variant, most: u32) -> Result<Vec<(StoredPlayer, Standing)>, StoreError> {
    tx.rows(&LEADERS, &[variant.code().into(), most.into()], |row| {
        Ok((player_from_row(row, "")?, standing_from_row(row, "games")?))
    })
    .await
}

/// The rating change in `row`, read with [`CHANGE_COLUMNS`].
fn rating_change_from_row(row: &Row<'_>) -> Result<RatingChange, StoreError> {
    Ok(RatingChange {
        game_id: row.get("game_id")?,
        before: rating_from_row(row, "_before")?,
        after: rating_from_row(row, "_after")?,
        rated_at: row.get("rated_at")?,
    })
}

/// The rated games, every rating change and every rating.
async fn read_ratings(tx: &mut impl Tx) -> Result<RatingsAsStored, StoreError> {
    Ok(RatingsAsStored {
        games: tx.rows(&RATED_GAMES, &[], rated_game_from_row).await?,
        changes: tx
            .rows(&EVERY_CHANGE, &[], |row| {
                Ok(NumberedChange {
                    player: row.get("player_id")?,
                    variant: variant(&row.get::<String>("variant")?)?,
                    number: row.get("number")?,
                    seat: player(&row.get::<String>("seat")?)?,
                    change: rating_change_from_row(row)?,
                })
            })
            .await?,
        ratings: tx
            .rows(&EVERY_RATING, &[], |row| {
                Ok(PlayerStanding {
                    player: row.get("player_id")?,
                    variant: variant(&row.get::<String>("variant")?)?,
                    standing: standing_from_row(row, "games")?,
                })
            })
            .await?,
    })
}

/// The rated game in `row`, read with [`RATED_GAMES`].
fn rated_game_from_row(row: &Row<'_>) -> Result<RatedGame, StoreError> {
    let result: String = row.get("result")?;
    Ok(RatedGame {
        id: row.get("id")?,
        variant: variant(&row.get::<String>("variant")?)?,
        players: [row.get("x")?, row.get("o")?],
        result: [GameResult::XWins, GameResult::OWins, GameResult::Draw]
            .into_iter()
            .find(|r| r.code() == result)
            .ok_or_else(|| super::rows::corrupt("result", &result))?,
        ended_at: row.get("ended_at")?,
        numbers: [row.get("x_number")?, row.get("o_number")?],
        server_bots: [
            row.get::<Option<bool>>("x_bot")?.unwrap_or(false),
            row.get::<Option<bool>>("o_bot")?.unwrap_or(false),
        ],
    })
}

async fn rebuild_ratings(
    tx: &mut impl Tx,
    replay: Replay,
    period: SignedDuration,
) -> Result<RatingsAsStored, StoreError> {
    // A game's end that rates waits until the rebuild is done, and then rates
    // on the rebuilt ratings.
    tx.hold(&HOLD_RATINGS, &[]).await?;
    let stored = read_ratings(tx).await?;
    let (changes, ratings) = replay(&stored, period);
    for delete in DELETE_RATINGS.iter() {
        tx.execute(delete, &[]).await?;
    }
    for change in &changes {
        insert_change(tx, change).await?;
    }
    for rating in &ratings {
        GAME_STANDINGS.set(tx, rating).await?;
    }
    Ok(stored)
}
