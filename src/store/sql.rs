//! Each statement of the store's operations is written once, in PostgreSQL's
//! dialect, and SQLite's text is derived from it mechanically when the statement
//! is first used (see [`Sql::new`]).
//!
//! Why derived text and not a query builder: the statements are fixed, so their
//! text is built once per process; a builder (sea-query, measured in
//! docs/PERFORMANCE.md, "The store written once") builds it at each call, and
//! its statements read as Rust, not as the SQL a reader checks against a plan.
//! PostgreSQL's dialect is the one written because it says more (row locks,
//! lists of ids), so the derivation only drops and rewrites, never guesses.

use std::borrow::Cow;
use std::sync::OnceLock;

/// A statement, in both dialects.
#[derive(Debug)]
pub(super) struct Sql {
    postgres: Cow<'static, str>,
    /// Derived when first asked for: a store on PostgreSQL never asks.
    sqlite: OnceLock<String>,
    /// The names of the columns it answers, as the backend first named them,
    /// shared by the rows of every later run.
    columns: OnceLock<Box<[String]>>,
}

impl Sql {
    /// The statement `postgres`, written in PostgreSQL's dialect with the
    /// subset of it that SQLite's text is derived from:
    /// - parameters `$1`, `$2` ... (SQLite: `?1`, `?2` ...);
    /// - casts `::TYPE` (dropped: SQLite's values carry their own types);
    /// - `IS NOT DISTINCT FROM` (SQLite: `IS`);
    /// - `= ANY($n)`, a list of ids (SQLite: `IN (SELECT value FROM
    ///   json_each(?n))`, the list bound as a JSON array);
    /// - `greatest(` and `least(` (SQLite: `max(` and `min(`);
    /// - `OVERRIDING SYSTEM VALUE`, an insert of its own ids into a column of
    ///   ids the database gives (dropped: SQLite takes any);
    /// - a lock at the end, `FOR UPDATE ...` or `FOR NO KEY UPDATE ...`
    ///   (dropped: on SQLite one writer writes at a time);
    /// - a comment `/* SQLite: ... */`, which PostgreSQL passes over, is
    ///   SQLite's alone (such as an index to read along: `INDEXED BY`).
    pub(super) const fn new(postgres: &'static str) -> Sql {
        Sql { postgres: Cow::Borrowed(postgres), sqlite: OnceLock::new(), columns: OnceLock::new() }
    }

    /// The statement `postgres`, built at run time, as [`Sql::new`] takes it.
    pub(super) fn built(postgres: String) -> Sql {
        Sql { postgres: Cow::Owned(postgres), sqlite: OnceLock::new(), columns: OnceLock::new() }
    }

    /// An insert of one row whose id the database gives: PostgreSQL answers it
    /// (`RETURNING id`), SQLite keeps it for `last_insert_rowid()`, which costs
    /// it no temporary table as `RETURNING` does.
    pub(super) fn insert(postgres: &str) -> Sql {
        let postgres_text = Cow::Owned(format!("{postgres} RETURNING id"));
        Sql { postgres: postgres_text, sqlite: OnceLock::from(sqlite_of(postgres)), columns: OnceLock::new() }
    }

    /// The text for PostgreSQL.
    pub(super) fn postgres(&self) -> &str {
        &self.postgres
    }

    /// The names of the columns it answers, `named` when first asked for.
    pub(super) fn columns(&self, named: impl FnOnce() -> Vec<String>) -> &[String] {
        self.columns.get_or_init(|| named().into())
    }

    /// The text for SQLite.
    pub(super) fn sqlite(&self) -> &str {
        self.sqlite.get_or_init(|| sqlite_of(&self.postgres))
    }
}

/// SQLite's text of `postgres`: see [`Sql::new`].
fn sqlite_of(postgres: &str) -> String {
    let text = match [" FOR UPDATE", " FOR NO KEY UPDATE"].iter().filter_map(|lock| postgres.find(lock)).min() {
        Some(lock) => &postgres[..lock],
        None => postgres,
    };
    let text = text.replace("/* SQLite: ", "").replace(" */", "").replace("OVERRIDING SYSTEM VALUE ", "");
    let text = text.replace(" IS NOT DISTINCT FROM ", " IS ").replace("greatest(", "max(").replace("least(", "min(");
    let mut sqlite = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(at) = rest.find(['$', ':', '=']) {
        sqlite.push_str(&rest[..at]);
        rest = &rest[at..];
        if let Some(after) = rest.strip_prefix("= ANY($") {
            let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            sqlite.push_str(&format!("IN (SELECT value FROM json_each(?{}))", &after[..digits]));
            rest = after[digits..].strip_prefix(')').expect("= ANY($n) closes its parenthesis");
        } else if let Some(after) = rest.strip_prefix('$') {
            sqlite.push('?');
            rest = after;
        } else if let Some(after) = rest.strip_prefix("::") {
            rest = after.trim_start_matches(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == '[' || c == ']');
        } else {
            sqlite.push_str(&rest[..1]);
            rest = &rest[1..];
        }
    }
    sqlite.push_str(rest);
    sqlite
}

#[cfg(test)]
mod tests {
    use super::Sql;

    #[test]
    fn sqlites_text_is_derived_from_postgresqls_by_each_rule() {
        for (postgres, sqlite) in [
            ("SELECT id FROM players WHERE id = $1", "SELECT id FROM players WHERE id = ?1"),
            ("UPDATE seeks SET status = $12 WHERE id = $2", "UPDATE seeks SET status = ?12 WHERE id = ?2"),
            ("SELECT $1::TEXT IS NULL, $2::BIGINT[]", "SELECT ?1 IS NULL, ?2"),
            (
                "SELECT 1 FROM seeks WHERE clock IS NOT DISTINCT FROM $3 AND x = $1",
                "SELECT 1 FROM seeks WHERE clock IS ?3 AND x = ?1",
            ),
            (
                "DELETE FROM seats WHERE game_id = ANY($1) AND x = $2",
                "DELETE FROM seats WHERE game_id IN (SELECT value FROM json_each(?1)) AND x = ?2",
            ),
            ("SELECT greatest(1, $1), least(2, $2)", "SELECT max(1, ?1), min(2, ?2)"),
            ("INSERT INTO games (id) OVERRIDING SYSTEM VALUE VALUES ($1)", "INSERT INTO games (id) VALUES (?1)"),
            (
                "SELECT id FROM seeks WHERE a = $1 LIMIT 1 FOR UPDATE OF seeks",
                "SELECT id FROM seeks WHERE a = ?1 LIMIT 1",
            ),
            (
                "SELECT id FROM players WHERE id = ANY($1) FOR NO KEY UPDATE",
                "SELECT id FROM players WHERE id IN (SELECT value FROM json_each(?1))",
            ),
            ("SELECT a >= 1 AND b <= 2 AND c <> 3", "SELECT a >= 1 AND b <= 2 AND c <> 3"),
            (
                "SELECT id FROM games /* SQLite: INDEXED BY games_by_end */ WHERE a",
                "SELECT id FROM games INDEXED BY games_by_end WHERE a",
            ),
        ] {
            let sql = Sql::new(postgres);
            assert_eq!(sql.sqlite(), sqlite, "{postgres}");
            assert_eq!(sql.postgres(), postgres);
        }
    }

    #[test]
    fn an_insert_answers_its_id_on_postgresql_alone() {
        let sql = Sql::insert("INSERT INTO seeks (player_id) VALUES ($1)");
        assert_eq!(sql.postgres(), "INSERT INTO seeks (player_id) VALUES ($1) RETURNING id");
        assert_eq!(sql.sqlite(), "INSERT INTO seeks (player_id) VALUES (?1)");
    }
}
