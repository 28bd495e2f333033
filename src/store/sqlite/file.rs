//! The database file as a whole: the checks before the server opens it, and its
//! backup while a server writes to it.

use std::path::Path;

use rusqlite::{Connection, OpenFlags};

use super::connection::connect;
use crate::store::{Durability, FileProblem, OpenError};

/// The largest file that SQLite's quick check (which reads every page) reads at
/// every start: start-up must not grow with the games. A larger file is checked
/// only before a migration, whose own work grows with the file anyway.
const QUICK_CHECK_AT_EVERY_START: u64 = 32 * 1024 * 1024;

/// Refuses, before anything writes to it, a file that is not a SQLite database,
/// holds another program's tables, or fails SQLite's quick check (see
/// [`QUICK_CHECK_AT_EVERY_START`]; `latest_migration` says whether it is about
/// to be migrated). A missing or empty file is a new database.
///
/// # Errors
/// What is wrong with the file.
pub(super) fn check(path: &Path, latest_migration: i64) -> Result<(), FileProblem> {
    if !path.exists() {
        return Ok(());
    }
    let connection = open(path)?;
    let small = std::fs::metadata(path).is_ok_and(|file| file.len() <= QUICK_CHECK_AT_EVERY_START);
    if small {
        quick_check(&connection)?;
    }
    check_tables(&connection)?;
    if !small && migrated_to(&connection)? < latest_migration {
        quick_check(&connection)?;
    }
    Ok(())
}

/// The latest migration the database has had; 0 for a new one.
fn migrated_to(connection: &Connection) -> rusqlite::Result<i64> {
    if tables(connection)?.is_empty() {
        return Ok(0);
    }
    connection.query_row("SELECT COALESCE(max(version), 0) FROM _sqlx_migrations WHERE success", [], |row| row.get(0))
}

/// Refuses a database whose tables are another program's.
fn check_tables(connection: &Connection) -> Result<(), FileProblem> {
    let tables = tables(connection)?;
    if !tables.is_empty() && !tables.iter().any(|table| table == "_sqlx_migrations") {
        return Err(FileProblem::Foreign(tables));
    }
    Ok(())
}

/// Refuses a database that fails SQLite's quick check.
fn quick_check(connection: &Connection) -> Result<(), FileProblem> {
    let first_finding: String = connection.query_row("PRAGMA quick_check", [], |row| row.get(0))?;
    if first_finding != "ok" {
        return Err(FileProblem::Damaged(one_line(&first_finding)));
    }
    Ok(())
}

/// A read-only connection to the file at `path`, set up as the store's are (its
/// busy timeout covers a server writing to the file).
fn open(path: &Path) -> rusqlite::Result<Connection> {
    connect(path, Durability::Normal, OpenFlags::SQLITE_OPEN_READ_ONLY)
}

/// SQLite's findings, which span lines, as one.
fn one_line(findings: &str) -> String {
    findings.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn tables(connection: &Connection) -> rusqlite::Result<Vec<String>> {
    let mut names = connection.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")?;
    names.query_map([], |row| row.get(0))?.collect()
}

/// Writes a copy of the database at `path` into the new file `to`, as one
/// snapshot, while a server may go on writing (`VACUUM INTO` reads in one
/// transaction, which in WAL mode holds up no writer), then checks the copy
/// with SQLite's full integrity check. Answers the copy's size in bytes.
///
/// # Errors
/// The database is not one to back up, `to` exists, or the copy failed or fails
/// its check.
pub(super) fn back_up(path: &Path, to: &Path) -> Result<u64, OpenError> {
    if !path.exists() {
        return Err(OpenError::NoFile(path.to_path_buf()));
    }
    let source = open(path).map_err(FileProblem::from).and_then(|source| {
        quick_check(&source)?;
        check_tables(&source)?;
        Ok(source)
    });
    let source = source.map_err(|problem| OpenError::NotToBackUp { path: path.to_path_buf(), problem })?;
    if to.exists() {
        return Err(OpenError::BackupExists(to.to_path_buf()));
    }
    let target = to.to_str().ok_or_else(|| OpenError::NotUnicode(to.to_path_buf()))?;
    let failed = |step| move |error| OpenError::Backup { step, error };
    source.execute("VACUUM INTO ?1", [target]).map_err(failed("the backup failed"))?;
    let copy = open(to).map_err(failed("cannot open the backup"))?;
    let findings: Vec<String> = copy
        .prepare("PRAGMA integrity_check")
        .and_then(|mut check| check.query_map([], |row| row.get(0))?.collect())
        .map_err(failed("the backup cannot be checked"))?;
    if findings != ["ok"] {
        return Err(OpenError::BackupDamaged(one_line(&findings.join("; "))));
    }
    std::fs::metadata(to).map(|file| file.len()).map_err(OpenError::BackupSize)
}
