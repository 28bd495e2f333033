//! The games in PostgreSQL, shared by every instance of the server.
//!
//! Writes of one game are ordered by the database, not by an instance: the
//! primary key (game_id, seq) lets only one of two racing writes take the next
//! sequence number, and the other decides anew on the log as it is. A write is
//! decided on the game as this instance last read or wrote it, and written
//! together with the other writes that wait (see [`writes`]). After writes
//! commit, the instance notifies the channel [`CHANNEL`] of them, in one
//! statement, so that watchers on any instance hear of them (see migration 0006
//! for why not from within the write).

mod batches;
mod connections;
mod statements;
mod tx;
mod writes;

use std::collections::{HashMap, HashSet};
use std::str::FromStr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::mpsc;

use sqlx::Connection;
use sqlx::postgres::{PgConnectOptions, PgConnection, PgListener, PgPool, PgPoolOptions};

use super::tx::Kind;
use super::{Notice, OpenError, StoreError};
use crate::record::{GameId, RematchOf, StoredGame, Write};
use batches::Batches;
use connections::{Connections, Held, is_broken};
use statements::*;
use tx::{PgTx, attempt, on_connection};

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
    /// The notices of writes, for [`PgStore::listen`] to tell the other instances.
    written: mpsc::Sender<Notice>,
    /// Their receiver, until `listen` takes it.
    untold: Arc<Mutex<Option<mpsc::Receiver<Notice>>>>,
    /// Games as this instance last read or wrote them: a write decided on one
    /// lands only if nothing came in between.
    known: Arc<quick_cache::sync::Cache<GameId, StoredGame>>,
    /// Writes that wait to be written together.
    batches: Arc<Batches>,
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

    /// Has the other instances told of `write`, which landed on game `id`, and
    /// of the players' events it wrote.
    fn wrote(&self, id: GameId, write: &Write) {
        self.tell(Notice::Changed { id, version: write.version() });
        for &(id, _) in &write.player_events {
            self.tell(Notice::PlayerEvents { id });
        }
    }

    fn tell(&self, notice: Notice) {
        if self.written.try_send(notice).is_err() {
            log::debug!("{notice:?} goes untold: too many notices wait");
        }
    }

    /// Keeps `game`, just read, as this instance knows it.
    pub(super) fn knows(&self, game: &StoredGame) {
        self.known.insert(game.id, game.clone());
    }

    /// Keeps `game`, just created, as this instance knows it, and forgets the
    /// game it is the `rematch` of, whose log it wrote to.
    pub(super) fn created(&self, game: StoredGame, rematch: Option<RematchOf>) {
        if let Some(rematch) = rematch {
            self.known.remove(&rematch.game_id);
        }
        self.known.insert(game.id, game);
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
            let sent = match self.connections.get().await {
                Ok(mut held) => {
                    let sent = sqlx::query(NOTIFY).bind(&payloads).execute(held.connection()).await;
                    held.finish(sent)
                }
                Err(failure) => Err(failure),
            };
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

/// A conflict on game `id`, with the version it is at.
async fn conflict<T>(mut held: Held<'_>, id: GameId) -> Result<T, StoreError> {
    let (conflict, error) = on_connection(held.connection(), async |tx| super::write::conflict(tx, id).await).await;
    held.release(error.as_ref().is_some_and(is_broken));
    conflict
}

impl PgStore {
    /// Runs `work` as `kind` says; once more on a fresh connection when the one
    /// it was given was broken. Then tells the other instances what it says to.
    pub(in crate::store) async fn run<T, E: From<StoreError>>(
        &self,
        kind: Kind,
        work: impl AsyncFn(&mut PgTx<'_>) -> Result<T, E>,
    ) -> Result<T, E> {
        let mut held = self.connections.get().await?;
        let (mut done, mut told, mut broken) = attempt(held.connection(), kind, &work).await;
        if broken && held.is_reused() {
            held.reopen().await?;
            (done, told, broken) = attempt(held.connection(), kind, &work).await;
        }
        held.release(broken);
        if done.is_ok() {
            for notice in told.drain(..) {
                self.tell(notice);
            }
        }
        done
    }
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
pub(super) mod tests {
    // The PostgreSQL store's own tests: its migrations and the plans of its
    // statements. They need a server (`QTTT_TEST_POSTGRES`), and .ci/run gives
    // them one.
    use super::*;
    use crate::record::{ChallengeId, Colour};
    use crate::store::games::{Ended, TIMED_OUT_GAMES, UNJOINED_GAMES, ended_before};
    use crate::store::listing::{LISTED_GAMES, LOBBY_PAGE, PLAYER_PAGE};
    use crate::store::{SqliteSettings, Store};

    #[tokio::test]
    #[ignore = "needs PostgreSQL: QTTT_TEST_POSTGRES (see .ci/run)"]
    async fn migrating_challenges_of_the_release_before_writes_their_colours_as_seats() {
        let (url, mut maintenance, name) = fresh_database("colours").await;
        let folder = tempfile::tempdir().unwrap();
        for migration in std::fs::read_dir("migrations/postgres").unwrap() {
            let path = migration.unwrap().path();
            if path.file_name().unwrap().to_str().unwrap() < "0015" {
                std::fs::copy(&path, folder.path().join(path.file_name().unwrap())).unwrap();
            }
        }
        let mut earlier = PgConnection::connect(&url).await.unwrap();
        sqlx::migrate::Migrator::new(folder.path()).await.unwrap().run(&mut earlier).await.unwrap();
        sqlx::raw_sql(
            "INSERT INTO players (id, name, name_key, token_hash, created_at) OVERRIDING SYSTEM VALUE VALUES
                 (101, 'ann', 'ann', decode(repeat('01', 32), 'hex'), now()),
                 (102, 'bob', 'bob', decode(repeat('02', 32), 'hex'), now());
             INSERT INTO challenges (id, challenger_id, challenged_id, variant, colour, status, created_at, expires_at)
             OVERRIDING SYSTEM VALUE VALUES (1, 101, 102, 'measurement', 'x', 'open', now(), now()),
                 (2, 102, 101, 'measurement', 'o', 'open', now(), now()),
                 (3, 101, 102, 'player_choice', 'random', 'open', now(), now());",
        )
        .execute(&mut earlier)
        .await
        .unwrap();
        earlier.close().await.unwrap();
        let store = Store::connect(&url, SqliteSettings::default(), PoolSettings::default()).await.unwrap();
        let mut colours = Vec::new();
        for id in 1..=3 {
            colours.push(store.challenge(ChallengeId::new(id)).await.unwrap().unwrap().colour);
        }
        store.close().await;
        assert_eq!(colours, [Colour::X, Colour::O, Colour::Random]);
        let mut connection = PgConnection::connect(&url).await.unwrap();
        let indexes: Vec<String> = sqlx::query_scalar(
            "SELECT indexname::TEXT FROM pg_indexes \
             WHERE indexname IN ('games_abandoned_by_end', 'games_unjoined_by_end')",
        )
        .fetch_all(&mut connection)
        .await
        .unwrap();
        assert_eq!(indexes, ["games_unjoined_by_end"]);
        let old_colour = sqlx::query("UPDATE challenges SET colour = 'x' WHERE id = 1").execute(&mut connection).await;
        assert!(
            old_colour.unwrap_err().to_string().contains("challenges_colour_check"),
            "a colour is written as a seat is"
        );
        connection.close().await.unwrap();
        sqlx::raw_sql(sqlx::AssertSqlSafe(format!("DROP DATABASE {name}"))).execute(&mut maintenance).await.unwrap();
    }

    /// What the reads that run however many games there are go along, as in the
    /// SQLite store's test of the same name. Sequential scans are priced out
    /// (`enable_seqscan = off`), so a plan still scans only where no index can
    /// serve; each statement is planned generically, as for any of its values.
    #[tokio::test]
    #[ignore = "needs PostgreSQL: QTTT_TEST_POSTGRES (see .ci/run)"]
    async fn the_listing_the_timer_and_retention_read_along_their_indexes() {
        let (url, mut maintenance, name) = fresh_database("plans").await;
        PgStore::open(&url, PoolSettings::default()).await.unwrap().close().await;
        let reads = [
            (LOBBY_PAGE[0].postgres(), "games_pkey"),
            (LOBBY_PAGE[1].postgres(), "games_by_status"),
            (LISTED_GAMES.postgres(), "games_pkey"),
            (PLAYER_PAGE.postgres(), "seats_by_player"),
            (TIMED_OUT_GAMES.postgres(), "games_by_deadline"),
            (UNJOINED_GAMES.postgres(), "games_by_creation"),
            (ended_before(Ended::Any).postgres(), "games_by_end"),
            (ended_before(Ended::Unjoined).postgres(), "games_unjoined_by_end"),
        ];
        let mut connection = PgConnection::connect(&url).await.unwrap();
        sqlx::raw_sql("SET enable_seqscan = off; SET plan_cache_mode = force_generic_plan")
            .execute(&mut connection)
            .await
            .unwrap();
        for (number, (read, index)) in reads.iter().enumerate() {
            let parameters = (1..).take_while(|n| read.contains(&format!("${n}"))).map(|_| "NULL").collect::<Vec<_>>();
            let prepare = format!("PREPARE read_{number} AS {read}");
            sqlx::raw_sql(sqlx::AssertSqlSafe(prepare)).execute(&mut connection).await.unwrap();
            let explain = format!("EXPLAIN EXECUTE read_{number}({})", parameters.join(", "));
            let plan: Vec<String> =
                sqlx::query_scalar(sqlx::AssertSqlSafe(explain)).fetch_all(&mut connection).await.unwrap();
            // An index scan of any kind (plain, backward, bitmap): on an empty
            // table the planner may sort what a big one would read in order.
            let along_the_index =
                |step: &String| step.contains("Index") && step.split([' ', '(']).any(|word| word == *index);
            assert!(plan.iter().any(along_the_index), "{read}\n{plan:#?}");
            let scans = ["Seq Scan on games", "Seq Scan on seats"];
            assert!(!plan.iter().any(|step| scans.iter().any(|scan| step.contains(scan))), "{read}\n{plan:#?}");
        }
        connection.close().await.unwrap();
        sqlx::raw_sql(sqlx::AssertSqlSafe(format!("DROP DATABASE {name}"))).execute(&mut maintenance).await.unwrap();
    }

    /// A new, empty database on the server `QTTT_TEST_POSTGRES` names, for the
    /// test named `test`: its URL, a connection to the server's maintenance
    /// database (to drop it with), and its name.
    pub(in crate::store) async fn fresh_database(test: &str) -> (String, PgConnection, String) {
        let server = std::env::var("QTTT_TEST_POSTGRES").expect("set QTTT_TEST_POSTGRES to run this test");
        let name = format!("qttt_{test}_{}", std::process::id());
        let mut maintenance = PgConnection::connect(&server).await.unwrap();
        for command in [format!("DROP DATABASE IF EXISTS {name}"), format!("CREATE DATABASE {name}")] {
            sqlx::raw_sql(sqlx::AssertSqlSafe(command)).execute(&mut maintenance).await.unwrap();
        }
        let url = format!("{}/{name}", server.rsplit_once('/').expect("a URL with a database name").0);
        (url, maintenance, name)
    }
}
