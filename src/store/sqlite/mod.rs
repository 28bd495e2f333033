//! The games in SQLite: the store's operations as SQL, each run as one job on the
//! threads of [`worker`].

mod checkpointer;
mod connection;
mod copy;
mod file;
mod resident;
mod tx;
mod worker;

use std::path::Path;
use std::str::FromStr;
use std::sync::Arc;

use rusqlite::OpenFlags;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode};
use sqlx::{ConnectOptions, Connection as _};

pub use checkpointer::SqliteConnection;
use checkpointer::{Checkpointer, open_writer};
use connection::{BUSY_TIMEOUT, connect};
pub use connection::{Durability, SqliteSettings};
use tx::{SqliteTx, now};
use worker::{Connections, Scope};

use super::tx::Kind;
use super::{OpenError, StoreError};

/// How many connections read at once: enough for the server's workers and the
/// live streams' rereads to overlap.
const READERS: usize = 4;

/// The pages each reader keeps, in KiB (SQLite's default is 2 MiB), for reads
/// between writes: SQLite empties it whenever the file changed, and under writes
/// a read takes its pages from the operating system's cache (see [`resident`]).
const READER_CACHE_KIB: i64 = 16 * 1024;

/// The file at `path`, to keep `bytes` of in memory: none when `bytes` is 0, or
/// when it cannot be mapped (a server that cannot hold it still serves).
fn resident_file(path: &Path, bytes: usize) -> Option<resident::ResidentFile> {
    if bytes == 0 {
        return None;
    }
    resident::ResidentFile::map(path, bytes)
        .inspect_err(|error| log::warn!("the database file is not kept in memory: {error}"))
        .ok()
}

/// The file of the database at `url`, if the URL can be read.
pub(super) fn file_of(url: &str) -> Option<std::path::PathBuf> {
    options_of(url).ok().map(|options| options.get_filename().to_path_buf())
}

/// The connection options `url` names, or why it names none.
fn options_of(url: &str) -> Result<SqliteConnectOptions, OpenError> {
    SqliteConnectOptions::from_str(url).map_err(OpenError::Url)
}

/// Backs the database at `url` up into the new file `to`: see [`file::back_up`].
pub(super) async fn back_up(url: &str, to: &Path) -> Result<u64, OpenError> {
    let path = options_of(url)?.get_filename().to_path_buf();
    let to = to.to_path_buf();
    tokio::task::spawn_blocking(move || file::back_up(&path, &to)).await.map_err(OpenError::Thread)?
}

/// The games in one SQLite file.
#[derive(Debug, Clone)]
pub(super) struct SqliteStore {
    readers: Arc<Connections>,
    writer: Arc<Connections>,
    checkpointer: Arc<Checkpointer>,
}

impl SqliteStore {
    /// Opens the SQLite database at `url` (created if missing), in WAL mode, and
    /// migrated, used as `settings` say.
    ///
    /// # Errors
    /// When the database cannot be opened or migrated.
    pub(super) async fn open(url: &str, settings: SqliteSettings) -> Result<SqliteStore, OpenError> {
        let options = options_of(url)?;
        let path = options.get_filename().to_path_buf();
        let checked = path.clone();
        let migrations = sqlx::migrate!("./migrations/sqlite");
        let latest_migration = migrations.iter().map(|migration| migration.version).max().unwrap_or(0);
        tokio::task::spawn_blocking(move || file::check(&checked, latest_migration))
            .await
            .map_err(OpenError::Thread)??;
        // sqlx's migrator, on a connection of its own (the journal mode stays
        // with the file), without foreign keys, so that a migration can make
        // anew a table that others reference, as SQLite's procedure has it.
        let mut migrator = options
            .create_if_missing(true)
            .foreign_keys(false)
            .journal_mode(SqliteJournalMode::Wal)
            .busy_timeout(BUSY_TIMEOUT)
            .connect()
            .await
            .map_err(OpenError::Connect)?;
        migrations.run(&mut migrator).await?;
        migrator.close().await.map_err(OpenError::Connect)?;

        let durability = settings.durability;
        let opened: rusqlite::Result<_> = (|| {
            let (writer, checkpointer) = open_writer(&path, durability, resident_file(&path, settings.resident_bytes))?;
            let readers = (0..READERS)
                .map(|_| {
                    let reader = connect(&path, durability, OpenFlags::SQLITE_OPEN_READ_ONLY)?;
                    reader.pragma_update(None, "cache_size", -READER_CACHE_KIB)?;
                    Ok(reader)
                })
                .collect::<rusqlite::Result<_>>()?;
            Ok((writer, checkpointer, readers))
        })();
        let (writer, checkpointer, readers) = opened.map_err(OpenError::Sqlite)?;
        Ok(SqliteStore {
            readers: Arc::new(Connections::readers(readers)),
            writer: Arc::new(Connections::writer(
                writer,
                Some(checkpointer.log_restart()),
                durability == Durability::Normal,
            )),
            checkpointer: Arc::new(checkpointer),
        })
    }

    /// Lets the queued work finish, then closes every connection, which
    /// checkpoints the write-ahead log.
    pub(super) async fn close(&self) {
        let store = self.clone();
        let _ = tokio::task::spawn_blocking(move || {
            store.checkpointer.stop();
            store.readers.close();
            store.writer.close();
        })
        .await;
    }

    /// Runs `work` as `kind` says: a read on a reader, a write as one of the
    /// writer's writes, undone when it fails.
    pub(in crate::store) async fn run<T: Send + 'static, E: From<StoreError> + Send + 'static>(
        &self,
        kind: Kind,
        work: impl AsyncFnOnce(&mut SqliteTx<'_>) -> Result<T, E> + Send + 'static,
    ) -> Result<T, E> {
        let read = match kind {
            Kind::Read => self.readers.run(move |connection| Ok(now(work(&mut SqliteTx::new(connection))))).await,
            Kind::Snapshot => {
                self.readers
                    .run(move |connection| {
                        let snapshot = Scope::read(connection)?;
                        Ok(now(work(&mut SqliteTx::new(&snapshot))))
                    })
                    .await
            }
            // The writer hears of the database's failure apart from the work's.
            Kind::Alone | Kind::Write => {
                return self
                    .writer
                    .write(move |connection| {
                        let mut tx = SqliteTx::new(connection);
                        match (now(work(&mut tx)), tx.failure) {
                            (Err(_), Some(failure)) => Err(failure),
                            (done, _) => Ok(done),
                        }
                    })
                    .await;
            }
        };
        read.unwrap_or_else(|failure| Err(E::from(failure)))
    }
}

#[cfg(test)]
mod tests {
    // The SQLite store's own tests: its migrations and its statements' programs.
    use super::*;
    use crate::engine::Player;
    use crate::record::{ChallengeId, Colour, Subject};
    use crate::record::{Event, GameId, StoredEntry, StoredGame, StoredSeat, Summary, stamp};
    use crate::record::{Page, Status};
    use crate::store::games::{Ended, INSERT_ENTRY, INSERT_GAME, INSERT_SEAT, SET_SUMMARY};
    use crate::store::games::{SET_ORIGINAL_APP_GAME, TIMED_OUT_GAMES, UNJOINED_GAMES, ended_before};
    use crate::store::listing::{LISTED_GAMES, LOBBY_PAGE, PLAYER_PAGE, lobby};
    use crate::store::rows::read_game;
    use crate::store::{Backend, PoolSettings, RATING_PERIOD, Store};
    use rusqlite::Connection;

    /// A new database in `folder` as the release before migration `before` left
    /// it, filled by `rows`: its URL.
    async fn migrated_before(folder: &Path, before: &str, rows: &'static str) -> String {
        let earlier = folder.join("earlier-migrations");
        std::fs::create_dir(&earlier).unwrap();
        for migration in std::fs::read_dir("migrations/sqlite").unwrap() {
            let path = migration.unwrap().path();
            if path.file_name().unwrap().to_str().unwrap() < before {
                std::fs::copy(&path, earlier.join(path.file_name().unwrap())).unwrap();
            }
        }
        let url = format!("sqlite:{}", folder.join("qttt.db").display());
        let mut earlier_database =
            SqliteConnectOptions::from_str(&url).unwrap().create_if_missing(true).connect().await.unwrap();
        sqlx::migrate::Migrator::new(earlier.as_path()).await.unwrap().run(&mut earlier_database).await.unwrap();
        sqlx::raw_sql(rows).execute(&mut earlier_database).await.unwrap();
        earlier_database.close().await.unwrap();
        url
    }

    #[tokio::test]
    async fn migrating_challenges_of_the_release_before_writes_their_colours_as_seats_and_keeps_their_events() {
        let folder = tempfile::tempdir().unwrap();
        let url = migrated_before(
            folder.path(),
            "0017",
            "INSERT INTO players (id, name, name_key, token_hash, created_at) VALUES
                 (101, 'ann', 'ann', zeroblob(32), '2026-12-01T00:00:00.000Z'),
                 (102, 'bob', 'bob', randomblob(32), '2026-12-01T00:00:00.000Z');
             INSERT INTO challenges (id, challenger_id, challenged_id, variant, colour, status, created_at, expires_at)
             VALUES (1, 101, 102, 'measurement', 'x', 'open', '2026-12-01T00:00:00.000Z', '2026-12-09T00:00:00.000Z'),
                    (2, 102, 101, 'measurement', 'o', 'open', '2026-12-01T00:00:00.000Z', '2026-12-09T00:00:00.000Z'),
                    (3, 101, 102, 'player_choice', 'random', 'open', '2026-12-01T00:00:00.000Z', '2026-12-09T00:00:00.000Z');
             UPDATE players SET last_event_seq = 1 WHERE id = 102;
             INSERT INTO player_events (player_id, seq, kind, challenge_id, created_at)
             VALUES (102, 1, 'challenge', 1, '2026-12-01T00:00:00.000Z');",
        )
        .await;
        let store = Store::connect(&url, SqliteSettings::default(), PoolSettings::default()).await.unwrap();
        let mut colours = Vec::new();
        for id in 1..=3 {
            colours.push(store.challenge(crate::record::ChallengeId::new(id)).await.unwrap().unwrap().colour);
        }
        let events = store.player_events(crate::record::PlayerId::new(102), 0, 10).await.unwrap();
        store.close().await;
        assert_eq!(colours, [Colour::X, Colour::O, Colour::Random]);
        assert_eq!(
            events.iter().map(|event| event.subject).collect::<Vec<_>>(),
            [Subject::Challenge(ChallengeId::new(1))]
        );
        let file = Connection::open(folder.path().join("qttt.db")).unwrap();
        let indexes: Vec<String> = file
            .prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name IN ('games', 'challenges') ORDER BY name")
            .unwrap()
            .query_map([], |row| row.get(0))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        assert!(indexes.contains(&"games_unjoined_by_end".to_string()), "{indexes:?}");
        assert!(!indexes.contains(&"games_abandoned_by_end".to_string()), "{indexes:?}");
        for index in ["challenges_by_challenger", "challenges_by_challenged", "challenges_by_game"] {
            assert!(indexes.contains(&index.to_string()), "{index}: {indexes:?}");
        }
        let broken: i64 =
            file.query_row("SELECT count(*) FROM pragma_foreign_key_check", [], |row| row.get(0)).unwrap();
        assert_eq!(broken, 0);
        let old_colour = file.execute("UPDATE challenges SET colour = 'x' WHERE id = 1", []);
        assert!(old_colour.unwrap_err().to_string().contains("CHECK"), "a colour is written as a seat is");
    }

    #[tokio::test]
    async fn migrating_games_of_the_release_before_draws_keeps_them_their_logs_and_their_references() {
        let folder = tempfile::tempdir().unwrap();
        let url = migrated_before(
            folder.path(),
            "0018",
            "INSERT INTO games (id, variant, created_at, status, result, end_reason, end_player, ended_at, rated)
             VALUES (1, 'player_choice', '2026-12-01T00:00:00.000Z', 'finished', 'o_wins', 'resignation', 'X',
                     '2026-12-01T00:01:00.000Z', 1),
                    (2, 'player_choice', '2026-12-01T00:02:00.000Z', 'waiting', 'ongoing', NULL, NULL, NULL, 0);
             UPDATE games SET rematch_of = 1 WHERE id = 2;
             INSERT INTO seats (game_id, player, token_hash) VALUES (1, 'X', zeroblob(32)), (1, 'O', randomblob(32));
             INSERT INTO log_entries (game_id, seq, kind, actor, square_a, square_b, rematch, created_at) VALUES
                 (1, 1, 'seat', 'X', NULL, NULL, NULL, '2026-12-01T00:00:00.000Z'),
                 (1, 2, 'seat', 'O', NULL, NULL, NULL, '2026-12-01T00:00:01.000Z'),
                 (1, 3, 'move', 'X', 0, 8, NULL, '2026-12-01T00:00:02.000Z'),
                 (1, 4, 'resign', 'X', NULL, NULL, NULL, '2026-12-01T00:01:00.000Z'),
                 (1, 5, 'rematch', 'O', NULL, NULL, 2, '2026-12-01T00:02:00.000Z');",
        )
        .await;
        let store = Store::connect(&url, SqliteSettings::default(), PoolSettings::default()).await.unwrap();
        let game = store.load_game(crate::record::GameId::new(1)).await.unwrap();
        let rematch = store.load_game(crate::record::GameId::new(2)).await.unwrap();
        store.close().await;
        assert_eq!(game.log.len(), 5);
        assert_eq!(game.log[3].event, Event::Ended(crate::record::Ending::Resign(Player::X)));
        assert_eq!(game.seats.len(), 2);
        assert!(game.rated);
        assert_eq!(rematch.rematch_of, Some(crate::record::GameId::new(1)));
        let file = Connection::open(folder.path().join("qttt.db")).unwrap();
        let broken: i64 =
            file.query_row("SELECT count(*) FROM pragma_foreign_key_check", [], |row| row.get(0)).unwrap();
        assert_eq!(broken, 0);
        let agreed = "INSERT INTO log_entries (game_id, seq, kind, actor, created_at) \
                      VALUES (2, 1, 'agreement', 'O', '2026-12-01T00:03:00.000Z')";
        assert_eq!(file.execute(agreed, []).unwrap(), 1, "the new kinds are taken");
    }

    #[tokio::test]
    async fn migrating_an_earlier_database_keeps_every_row_and_reference() {
        let folder = tempfile::tempdir().unwrap();
        // A database as the release before migration 0005 left it: a game
        // against the parasite bot, with a seat, a move and a measured collapse,
        // in the columns as they were named then.
        let url = migrated_before(
            folder.path(),
            "0005",
            "INSERT INTO games (id, variant, status, result, bot_level, bot_mistake_chance, created_at) \
             VALUES (7, 'measurement', 'finished', 'draw', 'parasite', 0.25, '2026-01-02T03:04:05.678Z');
             INSERT INTO seats (game_id, player, token_hash) VALUES (7, 'X', x'0102');
             INSERT INTO log_entries (game_id, seq, kind, actor, created_at) VALUES (7, 1, 'seat', 'X', '2026-01-02T03:04:06.000Z');
             INSERT INTO log_entries (game_id, seq, kind, actor, square_a, square_b, by_bot, created_at) \
             VALUES (7, 2, 'move', 'O', 0, 1, 1, '2026-01-02T03:04:07.000Z');
             INSERT INTO log_entries (game_id, seq, kind, actor, closing_move, collapse_square, created_at) \
             VALUES (7, 3, 'collapse', 'measurement', 1, 1, '2026-01-02T03:04:08.000Z');
             INSERT INTO shared_game (slot, game_id, player_mark) VALUES (1, 7, 'O');",
        )
        .await;

        let store = SqliteStore::open(&url, SqliteSettings::default()).await.unwrap();
        let game = store.run(Kind::Read, async |tx| read_game(tx, GameId::new(7)).await).await.unwrap();
        let page = Page { status: Some(Status::Finished), before: None, limit: 10 };
        let listed = store.run(Kind::Read, async move |tx| lobby(tx, page).await).await.unwrap();
        let missing_game = store
            .writer
            .run(|connection| {
                let inserted = connection.execute(
                    "INSERT INTO log_entries (game_id, seq, kind, actor, created_at) VALUES (8, 1, 'seat', 'X', 'd')",
                    [],
                );
                Ok(inserted.map_err(|error| error.to_string()))
            })
            .await
            .unwrap();
        let checks = store
            .writer
            .run(|connection| {
                Ok(["UPDATE games SET status = 'lost' WHERE id = 7", "UPDATE log_entries SET kind = 'x' WHERE seq = 1"]
                    .map(|update| connection.execute(update, []).map_err(|error| error.to_string())))
            })
            .await
            .unwrap();
        assert_eq!(
            Store { backend: Backend::Sqlite(store.clone()), space: Arc::default(), rating_period: RATING_PERIOD }
                .original_app_game()
                .await
                .unwrap(),
            Some((GameId::new(7), Player::O))
        );
        store.close().await;
        assert_eq!(
            (game.variant, stamp(game.created_at), game.opponent, game.seats),
            (
                crate::engine::Variant::Measurement,
                "2026-01-02T03:04:05.678Z".to_string(),
                Some(crate::bot::Bot::Parasite { mistake_chance: 0.25 }),
                vec![crate::record::StoredSeat {
                    player: Player::X,
                    token_hash: vec![1, 2],
                    holder: None,
                    last_seen_at: None
                }]
            )
        );
        let log: Vec<_> = game.log.iter().map(|entry| (entry.seq, stamp(entry.created_at), entry.by_bot)).collect();
        let at = |second: u8| format!("2026-01-02T03:04:{second:02}.000Z");
        assert_eq!(log, [(1, at(6), false), (2, at(7), true), (3, at(8), false)]);
        assert_eq!(listed.iter().map(|game| (game.id, game.version)).collect::<Vec<_>>(), [(GameId::new(7), 3)]);
        assert!(missing_game.unwrap_err().contains("FOREIGN KEY"), "entries still need their game");
        for refused in checks {
            assert!(refused.unwrap_err().contains("CHECK"), "the rebuilt checks still hold");
        }
    }

    /// A store on a new file, migrated, and the folder that holds it.
    async fn fresh_store() -> (tempfile::TempDir, SqliteStore) {
        let folder = tempfile::tempdir().unwrap();
        let url = format!("sqlite:{}", folder.path().join("qttt.db").display());
        (folder, SqliteStore::open(&url, SqliteSettings::default()).await.unwrap())
    }

    #[tokio::test]
    async fn no_statement_of_a_write_builds_a_temporary_table() {
        // The point of migration 0005: SQLite builds a temporary table for a check
        // of the form `x IN (a, b, c)`, for every row written.
        let (_folder, store) = fresh_store().await;
        let temporary_tables = store
            .writer
            .run(|connection| {
                [&INSERT_ENTRY, &INSERT_GAME[0], &INSERT_GAME[1], &INSERT_SEAT, &SET_SUMMARY, &SET_ORIGINAL_APP_GAME]
                    .map(|write| write.sqlite())
                    .iter()
                    .map(|write| {
                        let mut explain = connection.prepare(&format!("EXPLAIN {write}"))?;
                        // Its parameters are left unbound: only the program is read.
                        let mut opcodes = explain.raw_query();
                        let mut temporary_tables = 0;
                        while let Some(opcode) = opcodes.next()? {
                            temporary_tables += usize::from(opcode.get::<_, String>(1)? == "OpenEphemeral");
                        }
                        Ok((*write, temporary_tables))
                    })
                    .collect::<Result<Vec<_>, StoreError>>()
            })
            .await
            .unwrap();
        store.close().await;
        for (write, temporary_tables) in temporary_tables {
            assert_eq!(temporary_tables, 0, "{write}");
        }
    }

    /// What the reads that run however many games there are go along: the
    /// listing (the lobby and a player's games, each of their pages), the timer's
    /// questions and retention's. A change that loses an index fails here, not at a
    /// million games.
    #[tokio::test]
    async fn the_listing_the_timer_and_retention_read_along_their_indexes() {
        let (_folder, store) = fresh_store().await;
        let reads = [
            (LOBBY_PAGE[0].sqlite(), "USING INTEGER PRIMARY KEY (rowid<?)"),
            (LOBBY_PAGE[1].sqlite(), "USING INDEX games_by_status (status=? AND id<?)"),
            (PLAYER_PAGE.sqlite(), "USING COVERING INDEX seats_by_player (player_id=? AND game_id<?)"),
            (LISTED_GAMES.sqlite(), "USING INTEGER PRIMARY KEY (rowid=?)"),
            (TIMED_OUT_GAMES.sqlite(), "USING COVERING INDEX games_by_deadline (status=? AND deadline<?)"),
            (UNJOINED_GAMES.sqlite(), "USING COVERING INDEX games_by_creation (status=? AND created_at<?)"),
            (ended_before(Ended::Any).sqlite(), "USING INDEX games_by_end (ended_at>? AND ended_at<?)"),
            (ended_before(Ended::Unjoined).sqlite(), "USING INDEX games_unjoined_by_end (ended_at<?)"),
        ];
        let plans = store
            .writer
            .run(move |connection| {
                reads
                    .iter()
                    .map(|(read, _)| {
                        let mut explain = connection.prepare(&format!("EXPLAIN QUERY PLAN {read}"))?;
                        let mut steps = explain.raw_query();
                        let mut plan = Vec::new();
                        while let Some(step) = steps.next()? {
                            plan.push(step.get::<_, String>(3)?);
                        }
                        Ok(plan)
                    })
                    .collect::<Result<Vec<_>, StoreError>>()
            })
            .await
            .unwrap();
        store.close().await;
        for ((read, index), plan) in reads.iter().zip(plans) {
            assert!(plan.iter().any(|step| step.starts_with("SEARCH ") && step.ends_with(index)), "{read}\n{plan:#?}");
            // Retention scans the one row of the original app's game, and its own
            // few ids: never the games or the seats; and nothing is sorted apart.
            let scans = ["SCAN games", "SCAN seats", "USE TEMP B-TREE"];
            assert!(!plan.iter().any(|step| scans.iter().any(|scan| step.starts_with(scan))), "{read}\n{plan:#?}");
        }
    }

    /// A game as another database holds it: waiting, X seated.
    fn game_from_elsewhere(id: i64) -> StoredGame {
        let created_at: jiff::Timestamp = "2026-01-02T03:04:05.678Z".parse().unwrap();
        StoredGame {
            id: GameId::new(id),
            variant: crate::engine::Variant::PlayerChoice,
            scoring: crate::engine::Scoring::Goff,
            created_at,
            opponent: None,
            hints: false,
            rated: false,
            clock: None,
            rematch_of: None,
            arena: None,
            summary: Summary::WAITING,
            log: vec![StoredEntry { seq: 1, created_at, event: Event::SeatTaken(Player::X), by_bot: false }],
            seats: vec![StoredSeat { player: Player::X, token_hash: vec![7; 32], holder: None, last_seen_at: None }],
            invite_hash: None,
            ratings: [None, None],
        }
    }

    #[tokio::test]
    async fn a_copied_game_keeps_its_id_once_and_new_games_are_numbered_after_it() {
        let folder = tempfile::tempdir().unwrap();
        let url = format!("sqlite:{}", folder.path().join("qttt.db").display());
        let store = Store::connect(&url, SqliteSettings::default(), PoolSettings::default()).await.unwrap();
        let copied = [
            store.copy_game(game_from_elsewhere(41), None).await,
            store.copy_game(game_from_elsewhere(41), None).await,
        ];
        let read = store.load_game(GameId::new(41)).await.unwrap();
        let new = store.create_game(game_from_elsewhere(0), None, Vec::new()).await.unwrap();
        store.close().await;
        assert_eq!(copied.map(Result::unwrap), [true, false]);
        assert_eq!(read, game_from_elsewhere(41));
        assert_eq!(new, GameId::new(42));
    }
}
