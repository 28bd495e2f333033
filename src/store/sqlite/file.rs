//! The database file as a whole: the checks before the server opens it, and its
//! backup while a server writes to it.

use std::path::Path;

use rusqlite::{Connection, OpenFlags};

use super::connect;
use crate::store::{Durability, FileProblem, OpenError};

/// Refuses, before anything writes to it, a file that is not a SQLite database,
/// fails SQLite's quick check, or holds another program's tables: migrating such
/// a file would add qttt's tables to it, or build on damage. A missing or empty
/// file is a new database.
///
/// # Errors
/// What is wrong with the file.
pub(super) fn check(path: &Path) -> Result<(), FileProblem> {
    if !path.exists() {
        return Ok(());
    }
    check_database(&open(path)?)
}

/// [`check`] on the database `connection` has open.
fn check_database(connection: &Connection) -> Result<(), FileProblem> {
    let first_finding: String = connection.query_row("PRAGMA quick_check", [], |row| row.get(0))?;
    if first_finding != "ok" {
        return Err(FileProblem::Damaged(one_line(&first_finding)));
    }
    let tables = tables(connection)?;
    if !tables.is_empty() && !tables.iter().any(|table| table == "_sqlx_migrations") {
        return Err(FileProblem::Foreign(tables));
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
        check_database(&source)?;
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
