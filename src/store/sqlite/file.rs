//! The database file as a whole: the checks before the server opens it, and its
//! backup while a server writes to it.

use std::path::Path;

use rusqlite::{Connection, OpenFlags};

use super::connect;
use crate::store::Durability;

/// Refuses, before anything writes to it, a file that is not a SQLite database,
/// fails SQLite's quick check, or holds another program's tables: migrating such
/// a file would add qttt's tables to it, or build on damage. A missing or empty
/// file is a new database.
///
/// # Errors
/// One line saying what is wrong with the file.
pub(super) fn check(path: &Path) -> Result<(), String> {
    if !path.exists() {
        return Ok(());
    }
    check_database(&open(path).map_err(unreadable)?)
}

/// [`check`] on the database `connection` has open.
fn check_database(connection: &Connection) -> Result<(), String> {
    let first_finding: String = connection.query_row("PRAGMA quick_check", [], |row| row.get(0)).map_err(unreadable)?;
    if first_finding != "ok" {
        return Err(format!("it fails SQLite's quick check ({}): restore it from a backup", one_line(&first_finding)));
    }
    let tables = tables(connection).map_err(unreadable)?;
    if !tables.is_empty() && !tables.iter().any(|table| table == "_sqlx_migrations") {
        return Err(format!(
            "it is not a qttt database: it holds tables ({}) but no record of qttt's migrations",
            tables.join(", ")
        ));
    }
    Ok(())
}

/// A read-only connection to the file at `path`, set up as the store's are (its
/// busy timeout covers a server writing to the file).
fn open(path: &Path) -> rusqlite::Result<Connection> {
    connect(path, Durability::Normal, OpenFlags::SQLITE_OPEN_READ_ONLY)
}

/// Why a file cannot be read, in one line.
fn unreadable(error: rusqlite::Error) -> String {
    match error.sqlite_error_code() {
        Some(rusqlite::ErrorCode::NotADatabase) => "it is not a SQLite database".into(),
        _ => format!("it cannot be read: {error}"),
    }
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
/// One line: the database is not one to back up, `to` exists, or the copy
/// failed or fails its check.
pub(super) fn back_up(path: &Path, to: &Path) -> Result<u64, String> {
    if !path.exists() {
        return Err(format!("there is no SQLite file {}", path.display()));
    }
    let source = open(path).map_err(unreadable).and_then(|source| {
        check_database(&source)?;
        Ok(source)
    });
    let source = source.map_err(|problem| format!("{} cannot be backed up: {problem}", path.display()))?;
    if to.exists() {
        return Err(format!("{} exists already: a backup goes into a new file", to.display()));
    }
    let target = to.to_str().ok_or_else(|| format!("{} is not a path SQLite can take", to.display()))?;
    source.execute("VACUUM INTO ?1", [target]).map_err(|error| format!("the backup failed: {error}"))?;
    let copy = open(to).map_err(|error| format!("cannot open the backup: {error}"))?;
    let findings: Vec<String> = copy
        .prepare("PRAGMA integrity_check")
        .and_then(|mut check| check.query_map([], |row| row.get(0))?.collect())
        .map_err(|error| format!("the backup cannot be checked: {error}"))?;
    if findings != ["ok"] {
        return Err(format!("the backup fails SQLite's integrity check: {}", one_line(&findings.join("; "))));
    }
    std::fs::metadata(to).map(|file| file.len()).map_err(|error| format!("cannot read the backup's size: {error}"))
}
