//! The tables `qttt copy` copies row for row, beside the games (which it copies
//! game by game, read back and replayed): the players (the bots among them),
//! their challenges, seeks and events, their ratings, and the puzzles with
//! their attempts and ratings. A page of SQLite's rows goes as JSON, which
//! PostgreSQL reads back into rows of the same table by column name.

use std::sync::LazyLock;

use super::sql::Sql;
use super::tx::Tx;
use super::{Backend, Store, StoreError, counted};

/// A table copied row for row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Table {
    /// The players: before the games, whose seats name them.
    Players,
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

/// The columns of real numbers among the tables'.
const REAL_COLUMNS: [&str; 9] = [
    "rating",
    "deviation",
    "volatility",
    "rating_before",
    "deviation_before",
    "volatility_before",
    "rating_after",
    "deviation_after",
    "volatility_after",
];

/// Where a page of a table's rows ends: its key, its second column 0 when it has one.
pub type Key = (i64, i64);

impl Table {
    /// Every table, in the order they are copied.
    pub const ALL: [Table; 9] = [
        Table::Players,
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
    pub const BEFORE_GAMES: &[Table] = Table::ALL.split_at(1).0;
    /// The tables to copy after them.
    pub const AFTER_GAMES: &[Table] = Table::ALL.split_at(1).1;

    /// The table's name.
    pub fn name(self) -> &'static str {
        match self {
            Table::Players => "players",
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

    /// Its columns.
    fn columns(self) -> &'static str {
        match self {
            Table::Players => "id, name, name_key, token_hash, created_at, last_seen_at, last_event_seq, bot",
            Table::Challenges => {
                "id, challenger_id, challenged_id, variant, clock_initial_ms, clock_increment_ms, \
                 colour, status, decline_reason, game_id, created_at, expires_at, answered_at, \
                 rated"
            }
            Table::Seeks => {
                "id, player_id, variant, clock_initial_ms, clock_increment_ms, status, game_id, \
                 created_at, expires_at, rated, rating_min, rating_max"
            }
            Table::PlayerEvents => "player_id, seq, kind, game_id, challenge_id, created_at",
            Table::Ratings => "player_id, variant, rating, deviation, volatility, games, rated_at",
            Table::RatingChanges => {
                "player_id, variant, number, game_id, seat, rating_before, deviation_before, \
                 volatility_before, rating_after, deviation_after, volatility_after, rated_at"
            }
            Table::Puzzles => {
                "id, variant, position, solution, theme, source, position_key, rating, deviation, \
                 volatility, attempts"
            }
            Table::PuzzleAttempts => {
                "id, puzzle_id, player_id, line, outcome, rated, rating_before, rating_after, started_at, ended_at"
            }
            Table::PuzzleRatings => "player_id, variant, rating, deviation, volatility, attempts, rated_at",
        }
    }

    /// Its key's columns, in order: an id, a player and a number, or SQLite's
    /// row id for a table keyed by text too.
    fn key(self) -> (&'static str, Option<&'static str>) {
        match self {
            Table::PlayerEvents => ("player_id", Some("seq")),
            Table::Players | Table::Challenges | Table::Seeks | Table::Puzzles | Table::PuzzleAttempts => ("id", None),
            Table::Ratings | Table::RatingChanges | Table::PuzzleRatings => ("rowid", None),
        }
    }

    /// Whether the table's rows have ids of PostgreSQL's making, which a copy keeps.
    fn has_ids(self) -> bool {
        self.key() == ("id", None)
    }

    /// SQLite's page of rows after a key, as a JSON array of objects (binary
    /// columns in PostgreSQL's hex form), their count, and the last key.
    fn page(self) -> &'static str {
        static PAGES: LazyLock<Vec<String>> = LazyLock::new(|| {
            Table::ALL
                .iter()
                .map(|table| {
                    let value = |column: &str| match column {
                        "token_hash" => format!("'\\x' || lower(hex({column}))"),
                        // SQLite's JSON writes a real to 15 digits; a rating
                        // goes to the bit, as the 17 of its text.
                        real if REAL_COLUMNS.contains(&real) => format!("printf('%!.17g', {column})"),
                        _ => column.to_string(),
                    };
                    let object: Vec<String> =
                        table.columns().split(", ").map(|column| format!("'{column}', {}", value(column))).collect();
                    let (first, second) = table.key();
                    let (after, last, order) = match second {
                        None => (format!("{first} > ?1"), format!("max({first}), 0"), first.to_string()),
                        Some(second) => (
                            format!("({first} > ?1 OR ({first} = ?1 AND {second} > ?2))"),
                            format!(
                                "max({first}), max({second}) FILTER (WHERE {first} = (SELECT max({first}) FROM page))"
                            ),
                            format!("{first}, {second}"),
                        ),
                    };
                    // `*` leaves SQLite's row id out.
                    let every = if first == "rowid" { "rowid, *" } else { "*" };
                    format!(
                        "WITH page AS (SELECT {every} FROM {name} WHERE {after} ORDER BY {order} LIMIT ?3) \
                         SELECT COALESCE(json_group_array(json_object({object})), '[]'), count(*), {last} FROM page",
                        name = table.name(),
                        object = object.join(", "),
                    )
                })
                .collect()
        });
        &PAGES[self as usize]
    }

    /// PostgreSQL's insert of a page of rows, each kept as it was (ids
    /// included), any already there left as they are.
    fn insert(self) -> &'static Sql {
        static INSERTS: LazyLock<Vec<Sql>> = LazyLock::new(|| {
            Table::ALL
                .iter()
                .map(|table| {
                    let overriding = if table.has_ids() { "OVERRIDING SYSTEM VALUE " } else { "" };
                    Sql::new(&format!(
                        "INSERT INTO {name} ({columns}) {overriding}SELECT {columns} \
                         FROM json_populate_recordset(NULL::{name}, $1::json) ON CONFLICT DO NOTHING",
                        name = table.name(),
                        columns = table.columns(),
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
                .map(|table| Sql::new(&format!("SELECT count(*) AS count FROM {}", table.name())))
                .collect()
        });
        &COUNTS[self as usize]
    }
}

/// PostgreSQL's setting of table `name`'s id sequence after its highest id.
pub(super) fn continue_ids(name: &str) -> Sql {
    Sql::new(&format!("SELECT setval(pg_get_serial_sequence('{name}', 'id'), max(id)) FROM {name} HAVING count(*) > 0"))
}

impl Store {
    /// At most `most` rows of `table` after `after`, in key order, as JSON;
    /// their count and the last one's key. From SQLite only.
    ///
    /// # Errors
    /// A PostgreSQL store; database failures.
    pub async fn rows_after(&self, table: Table, after: Key, most: u32) -> Result<(String, u64, Key), StoreError> {
        let Backend::Sqlite(store) = &self.backend else {
            return Err(StoreError::Other("rows are copied from SQLite only".into()));
        };
        counted(store.rows_after(table.page(), after, most).await)
    }

    /// Writes `rows` (as [`Store::rows_after`] gives them) into `table`, each
    /// as it was, and sets the table's ids to go on after the highest;
    /// answers how many were new. Into PostgreSQL only.
    ///
    /// # Errors
    /// A SQLite store; database failures.
    pub async fn put_rows(&self, table: Table, rows: String) -> Result<u64, StoreError> {
        let Backend::Postgres(store) = &self.backend else {
            return Err(StoreError::Other("rows are copied into PostgreSQL only".into()));
        };
        self.wrote(Box::pin(store.run_write(async |tx| {
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
    /// A SQLite store; database failures.
    pub async fn remove_unused_bots(&self) -> Result<u64, StoreError> {
        static REMOVE: LazyLock<Sql> = LazyLock::new(|| {
            Sql::new(
                "DELETE FROM players WHERE bot IS NOT NULL \
                 AND NOT EXISTS (SELECT 1 FROM seats WHERE seats.player_id = players.id) \
                 AND NOT EXISTS (SELECT 1 FROM ratings WHERE ratings.player_id = players.id) \
                 AND NOT EXISTS (SELECT 1 FROM player_events WHERE player_events.player_id = players.id)",
            )
        });
        let Backend::Postgres(store) = &self.backend else {
            return Err(StoreError::Other("rows are copied into PostgreSQL only".into()));
        };
        self.wrote(Box::pin(store.run_alone(async |tx| tx.execute(&REMOVE, &[]).await))).await
    }

    /// How many rows `table` holds.
    pub async fn count_rows(&self, table: Table) -> Result<u64, StoreError> {
        let rows = counted(run!(self, run_read, |tx| tx.rows(table.count(), &[])))?;
        rows.first().ok_or_else(|| StoreError::Other("a count without a row".into()))?.get("count")
    }
}
