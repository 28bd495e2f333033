//! The only module with SQL: games, their logs and seats, in SQLite (embedded,
//! the default) or PostgreSQL (shared by several instances of the server).
//!
//! The store offers whole operations, not statements: above all [`Store::update`],
//! which reads a game, lets the caller decide, and writes the decision, as one
//! unit of the database's work. Both backends keep the same tables and answer
//! every operation alike; everything above the store is the same for both.

mod error;
mod postgres;
mod rows;
mod sqlite;

pub use error::StoreError;
pub use postgres::{PgStore, PoolSettings};
pub use sqlite::{Connections, SqliteStore};

use crate::bot::Level;
use crate::engine::{GameResult, LogEntry, Player, Variant};

/// The games database, on the backend `DATABASE_URL` names.
#[derive(Debug, Clone)]
pub enum Store {
    /// A SQLite file, for one instance.
    Sqlite(SqliteStore),
    /// A PostgreSQL database, for one instance or several.
    Postgres(PgStore),
}

/// News of a change that another instance may have written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Notice {
    /// Game `id` is at `version` now.
    Changed {
        /// The game.
        id: i64,
        /// Its new version.
        version: i64,
    },
    /// News may have been lost (the connection to the database was): any game may
    /// have changed.
    MaybeMissed,
}

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

/// A write to one game's log, decided on the version it was read at.
#[derive(Debug, Clone, PartialEq)]
pub struct Write {
    /// The version the decision was made at: the entries follow it.
    pub after: i64,
    /// A seat taken, with the hash of its token.
    pub seat: Option<(Player, Vec<u8>)>,
    /// The entries to append.
    pub entries: Vec<NewEntry>,
    /// The game's new summary, when the entries change it.
    pub new_summary: Option<Summary>,
}

/// A game to create.
#[derive(Debug, Clone, PartialEq)]
pub struct NewGame {
    /// Its collapse rule.
    pub variant: Variant,
    /// The creator's seat.
    pub player: Player,
    /// The hash of the creator's token.
    pub token_hash: Vec<u8>,
    /// The bot that takes the other seat, in a game against the computer.
    pub opponent: Option<Level>,
    /// What is logged after the creator's seat: the bot's seat and first actions.
    pub opening: Vec<NewEntry>,
    /// Its summary after the opening.
    pub summary: Summary,
}

impl NewGame {
    /// The whole log to write: the creator's seat, then the opening.
    fn entries(&self) -> Vec<NewEntry> {
        let seated = NewEntry { event: Event::SeatTaken(self.player), by_bot: false };
        std::iter::once(seated).chain(self.opening.iter().copied()).collect()
    }

    fn bot_level(&self) -> Option<&'static str> {
        self.opponent.map(Level::code)
    }

    fn bot_mistake_chance(&self) -> Option<f64> {
        self.opponent.and_then(|level| match level {
            Level::Parasite { mistake_chance } => Some(mistake_chance),
            Level::Random | Level::Perfect => None,
        })
    }

    /// The game as stored under `id` at `created_at` with `log`.
    fn into_stored(self, id: i64, created_at: String, log: Vec<StoredEntry>) -> StoredGame {
        StoredGame {
            id,
            variant: self.variant,
            created_at,
            opponent: self.opponent,
            log,
            token_hashes: vec![(self.player, self.token_hash)],
        }
    }
}

/// Whether `url` names a PostgreSQL database.
pub fn is_postgres(url: &str) -> bool {
    url.starts_with("postgres:") || url.starts_with("postgresql:")
}

// Each PostgreSQL call's future is boxed: sqlx's futures are kilobytes large, and
// unboxed they made every request's future as large on SQLite too (a move's was
// 10 KB, which actix moves into the heap for every request).
impl Store {
    /// Opens and migrates the database at `url`: PostgreSQL for a `postgres:` or
    /// `postgresql:` URL, with `pool`; else a SQLite file, created if missing,
    /// with `durability`.
    ///
    /// # Errors
    /// One line saying why the database cannot be opened or migrated.
    pub async fn connect(url: &str, durability: Durability, pool: PoolSettings) -> Result<Store, String> {
        if is_postgres(url) {
            Ok(Store::Postgres(PgStore::open(url, pool).await?))
        } else {
            Ok(Store::Sqlite(SqliteStore::open(url, durability).await?))
        }
    }

    /// Closes every connection, after the work under way finishes.
    pub async fn close(&self) {
        match self {
            Store::Sqlite(store) => store.close().await,
            Store::Postgres(store) => Box::pin(store.close()).await,
        }
    }

    /// Tells `hear` of the changes other instances write, for as long as the store
    /// is open. A SQLite file has one instance: there is nothing to hear.
    pub async fn listen(&self, hear: impl Fn(Notice)) {
        match self {
            Store::Sqlite(_) => {}
            Store::Postgres(store) => Box::pin(store.listen(hear)).await,
        }
    }

    /// Answers whether the database answers.
    ///
    /// # Errors
    /// When it does not.
    pub async fn ping(&self) -> Result<(), StoreError> {
        match self {
            Store::Sqlite(store) => store.ping().await,
            Store::Postgres(store) => Box::pin(store.ping()).await,
        }
    }

    /// Creates `new` and answers it as stored.
    ///
    /// # Errors
    /// When the database fails.
    pub async fn create_game(&self, new: NewGame) -> Result<StoredGame, StoreError> {
        match self {
            Store::Sqlite(store) => store.create_game(new).await,
            Store::Postgres(store) => Box::pin(store.create_game(new)).await,
        }
    }

    /// The game with `id`, its whole log and its seats' token hashes.
    ///
    /// # Errors
    /// [`StoreError::NotFound`]; when the database fails, or holds a row the code
    /// cannot read (corruption).
    pub async fn load_game(&self, id: i64) -> Result<StoredGame, StoreError> {
        match self {
            Store::Sqlite(store) => store.load_game(id).await,
            Store::Postgres(store) => Box::pin(store.load_game(id)).await,
        }
    }

    /// Carries out `write` on game `id`, decided on a copy read earlier, in one
    /// transaction.
    ///
    /// # Errors
    /// [`StoreError::Conflict`] with the current version when another write
    /// already took the sequence number after `write.after` or the seat; any
    /// database failure.
    pub async fn write(&self, id: i64, write: Write) -> Result<Vec<StoredEntry>, StoreError> {
        match self {
            Store::Sqlite(store) => store.write(id, write).await,
            Store::Postgres(store) => Box::pin(store.write(id, write)).await,
        }
    }

    /// Reads game `id`, lets `decide` say what to write and what to answer, and
    /// writes it, with no other write of this store in between. `decide` runs
    /// where the database's work runs: it must not take long. Its error type is
    /// the caller's, which tells the store's own errors in its terms.
    ///
    /// # Errors
    /// What `decide` returns; [`StoreError::NotFound`]; [`StoreError::Conflict`]
    /// when another process wrote first; any database failure.
    pub async fn update<T: Send + 'static, E: From<StoreError> + Send + 'static>(
        &self,
        id: i64,
        decide: impl FnOnce(StoredGame) -> Result<(Option<Write>, T), E> + Send + 'static,
    ) -> Result<(Vec<StoredEntry>, T), E> {
        match self {
            Store::Sqlite(store) => store.update(id, decide).await,
            Store::Postgres(store) => Box::pin(store.update(id, decide)).await,
        }
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
    ) -> Result<Vec<ListedGame>, StoreError> {
        match self {
            Store::Sqlite(store) => store.list_games(status, before, limit).await,
            Store::Postgres(store) => Box::pin(store.list_games(status, before, limit)).await,
        }
    }

    /// The game the original app's routes play, and the mark its player chose.
    ///
    /// # Errors
    /// Database failures.
    pub async fn shared_game(&self) -> Result<Option<(i64, Player)>, StoreError> {
        match self {
            Store::Sqlite(store) => store.shared_game().await,
            Store::Postgres(store) => Box::pin(store.shared_game()).await,
        }
    }

    /// Points the original app's routes at game `id`.
    ///
    /// # Errors
    /// Database failures.
    pub async fn set_shared_game(&self, id: i64, player_mark: Player) -> Result<(), StoreError> {
        match self {
            Store::Sqlite(store) => store.set_shared_game(id, player_mark).await,
            Store::Postgres(store) => Box::pin(store.set_shared_game(id, player_mark)).await,
        }
    }
}
