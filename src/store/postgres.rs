//! The games in PostgreSQL, shared by every instance of the server.
//!
//! Writes of one game are ordered by the database, not by an instance: an update
//! locks the game's row before it reads the log, and the primary key (game_id, seq)
//! turns any other race into a conflict. Every new log entry notifies the channel
//! [`CHANNEL`] with the game's id and the entry's sequence number (a trigger of
//! the schema's), delivered on commit to every instance that listens, so that
//! watchers connected anywhere hear of it.

use std::str::FromStr;
use std::sync::LazyLock;
use std::time::{Duration, Instant};

use sqlx::postgres::{PgConnectOptions, PgConnection, PgListener, PgPool, PgPoolOptions, PgRow};
use sqlx::{Connection, PgExecutor, Postgres, Row, Transaction};

use super::rows::{Columns, EntryRow, NEW_ENTRY_COLUMNS, SummaryColumns, Value};
use super::rows::{entry_columns, game_columns, listing_columns};
use super::rows::{listed_game_from_row, stored_game_from_row};
use super::{ListedGame, Notice, Page, RematchOf, Status, StoreError, StoredEntry, StoredGame, Write};
use super::{bot_code, mistake_chance};
use crate::engine::Player;
use crate::service::Event;

/// The notification channel of the games' changes; each payload is `id version`.
const CHANNEL: &str = "qttt_games";

/// How a timestamp column reads: RFC 3339 in UTC, to the millisecond, as SQLite writes it.
fn rfc3339(column: &str) -> String {
    format!("to_char({column} AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')")
}

// The statements built from the shared column lists, once; as `&'static str`
// they are known to sqlx to be safe from injection. Times are written as the
// service stamps them, RFC 3339 text, into TIMESTAMPTZ columns, and read back as
// that text.
/// A game and its whole log in one statement, one snapshot: the log as a JSON
/// array of arrays, in the column order of [`EntryRow`].
static SELECT_GAME: LazyLock<String> = LazyLock::new(|| {
    format!(
        "SELECT {}, (SELECT COALESCE(json_agg(json_build_array({}) ORDER BY seq), '[]')::TEXT \
         FROM log_entries WHERE game_id = games.id) AS log FROM games WHERE id = $1",
        game_columns(rfc3339),
        entry_columns(&rfc3339("created_at"))
    )
});
const INSERT_GAME: &str = "INSERT INTO games (variant, created_at, bot, mistake_chance, hints, clock_initial_ms, \
     clock_increment_ms, rematch_of, status, result, end_reason, end_player, deadline, ended_at, invite_hash) \
     VALUES ($1, $2::TIMESTAMPTZ, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13::TIMESTAMPTZ, $14::TIMESTAMPTZ, $15) \
     RETURNING id";
static INSERT_ENTRY: LazyLock<String> = LazyLock::new(|| {
    format!(
        "INSERT INTO log_entries ({NEW_ENTRY_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::TIMESTAMPTZ)"
    )
});
const UPDATE_SUMMARY: &str = "UPDATE games SET status = $1, result = $2, end_reason = $3, end_player = $4, \
     deadline = $5::TIMESTAMPTZ, ended_at = $6::TIMESTAMPTZ WHERE id = $7";
static LIST_GAMES: LazyLock<String> = LazyLock::new(|| {
    format!(
        "SELECT {} FROM games WHERE ($1::TEXT IS NULL OR status = $1) AND ($2::BIGINT IS NULL OR id < $2) \
         AND invite_hash IS NULL ORDER BY id DESC LIMIT $3",
        listing_columns(rfc3339)
    )
});
/// Retention's question and its deletes: see [`super::Store::delete_games_ended_before`].
const ENDED_BEFORE: &str = "SELECT id FROM games WHERE ended_at < $1::TIMESTAMPTZ \
     AND id NOT IN (SELECT game_id FROM shared_game) AND id < (SELECT max(id) FROM games) \
     ORDER BY ended_at, id LIMIT $2 FOR UPDATE SKIP LOCKED";
const DELETE_GAMES: [&str; 4] = [
    "DELETE FROM log_entries WHERE game_id = ANY($1)",
    "DELETE FROM seats WHERE game_id = ANY($1)",
    "UPDATE games SET rematch_of = NULL WHERE rematch_of = ANY($1)",
    "DELETE FROM games WHERE id = ANY($1)",
];
/// The timer's question: see [`super::Store::overdue_games`].
const OVERDUE_GAMES: &str = "SELECT id FROM games WHERE status = 'ongoing' AND deadline <= $1::TIMESTAMPTZ \
     UNION SELECT id FROM games WHERE $2::TEXT IS NOT NULL AND status = 'waiting' AND created_at <= $2::TIMESTAMPTZ \
     LIMIT 100";

/// How the store connects: `DATABASE_POOL_SIZE`, `DATABASE_STATEMENT_TIMEOUT_MS`
/// and `DATABASE_CONNECT_RETRY_SECONDS`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolSettings {
    /// The most connections an instance holds.
    pub pool_size: u32,
    /// The longest a statement may run, and a request may wait for a connection.
    pub statement_timeout: Duration,
    /// How long start-up keeps trying to reach the database.
    pub connect_retry: Duration,
}

impl Default for PoolSettings {
    fn default() -> PoolSettings {
        PoolSettings {
            pool_size: 10,
            statement_timeout: Duration::from_secs(5),
            connect_retry: Duration::from_secs(30),
        }
    }
}

/// The games in one PostgreSQL database.
#[derive(Debug, Clone)]
pub(super) struct PgStore {
    pool: PgPool,
}

/// The database of `url` by host, port and name.
pub(super) fn name_of(url: &str) -> String {
    match PgConnectOptions::from_str(url) {
        Ok(options) => format!(
            "PostgreSQL database {} at {}:{}",
            options.get_database().unwrap_or(options.get_username()),
            options.get_host(),
            options.get_port()
        ),
        Err(_) => "PostgreSQL database (its URL cannot be read)".into(),
    }
}

impl PgStore {
    /// Connects to the database at `url`, retrying for as long as `settings` say,
    /// and migrates it.
    ///
    /// # Errors
    /// One line saying why the database cannot be reached or migrated.
    pub(super) async fn open(url: &str, settings: PoolSettings) -> Result<PgStore, String> {
        let timeout_ms = settings.statement_timeout.as_millis().to_string();
        let options = PgConnectOptions::from_str(url)
            .map_err(|error| error.to_string())?
            // The server's notices (such as "already exists, skipping") are no news.
            .options([("statement_timeout", timeout_ms.as_str()), ("client_min_messages", "warning")]);
        // The migrations run on a connection of their own, which also gives the
        // database's own words when it cannot be reached (a pool would only say
        // that it timed out).
        let deadline = Instant::now() + settings.connect_retry;
        let mut migrator = loop {
            match PgConnection::connect_with(&options).await {
                Ok(connection) => break connection,
                Err(error) if Instant::now() < deadline => {
                    log::warn!("the database does not answer yet ({error}); trying again");
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
                Err(error) => return Err(error.to_string()),
            }
        };
        // Instances that start together take turns: the migrator holds an advisory lock.
        sqlx::migrate!("./migrations/postgres").run(&mut migrator).await.map_err(|error| error.to_string())?;
        migrator.close().await.map_err(|error| error.to_string())?;
        let pool = PgPoolOptions::new()
            .max_connections(settings.pool_size)
            .acquire_timeout(settings.statement_timeout)
            .connect_lazy_with(options);
        Ok(PgStore { pool })
    }

    pub(super) async fn close(&self) {
        self.pool.close().await;
    }

    pub(super) async fn ping(&self) -> Result<(), StoreError> {
        sqlx::query("SELECT 1").execute(&self.pool).await?;
        Ok(())
    }

    pub(super) async fn create_game(&self, game: StoredGame, rematch: Option<RematchOf>) -> Result<i64, StoreError> {
        let mut tx = self.pool.begin().await?;
        let created = insert_game(&mut tx, &game, rematch).await;
        // A rematch asked for at the same moment by the other player took the
        // place in the old game's log, or the old game's one rematch.
        let id = match rematch {
            Some(rematch) => self.unless_raced(rematch.game_id, created).await?,
            None => created?,
        };
        tx.commit().await?;
        Ok(id)
    }

    pub(super) async fn load_game(&self, id: i64) -> Result<StoredGame, StoreError> {
        read_game(&self.pool, id).await
    }

    pub(super) async fn write(&self, id: i64, write: Write) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        self.unless_raced(id, write_entries(&mut tx, id, &write).await).await?;
        tx.commit().await?;
        Ok(())
    }

    /// The outcome of a write to game `id`, with a unique key violation (another
    /// write took the same sequence number or seat first) told as a conflict.
    async fn unless_raced<T>(&self, id: i64, written: Result<T, sqlx::Error>) -> Result<T, StoreError> {
        match written {
            Err(error) if is_unique_violation(&error) => {
                let current_version: i64 =
                    sqlx::query_scalar("SELECT COALESCE(MAX(seq), 0)::BIGINT FROM log_entries WHERE game_id = $1")
                        .bind(id)
                        .fetch_one(&self.pool)
                        .await?;
                Err(StoreError::Conflict { current_version })
            }
            other => Ok(other?),
        }
    }

    pub(super) async fn update<T: Send + 'static, E: From<StoreError> + Send + 'static>(
        &self,
        id: i64,
        decide: impl FnOnce(StoredGame) -> Result<(Option<Write>, T), E> + Send + 'static,
    ) -> Result<T, E> {
        let mut tx = self.pool.begin().await.map_err(StoreError::from)?;
        // The game's row stays locked until the commit: the other writers of this
        // game, on any instance, wait, and then read what this one wrote. The read
        // is a statement of its own, after the lock, so that it sees their writes.
        let locked: Option<i64> = sqlx::query_scalar("SELECT id FROM games WHERE id = $1 FOR UPDATE")
            .bind(id)
            .fetch_optional(&mut *tx)
            .await
            .map_err(StoreError::from)?;
        if locked.is_none() {
            return Err(StoreError::NotFound { id }.into());
        }
        let (write, decided) = decide(read_game(&mut *tx, id).await?)?;
        if let Some(write) = write {
            self.unless_raced(id, write_entries(&mut tx, id, &write).await).await?;
        }
        tx.commit().await.map_err(StoreError::from)?;
        Ok(decided)
    }

    pub(super) async fn overdue_games(
        &self,
        now: String,
        waiting_before: Option<String>,
    ) -> Result<Vec<i64>, StoreError> {
        Ok(sqlx::query_scalar(OVERDUE_GAMES).bind(now).bind(waiting_before).fetch_all(&self.pool).await?)
    }

    pub(super) async fn delete_games_ended_before(&self, before: String, most: usize) -> Result<usize, StoreError> {
        let mut tx = self.pool.begin().await?;
        // Instances that delete at once take different games: each skips those another holds.
        let ids: Vec<i64> = sqlx::query_scalar(ENDED_BEFORE)
            .bind(before)
            .bind(i64::try_from(most).unwrap_or(i64::MAX))
            .fetch_all(&mut *tx)
            .await?;
        let mut deleted = 0;
        for delete in DELETE_GAMES {
            deleted = sqlx::query(delete).bind(&ids).execute(&mut *tx).await?.rows_affected();
        }
        tx.commit().await?;
        Ok(usize::try_from(deleted).unwrap_or(usize::MAX))
    }

    pub(super) async fn list_games(&self, page: Page) -> Result<Vec<ListedGame>, StoreError> {
        let rows = sqlx::query(LIST_GAMES.as_str())
            .bind(page.status.map(Status::code))
            .bind(page.before)
            .bind(i64::from(page.limit))
            .fetch_all(&self.pool)
            .await?;
        rows.iter().map(listed_game_from_row).collect()
    }

    pub(super) async fn shared_game(&self) -> Result<Option<(i64, Player)>, StoreError> {
        let row: Option<(i64, String)> = sqlx::query_as("SELECT game_id, play_as FROM shared_game WHERE slot = 1")
            .fetch_optional(&self.pool)
            .await?;
        row.map(|(id, mark)| Ok((id, super::rows::player(&mark)?))).transpose()
    }

    pub(super) async fn set_shared_game(&self, id: i64, play_as: Player) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO shared_game (slot, game_id, play_as) VALUES (1, $1, $2) \
             ON CONFLICT (slot) DO UPDATE SET game_id = excluded.game_id, play_as = excluded.play_as",
        )
        .bind(id)
        .bind(play_as.to_string())
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Tells `hear` of every change any instance writes, for as long as the store
    /// is open; after a lost connection, that notices may have been missed.
    pub(super) async fn listen(&self, hear: impl Fn(Notice)) {
        let mut listener = loop {
            match PgListener::connect_with(&self.pool).await {
                Ok(mut listener) => {
                    if listener.listen(CHANNEL).await.is_ok() {
                        break listener;
                    }
                }
                Err(_) if self.pool.is_closed() => return,
                Err(_) => {}
            }
            tokio::time::sleep(Duration::from_secs(1)).await;
        };
        loop {
            match listener.try_recv().await {
                Ok(Some(notification)) => {
                    let mut numbers = notification.payload().split(' ').map(str::parse::<i64>);
                    if let (Some(Ok(id)), Some(Ok(version))) = (numbers.next(), numbers.next()) {
                        hear(Notice::Changed { id, version });
                    }
                }
                Err(sqlx::Error::PoolClosed) => return,
                // The connection was lost: once it is back, whatever changed in
                // between must be reread.
                Ok(None) | Err(_) => {
                    while sqlx::query("SELECT 1").execute(&mut listener).await.is_err() {
                        if self.pool.is_closed() {
                            return;
                        }
                        tokio::time::sleep(Duration::from_secs(1)).await;
                    }
                    hear(Notice::MaybeMissed);
                }
            }
        }
    }
}

/// Game `id` and its whole log.
async fn read_game(executor: impl PgExecutor<'_>, id: i64) -> Result<StoredGame, StoreError> {
    let row = sqlx::query(SELECT_GAME.as_str()).bind(id).fetch_optional(executor).await?;
    let row = row.ok_or(StoreError::NotFound { id })?;
    stored_game_from_row(&row, EntryRow::from_json(row.try_get("log")?)?)
}

impl Columns for PgRow {
    fn column<T: Value>(&self, index: usize) -> Result<T, StoreError> {
        Ok(self.try_get(index)?)
    }
}

/// Creates `game` in `tx`, and with `rematch` its entry in the game it follows.
async fn insert_game(
    tx: &mut Transaction<'_, Postgres>,
    game: &StoredGame,
    rematch: Option<RematchOf>,
) -> Result<i64, sqlx::Error> {
    let summary = SummaryColumns::of(&game.summary);
    let clock = game.clock.map(|clock| (clock.initial_ms, clock.increment_ms));
    let id: i64 = sqlx::query_scalar(INSERT_GAME)
        .bind(game.variant.code())
        .bind(&game.created_at)
        .bind(bot_code(game))
        .bind(mistake_chance(game))
        .bind(game.hints)
        .bind(clock.map(|(initial, _)| initial))
        .bind(clock.map(|(_, increment)| increment))
        .bind(game.rematch_of)
        .bind(summary.status)
        .bind(summary.result)
        .bind(summary.end_reason)
        .bind(summary.end_player)
        .bind(summary.deadline)
        .bind(summary.ended_at)
        .bind(&game.invite_hash)
        .fetch_one(&mut **tx)
        .await?;
    for (player, token_hash) in &game.token_hashes {
        insert_seat(tx, id, *player, token_hash).await?;
    }
    insert_entries(tx, id, &game.log).await?;
    if let Some(RematchOf { game_id, seq, player }) = rematch {
        let event = Event::Rematch { player, game_id: id };
        insert_entries(tx, game_id, &[StoredEntry { seq, created_at: game.created_at.clone(), event, by_bot: false }])
            .await?;
    }
    Ok(id)
}

/// Carries out `write` on game `id` in `tx`.
async fn write_entries(tx: &mut Transaction<'_, Postgres>, id: i64, write: &Write) -> Result<(), sqlx::Error> {
    if let Some((player, token_hash)) = &write.seat {
        insert_seat(tx, id, *player, token_hash).await?;
    }
    insert_entries(tx, id, &write.entries).await?;
    if let Some(summary) = &write.summary {
        let columns = SummaryColumns::of(summary);
        sqlx::query(UPDATE_SUMMARY)
            .bind(columns.status)
            .bind(columns.result)
            .bind(columns.end_reason)
            .bind(columns.end_player)
            .bind(columns.deadline)
            .bind(columns.ended_at)
            .bind(id)
            .execute(&mut **tx)
            .await?;
    }
    Ok(())
}

/// Writes `entries` into the log of game `id`.
async fn insert_entries(
    tx: &mut Transaction<'_, Postgres>,
    id: i64,
    entries: &[StoredEntry],
) -> Result<(), sqlx::Error> {
    for entry in entries {
        let row = EntryRow::from(entry);
        sqlx::query(INSERT_ENTRY.as_str())
            .bind(id)
            .bind(row.seq)
            .bind(row.kind)
            .bind(row.actor)
            .bind(row.square_a)
            .bind(row.square_b)
            .bind(row.closing_move)
            .bind(row.square)
            .bind(row.rematch)
            .bind(row.by_bot)
            .bind(row.created_at)
            .execute(&mut **tx)
            .await?;
    }
    Ok(())
}

/// Keeps the hash of `player`'s token in game `id`.
async fn insert_seat(
    tx: &mut Transaction<'_, Postgres>,
    id: i64,
    player: Player,
    token_hash: &[u8],
) -> Result<(), sqlx::Error> {
    sqlx::query("INSERT INTO seats (game_id, player, token_hash) VALUES ($1, $2, $3)")
        .bind(id)
        .bind(player.to_string())
        .bind(token_hash)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

fn is_unique_violation(error: &sqlx::Error) -> bool {
    error.as_database_error().is_some_and(|error| error.is_unique_violation())
}

impl From<sqlx::Error> for StoreError {
    fn from(error: sqlx::Error) -> StoreError {
        match &error {
            sqlx::Error::PoolTimedOut | sqlx::Error::PoolClosed | sqlx::Error::Io(_) | sqlx::Error::Tls(_) => {
                StoreError::Unavailable(error.to_string())
            }
            // 57P01-57P03: the server is shutting down or starting; 57014: the
            // statement ran out of time; class 08: the connection failed.
            sqlx::Error::Database(database)
                if database.code().is_some_and(|code| {
                    code.starts_with("08") || ["57P01", "57P02", "57P03", "57014"].contains(&&*code)
                }) =>
            {
                StoreError::Unavailable(error.to_string())
            }
            _ => StoreError::Other(error.to_string()),
        }
    }
}
