//! The only module with SQL: games, their logs and seats, in SQLite (embedded,
//! the default) or PostgreSQL (shared by several instances of the server).
//!
//! The store offers whole operations, not statements: above all [`Store::update`],
//! which reads a game, lets the caller decide, and writes the decision, as one
//! unit of the database's work. Both backends keep the same tables and answer
//! every operation alike; everything above the store is the same for both.

/// Runs `$work`, an operation over `$tx` (a [`tx::Tx`]), on the store's backend
/// as `$how` says (`run_read`, `run_snapshot` or `run_write`): the one place
/// that picks a backend for an operation written once. SQLite runs it on one of
/// its threads, so it owns what it uses; PostgreSQL may run it twice (see
/// `postgres::tx`), so it borrows. Each PostgreSQL call's future is boxed, as
/// [`Store`]'s methods explain.
macro_rules! run {
    ($store:expr, $how:ident, |$tx:ident| $work:expr) => {
        match &$store.backend {
            $crate::store::Backend::Sqlite(db) => db.$how(async move |$tx| $work.await).await,
            $crate::store::Backend::Postgres(db) => Box::pin(db.$how(async |$tx| $work.await)).await,
        }
    };
}

mod challenges;
mod error;
mod players;
mod postgres;
mod puzzles;
mod ratings;
mod rows;
mod seeks;
mod space;
mod sql;
mod sqlite;
mod tables;
mod tx;

pub use challenges::Started;
pub use error::{FileProblem, OpenError, StoreError};
use postgres::PgStore;
pub use postgres::PoolSettings;
pub use ratings::{RatingsAsStored, Replay};
pub use seeks::{NewSeek, Sought};
use space::Space;
pub use sqlite::SqliteConnection;
use sqlite::SqliteStore;
use std::sync::Arc;
use std::time::Instant;
pub use tables::{Key, Table};

use jiff::{SignedDuration, Timestamp};

use crate::bot::Bot;
use crate::engine::Player;
use crate::metrics::{DATABASE_ERRORS, STORE_WRITES};
use crate::record::{
    GameId, ListedGame, Page, PlayerEventKind, PlayerId, RatedEnd, StoredEntry, StoredGame, StoredSeat, Summary, stamp,
};

/// The games database, on the backend `DATABASE_URL` names.
#[derive(Debug, Clone)]
pub struct Store {
    backend: Backend,
    /// Shared by the clones every worker holds: the disk is.
    space: Arc<Space>,
}

#[derive(Debug, Clone)]
enum Backend {
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
        id: GameId,
        /// Its new version.
        version: i64,
    },
    /// Player `id` has new events.
    PlayerEvents {
        /// The player.
        id: PlayerId,
    },
    /// News may have been lost (the connection to the database was): any game,
    /// and any player's events, may have changed.
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

/// How the server uses a SQLite file: `SQLITE_SYNCHRONOUS` and
/// `SQLITE_RESIDENT_MIB`. The default, for the tools that open a file for a
/// while, holds none of it in memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SqliteSettings {
    /// When SQLite waits for the disk.
    pub durability: Durability,
    /// How many bytes of the file, from its start, are kept in memory (mapped
    /// into the server, see sqlite/resident.rs); 0 for none.
    pub resident_bytes: usize,
}

/// Which ended games a deletion takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// Every game that ended but a rated one, from which its players'
    /// ratings are derived: the retention period's.
    Any,
    /// The games the server aborted because nobody took their free seat, in
    /// which nothing was played; never a rematch, which its first game's log names.
    Abandoned,
}

impl Ended {
    /// The condition of SQL's `WHERE` on the games table that picks them.
    fn condition(self) -> &'static str {
        match self {
            Ended::Any => "ended_at IS NOT NULL AND NOT rated",
            // As the partial index games_abandoned_by_end has it, so that it is used.
            Ended::Abandoned => "end_reason = 'aborted' AND end_player IS NULL AND rematch_of IS NULL",
        }
    }
}

/// How long a rating period lasts unless `RATING_PERIOD_DAYS` says otherwise.
pub const RATING_PERIOD: SignedDuration = SignedDuration::from_hours(7 * 24);

/// A write to one game's log, decided on the version it was read at: its
/// entries follow that version, and the first of them cannot land if another
/// write took its sequence number first.
#[derive(Debug, Clone, PartialEq)]
pub struct Write {
    /// A seat taken, with the hash of its token and its holder.
    pub seat: Option<StoredSeat>,
    /// The entries to append, numbered and stamped.
    pub entries: Vec<StoredEntry>,
    /// The game's new summary, when the entries change it.
    pub summary: Option<Summary>,
    /// What the write tells the players who hold its seats: their game started
    /// or finished. Written with it, each the next of its player's events.
    pub player_events: Vec<(PlayerId, PlayerEventKind)>,
    /// A rated game's end, which changes its players' ratings in the same
    /// transaction.
    pub rated: Option<RatedEnd>,
}

impl Write {
    /// The version of the game once this write lands.
    pub fn version(&self) -> i64 {
        self.entries.last().map_or(0, |entry| entry.seq)
    }

    /// `game` as it is once this write lands on it.
    fn applied_to(&self, mut game: StoredGame) -> StoredGame {
        game.seats.extend(self.seat.clone());
        game.log.extend(self.entries.iter().cloned());
        if let Some(summary) = &self.summary {
            game.summary = summary.clone();
        }
        game
    }
}

/// An update's failure: its decision's, or the store's own.
enum Failed<E> {
    Decided(E),
    Store(StoreError),
}

impl<E> From<StoreError> for Failed<E> {
    fn from(failure: StoreError) -> Failed<E> {
        Failed::Store(failure)
    }
}

/// Counts `result`'s failure, if it is one of the database's.
fn counted<T>(result: Result<T, StoreError>) -> Result<T, StoreError> {
    if let Err(failure) = &result {
        count(failure);
    }
    result
}

/// Counts a failure of the database by its kind; a game that is not there is
/// none.
fn count(failure: &StoreError) {
    let kind = match failure {
        StoreError::NotFound { .. } | StoreError::NameTaken => return,
        StoreError::Unavailable(_) => "unavailable",
        StoreError::Conflict { .. } => "conflict",
        StoreError::Full(_) => "full",
        StoreError::Corrupt(_) => "corrupt",
        StoreError::Other(_) => "other",
    };
    ::metrics::counter!(DATABASE_ERRORS, "kind" => kind).increment(1);
}

/// The entry a new game's creation writes in the game it is the rematch of: by
/// `player`, at sequence number `seq` of game `game_id`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RematchOf {
    /// The finished game.
    pub game_id: GameId,
    /// The entry's place in that game's log: a rematch asked for by both players
    /// at once lands once.
    pub seq: i64,
    /// Who asked for it.
    pub player: Player,
}

fn bot_code(game: &StoredGame) -> Option<&'static str> {
    game.opponent.map(Bot::code)
}

fn mistake_chance(game: &StoredGame) -> Option<f64> {
    game.opponent.and_then(|bot| match bot {
        Bot::Parasite { mistake_chance } => Some(mistake_chance),
        Bot::Random | Bot::Perfect => None,
    })
}

/// Backs the SQLite database at `url` up into the new file `to` while a server
/// may write to it, and checks the copy's integrity; answers its size in bytes.
/// PostgreSQL is backed up with its own tools (`pg_dump`).
///
/// # Errors
/// Why there is no good backup.
pub async fn back_up(url: &str, to: &std::path::Path) -> Result<u64, OpenError> {
    if is_postgres(url) {
        return Err(OpenError::PostgresBackup);
    }
    sqlite::back_up(url, to).await
}

/// Whether `url` names a PostgreSQL database.
pub fn is_postgres(url: &str) -> bool {
    url.starts_with("postgres:") || url.starts_with("postgresql:")
}

/// The SQLite file `url` names; `None` for a PostgreSQL URL or one that cannot
/// be read.
pub fn sqlite_file(url: &str) -> Option<std::path::PathBuf> {
    if is_postgres(url) { None } else { sqlite::file_of(url) }
}

/// The database of `url` named for messages by where it is and nothing more: a
/// URL may carry a password in any of its parts, so it is never shown.
pub fn database_name(url: &str) -> String {
    if is_postgres(url) { postgres::name_of(url) } else { sqlite::name_of(url) }
}

// Each PostgreSQL call's future is boxed: sqlx's futures are kilobytes large, and
// unboxed they made every request's future as large on SQLite too (a move's was
// 10 KB, which actix moves into the heap for every request).
impl Store {
    /// Opens and migrates the database at `url`: PostgreSQL for a `postgres:` or
    /// `postgresql:` URL, with `pool`; else a SQLite file, created if missing,
    /// used as `sqlite` says.
    ///
    /// # Errors
    /// Why the database cannot be opened or migrated.
    pub async fn connect(url: &str, sqlite: SqliteSettings, pool: PoolSettings) -> Result<Store, OpenError> {
        let backend = if is_postgres(url) {
            Backend::Postgres(PgStore::open(url, pool).await?)
        } else {
            Backend::Sqlite(SqliteStore::open(url, sqlite).await?)
        };
        Ok(Store { backend, space: Arc::default() })
    }

    /// The store, rating rated games with rating periods of length `period`
    /// rather than [`RATING_PERIOD`].
    #[must_use]
    pub fn with_rating_period(mut self, period: SignedDuration) -> Store {
        match &mut self.backend {
            Backend::Sqlite(store) => store.rating_period = period,
            Backend::Postgres(store) => store.rating_period = period,
        }
        self
    }

    /// How long a rating period lasts.
    pub fn rating_period(&self) -> SignedDuration {
        match &self.backend {
            Backend::Sqlite(store) => store.rating_period,
            Backend::Postgres(store) => store.rating_period,
        }
    }

    /// Closes every connection, after the work under way finishes.
    pub async fn close(&self) {
        match &self.backend {
            Backend::Sqlite(store) => store.close().await,
            Backend::Postgres(store) => Box::pin(store.close()).await,
        }
    }

    /// Tells `hear` of the changes other instances write, for as long as the store
    /// is open. A SQLite file has one instance: there is nothing to hear.
    pub async fn listen(&self, hear: impl Fn(Notice)) {
        match &self.backend {
            Backend::Sqlite(_) => {}
            Backend::Postgres(store) => Box::pin(store.listen(hear)).await,
        }
    }

    /// Answers whether the database answers.
    ///
    /// # Errors
    /// When it does not.
    pub async fn ping(&self) -> Result<(), StoreError> {
        counted(match &self.backend {
            Backend::Sqlite(store) => store.ping().await,
            Backend::Postgres(store) => Box::pin(store.ping()).await,
        })
    }

    /// The database's clock now, for an instance to measure its own against:
    /// PostgreSQL's, which every instance shares; none on SQLite, where the one
    /// instance's clock is the only one.
    ///
    /// # Errors
    /// When the database fails.
    pub async fn database_time(&self) -> Result<Option<Timestamp>, StoreError> {
        match &self.backend {
            Backend::Sqlite(_) => Ok(None),
            Backend::Postgres(store) => {
                let micros = counted(Box::pin(store.database_time_us()).await)?;
                Ok(Timestamp::from_microsecond(micros).ok())
            }
        }
    }

    /// Creates `game` as it is (but for its id, which the database gives, and is
    /// answered), its seats, log and summary, and `player_events` about it; with
    /// `rematch`, writes the rematch entry into the game it follows, all in one
    /// transaction.
    ///
    /// # Errors
    /// [`StoreError::Conflict`] when that game's log already holds the rematch's
    /// sequence number; when the database fails.
    pub async fn create_game(
        &self,
        game: StoredGame,
        rematch: Option<RematchOf>,
        player_events: Vec<(PlayerId, PlayerEventKind)>,
    ) -> Result<GameId, StoreError> {
        self.wrote(async {
            match &self.backend {
                Backend::Sqlite(store) => store.create_game(game, rematch, player_events).await,
                Backend::Postgres(store) => Box::pin(store.create_game(game, rematch, player_events)).await,
            }
        })
        .await
    }

    /// The game with `id`, its whole log and its seats' token hashes.
    ///
    /// # Errors
    /// [`StoreError::NotFound`]; when the database fails, or holds a row the code
    /// cannot read (corruption).
    pub async fn load_game(&self, id: GameId) -> Result<StoredGame, StoreError> {
        counted(match &self.backend {
            Backend::Sqlite(store) => store.load_game(id).await,
            Backend::Postgres(store) => Box::pin(store.load_game(id)).await,
        })
    }

    /// Carries out `write` on game `id`, decided on a copy read earlier, in one
    /// transaction.
    ///
    /// # Errors
    /// [`StoreError::Conflict`] with the current version when another write
    /// already took the sequence number of the write's first entry, or the seat;
    /// any database failure.
    pub async fn write(&self, id: GameId, write: Write) -> Result<(), StoreError> {
        self.wrote(async {
            match &self.backend {
                Backend::Sqlite(store) => store.write(id, write).await,
                Backend::Postgres(store) => Box::pin(store.write(id, write)).await,
            }
        })
        .await
    }

    /// Reads game `id`, lets `decide` say what to write and what to answer, and
    /// writes it, with no other write to that game in between. `decide` runs
    /// where the database's work runs: it must not take long. It may run more
    /// than once: on PostgreSQL, a decision on a copy of the game that turns out
    /// to be out of date (another write landed first, on any instance) is made
    /// again on the game as it is, and only the last one's write lands. Its
    /// error type is the caller's, which tells the store's own errors in its terms.
    ///
    /// # Errors
    /// What `decide` returns; [`StoreError::NotFound`]; [`StoreError::Conflict`]
    /// when other writes kept landing first; any database failure.
    pub async fn update<T: Send + 'static, E: From<StoreError> + Send + 'static>(
        &self,
        id: GameId,
        mut decide: impl FnMut(StoredGame) -> Result<(Option<Write>, T), E> + Send + 'static,
    ) -> Result<T, E> {
        // The store's own errors are told apart from the decision's, and a
        // decision to write nothing is no sign of room.
        let started = Instant::now();
        let decide = move |game| {
            let (write, answer) = decide(game).map_err(Failed::Decided)?;
            let wrote = write.is_some();
            Ok((write, (answer, wrote)))
        };
        let updated = match &self.backend {
            Backend::Sqlite(store) => store.update(id, decide).await,
            Backend::Postgres(store) => Box::pin(store.update(id, decide)).await,
        };
        match updated {
            Ok((answer, wrote)) => {
                if wrote {
                    STORE_WRITES.record(started.elapsed());
                    self.space.written();
                }
                Ok(answer)
            }
            Err(Failed::Decided(refused)) => Err(refused),
            Err(Failed::Store(failure)) => {
                count(&failure);
                self.space.failed(&failure);
                Err(E::from(failure))
            }
        }
    }

    /// Carries out `write`, timed, its failure counted, and what it says of the
    /// room left noted.
    async fn wrote<T>(&self, write: impl Future<Output = Result<T, StoreError>>) -> Result<T, StoreError> {
        let started = Instant::now();
        let written = counted(write.await);
        STORE_WRITES.record(started.elapsed());
        self.space.note(written)
    }

    /// Whether the database has no room to write: from the first write that
    /// failed for lack of room until a write succeeds again.
    pub fn is_full(&self) -> bool {
        self.space.is_full()
    }

    /// The games of `page`, newest first.
    ///
    /// # Errors
    /// When the database fails.
    pub async fn list_games(&self, page: Page) -> Result<Vec<ListedGame>, StoreError> {
        counted(match &self.backend {
            Backend::Sqlite(store) => store.list_games(page).await,
            Backend::Postgres(store) => Box::pin(store.list_games(page)).await,
        })
    }

    /// At most `most` of the games ongoing past their `deadline` at `now`, the
    /// earliest deadline first: the clocks the server's timer must write down.
    ///
    /// # Errors
    /// When the database fails.
    pub async fn timed_out_games(&self, now: Timestamp, most: u32) -> Result<Vec<GameId>, StoreError> {
        // Both backends compare the times as the columns hold them.
        let now = stamp(now);
        counted(match &self.backend {
            Backend::Sqlite(store) => store.timed_out_games(now, most).await,
            Backend::Postgres(store) => Box::pin(store.timed_out_games(now, most)).await,
        })
    }

    /// At most `most` of the games still waiting for their second player that
    /// were created before `created_before`, the oldest first: the games the
    /// server's timer must abort.
    ///
    /// # Errors
    /// When the database fails.
    pub async fn abandoned_games(&self, created_before: Timestamp, most: u32) -> Result<Vec<GameId>, StoreError> {
        let created_before = stamp(created_before);
        counted(match &self.backend {
            Backend::Sqlite(store) => store.abandoned_games(created_before, most).await,
            Backend::Postgres(store) => Box::pin(store.abandoned_games(created_before, most)).await,
        })
    }

    /// Deletes at most `most` of the `ended` games that ended before `before`,
    /// the first to end first, with their logs and seats; never the original
    /// app's game, nor the newest game, whose id SQLite would give the next game
    /// again (PostgreSQL keeps it too, to answer alike). A later game that was
    /// their rematch forgets it was. Answers how many it deleted.
    ///
    /// A game's log can name its rematch, which is created after it ended, so
    /// ends no earlier and has a higher id: taken in the order they ended, and by
    /// id among those that ended at once, a game is never deleted before the game
    /// whose log names it.
    ///
    /// # Errors
    /// Database failures.
    pub async fn delete_games_ended_before(
        &self,
        ended: Ended,
        before: Timestamp,
        most: usize,
    ) -> Result<usize, StoreError> {
        let before = stamp(before);
        self.wrote(async {
            match &self.backend {
                Backend::Sqlite(store) => store.delete_games_ended_before(ended, before, most).await,
                Backend::Postgres(store) => Box::pin(store.delete_games_ended_before(ended, before, most)).await,
            }
        })
        .await
    }

    /// The ids of the games after `after`, in order, at most `most`: every game,
    /// private ones too.
    ///
    /// # Errors
    /// Database failures.
    pub async fn game_ids(&self, after: GameId, most: u32) -> Result<Vec<GameId>, StoreError> {
        counted(match &self.backend {
            Backend::Sqlite(store) => store.game_ids(after, most).await,
            Backend::Postgres(store) => Box::pin(store.game_ids(after, most)).await,
        })
    }

    /// Writes `game`, read from another database, as it is, with its id; with
    /// `rematch`, the entry of the game it is the rematch of (which the copy of
    /// that game leaves out: it names this one). Answers false, writing nothing,
    /// when a game has that id already.
    ///
    /// # Errors
    /// Database failures.
    pub async fn copy_game(&self, game: StoredGame, rematch: Option<RematchOf>) -> Result<bool, StoreError> {
        self.wrote(async {
            match &self.backend {
                Backend::Sqlite(store) => store.copy_game(game, rematch).await,
                Backend::Postgres(store) => Box::pin(store.copy_game(game, rematch)).await,
            }
        })
        .await
    }

    /// The game the original app's routes play, and the seat its player chose (`play_as`).
    ///
    /// # Errors
    /// Database failures.
    pub async fn original_app_game(&self) -> Result<Option<(GameId, Player)>, StoreError> {
        counted(match &self.backend {
            Backend::Sqlite(store) => store.original_app_game().await,
            Backend::Postgres(store) => Box::pin(store.original_app_game()).await,
        })
    }

    /// Points the original app's routes at game `id`.
    ///
    /// # Errors
    /// Database failures.
    pub async fn set_original_app_game(&self, id: GameId, play_as: Player) -> Result<(), StoreError> {
        self.wrote(async {
            match &self.backend {
                Backend::Sqlite(store) => store.set_original_app_game(id, play_as).await,
                Backend::Postgres(store) => Box::pin(store.set_original_app_game(id, play_as)).await,
            }
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::database_name;

    #[test]
    fn a_database_is_named_by_where_it_is_never_by_its_password() {
        for (url, name) in [
            ("postgres://qttt:hunter2@db:5433/games", "PostgreSQL database games at db:5433"),
            ("postgres://qttt@127.0.0.1:1/qttt?password=hunter2", "PostgreSQL database qttt at 127.0.0.1:1"),
            ("postgresql://qttt:hunter2@db?dbname=games&password=hunter2", "PostgreSQL database games at db:5432"),
            ("postgres://qttt:hun%2Fter2@db/qttt", "PostgreSQL database qttt at db:5432"),
            // A raw `/` in the password makes the URL unreadable: nothing of it is shown.
            ("postgres://qttt:hun/ter2@db/qttt", "PostgreSQL database (its URL cannot be read)"),
            ("postgres://qttt:p@ss:w@rd@db/qttt", "PostgreSQL database qttt at db:5432"),
            ("sqlite:/data/qttt.db", "SQLite file /data/qttt.db"),
        ] {
            assert_eq!(database_name(url), name, "{url}");
        }
    }
}
