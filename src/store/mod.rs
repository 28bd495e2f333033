//! The only module with SQL: games, their logs and seats in SQLite.
//!
//! SQLite lets one connection write at a time. Writes therefore go through one
//! connection, so that they queue in order here, woken as soon as the writer is
//! free, instead of polling SQLite's lock from several connections (its busy
//! handler sleeps up to 100 ms between tries); reads go through read-only
//! connections of their own, which in WAL mode never wait for the writer. Write
//! transactions begin IMMEDIATE, and the busy timeout covers other processes on
//! the same file.

mod rows;

use std::str::FromStr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use sqlx::sqlite::{SqliteConnectOptions, SqliteConnection, SqliteJournalMode, SqliteSynchronous};
use sqlx::{ConnectOptions, Connection, Sqlite, Transaction};
use tokio::sync::{MappedMutexGuard, Mutex, MutexGuard};

use crate::bot::Level;
use crate::engine::{GameResult, LogEntry, Player, Variant};
use crate::error::Error;
use rows::{GameRow, SummaryRow};

/// The games database.
#[derive(Debug, Clone)]
pub struct Store {
    readers: Readers,
    writer: HeldConnection,
}

/// A connection the store holds open, rather than a pool's: a pool tests each
/// connection it gets back with a round trip to the connection's thread, one more
/// per query. Users wait their turn for its lock, in order. A request dropped in
/// the middle of a transaction leaves nothing behind: the transaction's rollback
/// is queued to the connection's thread ahead of the next user's commands.
#[derive(Debug, Clone)]
pub struct HeldConnection(Arc<Mutex<Option<SqliteConnection>>>);

impl HeldConnection {
    fn new(connection: SqliteConnection) -> HeldConnection {
        HeldConnection(Arc::new(Mutex::new(Some(connection))))
    }

    /// The connection, once it is free.
    ///
    /// # Errors
    /// [`Error::Unavailable`] once the store is closed.
    pub async fn lock(&self) -> Result<MappedMutexGuard<'_, SqliteConnection>, Error> {
        MutexGuard::try_map(self.0.lock().await, Option::as_mut)
            .map_err(|_| Error::Unavailable("the database is closed".into()))
    }

    async fn close(&self) {
        if let Some(connection) = self.0.lock().await.take() {
            let _ = connection.close().await;
        }
    }
}

/// The read-only connections, taken in turn.
#[derive(Debug, Clone)]
pub struct Readers {
    connections: Arc<[HeldConnection]>,
    next: Arc<AtomicUsize>,
}

impl Readers {
    /// The next reader in turn, once it is free.
    ///
    /// # Errors
    /// [`Error::Unavailable`] once the store is closed.
    async fn lock(&self) -> Result<MappedMutexGuard<'_, SqliteConnection>, Error> {
        let turn = self.next.fetch_add(1, Ordering::Relaxed) % self.connections.len();
        self.connections[turn].lock().await
    }
}

/// How many connections read at once: enough for the server's workers and the
/// live streams' rereads to overlap.
const READERS: usize = 4;

/// When SQLite waits for the disk: `SQLITE_SYNCHRONOUS`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Durability {
    /// `synchronous = NORMAL`, the default: a commit survives a crash of the
    /// process; on a power failure or an operating-system crash the last commits
    /// before it may be lost (never half-written: the database stays consistent).
    #[default]
    Normal,
    /// `synchronous = FULL`: every commit is on disk before it is answered, at
    /// the cost of one more disk flush per write.
    Full,
}

/// The readers and the writer of the SQLite database at `url` (created if
/// missing), WAL journal, and migrated: `(readers, writer)`.
///
/// # Errors
/// When the database cannot be opened or migrated.
pub async fn open_sqlite(url: &str, durability: Durability) -> Result<(Readers, HeldConnection), sqlx::Error> {
    let options = SqliteConnectOptions::from_str(url)?
        .busy_timeout(Duration::from_secs(5))
        .foreign_keys(true)
        .synchronous(match durability {
            Durability::Normal => SqliteSynchronous::Normal,
            Durability::Full => SqliteSynchronous::Full,
        });
    let mut writer = options.clone().create_if_missing(true).journal_mode(SqliteJournalMode::Wal).connect().await?;
    sqlx::migrate!("./migrations").run(&mut writer).await?;
    let mut connections = Vec::new();
    for _ in 0..READERS {
        connections.push(HeldConnection::new(options.clone().read_only(true).connect().await?));
    }
    let readers = Readers { connections: connections.into(), next: Arc::default() };
    Ok((readers, HeldConnection::new(writer)))
}

/// Something that happened to a game, as its log keeps it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// A player took a seat.
    SeatTaken(Player),
    /// A move or a collapse outcome, as the engine logs it.
    Action(LogEntry),
}

/// One entry of a stored log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredEntry {
    /// The entry's place in the log, from 1; the game's version is the last one.
    pub seq: i64,
    /// When it was written, RFC 3339 in UTC.
    pub created_at: String,
    /// What happened.
    pub event: Event,
    /// Whether the game's bot did it.
    pub by_bot: bool,
}

/// An entry to append to a log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NewEntry {
    /// What happened.
    pub event: Event,
    /// Whether the game's bot did it.
    pub by_bot: bool,
}

/// A game as stored: its identity and its whole log.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredGame {
    /// The game's id.
    pub id: i64,
    /// Its collapse rule.
    pub variant: Variant,
    /// When it was created, RFC 3339 in UTC.
    pub created_at: String,
    /// The bot that holds the seat the creator left, in a game against the computer.
    pub opponent: Option<Level>,
    /// Its log, in order.
    pub log: Vec<StoredEntry>,
    /// The hash of each seat's token; a bot's seat has none.
    pub token_hashes: Vec<(Player, Vec<u8>)>,
}

impl StoredGame {
    /// The sequence number of the last entry: every write moves it on by one or more.
    pub fn version(&self) -> i64 {
        self.log.last().map_or(0, |entry| entry.seq)
    }

    /// The seat whose token hashes to `token_hash`, if any.
    pub fn seat_of(&self, token_hash: &[u8]) -> Option<Player> {
        self.token_hashes.iter().find(|(_, hash)| hash == token_hash).map(|&(player, _)| player)
    }
}

/// Where a game stands, as listings show it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// A seat is free.
    Waiting,
    /// Both seats are taken and the game goes on.
    Ongoing,
    /// The game is over.
    Finished,
}

impl Status {
    /// The name used in the database and the API.
    pub fn code(self) -> &'static str {
        match self {
            Status::Waiting => "waiting",
            Status::Ongoing => "ongoing",
            Status::Finished => "finished",
        }
    }
}

/// The summary a listing shows, kept beside the log and written with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Summary {
    /// Waiting, ongoing or finished.
    pub status: Status,
    /// The engine's result.
    pub result: GameResult,
}

/// One game of a listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedGame {
    /// The game's id.
    pub id: i64,
    /// Its collapse rule.
    pub variant: Variant,
    /// When it was created.
    pub created_at: String,
    /// Its version.
    pub version: i64,
    /// Waiting, ongoing or finished.
    pub status: Status,
    /// Its result so far.
    pub result: GameResult,
}

impl Store {
    /// Opens (creating it if needed) and migrates the database at `url`.
    ///
    /// # Errors
    /// When the database cannot be opened or migrated.
    pub async fn connect(url: &str, durability: Durability) -> Result<Store, sqlx::Error> {
        let (readers, writer) = open_sqlite(url, durability).await?;
        Ok(Store { readers, writer })
    }

    /// Closes every connection, after the queries under way finish.
    pub async fn close(&self) {
        for reader in self.readers.connections.iter() {
            reader.close().await;
        }
        self.writer.close().await;
    }

    /// Answers whether the database answers.
    ///
    /// # Errors
    /// When it does not.
    pub async fn ping(&self) -> Result<(), Error> {
        sqlx::query("SELECT 1").execute(&mut *self.readers.lock().await?).await?;
        Ok(())
    }

    /// Creates a game with `player` seated, its token hashed to `token_hash`, and
    /// `opening` logged after that seat: the bot's seat and first actions when
    /// `opponent` plays.
    ///
    /// # Errors
    /// When the database fails.
    pub async fn create_game(
        &self,
        variant: Variant,
        player: Player,
        token_hash: &[u8],
        opponent: Option<Level>,
        opening: &[NewEntry],
        summary: Summary,
    ) -> Result<StoredGame, Error> {
        let mut writer = self.writer.lock().await?;
        let mut tx = writer.begin_with("BEGIN IMMEDIATE").await?;
        let (id, created_at): (i64, String) = sqlx::query_as(
            "INSERT INTO games (variant, status, result, bot_level, bot_mistake_chance) \
             VALUES (?, ?, ?, ?, ?) RETURNING id, created_at",
        )
        .bind(variant.code())
        .bind(summary.status.code())
        .bind(summary.result.code())
        .bind(opponent.map(Level::code))
        .bind(opponent.and_then(|level| match level {
            Level::Parasite { mistake_chance } => Some(mistake_chance),
            Level::Random | Level::Perfect => None,
        }))
        .fetch_one(&mut *tx)
        .await?;
        insert_seat(&mut tx, id, player, token_hash).await?;
        let seated = NewEntry { event: Event::SeatTaken(player), by_bot: false };
        let entries: Vec<NewEntry> = std::iter::once(seated).chain(opening.iter().copied()).collect();
        let log = rows::insert_entries(&mut *tx, id, 0, &entries).await?;
        tx.commit().await?;
        Ok(StoredGame { id, variant, created_at, opponent, log, token_hashes: vec![(player, token_hash.to_vec())] })
    }

    /// The game with `id`, its whole log and its seats' token hashes, if there is
    /// one. One query, one row: the log comes as one JSON array, because every row
    /// a query returns is one more hand-over from the connection's thread.
    ///
    /// # Errors
    /// When the database fails, or holds a row the code cannot read (corruption).
    pub async fn load_game(&self, id: i64) -> Result<Option<StoredGame>, Error> {
        let row = sqlx::query_as::<_, GameRow>(
            "SELECT id, variant, created_at, bot_level, bot_mistake_chance, \
             (SELECT token_hash FROM seats WHERE game_id = games.id AND player = 'X') AS x_token_hash, \
             (SELECT token_hash FROM seats WHERE game_id = games.id AND player = 'O') AS o_token_hash, \
             (SELECT json_group_array(json_array(seq, kind, actor, square_a, square_b, closing_move, \
                 collapse_square, by_bot, created_at) ORDER BY seq) \
              FROM log_entries WHERE game_id = games.id) AS log \
             FROM games WHERE id = ?",
        )
        .bind(id)
        .fetch_optional(&mut *self.readers.lock().await?)
        .await?;
        row.map(GameRow::into_game).transpose()
    }

    /// Appends `entries` to the log of game `id` right after version `after`, with
    /// the game's new summary when they change it, in one transaction.
    ///
    /// # Errors
    /// [`Error::Conflict`] with the current version when another write already
    /// took the sequence number after `after`; any database failure.
    pub async fn append(
        &self,
        id: i64,
        after: i64,
        entries: &[NewEntry],
        new_summary: Option<Summary>,
    ) -> Result<Vec<StoredEntry>, Error> {
        let mut writer = self.writer.lock().await?;
        let written = async {
            let Some(summary) = new_summary else {
                // A single statement is a transaction of its own.
                return rows::insert_entries(&mut *writer, id, after, entries).await;
            };
            let mut tx = writer.begin_with("BEGIN IMMEDIATE").await?;
            let written = rows::insert_entries(&mut *tx, id, after, entries).await?;
            set_summary(&mut tx, id, summary).await?;
            tx.commit().await?;
            Ok(written)
        }
        .await;
        drop(writer);
        self.unless_raced(id, written).await
    }

    /// Seats `player` in game `id` with its token hashed to `token_hash`, logs it
    /// right after version `after`, and writes the game's new summary, in one
    /// transaction.
    ///
    /// # Errors
    /// [`Error::Conflict`] with the current version when another write took the
    /// seat or the sequence number first; any database failure.
    pub async fn take_seat(
        &self,
        id: i64,
        after: i64,
        player: Player,
        token_hash: &[u8],
        summary: Summary,
    ) -> Result<StoredEntry, Error> {
        let mut writer = self.writer.lock().await?;
        let written = async {
            let mut tx = writer.begin_with("BEGIN IMMEDIATE").await?;
            insert_seat(&mut tx, id, player, token_hash).await?;
            let seated = NewEntry { event: Event::SeatTaken(player), by_bot: false };
            let mut written = rows::insert_entries(&mut *tx, id, after, &[seated]).await?;
            set_summary(&mut tx, id, summary).await?;
            tx.commit().await?;
            Ok(written.remove(0))
        }
        .await;
        drop(writer);
        self.unless_raced(id, written).await
    }

    /// The outcome of a write to game `id`, with a unique key violation (another
    /// write took the same sequence number or seat first) told as a conflict.
    async fn unless_raced<T>(&self, id: i64, written: Result<T, sqlx::Error>) -> Result<T, Error> {
        match written {
            Err(error) if rows::is_unique_violation(&error) => Err(Error::Conflict {
                detail: "the game changed while this request was applied; reload it and try again".into(),
                current_version: Some(self.version_of(id).await?),
            }),
            other => Ok(other?),
        }
    }

    async fn version_of(&self, id: i64) -> Result<i64, Error> {
        Ok(sqlx::query_scalar("SELECT COALESCE(MAX(seq), 0) FROM log_entries WHERE game_id = ?")
            .bind(id)
            .fetch_one(&mut *self.readers.lock().await?)
            .await?)
    }

    /// Up to `limit` games, newest first, with ids below `before` when given, and
    /// only those with `status` when given.
    ///
    /// # Errors
    /// When the database fails.
    pub async fn list_games(
        &self,
        status: Option<Status>,
        before: Option<i64>,
        limit: u32,
    ) -> Result<Vec<ListedGame>, Error> {
        let rows = sqlx::query_as::<_, SummaryRow>(
            "SELECT id, variant, created_at, status, result, \
             (SELECT MAX(seq) FROM log_entries WHERE game_id = games.id) AS version FROM games \
             WHERE (?1 IS NULL OR status = ?1) AND (?2 IS NULL OR id < ?2) \
             ORDER BY id DESC LIMIT ?3",
        )
        .bind(status.map(Status::code))
        .bind(before)
        .bind(limit)
        .fetch_all(&mut *self.readers.lock().await?)
        .await?;
        rows.into_iter().map(SummaryRow::into_listed).collect()
    }

    /// The game the original app's routes play, and the mark its player chose.
    ///
    /// # Errors
    /// Database failures.
    pub async fn shared_game(&self) -> Result<Option<(i64, Player)>, Error> {
        let row: Option<(i64, String)> = sqlx::query_as("SELECT game_id, player_mark FROM shared_game WHERE slot = 1")
            .fetch_optional(&mut *self.readers.lock().await?)
            .await?;
        row.map(|(id, mark)| Ok((id, rows::player(&mark)?))).transpose()
    }

    /// Points the original app's routes at game `id`.
    ///
    /// # Errors
    /// Database failures.
    pub async fn set_shared_game(&self, id: i64, player_mark: Player) -> Result<(), Error> {
        sqlx::query(
            "INSERT INTO shared_game (slot, game_id, player_mark) VALUES (1, ?, ?) \
             ON CONFLICT (slot) DO UPDATE SET game_id = excluded.game_id, player_mark = excluded.player_mark",
        )
        .bind(id)
        .bind(player_mark.to_string())
        .execute(&mut *self.writer.lock().await?)
        .await?;
        Ok(())
    }
}

/// Keeps the hash of `player`'s token in game `id`.
async fn insert_seat(
    tx: &mut Transaction<'_, Sqlite>,
    id: i64,
    player: Player,
    token_hash: &[u8],
) -> Result<(), sqlx::Error> {
    sqlx::query("INSERT INTO seats (game_id, player, token_hash) VALUES (?, ?, ?)")
        .bind(id)
        .bind(player.to_string())
        .bind(token_hash)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

async fn set_summary(tx: &mut Transaction<'_, Sqlite>, id: i64, summary: Summary) -> Result<(), sqlx::Error> {
    sqlx::query("UPDATE games SET status = ?, result = ? WHERE id = ?")
        .bind(summary.status.code())
        .bind(summary.result.code())
        .bind(id)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

impl From<sqlx::Error> for Error {
    fn from(error: sqlx::Error) -> Error {
        match error {
            sqlx::Error::PoolTimedOut | sqlx::Error::PoolClosed | sqlx::Error::Io(_) => {
                Error::Unavailable(format!("the database does not answer: {error}"))
            }
            other => Error::Internal(format!("database error: {other}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `PRAGMA synchronous` as each connection of a store opened with `durability` has it.
    fn synchronous(durability: Durability) -> Vec<i64> {
        let folder = std::env::temp_dir().join(format!("qttt-store-{}-{durability:?}", std::process::id()));
        std::fs::create_dir_all(&folder).unwrap();
        let url = format!("sqlite:{}", folder.join("qttt.db").display());
        let levels = actix_web::rt::System::new().block_on(async {
            let (readers, writer) = open_sqlite(&url, durability).await.unwrap();
            let mut levels = Vec::new();
            for connection in readers.connections.iter().chain([&writer]) {
                let mut connection = connection.lock().await.unwrap();
                levels.push(sqlx::query_scalar("PRAGMA synchronous").fetch_one(&mut *connection).await.unwrap());
            }
            levels
        });
        std::fs::remove_dir_all(&folder).unwrap();
        levels
    }

    #[test]
    fn every_connection_waits_for_the_disk_as_configured() {
        // SQLite's codes: 1 NORMAL, 2 FULL.
        assert_eq!(synchronous(Durability::Normal), vec![1; READERS + 1]);
        assert_eq!(synchronous(Durability::Full), vec![2; READERS + 1]);
    }
}
