//! The tables `qttt copy` copies row for row, beside the games (which it copies
//! game by game): a page of SQLite's rows goes as JSON, which PostgreSQL reads
//! back into rows of the same table by column name.

use std::sync::LazyLock;

use super::sql::Sql;
use super::tx::{Kind, Tx};
use super::{Backend, Store, StoreError, counted};

/// A table copied row for row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Table {
    /// The players: before the games, whose seats name them.
    Players,
    /// The arenas: before the games, which name them.
    Arenas,
    /// Who joined each arena.
    ArenaPlayers,
    /// The challenges: after the games, which they name.
    Challenges,
    /// The seeks: after the games.
    Seeks,
    /// The players' events: after the games and the challenges they name.
    PlayerEvents,
    /// The players' ratings.
    Ratings,
    /// What each rated game did to its players' ratings: after the games.
    RatingChanges,
    /// The puzzles.
    Puzzles,
    /// The attempts at them: after the puzzles and the players.
    PuzzleAttempts,
    /// The players' puzzle ratings.
    PuzzleRatings,
}

/// Where a page of a table's rows ends: its key, its second column 0 when it has one.
pub type Key = (i64, i64);

impl Table {
    /// Every table, in the order they are copied.
    pub const ALL: [Table; 11] = [
        Table::Players,
        Table::Arenas,
        Table::ArenaPlayers,
        Table::Challenges,
        Table::Seeks,
        Table::PlayerEvents,
        Table::Ratings,
        Table::RatingChanges,
        Table::Puzzles,
        Table::PuzzleAttempts,
        Table::PuzzleRatings,
    ];
    /// The tables to copy before the games.
    pub(crate) const BEFORE_GAMES: &[Table] = Table::ALL.split_at(3).0;
    /// The tables to copy after them.
    pub(crate) const AFTER_GAMES: &[Table] = Table::ALL.split_at(3).1;

    /// The table's name.
    pub fn name(self) -> &'static str {
        match self {
            Table::Players => "players",
            Table::Arenas => "arenas",
            Table::ArenaPlayers => "arena_players",
            Table::Challenges => "challenges",
            Table::Seeks => "seeks",
            Table::PlayerEvents => "player_events",
            Table::Ratings => "ratings",
            Table::RatingChanges => "rating_changes",
            Table::Puzzles => "puzzles",
            Table::PuzzleAttempts => "puzzle_attempts",
            Table::PuzzleRatings => "puzzle_ratings",
        }
    }

    /// Its key's columns, in order: an id, a player and a number, or SQLite's
    /// row id for a table keyed by text too.
    fn key(self) -> (&'static str, Option<&'static str>) {
        match self {
            Table::PlayerEvents => ("player_id", Some("seq")),
            Table::ArenaPlayers => ("arena_id", Some("player_id")),
            Table::Players
            | Table::Arenas
            | Table::Challenges
            | Table::Seeks
            | Table::Puzzles
            | Table::PuzzleAttempts => ("id", None),
            Table::Ratings | Table::RatingChanges | Table::PuzzleRatings => ("rowid", None),
        }
    }

    /// Whether the table's rows have ids of PostgreSQL's making, which a copy keeps.
    fn has_ids(self) -> bool {
        self.key() == ("id", None)
    }

    /// SQLite's page of rows after a key, its `columns` (each name and type)
    /// as SQLite describes the table, so that a column a migration adds is
    /// copied too: a JSON array of objects (binary columns in PostgreSQL's hex
    /// form), their count, and the last key.
    fn page(self, columns: &[(String, String)]) -> String {
        let value = |column: &str, kind: &str| match kind {
            "BLOB" => format!("'\\x' || lower(hex({column}))"),
            // SQLite's JSON writes a real to 15 digits; a rating goes to the
            // bit, as the 17 of its text (and printf writes null as 0).
            "REAL" => format!("iif({column} IS NULL, NULL, printf('%!.17g', {column}))"),
            _ => column.to_string(),
        };
        let object: Vec<String> =
            columns.iter().map(|(column, kind)| format!("'{column}', {}", value(column, kind))).collect();
        let (first, second) = self.key();
        let (after, last, order) = match second {
            None => (format!("{first} > ?1"), format!("max({first}), 0"), first.to_string()),
            Some(second) => (
                format!("({first} > ?1 OR ({first} = ?1 AND {second} > ?2))"),
                format!("max({first}), max({second}) FILTER (WHERE {first} = (SELECT max({first}) FROM page))"),
                format!("{first}, {second}"),
            ),
        };
        // `*` leaves SQLite's row id out.
        let every = if first == "rowid" { "rowid, *" } else { "*" };
        format!(
            "WITH page AS (SELECT {every} FROM {name} WHERE {after} ORDER BY {order} LIMIT ?3) \
             SELECT COALESCE(json_group_array(json_object({object})), '[]'), count(*), {last} FROM page",
            name = self.name(),
            object = object.join(", "),
        )
    }

    /// PostgreSQL's insert of a page of rows, each kept as it was (ids
    /// included), any already there left as they are.
    fn insert(self) -> &'static Sql {
        static INSERTS: LazyLock<Vec<Sql>> = LazyLock::new(|| {
            Table::ALL
                .iter()
                .map(|table| {
                    let overriding = if table.has_ids() { "OVERRIDING SYSTEM VALUE " } else { "" };
                    // The two backends' tables have the same columns, in the same order.
                    Sql::built(format!(
                        "INSERT INTO {name} {overriding}SELECT * FROM json_populate_recordset(NULL::{name}, $1::json) \
                         ON CONFLICT DO NOTHING",
                        name = table.name(),
                    ))
                })
                .collect()
        });
        &INSERTS[self as usize]
    }

    /// PostgreSQL's setting of the table's id sequence after its highest id, so
    /// that new rows go on from there; none for a table keyed otherwise.
    fn continue_ids(self) -> Option<&'static Sql> {
        static CONTINUE: LazyLock<Vec<Sql>> =
            LazyLock::new(|| Table::ALL.iter().map(|table| continue_ids(table.name())).collect());
        self.has_ids().then(|| &CONTINUE[self as usize])
    }

    /// How many rows the table holds.
    fn count(self) -> &'static Sql {
        static COUNTS: LazyLock<Vec<Sql>> = LazyLock::new(|| {
            Table::ALL
                .iter()
                .map(|table| Sql::built(format!("SELECT count(*) AS count FROM {}", table.name())))
                .collect()
        });
        &COUNTS[self as usize]
    }
}

/// PostgreSQL's setting of table `name`'s id sequence after its highest id.
pub(super) fn continue_ids(name: &str) -> Sql {
    Sql::built(format!(
        "SELECT setval(pg_get_serial_sequence('{name}', 'id'), max(id)) FROM {name} HAVING count(*) > 0"
    ))
}

impl Store {
    /// At most `most` rows of `table` after `after`, in key order, as JSON;
    /// their count and the last one's key. From SQLite only.
    ///
    /// # Errors
    /// A PostgreSQL store.
    pub(crate) async fn rows_after(
        &self,
        table: Table,
        after: Key,
        most: u32,
    ) -> Result<(String, u64, Key), StoreError> {
        let Backend::Sqlite(store) = &self.backend else {
            return Err(StoreError::Other("rows are copied from SQLite only".into()));
        };
        counted(store.rows_after(table.name(), move |columns| table.page(columns), after, most).await)
    }

    /// Writes `rows` (as [`Store::rows_after`] gives them) into `table`, each
    /// as it was, and sets the table's ids to go on after the highest;
    /// answers how many were new. Into PostgreSQL only.
    ///
    /// # Errors
    /// A SQLite store.
    pub(crate) async fn put_rows(&self, table: Table, rows: String) -> Result<u64, StoreError> {
        let Backend::Postgres(store) = &self.backend else {
            return Err(StoreError::Other("rows are copied into PostgreSQL only".into()));
        };
        self.wrote(Box::pin(store.run(Kind::Write, async |tx| {
            let inserted = tx.execute(table.insert(), &[rows.as_str().into()]).await?;
            if let Some(continue_ids) = table.continue_ids() {
                tx.execute(continue_ids, &[]).await?;
            }
            Ok(inserted)
        })))
        .await
    }

    /// Deletes the bots' players that nothing names yet, from PostgreSQL: a new
    /// database's, which a copy replaces with its source's, ids and all.
    ///
    /// # Errors
    /// A SQLite store.
    pub(crate) async fn remove_unused_bots(&self) -> Result<u64, StoreError> {
        static REMOVE: Sql = Sql::new(
            "DELETE FROM players WHERE bot IS NOT NULL \
                 AND NOT EXISTS (SELECT 1 FROM seats WHERE seats.player_id = players.id) \
                 AND NOT EXISTS (SELECT 1 FROM ratings WHERE ratings.player_id = players.id) \
                 AND NOT EXISTS (SELECT 1 FROM player_events WHERE player_events.player_id = players.id)",
        );
        let Backend::Postgres(store) = &self.backend else {
            return Err(StoreError::Other("rows are copied into PostgreSQL only".into()));
        };
        self.wrote(Box::pin(store.run(Kind::Alone, async |tx| tx.execute(&REMOVE, &[]).await))).await
    }

    /// How many rows `table` holds.
    pub(crate) async fn count_rows(&self, table: Table) -> Result<u64, StoreError> {
        let count = counted(run!(self, Read, |tx| tx.row(table.count(), &[], |row| row.get("count"))))?;
        count.ok_or_else(|| StoreError::Other("a count without a row".into()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{PoolSettings, SqliteSettings};
    use serde_json::json;

    static ROWS: [Sql; 2] = [
        Sql::new(
            "INSERT INTO puzzles (variant, position, solution, theme, source, position_key, rating, deviation, \
             volatility) VALUES ('measurement', 'X12', 'O34', 'quiet', 'test', 7, 1512.3456789012346, 80.5, 0.06)",
        ),
        Sql::new("INSERT INTO puzzle_attempts (puzzle_id, line, rated, started_at) VALUES (1, 'X12', 0, 'now')"),
    ];

    /// The first page of `table`'s rows in `store`: the rows, their count and the last key.
    async fn first_page(store: &Store, table: Table) -> (serde_json::Value, u64, Key) {
        let (json, count, last) = store.rows_after(table, (0, 0), 10).await.unwrap();
        (serde_json::from_str(&json).unwrap(), count, last)
    }

    #[tokio::test]
    async fn a_page_of_rows_holds_every_column_a_null_as_null_and_a_real_to_the_bit() {
        let folder = tempfile::tempdir().unwrap();
        let url = format!("sqlite:{}", folder.path().join("qttt.db").display());
        let store = Store::connect(&url, SqliteSettings::default(), PoolSettings::default()).await.unwrap();
        for statement in &ROWS {
            run!(store, Write, |tx| tx.execute(statement, &[])).unwrap();
        }
        let (puzzles, count, last) = first_page(&store, Table::Puzzles).await;
        assert_eq!((count, last), (1, (1, 0)));
        assert_eq!((&puzzles[0]["rating"], &puzzles[0]["position_key"]), (&json!("1512.3456789012346"), &json!(7)));
        let (attempts, ..) = first_page(&store, Table::PuzzleAttempts).await;
        assert_eq!(attempts[0].as_object().unwrap().len(), 10, "every column of the table: {attempts}");
        assert_eq!((&attempts[0]["rating_before"], &attempts[0]["player_id"]), (&json!(null), &json!(null)));
        store.close().await;
    }
}
