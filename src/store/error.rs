//! What can go wrong in the store, in the store's own terms: the layer above
//! decides what each means to a client.

use crate::record::GameId;
use std::path::PathBuf;

/// A failed operation of the store.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    /// The database does not answer, is busy beyond its timeout, or is closed.
    #[error("the database does not answer: {0}")]
    Unavailable(String),
    /// Another write took the next sequence number or the seat first: the game is
    /// at `current_version` now.
    #[error("another write came first; the game is at version {current_version}")]
    Conflict {
        /// The version of the game after the write that won.
        current_version: i64,
    },
    /// The database has no room to write: its disk (or its quota) is full.
    #[error("the database's disk is full: {0}")]
    Full(String),
    /// No game has this id.
    #[error("there is no game {id}")]
    NotFound {
        /// The id asked for.
        id: GameId,
    },
    /// Another player has that name, in any case.
    #[error("another player has that name")]
    NameTaken,
    /// A stored value the code cannot read: the database is corrupt.
    #[error("corrupt database: {0}")]
    Corrupt(String),
    /// Any other failure of the database or of the store's own threads.
    #[error("database error: {0}")]
    Other(String),
}

/// Why a database cannot be opened, migrated or backed up. Each says it in one
/// line, with the cause it comes from as its source.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// Its URL is not one the database's driver reads.
    #[error("its URL cannot be read: {0}")]
    Url(#[source] sqlx::Error),
    /// The database refused the connection, or never answered in time.
    #[error("{0}")]
    Connect(#[source] sqlx::Error),
    /// A newer qttt migrated it.
    #[error(
        "its schema is newer than this qttt's: it holds migration {0}, which this qttt does not know; run the qttt \
         that migrated it, or a newer one"
    )]
    Newer(i64),
    /// A migration failed.
    #[error("{0}")]
    Migration(#[source] sqlx::migrate::MigrateError),
    /// The SQLite file is not one to open (see [`FileProblem`]).
    #[error("{0}")]
    File(#[from] FileProblem),
    /// SQLite could not open the file for the store's connections.
    #[error("{0}")]
    Sqlite(#[source] rusqlite::Error),
    /// The thread that checked or copied the file failed.
    #[error("its thread failed: {0}")]
    Thread(#[source] tokio::task::JoinError),
    /// A backup of a PostgreSQL database, which its own tools make.
    #[error("a PostgreSQL database is backed up with pg_dump (see docs/OPERATIONS.md, \"Backups\")")]
    PostgresBackup,
    /// There is no file to back up.
    #[error("there is no SQLite file {}", .0.display())]
    NoFile(PathBuf),
    /// The file to back up is not one qttt may read.
    #[error("{} cannot be backed up: {problem}", .path.display())]
    NotToBackUp {
        /// The database's file.
        path: PathBuf,
        /// What is wrong with it.
        #[source]
        problem: FileProblem,
    },
    /// A backup goes into a new file.
    #[error("{} exists already: a backup goes into a new file", .0.display())]
    BackupExists(PathBuf),
    /// SQLite takes a path that is text.
    #[error("{} is not a path SQLite can take", .0.display())]
    NotUnicode(PathBuf),
    /// A step of the backup failed: the copy, opening it, or reading its check.
    #[error("{step}: {error}")]
    Backup {
        /// The step, as the message says it.
        step: &'static str,
        /// SQLite's failure.
        #[source]
        error: rusqlite::Error,
    },
    /// The copy fails SQLite's integrity check.
    #[error("the backup fails SQLite's integrity check: {0}")]
    BackupDamaged(String),
    /// The copy's size cannot be read.
    #[error("cannot read the backup's size: {0}")]
    BackupSize(#[source] std::io::Error),
}

/// What is wrong with a SQLite file that qttt refuses to open: migrating it would
/// add qttt's tables to another program's database, or build on damage.
#[derive(Debug, thiserror::Error)]
pub enum FileProblem {
    /// It is not SQLite's.
    #[error("it is not a SQLite database")]
    NotSqlite,
    /// SQLite cannot read it.
    #[error("it cannot be read: {0}")]
    Unreadable(#[source] rusqlite::Error),
    /// It fails SQLite's quick check; its first finding, in one line.
    #[error("it fails SQLite's quick check ({0}): restore it from a backup")]
    Damaged(String),
    /// It holds these tables, and no record of qttt's migrations.
    #[error("it is not a qttt database: it holds tables ({}) but no record of qttt's migrations", .0.join(", "))]
    Foreign(Vec<String>),
}

impl From<rusqlite::Error> for FileProblem {
    fn from(error: rusqlite::Error) -> FileProblem {
        match error.sqlite_error_code() {
            Some(rusqlite::ErrorCode::NotADatabase) => FileProblem::NotSqlite,
            _ => FileProblem::Unreadable(error),
        }
    }
}

impl From<sqlx::migrate::MigrateError> for OpenError {
    /// A database that a newer qttt migrated says so, rather than sqlx's
    /// "previously applied but missing".
    fn from(error: sqlx::migrate::MigrateError) -> OpenError {
        match error {
            sqlx::migrate::MigrateError::VersionMissing(version) => OpenError::Newer(version),
            other => OpenError::Migration(other),
        }
    }
}
