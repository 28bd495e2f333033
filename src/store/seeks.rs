//! The store's operations on seeks, each written once over [`Tx`]: a player's
//! wish for a game on given terms, paired with another's at once if one waits.
//! The seeks of one set of terms are made one after the other on any instance,
//! so that a seek is paired once and never missed by one made at that moment.

use std::sync::LazyLock;
use std::time::Instant;

use jiff::Timestamp;

use super::challenges::new_id;
use super::games::create;
use super::rows::{corrupt, terms_from_row, username};
use super::sql::Sql;
use super::tx::{Failed, Row, Tx};
use super::{Store, StoreError, counted};
use crate::rating::Rating;
use crate::record::{
    GameId, Holder, NewSeek, OpenSeek, RatingRange, SeekId, SeekStatus, Sought, Started, StoredSeek, partner,
};

const SEEK_COLUMNS: &str = "seeks.id, seeks.player_id, seeks.variant, seeks.clock_initial_ms, \
     seeks.clock_increment_ms, seeks.status, seeks.game_id, seeks.created_at, seeks.expires_at, seeks.rated, \
     seeks.rating_min, seeks.rating_max, seeks.scoring";

/// Makes the seeks of one set of terms, `$1`, one after the other.
static HOLD_TERMS: Sql = Sql::new("SELECT pg_advisory_xact_lock(hashtext($1))");
static OPEN_SEEKS: Sql =
    Sql::new("SELECT count(*) AS open FROM seeks WHERE player_id = $1 AND status = 'open' AND expires_at > $2");
/// The open seeks of the same terms, oldest first, each with its player and
/// that player's rating in the variant (the start's before their first): what
/// a new seek may pair with (see [`partner`]).
static OPEN_SEEKS_OF_TERMS: LazyLock<Sql> = LazyLock::new(|| {
    Sql::built(format!(
        "SELECT {SEEK_COLUMNS}, players.name, players.token_hash, players.last_seen_at, \
         players.bot_since IS NOT NULL AS bot_account, \
         coalesce(ratings.rating, {START}) AS player_rating FROM seeks \
         JOIN players ON players.id = seeks.player_id \
         LEFT JOIN ratings ON ratings.player_id = seeks.player_id AND ratings.variant = seeks.variant \
         WHERE seeks.status = 'open' AND seeks.variant = $1 AND seeks.clock_initial_ms IS NOT DISTINCT FROM $2 \
         AND seeks.clock_increment_ms IS NOT DISTINCT FROM $3 AND seeks.expires_at > $4 AND seeks.rated = $5 \
         AND seeks.scoring = $6 \
         ORDER BY seeks.created_at, seeks.id FOR UPDATE OF seeks",
        START = Rating::START.rating,
    ))
});
/// Player `$1`'s rating in variant `$2` (the start's before their first).
static RATING: LazyLock<Sql> = LazyLock::new(|| {
    Sql::built(format!(
        "SELECT coalesce((SELECT rating FROM ratings WHERE player_id = $1 AND variant = $2), {START}) AS rating",
        START = Rating::START.rating,
    ))
});
static INSERT_SEEK: LazyLock<Sql> = LazyLock::new(|| {
    Sql::insert(
        "INSERT INTO seeks (player_id, variant, clock_initial_ms, clock_increment_ms, status, game_id, created_at, \
         expires_at, rated, rating_min, rating_max, scoring) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
    )
});
static PAIR_SEEK: Sql = Sql::new("UPDATE seeks SET status = 'paired', game_id = $1 WHERE id = $2");
static SEEK: LazyLock<Sql> = LazyLock::new(|| Sql::built(format!("SELECT {SEEK_COLUMNS} FROM seeks WHERE id = $1")));
static CANCEL_SEEK: Sql = Sql::new("UPDATE seeks SET status = 'cancelled' WHERE id = $1 AND status = 'open'");
/// Whether an open seek expired by `$1`: a read, so that the timer writes
/// only when there is something to write.
static ANY_EXPIRED: Sql =
    Sql::new("SELECT EXISTS (SELECT 1 FROM seeks WHERE status = 'open' AND expires_at <= $1) AS expired");
/// Writes at most `$2` of the open seeks that expired by `$1` expired: out of
/// `seeks_open`, which every new seek's pairing walks.
static EXPIRE_SEEKS: Sql = Sql::new(
    "UPDATE seeks SET status = 'expired' WHERE id IN \
     (SELECT id FROM seeks WHERE status = 'open' AND expires_at <= $1 LIMIT $2)",
);

impl Store {
    /// Makes seek `new`, unless its player has `most_open` open seeks already;
    /// pairs it with the open seek of the same terms that [`partner`] chooses,
    /// if there is one, into the game that `pair` decides for that seek and its
    /// player. `pair` may be asked more than once: only the last answer is written.
    ///
    /// # Errors
    /// What `pair` returns.
    pub async fn seek<E: From<StoreError> + Send + 'static>(
        &self,
        new: NewSeek,
        most_open: u32,
        pair: impl Fn(&StoredSeek, Holder) -> Result<Started, E> + Send + Sync + 'static,
    ) -> Result<Sought, E> {
        let started = Instant::now();
        let sought = run!(self, Write, |tx| seek(tx, &new, most_open, &pair));
        self.decided(started, sought.map(|sought| (sought, true)))
    }

    /// Seek `id`.
    pub(crate) async fn seek_by_id(&self, id: SeekId) -> Result<Option<StoredSeek>, StoreError> {
        counted(run!(self, Read, |tx| tx.row(&SEEK, &[id.into()], seek_from_row)))
    }

    /// Cancels seek `id` if it is open; answers whether it was.
    pub(crate) async fn cancel_seek(&self, id: SeekId) -> Result<bool, StoreError> {
        Ok(self.write_one(&CANCEL_SEEK, vec![id.into()]).await? > 0)
    }

    /// Writes at most `most` of the seeks open past their expiry at `now`
    /// expired, if there is one; answers how many.
    pub(crate) async fn expire_seeks(&self, now: Timestamp, most: u32) -> Result<u64, StoreError> {
        let any = counted(run!(self, Read, |tx| tx.row(&ANY_EXPIRED, &[now.into()], |row| row.get("expired"))))?;
        if !any.unwrap_or(false) {
            return Ok(0);
        }
        self.write_one(&EXPIRE_SEEKS, vec![now.into(), most.into()]).await
    }
}

/// See [`Store::seek`].
async fn seek<E>(
    tx: &mut impl Tx,
    new: &NewSeek,
    most_open: u32,
    pair: &impl Fn(&StoredSeek, Holder) -> Result<Started, E>,
) -> Result<Sought, Failed<E>> {
    let clock = new.terms.clock.map(|clock| (clock.initial_ms, clock.increment_ms));
    let terms = format!("seek {} {} {clock:?} {}", new.terms.variant.code(), new.terms.scoring.code(), new.terms.rated);
    tx.hold(&HOLD_TERMS, &[terms.into()]).await?;
    let args = [new.player.into(), new.created_at.into()];
    if tx.row(&OPEN_SEEKS, &args, |row| row.get("open")).await?.unwrap_or(0) >= most_open {
        return Ok(Sought::TooMany);
    }
    let args = [
        new.terms.variant.code().into(),
        clock.map(|(initial, _)| initial).into(),
        clock.map(|(_, increment)| increment).into(),
        new.created_at.into(),
        new.terms.rated.into(),
        new.terms.scoring.code().into(),
    ];
    let open = tx.rows(&OPEN_SEEKS_OF_TERMS, &args, open_seek_from_row).await?;
    let args = [new.player.into(), new.terms.variant.code().into()];
    let rating = tx.row(&RATING, &args, |row| row.get("rating")).await?;
    let rating = rating.ok_or_else(|| StoreError::Other("a rating without a row".into()))?;
    let Some(OpenSeek { seek: partner, holder, .. }) = partner(new.player, rating, new.rating_range, &open).cloned()
    else {
        let id = insert_seek(tx, new, SeekStatus::Open, None).await?;
        return Ok(Sought::Waiting(id));
    };
    let (mut game, game_events) = pair(&partner, holder).map_err(Failed::Decided)?;
    game.id = create(tx, &game, None, &game_events).await?;
    let seek = insert_seek(tx, new, SeekStatus::Paired, Some(game.id)).await?;
    tx.execute(&PAIR_SEEK, &[game.id.into(), partner.id.into()]).await?;
    Ok(Sought::Paired { seek, game: Box::new(game) })
}

/// Writes seek `new` with `status` and the game it was paired into; answers its id.
async fn insert_seek(
    tx: &mut impl Tx,
    new: &NewSeek,
    status: SeekStatus,
    game_id: Option<GameId>,
) -> Result<SeekId, StoreError> {
    let clock = new.terms.clock.map(|clock| (clock.initial_ms, clock.increment_ms));
    let args = [
        new.player.into(),
        new.terms.variant.code().into(),
        clock.map(|(initial, _)| initial).into(),
        clock.map(|(_, increment)| increment).into(),
        status.code().into(),
        game_id.into(),
        new.created_at.into(),
        new.expires_at.into(),
        new.terms.rated.into(),
        new.rating_range.map(|range| range.min).into(),
        new.rating_range.map(|range| range.max).into(),
        new.terms.scoring.code().into(),
    ];
    Ok(SeekId::new(new_id(tx.insert(&INSERT_SEEK, &args).await?)?))
}

/// The seek in `row`, read with [`SEEK_COLUMNS`].
fn seek_from_row(row: &Row<'_>) -> Result<StoredSeek, StoreError> {
    let status: String = row.get("status")?;
    Ok(StoredSeek {
        id: row.get("id")?,
        player: row.get("player_id")?,
        terms: terms_from_row(row)?,
        status: SeekStatus::STORED
            .into_iter()
            .find(|s| s.code() == status)
            .ok_or_else(|| corrupt("status", &status))?,
        rating_range: match (row.get("rating_min")?, row.get("rating_max")?) {
            (Some(min), Some(max)) => Some(RatingRange { min, max }),
            _ => None,
        },
        game_id: row.get("game_id")?,
        created_at: row.get("created_at")?,
        expires_at: row.get("expires_at")?,
    })
}

/// The open seek in `row`, read with [`OPEN_SEEKS_OF_TERMS`].
fn open_seek_from_row(row: &Row<'_>) -> Result<OpenSeek, StoreError> {
    let seek = seek_from_row(row)?;
    let holder = Holder {
        id: seek.player,
        name: username(&row.get::<String>("name")?)?,
        token_hash: row.get("token_hash")?,
        last_seen_at: row.get("last_seen_at")?,
        bot_account: row.get("bot_account")?,
    };
    Ok(OpenSeek { seek, holder, rating: row.get("player_rating")? })
}
