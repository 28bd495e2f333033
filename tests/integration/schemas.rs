//! The two backends' schemas, as their migrations leave them, agree: the same
//! tables, columns, keys and indexes, so that neither can drift from the other.

use std::collections::{BTreeMap, BTreeSet};

use qttt::store::{PoolSettings, SqliteSettings, Store};
use sqlx::{Connection, Row};

use crate::postgres::PostgresDatabase;

/// A table as far as the backends must agree on it (column types differ by
/// design: `TEXT` times in SQLite, `TIMESTAMPTZ` in PostgreSQL).
#[derive(Debug, Default, PartialEq, Eq)]
struct Table {
    /// Each column and whether it may be null.
    columns: BTreeSet<(String, bool)>,
    /// The primary key's columns, in key order.
    primary_key: Vec<String>,
    /// Each foreign key: the column, and the table and column it references.
    foreign_keys: BTreeSet<(String, String, String)>,
    /// Every other index: its columns in order, and whether it is unique.
    indexes: BTreeSet<(Vec<String>, bool)>,
}

type Schema = BTreeMap<String, Table>;

async fn sqlite_schema(url: &str) -> Schema {
    let mut connection = sqlx::SqliteConnection::connect(url).await.unwrap();
    let names: Vec<String> = sqlx::query_scalar(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> '_sqlx_migrations'",
    )
    .fetch_all(&mut connection)
    .await
    .unwrap();
    let mut schema = Schema::new();
    for name in names {
        let mut table = Table::default();
        let mut key = Vec::new();
        for column in sqlx::query(r#"SELECT name, "notnull", pk FROM pragma_table_info(?)"#)
            .bind(&name)
            .fetch_all(&mut connection)
            .await
            .unwrap()
        {
            let (column_name, not_null, key_place): (String, bool, i64) = (column.get(0), column.get(1), column.get(2));
            // A primary key's columns are never null, whatever SQLite's flag says.
            table.columns.insert((column_name.clone(), !not_null && key_place == 0));
            if key_place > 0 {
                key.push((key_place, column_name));
            }
        }
        key.sort();
        table.primary_key = key.into_iter().map(|(_, column)| column).collect();
        for reference in sqlx::query(r#"SELECT "from", "table", "to" FROM pragma_foreign_key_list(?)"#)
            .bind(&name)
            .fetch_all(&mut connection)
            .await
            .unwrap()
        {
            table.foreign_keys.insert((reference.get(0), reference.get(1), reference.get(2)));
        }
        for index in sqlx::query(r#"SELECT name, "unique" FROM pragma_index_list(?) WHERE origin <> 'pk'"#)
            .bind(&name)
            .fetch_all(&mut connection)
            .await
            .unwrap()
        {
            let (index_name, unique): (String, bool) = (index.get(0), index.get(1));
            let columns: Vec<String> = sqlx::query_scalar("SELECT name FROM pragma_index_info(?) ORDER BY seqno")
                .bind(&index_name)
                .fetch_all(&mut connection)
                .await
                .unwrap();
            table.indexes.insert((columns, unique));
        }
        schema.insert(name, table);
    }
    connection.close().await.unwrap();
    schema
}

async fn postgres_schema(url: &str) -> Schema {
    let mut connection = sqlx::PgConnection::connect(url).await.unwrap();
    let names: Vec<String> = sqlx::query_scalar(
        "SELECT table_name::TEXT FROM information_schema.tables \
         WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND table_name <> '_sqlx_migrations'",
    )
    .fetch_all(&mut connection)
    .await
    .unwrap();
    let mut schema = Schema::new();
    for name in names {
        let mut table = Table::default();
        for column in sqlx::query(
            "SELECT column_name::TEXT, is_nullable = 'YES' FROM information_schema.columns \
             WHERE table_schema = 'public' AND table_name = $1",
        )
        .bind(&name)
        .fetch_all(&mut connection)
        .await
        .unwrap()
        {
            table.columns.insert((column.get(0), column.get(1)));
        }
        table.primary_key = sqlx::query_scalar(
            "SELECT a.attname::TEXT FROM pg_index i \
             JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, place) ON true \
             JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum \
             WHERE i.indrelid = $1::regclass AND i.indisprimary ORDER BY k.place",
        )
        .bind(&name)
        .fetch_all(&mut connection)
        .await
        .unwrap();
        for reference in sqlx::query(
            "SELECT a.attname::TEXT, c.confrelid::regclass::TEXT, r.attname::TEXT FROM pg_constraint c \
             JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1] \
             JOIN pg_attribute r ON r.attrelid = c.confrelid AND r.attnum = c.confkey[1] \
             WHERE c.conrelid = $1::regclass AND c.contype = 'f'",
        )
        .bind(&name)
        .fetch_all(&mut connection)
        .await
        .unwrap()
        {
            table.foreign_keys.insert((reference.get(0), reference.get(1), reference.get(2)));
        }
        for index in sqlx::query(
            "SELECT array_agg(a.attname::TEXT ORDER BY k.place), bool_and(i.indisunique) FROM pg_index i \
             JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, place) ON true \
             JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum \
             WHERE i.indrelid = $1::regclass AND NOT i.indisprimary GROUP BY i.indexrelid",
        )
        .bind(&name)
        .fetch_all(&mut connection)
        .await
        .unwrap()
        {
            table.indexes.insert((index.get(0), index.get(1)));
        }
        schema.insert(name, table);
    }
    connection.close().await.unwrap();
    schema
}

/// Both backends, migrated by the store: a SQLite file, and a PostgreSQL
/// database of its own named after `purpose`, on `QTTT_TEST_POSTGRES`'s server.
struct BothBackends {
    postgres: PostgresDatabase,
    sqlite_url: String,
    _folder: tempfile::TempDir,
    runtime: tokio::runtime::Runtime,
}

impl BothBackends {
    fn migrated(purpose: &str) -> BothBackends {
        let maintenance_url = std::env::var("QTTT_TEST_POSTGRES").expect("set QTTT_TEST_POSTGRES to run this test");
        let postgres = PostgresDatabase::create(&maintenance_url, format!("qttt_{purpose}_{}", std::process::id()));
        let folder = tempfile::tempdir().unwrap();
        let sqlite_url = format!("sqlite:{}", folder.path().join("qttt.db").display());
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        runtime.block_on(async {
            for url in [sqlite_url.clone(), postgres.url()] {
                Store::connect(&url, SqliteSettings::default(), PoolSettings::default()).await.unwrap().close().await;
            }
        });
        BothBackends { postgres, sqlite_url, _folder: folder, runtime }
    }
}

#[test]
#[ignore = "needs PostgreSQL: QTTT_TEST_POSTGRES (see .ci/run)"]
fn both_backends_migrate_to_the_same_tables_columns_keys_and_indexes() {
    let both = BothBackends::migrated("schemas");
    let (sqlite, postgresql) = both
        .runtime
        .block_on(async { (sqlite_schema(&both.sqlite_url).await, postgres_schema(&both.postgres.url()).await) });
    assert_eq!(
        sqlite.keys().collect::<Vec<_>>(),
        [
            "arena_players",
            "arenas",
            "challenges",
            "games",
            "log_entries",
            "original_app_game",
            "player_events",
            "players",
            "puzzle_attempts",
            "puzzle_ratings",
            "puzzles",
            "rating_changes",
            "ratings",
            "seats",
            "seeks"
        ]
    );
    assert_eq!(sqlite["log_entries"].primary_key, ["game_id", "seq"]);
    for (name, table) in &sqlite {
        assert_eq!(Some(table), postgresql.get(name), "table {name}");
    }
    assert_eq!(sqlite.len(), postgresql.len(), "{:?}", postgresql.keys().collect::<Vec<_>>());
}

/// Log entries that break a rule of the log, each named by it: `(seq, kind,
/// actor, square_a, square_b, closing_move, square, rematch)` of game 1.
const MALFORMED_ENTRIES: [(&str, &str); 14] = [
    ("a sequence number below 1", "0, 'seat', 'X', NULL, NULL, NULL, NULL, NULL"),
    ("an unknown kind", "101, 'jump', 'X', NULL, NULL, NULL, NULL, NULL"),
    ("an unknown actor", "102, 'seat', 'Z', NULL, NULL, NULL, NULL, NULL"),
    ("a square above 8", "103, 'move', 'X', 9, 1, NULL, NULL, NULL"),
    ("a square below 0", "104, 'move', 'X', 0, -1, NULL, NULL, NULL"),
    ("a closing move above 9", "105, 'collapse', 'X', NULL, NULL, 10, 0, NULL"),
    ("a collapse into square 9", "106, 'collapse', 'X', NULL, NULL, 3, 9, NULL"),
    ("a move with one square", "107, 'move', 'X', 1, NULL, NULL, NULL, NULL"),
    ("a seat with squares", "108, 'seat', 'X', 1, 2, NULL, NULL, NULL"),
    ("a collapse without its square", "109, 'collapse', 'O', NULL, NULL, 3, NULL, NULL"),
    ("a rematch without its game", "110, 'rematch', 'X', NULL, NULL, NULL, NULL, NULL"),
    ("a seat naming a rematch", "111, 'seat', 'X', NULL, NULL, NULL, NULL, 1"),
    ("the measurement moving", "112, 'move', 'measurement', 1, 2, NULL, NULL, NULL"),
    ("the server resigning", "113, 'resign', 'server', NULL, NULL, NULL, NULL, NULL"),
];

/// One entry of each kind of actor and of each column that may be set.
const WELL_FORMED_ENTRIES: [&str; 5] = [
    "1, 'seat', 'X', NULL, NULL, NULL, NULL, NULL",
    "2, 'move', 'X', 0, 8, NULL, NULL, NULL",
    "3, 'collapse', 'measurement', NULL, NULL, 9, 0, NULL",
    "4, 'abort', 'server', NULL, NULL, NULL, NULL, NULL",
    "5, 'rematch', 'O', NULL, NULL, NULL, NULL, 1",
];

/// Which of the entries of game 1 in `values` the database refuses.
async fn refused<C: Connection>(connection: &mut C, values: &[&str]) -> Vec<bool>
where
    for<'c> &'c mut C: sqlx::Executor<'c>,
{
    let mut refused = Vec::new();
    for values in values {
        let insert = format!(
            "INSERT INTO log_entries (game_id, seq, kind, actor, square_a, square_b, closing_move, square, rematch, \
             created_at) VALUES (1, {values}, '2026-12-01T00:00:00.000Z')"
        );
        refused.push(sqlx::raw_sql(sqlx::AssertSqlSafe(insert)).execute(&mut *connection).await.is_err());
    }
    refused
}

#[test]
#[ignore = "needs PostgreSQL: QTTT_TEST_POSTGRES (see .ci/run)"]
fn both_backends_refuse_every_malformed_log_entry_and_take_well_formed_ones() {
    let both = BothBackends::migrated("entries");
    let malformed: Vec<&str> = MALFORMED_ENTRIES.iter().map(|(_, values)| *values).collect();
    let game = "INSERT INTO games (variant, created_at) VALUES ('measurement', '2026-12-01T00:00:00.000Z')";
    let (sqlite, postgresql) = both.runtime.block_on(async {
        let mut sqlite = sqlx::SqliteConnection::connect(&both.sqlite_url).await.unwrap();
        sqlx::raw_sql(game).execute(&mut sqlite).await.unwrap();
        let sqlite_refused = (refused(&mut sqlite, &WELL_FORMED_ENTRIES).await, refused(&mut sqlite, &malformed).await);
        let mut postgresql = sqlx::PgConnection::connect(&both.postgres.url()).await.unwrap();
        sqlx::raw_sql(game).execute(&mut postgresql).await.unwrap();
        let postgresql_refused =
            (refused(&mut postgresql, &WELL_FORMED_ENTRIES).await, refused(&mut postgresql, &malformed).await);
        (sqlite_refused, postgresql_refused)
    });
    for (backend, (well_formed, malformed)) in [("SQLite", sqlite), ("PostgreSQL", postgresql)] {
        assert_eq!(well_formed, [false; 5], "{backend} takes every well-formed entry");
        let taken: Vec<&str> = MALFORMED_ENTRIES
            .iter()
            .zip(&malformed)
            .filter(|(_, refused)| !**refused)
            .map(|((rule, _), _)| *rule)
            .collect();
        assert_eq!(taken, [""; 0], "{backend} takes malformed entries");
    }
}
