//! The only module with SQL, on SQLite (embedded, the default) or PostgreSQL
//! (shared by several instances of the server), which keep the same tables and
//! answer every operation alike. The store offers whole operations, not
//! statements: above all [`Store::update`], which reads a game, lets the caller
//! decide, and writes the decision, as one unit of the database's work.

/// Runs `$work`, an operation over `$tx` (a [`tx::Tx`]), on the store's backend
/// as `$kind` says (a [`tx::Kind`]). SQLite runs it on one of its threads, so
/// it owns what it uses; PostgreSQL may run it twice, so it borrows, and its
/// future is boxed, as [`Store`]'s methods explain.
macro_rules! run {
    ($store:expr, $kind:ident, |$tx:ident| $work:expr) => {
        match &$store.backend {
            $crate::store::Backend::Sqlite(db) => {
                db.run($crate::store::tx::Kind::$kind, async move |$tx| $work.await).await
            }
            $crate::store::Backend::Postgres(db) => {
                Box::pin(db.run($crate::store::tx::Kind::$kind, async |$tx| $work.await)).await
            }
        }
    };
}

mod arenas;
mod challenges;
mod error;
mod games;
mod listing;
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
mod write;

pub use error::{FileProblem, OpenError, StoreError};
pub use games::Ended;
use postgres::PgStore;
pub use postgres::PoolSettings;
use space::Space;
use sqlite::SqliteStore;
pub use sqlite::{Durability, SqliteConnection, SqliteSettings};
use std::sync::Arc;
use std::time::Instant;
pub use tables::{Key, Table};
pub use tx::Notice;

use jiff::{SignedDuration, Timestamp};
use sql::Sql;
use tx::{Arg, Failed, Tx};

use crate::metrics::{DATABASE_ERRORS, STORE_WRITES};

/// The games database, on the backend `DATABASE_URL` names.
///
/// Every operation that answers a `Result` fails with a [`StoreError`] when the
/// database fails; a method's `# Errors` names only its other failures.
#[derive(Debug, Clone)]
pub struct Store {
    backend: Backend,
    /// Shared by the clones every worker holds: the disk is.
    space: Arc<Space>,
    /// How long a rating period lasts, by which a rating's deviation grows.
    rating_period: SignedDuration,
}

#[derive(Debug, Clone)]
enum Backend {
    /// A SQLite file, for one instance.
    Sqlite(SqliteStore),
    /// A PostgreSQL database, for one instance or several.
    Postgres(PgStore),
}

static PING: Sql = Sql::new("SELECT 1");
/// The database's clock now, in microseconds since the epoch: the time as the
/// statement runs, not as its transaction began (PostgreSQL's alone).
static DATABASE_TIME: Sql = Sql::new("SELECT (extract(epoch FROM clock_timestamp()) * 1000000)::BIGINT AS micros");

/// How long a rating period lasts unless `RATING_PERIOD_DAYS` says otherwise.
pub(crate) const RATING_PERIOD: SignedDuration = SignedDuration::from_hours(7 * 24);

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
    if !is_postgres(url) {
        return match sqlite::file_of(url) {
            Some(file) => format!("SQLite file {}", file.display()),
            None => "SQLite file (its URL cannot be read)".into(),
        };
    }
    match url.parse::<sqlx::postgres::PgConnectOptions>() {
        Ok(options) => format!(
            "PostgreSQL database {} at {}:{}",
            options.get_database().unwrap_or(options.get_username()),
            options.get_host(),
            options.get_port()
        ),
        Err(_) => "PostgreSQL database (its URL cannot be read)".into(),
    }
}

// Each PostgreSQL call's future is boxed: sqlx's futures are kilobytes large, and
// unboxed they made every request's future as large on SQLite too, which actix
// moves into the heap for every request.
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
        Ok(Store { backend, space: Arc::default(), rating_period: RATING_PERIOD })
    }

    /// The store, rating rated games with rating periods of length `period`
    /// rather than [`RATING_PERIOD`].
    #[must_use]
    pub(crate) fn with_rating_period(self, rating_period: SignedDuration) -> Store {
        Store { rating_period, ..self }
    }

    /// How long a rating period lasts.
    pub(crate) fn rating_period(&self) -> SignedDuration {
        self.rating_period
    }

    /// Closes every connection, after the work under way finishes.
    pub async fn close(&self) {
        match &self.backend {
            Backend::Sqlite(db) => db.close().await,
            Backend::Postgres(db) => db.close().await,
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
    pub(crate) async fn ping(&self) -> Result<(), StoreError> {
        counted(run!(self, Read, |tx| tx.rows(&PING, &[], |_| Ok(())))).map(drop)
    }

    /// The database's clock now, for an instance to measure its own against:
    /// PostgreSQL's, which every instance shares; none on SQLite, where the one
    /// instance's clock is the only one.
    pub(crate) async fn database_time(&self) -> Result<Option<Timestamp>, StoreError> {
        if let Backend::Sqlite(_) = &self.backend {
            return Ok(None);
        }
        let micros: Option<i64> = counted(run!(self, Read, |tx| tx.row(&DATABASE_TIME, &[], |row| row.get("micros"))))?;
        Ok(micros.and_then(|micros| Timestamp::from_microsecond(micros).ok()))
    }

    /// Carries out `write`, timed, its failure counted, and what it says of the
    /// room left noted.
    async fn wrote<T>(&self, write: impl Future<Output = Result<T, StoreError>>) -> Result<T, StoreError> {
        let started = Instant::now();
        let written = counted(write.await);
        STORE_WRITES.record(started.elapsed());
        self.space.note(written)
    }

    /// `done`, the outcome of an operation begun at `started` that decided as
    /// it went, and whether it wrote: the decision's refusal as it is, the
    /// store's own failure counted and noted.
    fn decided<T, E: From<StoreError>>(&self, started: Instant, done: Result<(T, bool), Failed<E>>) -> Result<T, E> {
        match done {
            Ok((done, wrote)) => {
                if wrote {
                    STORE_WRITES.record(started.elapsed());
                    self.space.written();
                }
                Ok(done)
            }
            Err(Failed::Decided(refused)) => Err(refused),
            Err(Failed::Store(failure)) => {
                count(&failure);
                self.space.failed(&failure);
                Err(E::from(failure))
            }
        }
    }

    /// Runs `statement`, a write of one statement, with `args`; answers how many
    /// rows it changed.
    async fn write_one(&self, statement: &'static Sql, args: Vec<Arg<'static>>) -> Result<u64, StoreError> {
        self.wrote(async { run!(self, Alone, |tx| tx.execute(statement, &args)) }).await
    }

    /// Whether the database has no room to write: from the first write that
    /// failed for lack of room until a write succeeds again.
    pub(crate) fn is_full(&self) -> bool {
        self.space.is_full()
    }
}

#[cfg(test)]
mod tests {
    use super::{PoolSettings, SqliteSettings, Store, database_name};
    use crate::record::Username;

    /// Writes a player created at a time finer than a millisecond into
    /// `store`, and answers when the store says they were created.
    async fn created_at_as_read_back(store: &Store) -> jiff::Timestamp {
        let at: jiff::Timestamp = "2026-12-05T10:00:00.123456789Z".parse().unwrap();
        let name = Username::parse("timely").unwrap();
        store.create_player(&name, vec![7; 32], at).await.unwrap();
        store.player_by_name(&name).await.unwrap().unwrap().created_at
    }

    #[tokio::test]
    async fn a_time_reads_back_as_written_to_the_millisecond_on_sqlite() {
        let folder = tempfile::tempdir().unwrap();
        let url = format!("sqlite:{}", folder.path().join("qttt.db").display());
        let store = Store::connect(&url, SqliteSettings::default(), PoolSettings::default()).await.unwrap();
        assert_eq!(created_at_as_read_back(&store).await, "2026-12-05T10:00:00.123Z".parse().unwrap());
        store.close().await;
    }

    #[tokio::test]
    #[ignore = "needs PostgreSQL: QTTT_TEST_POSTGRES (see .ci/run)"]
    async fn a_time_reads_back_as_written_to_the_millisecond_on_postgresql() {
        let (url, mut maintenance, name) = super::postgres::tests::fresh_database("times").await;
        let store = Store::connect(&url, SqliteSettings::default(), PoolSettings::default()).await.unwrap();
        assert_eq!(created_at_as_read_back(&store).await, "2026-12-05T10:00:00.123Z".parse().unwrap());
        store.close().await;
        let drop = format!("DROP DATABASE {name}");
        sqlx::raw_sql(sqlx::AssertSqlSafe(drop)).execute(&mut maintenance).await.unwrap();
    }

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
