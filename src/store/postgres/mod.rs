//! The games in PostgreSQL, shared by every instance of the server.
//!
//! Writes of one game are ordered by the database, not by an instance: a write
//! reads the log, decides, and appends in one statement, and the primary key
//! (game_id, seq) lets only one of two racing writes take the next sequence
//! number; the other reads the log again and decides anew. After each write
//! commits, the instance notifies the channel [`CHANNEL`] with the game's id and
//! its new version, the notices of many writes in one statement, so that watchers
//! connected to any instance hear of it (see migration 0006 for why not from
//! within the write).
//!
//! A write is decided on the game as this instance last read or wrote it, when it
//! has it, and written together with the other writes that wait (see
//! [`writes`]): only when another write took the next sequence number first (on
//! any instance), or the decision failed on that copy, is the log read again. So
//! a move is a share of one statement, and the primary key still decides every
//! race.

mod connections;
mod statements;
mod tx;
mod writes;

use std::collections::{HashMap, HashSet};
use std::str::FromStr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::mpsc;

use sqlx::postgres::{PgConnectOptions, PgConnection, PgListener, PgPool, PgPoolOptions, PgRow};
use sqlx::{Connection, Row};

use super::players::insert_player_events;
use super::rows::{Columns, EntryRow, SeatRow, SummaryColumns, stored_game_from_row};
use super::rows::{bot_code, mistake_chance};
use super::{Notice, OpenError, RematchOf, StoreError};
use crate::record::{Event, GameId, PlayerEventKind, PlayerId, StoredEntry, StoredGame, Subject, Summary, stamp};
use connections::{Connections, Held, is_broken};
use statements::*;
use tx::in_sqlx_terms;
use writes::{Batches, EntryColumns, PgQuery};

/// The notification channel of the games' changes, each payload `id version`,
/// and of the players' new events, each `player id`.
const CHANNEL: &str = "qttt_games";

/// The notices of this instance's writes that wait to be sent; beyond, one is
/// dropped (its game's watchers elsewhere hear of its next write).
const UNTOLD: usize = 4096;

/// How long the notices of this instance's writes gather before they are sent:
/// a moment for other instances' watchers, and, with a write every millisecond,
/// one statement for several writes rather than one each.
const NOTICES_GATHER: Duration = Duration::from_millis(5);

/// The games kept as this instance last read or wrote them, for its writes.
const KNOWN_GAMES: usize = 4096;

/// How often a write is decided again when other writes to its game keep
/// landing first, before its caller is told of the conflict.
const MOST_ATTEMPTS: usize = 4;

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
    connections: Arc<Connections>,
    /// The one connection that listens for other instances' writes.
    listener: PgPool,
    /// The notice of each write, for [`PgStore::listen`] to tell the other
    /// instances.
    written: mpsc::Sender<Notice>,
    /// Their receiver, until `listen` takes it.
    untold: Arc<Mutex<Option<mpsc::Receiver<Notice>>>>,
    /// Games as this instance last read or wrote them, perhaps no longer as
    /// they are: a write decided on one lands only if nothing came in between.
    known: Arc<quick_cache::sync::Cache<GameId, StoredGame>>,
    /// Writes that wait to be written together.
    batches: Arc<Batches>,
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
    pub(super) async fn open(url: &str, settings: PoolSettings) -> Result<PgStore, OpenError> {
        let timeout_ms = settings.statement_timeout.as_millis().to_string();
        let options = PgConnectOptions::from_str(url)
            .map_err(OpenError::Url)?
            // The server's notices (such as "already exists, skipping") are no news.
            .options([("statement_timeout", timeout_ms.as_str()), ("client_min_messages", "warning")]);
        // The migrations run on a connection of their own, which also gives the
        // database's own words when it cannot be reached.
        let deadline = Instant::now() + settings.connect_retry;
        let mut migrator = loop {
            match PgConnection::connect_with(&options).await {
                Ok(connection) => break connection,
                // A certificate, a password or a name does not come right by waiting.
                Err(error) if may_come_up(&error) && Instant::now() < deadline => {
                    log::warn!("the database does not answer yet ({error}); trying again");
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
                Err(error) => return Err(OpenError::Connect(error)),
            }
        };
        // Instances that start together take turns: the migrator holds an advisory lock.
        sqlx::migrate!("./migrations/postgres").run(&mut migrator).await?;
        migrator.close().await.map_err(OpenError::Connect)?;
        let listener = PgPoolOptions::new().max_connections(1).connect_lazy_with(options.clone());
        let connections = Arc::new(Connections::new(options, settings.pool_size, settings.statement_timeout));
        let (written, untold) = mpsc::channel(UNTOLD);
        let known = Arc::new(quick_cache::sync::Cache::new(KNOWN_GAMES));
        let untold = Arc::new(Mutex::new(Some(untold)));
        Ok(PgStore { connections, listener, written, untold, known, batches: Arc::default() })
    }

    pub(super) async fn close(&self) {
        self.connections.close().await;
        self.listener.close().await;
    }

    pub(super) async fn ping(&self) -> Result<(), StoreError> {
        self.connections.run(&|connection| Box::pin(connection.ping())).await
    }

    pub(super) async fn database_time_us(&self) -> Result<i64, StoreError> {
        self.connections.run(&|connection| Box::pin(sqlx::query_scalar(DATABASE_TIME).fetch_one(connection))).await
    }

    pub(super) async fn create_game(
        &self,
        game: StoredGame,
        rematch: Option<RematchOf>,
        player_events: Vec<(PlayerId, PlayerEventKind)>,
    ) -> Result<GameId, StoreError> {
        let mut held = self.connections.get().await?;
        let created = match create(held.connection(), &game, rematch, &player_events).await {
            Err(error) if held.may_retry(&error) => {
                held.reopen().await?;
                create(held.connection(), &game, rematch, &player_events).await
            }
            created => created,
        };
        // A rematch asked for at the same moment by the other player took the
        // place in the old game's log, or the old game's one rematch.
        let id = match (created, rematch) {
            (Err(error), Some(rematch)) if is_unique_violation(&error) => conflict(held, rematch.game_id).await,
            (created, _) => held.finish(created),
        }?;
        self.created(&StoredGame { id, ..game }, &player_events);
        if let Some(rematch) = rematch {
            self.wrote(rematch.game_id, rematch.seq);
            self.known.remove(&rematch.game_id);
        }
        Ok(id)
    }

    /// Keeps `game`, just created, as this instance knows it, and has the other
    /// instances told of it and of the `player_events` its creation wrote.
    fn created(&self, game: &StoredGame, player_events: &[(PlayerId, PlayerEventKind)]) {
        self.wrote(game.id, game.version());
        self.wrote_player_events(player_events);
        self.known.insert(game.id, game.clone());
    }

    /// Has the other instances told that game `id` is at `version` now.
    fn wrote(&self, id: GameId, version: i64) {
        self.tell(Notice::Changed { id, version });
    }

    /// Has the other instances told that the players `player_events` name have
    /// new events.
    fn wrote_player_events(&self, player_events: &[(PlayerId, PlayerEventKind)]) {
        for &(id, _) in player_events {
            self.tell(Notice::PlayerEvents { id });
        }
    }

    fn tell(&self, notice: Notice) {
        if self.written.try_send(notice).is_err() {
            log::debug!("{notice:?} goes untold: too many notices wait");
        }
    }

    pub(super) async fn copy_game(&self, game: StoredGame, rematch: Option<RematchOf>) -> Result<bool, StoreError> {
        let copied = self
            .connections
            .run(&|connection| {
                let game = game.clone();
                Box::pin(async move { insert_game(connection, &game, rematch, true).await })
            })
            .await?;
        Ok(copied.is_some())
    }

    pub(super) async fn load_game(&self, id: GameId) -> Result<StoredGame, StoreError> {
        let row = self.connections.run(&|connection| Box::pin(fetch_game(connection, id))).await?;
        let game = game_from_row(row, id)?;
        self.known.insert(id, game.clone());
        Ok(game)
    }

    /// Tells `hear` of every change any instance writes, for as long as the store
    /// is open; after a lost connection, that notices may have been missed. Tells
    /// the other instances of this one's writes meanwhile.
    pub(super) async fn listen(&self, hear: impl Fn(Notice)) {
        let untold = self.untold.lock().expect("nothing panics under this lock").take();
        match untold {
            Some(untold) => tokio::select! {
                () = self.hear_others(hear) => {}
                () = self.tell_others(untold) => {}
            },
            None => self.hear_others(hear).await,
        }
    }

    /// Sends the notices of this instance's writes: those that came in within
    /// [`NOTICES_GATHER`] of the first, or while the last were sent, go together,
    /// one (the newest) a game, and one a player.
    async fn tell_others(&self, mut untold: mpsc::Receiver<Notice>) {
        while let Some(first) = untold.recv().await {
            tokio::time::sleep(NOTICES_GATHER).await;
            let (mut newest, mut players) = (HashMap::new(), HashSet::new());
            let mut next = Some(first);
            while let Some(notice) = next {
                match notice {
                    Notice::Changed { id, version } => {
                        let told = newest.entry(id).or_insert(version);
                        *told = version.max(*told);
                    }
                    Notice::PlayerEvents { id } => {
                        players.insert(id);
                    }
                    Notice::MaybeMissed => {}
                }
                next = untold.try_recv().ok();
            }
            let payloads: Vec<String> = newest
                .iter()
                .map(|(id, version)| format!("{id} {version}"))
                .chain(players.iter().map(|id| format!("player {id}")))
                .collect();
            let sent = self
                .connections
                .run(&|connection| {
                    let query = sqlx::query(NOTIFY).bind(payloads.clone());
                    Box::pin(async move { query.execute(connection).await.map(drop) })
                })
                .await;
            if let Err(error) = sent {
                // Watchers elsewhere hear of these games' next writes.
                log::debug!("{} notices for other instances were not sent: {error}", payloads.len());
            }
        }
    }

    async fn hear_others(&self, hear: impl Fn(Notice)) {
        let mut listener = loop {
            match PgListener::connect_with(&self.listener).await {
                Ok(mut listener) => {
                    if listener.listen(CHANNEL).await.is_ok() {
                        break listener;
                    }
                }
                Err(_) if self.listener.is_closed() => return,
                Err(_) => {}
            }
            tokio::time::sleep(Duration::from_secs(1)).await;
        };
        loop {
            match listener.try_recv().await {
                Ok(Some(notification)) => {
                    if let Some(notice) = notice_of(notification.payload()) {
                        hear(notice);
                    }
                }
                Err(sqlx::Error::PoolClosed) => return,
                // The connection was lost: once it is back, whatever changed in
                // between must be reread.
                Ok(None) | Err(_) => {
                    while sqlx::query("SELECT 1").execute(&mut listener).await.is_err() {
                        if self.listener.is_closed() {
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

/// The notice a payload of [`CHANNEL`] carries: `id version` for a game,
/// `player id` for a player's events.
fn notice_of(payload: &str) -> Option<Notice> {
    match payload.split_once(' ')? {
        ("player", id) => Some(Notice::PlayerEvents { id: id.parse().ok()? }),
        (id, version) => Some(Notice::Changed { id: id.parse().ok()?, version: version.parse().ok()? }),
    }
}

/// Whether `error`, met when connecting, may go away by itself: the server is
/// not listening yet, or is starting up. (A certificate that fails verification
/// is an I/O error of the kind `InvalidData`.)
fn may_come_up(error: &sqlx::Error) -> bool {
    match error {
        sqlx::Error::Io(error) => error.kind() != std::io::ErrorKind::InvalidData,
        sqlx::Error::Database(database) => database.code().is_some_and(|code| code == "57P03"),
        _ => false,
    }
}

/// The row of game `id` with its whole log, if there is such a game.
async fn fetch_game(connection: &mut PgConnection, id: GameId) -> Result<Option<PgRow>, sqlx::Error> {
    sqlx::query(SELECT_GAME.as_str()).bind(id).fetch_optional(connection).await
}

/// The game in `row`, fetched as game `id`.
fn game_from_row(row: Option<PgRow>, id: GameId) -> Result<StoredGame, StoreError> {
    let row = row.ok_or(StoreError::NotFound { id })?;
    stored_game_from_row(&row, EntryRow::from_json(row.try_get("log")?)?, SeatRow::from_json(row.try_get("seats")?)?)
}

/// A conflict on game `id`, with the version it is at.
async fn conflict<T>(mut held: Held<'_>, id: GameId) -> Result<T, StoreError> {
    let current_version = sqlx::query_scalar(VERSION).bind(id).fetch_one(held.connection()).await;
    let current_version = held.finish(current_version)?;
    Err(StoreError::Conflict { current_version })
}

impl Columns for PgRow {
    fn column<T: super::rows::Value>(&self, index: usize) -> Result<T, StoreError> {
        Ok(self.try_get(index)?)
    }
}

/// Binds `summary`'s columns.
fn bind_summary<'q, O>(query: PgQuery<'q, O>, summary: &Summary) -> PgQuery<'q, O> {
    let c = SummaryColumns::of(summary);
    query.bind(c.status).bind(c.result).bind(c.end_reason).bind(c.end_player).bind(c.deadline).bind(c.ended_at)
}

/// Creates `game`, and with `rematch` its entry in the game it follows, in one
/// statement; answers the new game's id. As a `copy`, with `game`'s own id, and
/// nothing (`None`) when a game has that id already.
async fn insert_game(
    connection: &mut PgConnection,
    game: &StoredGame,
    rematch: Option<RematchOf>,
    copy: bool,
) -> Result<Option<GameId>, sqlx::Error> {
    let clock = game.clock.map(|clock| (clock.initial_ms, clock.increment_ms));
    let mut entries = EntryColumns::default();
    entries.push(None, &game.log);
    if let Some(RematchOf { game_id, seq, player }) = rematch {
        // Its rematch column is filled in with the new game's id by the statement.
        let event = Event::Rematch { player, game_id: GameId::new(0) };
        entries.push(Some(game_id), &[StoredEntry { seq, created_at: game.created_at, event, by_bot: false }]);
    }
    let players: Vec<String> = game.seats.iter().map(|seat| seat.player.to_string()).collect();
    let token_hashes: Vec<Vec<u8>> = game.seats.iter().map(|seat| seat.token_hash.clone()).collect();
    let holders: Vec<Option<PlayerId>> =
        game.seats.iter().map(|seat| seat.holder.as_ref().map(|holder| holder.id)).collect();
    let query = sqlx::query_scalar(if copy { COPY_GAME.as_str() } else { INSERT_GAME.as_str() })
        .bind(game.variant.code())
        .bind(stamp(game.created_at))
        .bind(bot_code(game))
        .bind(mistake_chance(game))
        .bind(game.hints)
        .bind(clock.map(|(initial, _)| initial))
        .bind(clock.map(|(_, increment)| increment))
        .bind(game.rematch_of);
    let query = bind_summary(query, &game.summary)
        .bind(game.invite_hash.clone())
        .bind(players)
        .bind(token_hashes)
        .bind(holders);
    let query = entries.bind(query).bind(game.rated);
    let query = if copy { query.bind(game.id) } else { query };
    query.fetch_optional(connection).await
}

/// Creates `game` (see [`insert_game`]), with `player_events` about it in the
/// same transaction when it has any.
async fn create(
    connection: &mut PgConnection,
    game: &StoredGame,
    rematch: Option<RematchOf>,
    player_events: &[(PlayerId, PlayerEventKind)],
) -> Result<GameId, sqlx::Error> {
    if player_events.is_empty() {
        let id = insert_game(connection, game, rematch, false).await?;
        return Ok(id.expect("a new game is always inserted"));
    }
    let mut tx = connection.begin().await?;
    let id = insert_game(&mut tx, game, rematch, false).await?.expect("a new game is always inserted");
    in_sqlx_terms(&mut tx, async |tx| {
        insert_player_events(tx, Subject::Game(id), player_events, game.created_at).await
    })
    .await?;
    tx.commit().await?;
    Ok(id)
}

/// A row that does not read as it should, as sqlx's error.
fn decode(error: StoreError) -> sqlx::Error {
    sqlx::Error::Decode(Box::new(error))
}

fn is_unique_violation(error: &sqlx::Error) -> bool {
    error.as_database_error().is_some_and(|error| error.is_unique_violation())
}

impl From<sqlx::Error> for StoreError {
    fn from(error: sqlx::Error) -> StoreError {
        StoreError::from(&error)
    }
}

impl From<&sqlx::Error> for StoreError {
    fn from(error: &sqlx::Error) -> StoreError {
        match error {
            sqlx::Error::PoolTimedOut | sqlx::Error::PoolClosed => StoreError::Unavailable(error.to_string()),
            // 57014: the statement ran out of time; the rest: the connection failed.
            error if is_broken(error) => StoreError::Unavailable(error.to_string()),
            sqlx::Error::Database(database) if database.code().as_deref() == Some("57014") => {
                StoreError::Unavailable(error.to_string())
            }
            // disk_full: the server could not extend a file.
            sqlx::Error::Database(database) if database.code().as_deref() == Some("53100") => {
                StoreError::Full(error.to_string())
            }
            _ => StoreError::Other(error.to_string()),
        }
    }
}

#[cfg(test)]
pub(super) mod tests;
