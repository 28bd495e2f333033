//! A connection to a SQLite file as the store opens each of its own: the
//! writer's, the readers', the checkpointer's; and SQLite's errors in the
//! store's terms.

use std::path::Path;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags, ffi};

use crate::store::StoreError;

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

/// How long a statement waits for another process's lock on the file.
pub(super) const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// How many prepared statements a connection keeps. The store has about sixty,
/// a batch's own three among them; rusqlite keeps sixteen, and a statement it
/// lets go is parsed again at its next use.
const STATEMENTS_KEPT: usize = 128;

/// Opens one connection to the file at `path` with the store's settings.
pub(super) fn connect(path: &Path, durability: Durability, flags: OpenFlags) -> rusqlite::Result<Connection> {
    // Each connection is used by its own thread only, so SQLite need not lock it
    // for every call (a read locked and unlocked it once per column of each row).
    let connection = Connection::open_with_flags(path, flags | OpenFlags::SQLITE_OPEN_NO_MUTEX)?;
    connection.busy_timeout(BUSY_TIMEOUT)?;
    connection.set_prepared_statement_cache_capacity(STATEMENTS_KEPT);
    connection.pragma_update(None, "foreign_keys", true)?;
    connection.pragma_update(
        None,
        "synchronous",
        match durability {
            Durability::Normal => "NORMAL",
            Durability::Full => "FULL",
        },
    )?;
    Ok(connection)
}

impl From<rusqlite::Error> for StoreError {
    fn from(error: rusqlite::Error) -> StoreError {
        StoreError::from(&error)
    }
}

impl From<&rusqlite::Error> for StoreError {
    fn from(error: &rusqlite::Error) -> StoreError {
        match error.sqlite_error_code() {
            Some(ffi::ErrorCode::DatabaseBusy | ffi::ErrorCode::DatabaseLocked) => {
                StoreError::Unavailable(error.to_string())
            }
            Some(ffi::ErrorCode::DiskFull) => StoreError::Full(error.to_string()),
            _ => StoreError::Other(error.to_string()),
        }
    }
}

/// Whether `error` is a unique key's refusal of a row.
pub(super) fn is_unique_violation(error: &rusqlite::Error) -> bool {
    error.sqlite_error().is_some_and(|error| {
        [ffi::SQLITE_CONSTRAINT_PRIMARYKEY, ffi::SQLITE_CONSTRAINT_UNIQUE].contains(&error.extended_code)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_connection_waits_for_the_disk_as_configured() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("qttt.db");
        let synchronous = |durability| {
            [OpenFlags::default(), OpenFlags::SQLITE_OPEN_READ_ONLY].map(|flags| {
                let connection = connect(&path, durability, flags).unwrap();
                connection.query_row("PRAGMA synchronous", [], |row| row.get::<_, i64>(0)).unwrap()
            })
        };
        // SQLite's codes: 1 NORMAL, 2 FULL.
        assert_eq!(synchronous(Durability::Normal), [1, 1]);
        assert_eq!(synchronous(Durability::Full), [2, 2]);
    }
}
