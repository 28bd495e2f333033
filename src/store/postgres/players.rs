//! Players, their games and events, challenges and seeks in PostgreSQL. A
//! write that counts before it inserts holds the row of the player it counts
//! for, and the seeks of one set of terms are made one at a time (an advisory
//! lock of the transaction's), so that two instances never both let a twenty-
//! first challenge in, nor miss each other's seeks.

use std::sync::LazyLock;

use futures_util::future::BoxFuture;
use sqlx::Connection;
use sqlx::postgres::{PgConnection, PgRow};

use super::statements::{LISTED_GAMES, rfc3339};
use super::{PgStore, decode, insert_game, insert_player_events, is_unique_violation};
use crate::rating::Rating;
use crate::record::{
    ChallengeId, ChallengeStatus, GameId, Holder, ListedGame, NewChallenge, Page, PlayerEventKind, PlayerId, Results,
    SeekId, SeekStatus, Status, StoredChallenge, StoredGame, StoredPlayer, StoredPlayerEvent, StoredSeek, Subject,
    stamp,
};
use crate::store::players::{NewSeek, Sought, Started};
use crate::store::rows::{
    CHALLENGES_WITH_PLAYERS, RESULT_COUNTS, challenge_columns, challenge_from_row, listed_game_from_row, optional_time,
    player_columns, player_event_columns, player_event_from_row, player_from_row, results_from_row,
    seek_and_holder_from_row, seek_columns, seek_from_row,
};
use crate::store::{StoreError, events_about};

const INSERT_PLAYER: &str =
    "INSERT INTO players (name, name_key, token_hash, created_at) VALUES ($1, $2, $3, $4::TIMESTAMPTZ) RETURNING id";
static PLAYER_BY_TOKEN: LazyLock<String> = LazyLock::new(|| {
    format!(
        "SELECT {}, {} FROM players WHERE token_hash = $1",
        player_columns("players", rfc3339),
        rfc3339("last_seen_at")
    )
});
static PLAYER_BY_NAME: LazyLock<String> =
    LazyLock::new(|| format!("SELECT {} FROM players WHERE name_key = $1", player_columns("players", rfc3339)));
static PLAYER: LazyLock<String> =
    LazyLock::new(|| format!("SELECT {} FROM players WHERE id = $1", player_columns("players", rfc3339)));
const SET_PLAYER_TOKEN: &str = "UPDATE players SET token_hash = $2 WHERE id = $1";
const TOUCH_PLAYER: &str = "UPDATE players SET last_seen_at = $2::TIMESTAMPTZ WHERE id = $1";
const TOUCH_SEAT: &str = "UPDATE seats SET last_seen_at = $3::TIMESTAMPTZ WHERE game_id = $1 AND player = $2";
/// The ids of a page of a player's games; their columns are read apart, as the
/// listing's are (see [`super::statements::LIST_GAME_IDS`]).
pub(super) const PLAYER_GAME_IDS: &str = "SELECT games.id FROM seats JOIN games ON games.id = seats.game_id \
     WHERE seats.player_id = $1 AND ($2::TEXT IS NULL OR games.status = $2) AND seats.game_id < $3 \
     ORDER BY seats.game_id DESC LIMIT $4";
static PLAYER_RESULTS: LazyLock<String> = LazyLock::new(|| {
    format!(
        "SELECT {RESULT_COUNTS} FROM seats JOIN games ON games.id = seats.game_id \
         WHERE seats.player_id = $1 AND games.status = 'finished'"
    )
});
static PLAYER_EVENTS: LazyLock<String> = LazyLock::new(|| {
    format!(
        "SELECT {} FROM player_events WHERE player_id = $1 AND seq > $2 ORDER BY seq LIMIT $3",
        player_event_columns(rfc3339)
    )
});
/// Holds the row of player `$1` until the transaction ends: their writes that
/// count before they insert come one after the other.
pub(super) const HOLD_PLAYER: &str = "SELECT id FROM players WHERE id = $1 FOR UPDATE";
const OPEN_CHALLENGES_SENT: &str =
    "SELECT count(*) FROM challenges WHERE challenger_id = $1 AND status = 'open' AND expires_at > $2::TIMESTAMPTZ";
const INSERT_CHALLENGE: &str = "INSERT INTO challenges (challenger_id, challenged_id, variant, clock_initial_ms, \
     clock_increment_ms, colour, status, created_at, expires_at, rated) \
     VALUES ($1, $2, $3, $4, $5, $6, 'open', $7::TIMESTAMPTZ, $8::TIMESTAMPTZ, $9) RETURNING id";
static CHALLENGE: LazyLock<String> = LazyLock::new(|| {
    format!("SELECT {} FROM {CHALLENGES_WITH_PLAYERS} WHERE challenges.id = $1", challenge_columns(rfc3339))
});
static OPEN_CHALLENGES: LazyLock<String> = LazyLock::new(|| {
    format!(
        "SELECT {} FROM {CHALLENGES_WITH_PLAYERS} WHERE challenges.status = 'open' \
         AND challenges.expires_at > $2::TIMESTAMPTZ \
         AND (challenges.challenger_id = $1 OR challenges.challenged_id = $1) ORDER BY challenges.id DESC",
        challenge_columns(rfc3339)
    )
});
/// See the SQLite store's.
const CLOSE_CHALLENGE: &str = "UPDATE challenges SET status = $3, decline_reason = $4, answered_at = $1::TIMESTAMPTZ \
     WHERE id = $2 AND status = 'open' AND expires_at > $1::TIMESTAMPTZ";
const SET_CHALLENGE_GAME: &str = "UPDATE challenges SET game_id = $1 WHERE id = $2";
/// Makes the seeks of one set of terms, `$1`, one after the other.
const HOLD_TERMS: &str = "SELECT pg_advisory_xact_lock(hashtext($1))";
const OPEN_SEEKS: &str =
    "SELECT count(*) FROM seeks WHERE player_id = $1 AND status = 'open' AND expires_at > $2::TIMESTAMPTZ";
/// See the SQLite store's.
static PARTNER: LazyLock<String> = LazyLock::new(|| {
    format!(
        "SELECT {}, players.name, players.token_hash, {} FROM seeks \
         JOIN players ON players.id = seeks.player_id \
         LEFT JOIN ratings ON ratings.player_id = seeks.player_id AND ratings.variant = seeks.variant \
         WHERE seeks.status = 'open' AND seeks.variant = $1 AND seeks.clock_initial_ms IS NOT DISTINCT FROM $2 \
         AND seeks.clock_increment_ms IS NOT DISTINCT FROM $3 AND seeks.player_id <> $4 \
         AND seeks.expires_at > $5::TIMESTAMPTZ AND seeks.rated = $6 \
         AND coalesce(ratings.rating, {START}) BETWEEN coalesce($7, -1e9) AND coalesce($8, 1e9) \
         AND coalesce((SELECT rating FROM ratings WHERE player_id = $4 AND variant = $1), {START}) \
         BETWEEN coalesce(seeks.rating_min, -1e9) AND coalesce(seeks.rating_max, 1e9) \
         ORDER BY seeks.created_at, seeks.id LIMIT 1 FOR UPDATE OF seeks",
        seek_columns(rfc3339),
        rfc3339("players.last_seen_at"),
        START = Rating::START.rating,
    )
});
const INSERT_SEEK: &str = "INSERT INTO seeks (player_id, variant, clock_initial_ms, clock_increment_ms, status, \
     game_id, created_at, expires_at, rated, rating_min, rating_max) \
     VALUES ($1, $2, $3, $4, $5, $6, $7::TIMESTAMPTZ, $8::TIMESTAMPTZ, $9, $10, $11) \
     RETURNING id";
const PAIR_SEEK: &str = "UPDATE seeks SET status = 'paired', game_id = $1 WHERE id = $2";
static SEEK: LazyLock<String> = LazyLock::new(|| format!("SELECT {} FROM seeks WHERE id = $1", seek_columns(rfc3339)));
const CANCEL_SEEK: &str = "UPDATE seeks SET status = 'cancelled' WHERE id = $1 AND status = 'open'";

impl PgStore {
    pub(in crate::store) async fn create_player(
        &self,
        name: String,
        key: String,
        token_hash: Vec<u8>,
        at: String,
    ) -> Result<PlayerId, StoreError> {
        self.connections
            .run(&|connection| {
                let query = sqlx::query_scalar(INSERT_PLAYER)
                    .bind(name.clone())
                    .bind(key.clone())
                    .bind(token_hash.clone())
                    .bind(at.clone());
                Box::pin(async move {
                    match query.fetch_one(connection).await {
                        Err(error) if is_unique_violation(&error) => Ok(Err(StoreError::NameTaken)),
                        inserted => inserted.map(Ok),
                    }
                })
            })
            .await?
    }

    pub(in crate::store) async fn player_by_token(
        &self,
        token_hash: Vec<u8>,
    ) -> Result<Option<(StoredPlayer, Option<jiff::Timestamp>)>, StoreError> {
        let row = self.fetch_optional(&PLAYER_BY_TOKEN, |query| query.bind(token_hash.clone())).await?;
        row.map(|row| Ok((player_from_row(&row, 0)?, optional_time(&row, 4)?))).transpose()
    }

    pub(in crate::store) async fn player_by_name(&self, key: String) -> Result<Option<StoredPlayer>, StoreError> {
        let row = self.fetch_optional(&PLAYER_BY_NAME, |query| query.bind(key.clone())).await?;
        row.map(|row| player_from_row(&row, 0)).transpose()
    }

    pub(in crate::store) async fn player(&self, id: PlayerId) -> Result<Option<StoredPlayer>, StoreError> {
        let row = self.fetch_optional(&PLAYER, |query| query.bind(id)).await?;
        row.map(|row| player_from_row(&row, 0)).transpose()
    }

    /// The row, if any, that `statement` finds as `bind` binds it.
    pub(super) async fn fetch_optional(
        &self,
        statement: &'static str,
        bind: impl Fn(PgQuery<'static>) -> PgQuery<'static> + Send + Sync,
    ) -> Result<Option<PgRow>, StoreError> {
        self.connections.run(&|connection| Box::pin(bind(sqlx::query(statement)).fetch_optional(connection))).await
    }

    /// Runs `statement` as `bind` binds it; answers how many rows it changed.
    pub(in crate::store) async fn execute(
        &self,
        statement: &'static str,
        bind: impl Fn(PgQuery<'static>) -> PgQuery<'static> + Send + Sync,
    ) -> Result<u64, StoreError> {
        self.connections
            .run(&|connection| {
                let query = bind(sqlx::query(statement));
                Box::pin(async move { Ok(query.execute(connection).await?.rows_affected()) })
            })
            .await
    }

    pub(in crate::store) async fn set_player_token(&self, id: PlayerId, token_hash: Vec<u8>) -> Result<(), StoreError> {
        self.execute(SET_PLAYER_TOKEN, |query| query.bind(id).bind(token_hash.clone())).await.map(drop)
    }

    pub(in crate::store) async fn touch_player(&self, id: PlayerId, at: String) -> Result<(), StoreError> {
        self.execute(TOUCH_PLAYER, |query| query.bind(id).bind(at.clone())).await.map(drop)
    }

    pub(in crate::store) async fn touch_seat(&self, game: GameId, seat: String, at: String) -> Result<(), StoreError> {
        self.execute(TOUCH_SEAT, |query| query.bind(game).bind(seat.clone()).bind(at.clone())).await.map(drop)
    }

    pub(in crate::store) async fn player_games(&self, id: PlayerId, page: Page) -> Result<Vec<ListedGame>, StoreError> {
        let status = page.status.map(Status::code);
        self.listed_page(&|| {
            sqlx::query_scalar(PLAYER_GAME_IDS).bind(id).bind(status).bind(page.below()).bind(i64::from(page.limit))
        })
        .await
    }

    pub(in crate::store) async fn listed_games(&self, ids: Vec<GameId>) -> Result<Vec<ListedGame>, StoreError> {
        let rows = self.fetch_all(LISTED_GAMES.as_str(), |query| query.bind(ids.clone())).await?;
        rows.iter().map(listed_game_from_row).collect()
    }

    /// The rows that `statement` finds as `bind` binds it.
    pub(super) async fn fetch_all(
        &self,
        statement: &'static str,
        bind: impl Fn(PgQuery<'static>) -> PgQuery<'static> + Send + Sync,
    ) -> Result<Vec<PgRow>, StoreError> {
        self.connections.run(&|connection| Box::pin(bind(sqlx::query(statement)).fetch_all(connection))).await
    }

    pub(in crate::store) async fn player_results(&self, id: PlayerId) -> Result<Results, StoreError> {
        let row = self.fetch_optional(&PLAYER_RESULTS, |query| query.bind(id)).await?;
        results_from_row(&row.ok_or_else(|| StoreError::Other("a count without a row".into()))?)
    }

    pub(in crate::store) async fn player_events(
        &self,
        id: PlayerId,
        after: i64,
        most: u32,
    ) -> Result<Vec<StoredPlayerEvent>, StoreError> {
        let rows = self.fetch_all(&PLAYER_EVENTS, |query| query.bind(id).bind(after).bind(i64::from(most))).await?;
        rows.iter().map(player_event_from_row).collect()
    }

    pub(in crate::store) async fn create_challenge(
        &self,
        new: NewChallenge,
        most_open: u32,
        tell: Vec<(PlayerId, PlayerEventKind)>,
    ) -> Result<Option<ChallengeId>, StoreError> {
        let created = self
            .in_transaction(|tx| {
                let (new, tell) = (new.clone(), tell.clone());
                Box::pin(async move {
                    let created_at = stamp(new.created_at);
                    sqlx::query(HOLD_PLAYER).bind(new.challenger).execute(&mut *tx).await?;
                    let open: i64 = sqlx::query_scalar(OPEN_CHALLENGES_SENT)
                        .bind(new.challenger)
                        .bind(&created_at)
                        .fetch_one(&mut *tx)
                        .await?;
                    if open >= i64::from(most_open) {
                        return Ok(None);
                    }
                    let clock = new.terms.clock.map(|clock| (clock.initial_ms, clock.increment_ms));
                    let id: ChallengeId = sqlx::query_scalar(INSERT_CHALLENGE)
                        .bind(new.challenger)
                        .bind(new.challenged)
                        .bind(new.terms.variant.code())
                        .bind(clock.map(|(initial, _)| initial))
                        .bind(clock.map(|(_, increment)| increment))
                        .bind(new.colour.code())
                        .bind(&created_at)
                        .bind(stamp(new.expires_at))
                        .bind(new.terms.rated)
                        .fetch_one(&mut *tx)
                        .await?;
                    insert_player_events(tx, &events_about(Subject::Challenge(id), &tell), new.created_at).await?;
                    Ok(Some(id))
                })
            })
            .await?;
        self.wrote_player_events(if created.is_some() { &tell } else { &[] });
        Ok(created)
    }

    /// Runs `work` in a transaction of its own, committed when it succeeds;
    /// once more on a fresh connection when the one it was given was broken.
    pub(super) async fn in_transaction<T>(
        &self,
        work: impl for<'c> Fn(&'c mut PgConnection) -> BoxFuture<'c, Result<T, sqlx::Error>>,
    ) -> Result<T, StoreError> {
        let mut held = self.connections.get().await?;
        let done = match transaction(held.connection(), &work).await {
            Err(error) if held.may_retry(&error) => {
                held.reopen().await?;
                transaction(held.connection(), &work).await
            }
            done => done,
        };
        held.finish(done)
    }

    pub(in crate::store) async fn challenge(&self, id: ChallengeId) -> Result<Option<StoredChallenge>, StoreError> {
        let row = self.fetch_optional(&CHALLENGE, |query| query.bind(id)).await?;
        row.map(|row| challenge_from_row(&row)).transpose()
    }

    pub(in crate::store) async fn open_challenges(
        &self,
        id: PlayerId,
        now: String,
    ) -> Result<Vec<StoredChallenge>, StoreError> {
        let rows = self.fetch_all(&OPEN_CHALLENGES, |query| query.bind(id).bind(now.clone())).await?;
        rows.iter().map(challenge_from_row).collect()
    }

    pub(in crate::store) async fn close_challenge(
        &self,
        id: ChallengeId,
        status: ChallengeStatus,
        reason: Option<String>,
        at: jiff::Timestamp,
        tell: Vec<(PlayerId, PlayerEventKind)>,
    ) -> Result<bool, StoreError> {
        let closed = self
            .in_transaction(|tx| {
                let (reason, tell) = (reason.clone(), tell.clone());
                Box::pin(async move {
                    if !close(tx, id, at, status, reason).await? {
                        return Ok(false);
                    }
                    insert_player_events(tx, &events_about(Subject::Challenge(id), &tell), at).await?;
                    Ok(true)
                })
            })
            .await?;
        self.wrote_player_events(if closed { &tell } else { &[] });
        Ok(closed)
    }

    pub(in crate::store) async fn accept_challenge(
        &self,
        id: ChallengeId,
        at: jiff::Timestamp,
        started: Started,
        tell: Vec<(PlayerId, PlayerEventKind)>,
    ) -> Result<Option<GameId>, StoreError> {
        let (game, game_events) = &started;
        let accepted = self
            .in_transaction(|tx| {
                let (game, game_events, tell) = (game.clone(), game_events.clone(), tell.clone());
                Box::pin(async move {
                    if !close(tx, id, at, ChallengeStatus::Accepted, None).await? {
                        return Ok(None);
                    }
                    let game_id = insert_game(tx, &game, None, false).await?.expect("a new game is always inserted");
                    insert_player_events(tx, &events_about(Subject::Game(game_id), &game_events), game.created_at)
                        .await?;
                    sqlx::query(SET_CHALLENGE_GAME).bind(game_id).bind(id).execute(&mut *tx).await?;
                    insert_player_events(tx, &events_about(Subject::Challenge(id), &tell), at).await?;
                    Ok(Some(game_id))
                })
            })
            .await?;
        if let Some(game_id) = accepted {
            self.created(&StoredGame { id: game_id, ..game.clone() }, game_events);
            self.wrote_player_events(&tell);
        }
        Ok(accepted)
    }

    pub(in crate::store) async fn seek<E: Send + 'static>(
        &self,
        new: NewSeek,
        most_open: u32,
        pair: impl FnOnce(&StoredSeek, Holder) -> Result<Started, E> + Send + 'static,
    ) -> Result<Result<Sought, E>, StoreError> {
        let mut held = self.connections.get().await?;
        let sought = seek(held.connection(), new, most_open, pair).await;
        Ok(held.finish(sought)?.map(|(sought, game_events)| {
            if let Sought::Paired { game, .. } = &sought {
                self.created(game, &game_events);
            }
            sought
        }))
    }

    pub(in crate::store) async fn seek_by_id(&self, id: SeekId) -> Result<Option<StoredSeek>, StoreError> {
        let row = self.fetch_optional(&SEEK, |query| query.bind(id)).await?;
        row.map(|row| seek_from_row(&row)).transpose()
    }

    pub(in crate::store) async fn cancel_seek(&self, id: SeekId) -> Result<bool, StoreError> {
        Ok(self.execute(CANCEL_SEEK, |query| query.bind(id)).await? > 0)
    }

    /// Inserts `rows` with `insert` (a table's, see [`crate::store::tables`]),
    /// then sets the table's ids on with `continue_ids`, in one transaction;
    /// answers how many rows were new.
    pub(in crate::store) async fn put_rows(
        &self,
        insert: &'static str,
        continue_ids: Option<&'static str>,
        rows: String,
    ) -> Result<u64, StoreError> {
        self.in_transaction(|tx| {
            let rows = rows.clone();
            Box::pin(async move {
                let inserted = sqlx::query(insert).bind(rows).execute(&mut *tx).await?.rows_affected();
                if let Some(continue_ids) = continue_ids {
                    sqlx::query(continue_ids).execute(&mut *tx).await?;
                }
                Ok(inserted)
            })
        })
        .await
    }

    /// The count that `statement` answers.
    pub(in crate::store) async fn count_rows(&self, statement: &'static str) -> Result<u64, StoreError> {
        let count: i64 =
            self.connections.run(&|connection| Box::pin(sqlx::query_scalar(statement).fetch_one(connection))).await?;
        Ok(u64::try_from(count).unwrap_or_default())
    }
}

type PgQuery<'q> = sqlx::query::Query<'q, sqlx::Postgres, sqlx::postgres::PgArguments>;

/// `work` in a transaction on `connection`, committed when it succeeds.
async fn transaction<T>(
    connection: &mut PgConnection,
    work: &impl for<'c> Fn(&'c mut PgConnection) -> BoxFuture<'c, Result<T, sqlx::Error>>,
) -> Result<T, sqlx::Error> {
    let mut tx = connection.begin().await?;
    let done = work(&mut tx).await?;
    tx.commit().await?;
    Ok(done)
}

/// See [`PgStore::seek`]: the transaction on `connection`, which answers too
/// what a paired seek's game tells its players.
async fn seek<E>(
    connection: &mut PgConnection,
    new: NewSeek,
    most_open: u32,
    pair: impl FnOnce(&StoredSeek, Holder) -> Result<Started, E>,
) -> Result<Result<(Sought, Vec<(PlayerId, PlayerEventKind)>), E>, sqlx::Error> {
    let mut tx = connection.begin().await?;
    let clock = new.terms.clock.map(|clock| (clock.initial_ms, clock.increment_ms));
    let terms = format!("seek {} {clock:?} {}", new.terms.variant.code(), new.terms.rated);
    sqlx::query(HOLD_TERMS).bind(terms).execute(&mut *tx).await?;
    let created_at = stamp(new.created_at);
    let open: i64 = sqlx::query_scalar(OPEN_SEEKS).bind(new.player).bind(&created_at).fetch_one(&mut *tx).await?;
    if open >= i64::from(most_open) {
        return Ok(Ok((Sought::TooMany, Vec::new())));
    }
    let partner = sqlx::query(PARTNER.as_str())
        .bind(new.terms.variant.code())
        .bind(clock.map(|(initial, _)| initial))
        .bind(clock.map(|(_, increment)| increment))
        .bind(new.player)
        .bind(&created_at)
        .bind(new.terms.rated)
        .bind(new.rating_range.map(|range| range.min))
        .bind(new.rating_range.map(|range| range.max))
        .fetch_optional(&mut *tx)
        .await?;
    let Some(partner) = partner else {
        let id = insert_seek(&mut tx, &new, SeekStatus::Open, None).await?;
        tx.commit().await?;
        return Ok(Ok((Sought::Waiting(id), Vec::new())));
    };
    let (partner, holder) = seek_and_holder_from_row(&partner).map_err(decode)?;
    let (mut game, game_events) = match pair(&partner, holder) {
        Ok(started) => started,
        Err(refused) => return Ok(Err(refused)),
    };
    game.id = insert_game(&mut tx, &game, None, false).await?.expect("a new game is always inserted");
    insert_player_events(&mut tx, &events_about(Subject::Game(game.id), &game_events), game.created_at).await?;
    let seek = insert_seek(&mut tx, &new, SeekStatus::Paired, Some(game.id)).await?;
    sqlx::query(PAIR_SEEK).bind(game.id).bind(partner.id).execute(&mut *tx).await?;
    tx.commit().await?;
    Ok(Ok((Sought::Paired { seek, game: Box::new(game) }, game_events)))
}

/// See the SQLite store's.
async fn close(
    tx: &mut PgConnection,
    id: ChallengeId,
    at: jiff::Timestamp,
    status: ChallengeStatus,
    reason: Option<String>,
) -> Result<bool, sqlx::Error> {
    let query = sqlx::query(CLOSE_CHALLENGE).bind(stamp(at)).bind(id).bind(status.code()).bind(reason);
    Ok(query.execute(tx).await?.rows_affected() > 0)
}

/// Writes seek `new` with `status` and the game it was paired into; answers its id.
async fn insert_seek(
    tx: &mut PgConnection,
    new: &NewSeek,
    status: SeekStatus,
    game_id: Option<GameId>,
) -> Result<SeekId, sqlx::Error> {
    let clock = new.terms.clock.map(|clock| (clock.initial_ms, clock.increment_ms));
    sqlx::query_scalar(INSERT_SEEK)
        .bind(new.player)
        .bind(new.terms.variant.code())
        .bind(clock.map(|(initial, _)| initial))
        .bind(clock.map(|(_, increment)| increment))
        .bind(status.code())
        .bind(game_id)
        .bind(stamp(new.created_at))
        .bind(stamp(new.expires_at))
        .bind(new.terms.rated)
        .bind(new.rating_range.map(|range| range.min))
        .bind(new.rating_range.map(|range| range.max))
        .fetch_one(tx)
        .await
}
