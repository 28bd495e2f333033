//! The only module with SQL: games, their logs and seats in SQLite.
//!
//! Writes run in transactions that begin IMMEDIATE, so that a transaction that
//! reads before it writes never fails to upgrade its lock; the busy timeout makes
//! concurrent writers wait their turn instead of failing.

mod rows;

use std::str::FromStr;
use std::time::Duration;

use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{Sqlite, Transaction};

use crate::bot::Level;
use crate::engine::{GameResult, LogEntry, Player, Variant};
use crate::error::Error;
use rows::{EntryRow, GameRow, SummaryRow};

/// The games database.
#[derive(Debug, Clone)]
pub struct Store {
    pool: SqlitePool,
}

/// Something that happened to a game, as its log keeps it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// A player took a seat.
    SeatTaken(Player),
    /// A move or a collapse outcome, as the engine logs it.
    Action(LogEntry),
}

/// One entry of a stored log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredEntry {
    /// The entry's place in the log, from 1; the game's version is the last one.
    pub seq: i64,
    /// When it was written, RFC 3339 in UTC.
    pub created_at: String,
    /// What happened.
    pub event: Event,
    /// Whether the game's bot did it.
    pub by_bot: bool,
}

/// An entry to append to a log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NewEntry {
    /// What happened.
    pub event: Event,
    /// Whether the game's bot did it.
    pub by_bot: bool,
}

/// A game as stored: its identity and its whole log.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredGame {
    /// The game's id.
    pub id: i64,
    /// Its collapse rule.
    pub variant: Variant,
    /// When it was created, RFC 3339 in UTC.
    pub created_at: String,
    /// The bot that holds the seat the creator left, in a game against the computer.
    pub opponent: Option<Level>,
    /// Its log, in order.
    pub log: Vec<StoredEntry>,
}

impl StoredGame {
    /// The sequence number of the last entry: every write moves it on by one or more.
    pub fn version(&self) -> i64 {
        self.log.last().map_or(0, |entry| entry.seq)
    }
}

/// Where a game stands, as listings show it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// A seat is free.
    Waiting,
    /// Both seats are taken and the game goes on.
    Ongoing,
    /// The game is over.
    Finished,
}

impl Status {
    /// The name used in the database and the API.
    pub fn code(self) -> &'static str {
        match self {
            Status::Waiting => "waiting",
            Status::Ongoing => "ongoing",
            Status::Finished => "finished",
        }
    }
}

/// The summary a listing shows, kept beside the log and written with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Summary {
    /// Waiting, ongoing or finished.
    pub status: Status,
    /// The engine's result.
    pub result: GameResult,
}

/// One game of a listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedGame {
    /// The game's id.
    pub id: i64,
    /// Its collapse rule.
    pub variant: Variant,
    /// When it was created.
    pub created_at: String,
    /// Its version.
    pub version: i64,
    /// Waiting, ongoing or finished.
    pub status: Status,
    /// Its result so far.
    pub result: GameResult,
}

/// Why a seat could not be taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeatRefusal {
    /// No game has that id.
    NoSuchGame,
    /// Both seats are taken.
    SeatsTaken,
    /// The game is over.
    GameOver,
}

impl Store {
    /// Opens (creating it if needed) and migrates the database at `url`.
    ///
    /// # Errors
    /// When the database cannot be opened or migrated.
    pub async fn connect(url: &str) -> Result<Store, sqlx::Error> {
        let options = SqliteConnectOptions::from_str(url)?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            .busy_timeout(Duration::from_secs(5))
            .foreign_keys(true);
        let pool = SqlitePoolOptions::new()
            .max_connections(8)
            .acquire_timeout(Duration::from_secs(10))
            .connect_with(options)
            .await?;
        sqlx::migrate!("./migrations").run(&pool).await?;
        Ok(Store { pool })
    }

    /// Closes every connection, after the queries under way finish.
    pub async fn close(&self) {
        self.pool.close().await;
    }

    /// Answers whether the database answers.
    ///
    /// # Errors
    /// When it does not.
    pub async fn ping(&self) -> Result<(), Error> {
        sqlx::query("SELECT 1").execute(&self.pool).await?;
        Ok(())
    }

    /// Creates a game with `player` seated, its token hashed to `token_hash`, and
    /// `opening` logged after that seat: the bot's seat and first actions when
    /// `opponent` plays.
    ///
    /// # Errors
    /// When the database fails.
    pub async fn create_game(
        &self,
        variant: Variant,
        player: Player,
        token_hash: &[u8],
        opponent: Option<Level>,
        opening: &[NewEntry],
        summary: Summary,
    ) -> Result<StoredGame, Error> {
        let mut tx = self.pool.begin_with("BEGIN IMMEDIATE").await?;
        let (id, created_at): (i64, String) = sqlx::query_as(
            "INSERT INTO games (variant, version, status, result, bot_level, bot_mistake_chance) \
             VALUES (?, ?, ?, ?, ?, ?) RETURNING id, created_at",
        )
        .bind(variant.code())
        .bind(1 + opening.len() as i64)
        .bind(summary.status.code())
        .bind(summary.result.code())
        .bind(opponent.map(Level::code))
        .bind(opponent.and_then(|level| match level {
            Level::Parasite { mistake_chance } => Some(mistake_chance),
            Level::Random | Level::Perfect => None,
        }))
        .fetch_one(&mut *tx)
        .await?;
        let mut log = vec![seat(&mut tx, id, 1, player, token_hash).await?];
        for (seq, entry) in (2..).zip(opening) {
            log.push(EntryRow::insert(&mut tx, id, seq, entry).await?);
        }
        tx.commit().await?;
        Ok(StoredGame { id, variant, created_at, opponent, log })
    }

    /// The game with `id` and its whole log, if there is one.
    ///
    /// # Errors
    /// When the database fails, or holds a row the code cannot read (corruption).
    pub async fn load_game(&self, id: i64) -> Result<Option<StoredGame>, Error> {
        let Some(game) = sqlx::query_as::<_, GameRow>(
            "SELECT id, variant, created_at, bot_level, bot_mistake_chance FROM games WHERE id = ?",
        )
        .bind(id)
        .fetch_optional(&self.pool)
        .await?
        else {
            return Ok(None);
        };
        let entries = sqlx::query_as::<_, EntryRow>(
            "SELECT seq, kind, actor, square_a, square_b, closing_move, collapse_square, by_bot, \
             created_at FROM log_entries WHERE game_id = ? ORDER BY seq",
        )
        .bind(id)
        .fetch_all(&self.pool)
        .await?;
        let log = entries.into_iter().map(EntryRow::into_entry).collect::<Result<_, _>>()?;
        Ok(Some(game.into_game(log)?))
    }

    /// The seat of game `id` whose token hashes to `token_hash`, if any.
    ///
    /// # Errors
    /// When the database fails.
    pub async fn seat_of(&self, id: i64, token_hash: &[u8]) -> Result<Option<Player>, Error> {
        let player: Option<String> =
            sqlx::query_scalar("SELECT player FROM seats WHERE game_id = ? AND token_hash = ?")
                .bind(id)
                .bind(token_hash)
                .fetch_optional(&self.pool)
                .await?;
        player.map(|p| rows::player(&p)).transpose()
    }

    /// Appends `entries` to the log of game `id` right after version `after`, and
    /// updates the summary, in one transaction.
    ///
    /// # Errors
    /// [`Error::Conflict`] with the current version when another write already
    /// took the sequence number after `after`; any database failure.
    pub async fn append(
        &self,
        id: i64,
        after: i64,
        entries: &[NewEntry],
        summary: Summary,
    ) -> Result<Vec<StoredEntry>, Error> {
        let mut tx = self.pool.begin_with("BEGIN IMMEDIATE").await?;
        let mut written = Vec::with_capacity(entries.len());
        for (seq, entry) in (after + 1..).zip(entries) {
            match EntryRow::insert(&mut tx, id, seq, entry).await {
                Ok(entry) => written.push(entry),
                Err(error) if rows::is_unique_violation(&error) => {
                    drop(tx);
                    return Err(Error::Conflict {
                        detail: "the game changed while this request was applied; reload it and try again".into(),
                        current_version: Some(self.version_of(id).await?),
                    });
                }
                Err(error) => return Err(error.into()),
            }
        }
        let version = after + entries.len() as i64;
        sqlx::query("UPDATE games SET version = ?, status = ?, result = ? WHERE id = ?")
            .bind(version)
            .bind(summary.status.code())
            .bind(summary.result.code())
            .bind(id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(written)
    }

    async fn version_of(&self, id: i64) -> Result<i64, Error> {
        Ok(sqlx::query_scalar("SELECT COALESCE(MAX(seq), 0) FROM log_entries WHERE game_id = ?")
            .bind(id)
            .fetch_one(&self.pool)
            .await?)
    }

    /// Seats a new player in the free seat of game `id` (X first), with its token
    /// hashed to `token_hash`, and logs it, in one transaction.
    ///
    /// # Errors
    /// A [`SeatRefusal`] inside `Ok`; any database failure.
    pub async fn take_free_seat(&self, id: i64, token_hash: &[u8]) -> Result<Result<Player, SeatRefusal>, Error> {
        let mut tx = self.pool.begin_with("BEGIN IMMEDIATE").await?;
        let Some((status, has_bot)) =
            sqlx::query_as::<_, (String, bool)>("SELECT status, bot_level IS NOT NULL FROM games WHERE id = ?")
                .bind(id)
                .fetch_optional(&mut *tx)
                .await?
        else {
            return Ok(Err(SeatRefusal::NoSuchGame));
        };
        // A bot's seat has no token, so no row in `seats`; it is taken all the same.
        if has_bot {
            return Ok(Err(SeatRefusal::SeatsTaken));
        }
        let taken: Vec<String> =
            sqlx::query_scalar("SELECT player FROM seats WHERE game_id = ?").bind(id).fetch_all(&mut *tx).await?;
        let Some(player) = [Player::X, Player::O].into_iter().find(|p| !taken.contains(&p.to_string())) else {
            return Ok(Err(SeatRefusal::SeatsTaken));
        };
        if status == Status::Finished.code() {
            return Ok(Err(SeatRefusal::GameOver));
        }
        let seq: i64 = sqlx::query_scalar("SELECT COALESCE(MAX(seq), 0) + 1 FROM log_entries WHERE game_id = ?")
            .bind(id)
            .fetch_one(&mut *tx)
            .await?;
        seat(&mut tx, id, seq, player, token_hash).await?;
        // Both seats are taken now: a waiting game becomes ongoing.
        sqlx::query("UPDATE games SET version = ?, status = ? WHERE id = ?")
            .bind(seq)
            .bind(Status::Ongoing.code())
            .bind(id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(Ok(player))
    }

    /// Up to `limit` games, newest first, with ids below `before` when given, and
    /// only those with `status` when given.
    ///
    /// # Errors
    /// When the database fails.
    pub async fn list_games(
        &self,
        status: Option<Status>,
        before: Option<i64>,
        limit: u32,
    ) -> Result<Vec<ListedGame>, Error> {
        let rows = sqlx::query_as::<_, SummaryRow>(
            "SELECT id, variant, created_at, version, status, result FROM games \
             WHERE (?1 IS NULL OR status = ?1) AND (?2 IS NULL OR id < ?2) \
             ORDER BY id DESC LIMIT ?3",
        )
        .bind(status.map(Status::code))
        .bind(before)
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        rows.into_iter().map(SummaryRow::into_listed).collect()
    }

    /// The game the original app's routes play, and the mark its player chose.
    ///
    /// # Errors
    /// Database failures.
    pub async fn shared_game(&self) -> Result<Option<(i64, Player)>, Error> {
        let row: Option<(i64, String)> = sqlx::query_as("SELECT game_id, player_mark FROM shared_game WHERE slot = 1")
            .fetch_optional(&self.pool)
            .await?;
        row.map(|(id, mark)| Ok((id, rows::player(&mark)?))).transpose()
    }

    /// Points the original app's routes at game `id`.
    ///
    /// # Errors
    /// Database failures.
    pub async fn set_shared_game(&self, id: i64, player_mark: Player) -> Result<(), Error> {
        sqlx::query(
            "INSERT INTO shared_game (slot, game_id, player_mark) VALUES (1, ?, ?) \
             ON CONFLICT (slot) DO UPDATE SET game_id = excluded.game_id, player_mark = excluded.player_mark",
        )
        .bind(id)
        .bind(player_mark.to_string())
        .execute(&self.pool)
        .await?;
        Ok(())
    }
}

/// Seats `player` in game `id`, its token hashed to `token_hash`, and logs it as
/// entry `seq`.
async fn seat(
    tx: &mut Transaction<'_, Sqlite>,
    id: i64,
    seq: i64,
    player: Player,
    token_hash: &[u8],
) -> Result<StoredEntry, Error> {
    sqlx::query("INSERT INTO seats (game_id, player, token_hash) VALUES (?, ?, ?)")
        .bind(id)
        .bind(player.to_string())
        .bind(token_hash)
        .execute(&mut **tx)
        .await?;
    let seated = NewEntry { event: Event::SeatTaken(player), by_bot: false };
    Ok(EntryRow::insert(tx, id, seq, &seated).await?)
}

impl From<sqlx::Error> for Error {
    fn from(error: sqlx::Error) -> Error {
        match error {
            sqlx::Error::PoolTimedOut | sqlx::Error::PoolClosed | sqlx::Error::Io(_) => {
                Error::Unavailable(format!("the database does not answer: {error}"))
            }
            other => Error::Internal(format!("database error: {other}")),
        }
    }
}
