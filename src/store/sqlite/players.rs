//! Players, their games and events, challenges and seeks in SQLite. Each write
//! is one job of the writer, which no other write comes between: a count and
//! the insert it allows, or a pairing and the seeks it closes, are one.

use std::sync::LazyLock;

use rusqlite::{Connection, OptionalExtension, Row, params};

use super::{SqliteStore, as_written, insert_game, insert_player_events, is_unique_violation, rows_of};
use crate::rating::Rating;
use crate::record::{
    ChallengeId, ChallengeStatus, GameId, Holder, ListedGame, NewChallenge, Page, PlayerEventKind, PlayerId, Results,
    SeekId, SeekStatus, Status, StoredChallenge, StoredPlayer, StoredPlayerEvent, StoredSeek, Subject, stamp,
};
use crate::store::players::{NewSeek, Sought, Started};
use crate::store::rows::{
    CHALLENGES_WITH_PLAYERS, RESULT_COUNTS, challenge_columns, challenge_from_row, listed_game_from_row,
    listing_columns, optional_time, player_columns, player_event_columns, player_event_from_row, player_from_row,
    results_from_row, seek_and_holder_from_row, seek_columns, seek_from_row,
};
use crate::store::{StoreError, events_about};

const INSERT_PLAYER: &str = "INSERT INTO players (name, name_key, token_hash, created_at) VALUES (?, ?, ?, ?)";
static PLAYER_BY_TOKEN: LazyLock<String> = LazyLock::new(|| {
    format!("SELECT {}, last_seen_at FROM players WHERE token_hash = ?", player_columns("players", as_written))
});
static PLAYER_BY_NAME: LazyLock<String> =
    LazyLock::new(|| format!("SELECT {} FROM players WHERE name_key = ?", player_columns("players", as_written)));
static PLAYER: LazyLock<String> =
    LazyLock::new(|| format!("SELECT {} FROM players WHERE id = ?", player_columns("players", as_written)));
const SET_PLAYER_TOKEN: &str = "UPDATE players SET token_hash = ? WHERE id = ?";
const TOUCH_PLAYER: &str = "UPDATE players SET last_seen_at = ?2 WHERE id = ?1";
const TOUCH_SEAT: &str = "UPDATE seats SET last_seen_at = ?3 WHERE game_id = ?1 AND player = ?2";
/// A player's games along `seats_by_player`, newest first from below the page's start.
pub(super) static PLAYER_GAMES: LazyLock<String> = LazyLock::new(|| {
    format!(
        "SELECT {} FROM seats JOIN games ON games.id = seats.game_id WHERE seats.player_id = ?1 \
         AND (?2 IS NULL OR games.status = ?2) AND seats.game_id < ?3 \
         ORDER BY seats.game_id DESC LIMIT ?4",
        listing_columns(as_written)
    )
});
static LISTED_GAMES: LazyLock<String> = LazyLock::new(|| {
    format!("SELECT {} FROM games WHERE id IN (SELECT value FROM json_each(?1))", listing_columns(as_written))
});
static PLAYER_RESULTS: LazyLock<String> = LazyLock::new(|| {
    format!(
        "SELECT {RESULT_COUNTS} FROM seats JOIN games ON games.id = seats.game_id \
         WHERE seats.player_id = ? AND games.status = 'finished'"
    )
});
static PLAYER_EVENTS: LazyLock<String> = LazyLock::new(|| {
    format!(
        "SELECT {} FROM player_events WHERE player_id = ? AND seq > ? ORDER BY seq LIMIT ?",
        player_event_columns(as_written)
    )
});
const OPEN_CHALLENGES_SENT: &str =
    "SELECT count(*) FROM challenges WHERE challenger_id = ? AND status = 'open' AND expires_at > ?";
const INSERT_CHALLENGE: &str = "INSERT INTO challenges (challenger_id, challenged_id, variant, clock_initial_ms, \
     clock_increment_ms, colour, status, created_at, expires_at, rated) VALUES (?, ?, ?, ?, ?, ?, 'open', ?, ?, ?)";
static CHALLENGE: LazyLock<String> = LazyLock::new(|| {
    format!("SELECT {} FROM {CHALLENGES_WITH_PLAYERS} WHERE challenges.id = ?", challenge_columns(as_written))
});
static OPEN_CHALLENGES: LazyLock<String> = LazyLock::new(|| {
    format!(
        "SELECT {} FROM {CHALLENGES_WITH_PLAYERS} WHERE challenges.status = 'open' AND challenges.expires_at > ?2 \
         AND (challenges.challenger_id = ?1 OR challenges.challenged_id = ?1) ORDER BY challenges.id DESC",
        challenge_columns(as_written)
    )
});
/// Closes an open challenge that has not expired: `?1` when, `?2` which, `?3`
/// its new status, `?4` a reason for declining it.
const CLOSE_CHALLENGE: &str = "UPDATE challenges SET status = ?3, decline_reason = ?4, answered_at = ?1 \
     WHERE id = ?2 AND status = 'open' AND expires_at > ?1";
const SET_CHALLENGE_GAME: &str = "UPDATE challenges SET game_id = ? WHERE id = ?";
const OPEN_SEEKS: &str = "SELECT count(*) FROM seeks WHERE player_id = ? AND status = 'open' AND expires_at > ?";
/// The oldest open seek of the same terms and another player, with that
/// player, whose rating lies in the range `?7`..`?8` and whose seek's range
/// holds the rating of player `?4`: a player's rating in the variant, or the
/// start's when they have none.
static PARTNER: LazyLock<String> = LazyLock::new(|| {
    format!(
        "SELECT {}, players.name, players.token_hash, players.last_seen_at FROM seeks \
         JOIN players ON players.id = seeks.player_id \
         LEFT JOIN ratings ON ratings.player_id = seeks.player_id AND ratings.variant = seeks.variant \
         WHERE seeks.status = 'open' AND seeks.variant = ?1 AND seeks.clock_initial_ms IS ?2 \
         AND seeks.clock_increment_ms IS ?3 AND seeks.player_id <> ?4 AND seeks.expires_at > ?5 AND seeks.rated = ?6 \
         AND coalesce(ratings.rating, {START}) BETWEEN coalesce(?7, -1e9) AND coalesce(?8, 1e9) \
         AND coalesce((SELECT rating FROM ratings WHERE player_id = ?4 AND variant = ?1), {START}) \
         BETWEEN coalesce(seeks.rating_min, -1e9) AND coalesce(seeks.rating_max, 1e9) \
         ORDER BY seeks.created_at, seeks.id LIMIT 1",
        seek_columns(as_written),
        START = Rating::START.rating,
    )
});
const INSERT_SEEK: &str = "INSERT INTO seeks (player_id, variant, clock_initial_ms, clock_increment_ms, status, \
     game_id, created_at, expires_at, rated, rating_min, rating_max) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
const PAIR_SEEK: &str = "UPDATE seeks SET status = 'paired', game_id = ? WHERE id = ?";
static SEEK: LazyLock<String> =
    LazyLock::new(|| format!("SELECT {} FROM seeks WHERE id = ?", seek_columns(as_written)));
const CANCEL_SEEK: &str = "UPDATE seeks SET status = 'cancelled' WHERE id = ? AND status = 'open'";

impl SqliteStore {
    pub(in crate::store) async fn create_player(
        &self,
        name: String,
        key: String,
        token_hash: Vec<u8>,
        at: String,
    ) -> Result<PlayerId, StoreError> {
        self.writer
            .write(move |tx| match tx.prepare_cached(INSERT_PLAYER)?.execute(params![name, key, token_hash, at]) {
                Err(error) if is_unique_violation(&error) => Ok(Err(StoreError::NameTaken)),
                inserted => {
                    inserted?;
                    Ok(Ok(PlayerId::new(tx.last_insert_rowid())))
                }
            })
            .await
    }

    pub(in crate::store) async fn player_by_token(
        &self,
        token_hash: Vec<u8>,
    ) -> Result<Option<(StoredPlayer, Option<jiff::Timestamp>)>, StoreError> {
        self.readers
            .run(move |connection| {
                let mut query = connection.prepare_cached(&PLAYER_BY_TOKEN)?;
                let row = query.query_row([token_hash], |row| Ok(player_and_last_seen(row))).optional()?;
                row.transpose()
            })
            .await
    }

    pub(in crate::store) async fn player_by_name(&self, key: String) -> Result<Option<StoredPlayer>, StoreError> {
        self.one_player(&PLAYER_BY_NAME, key).await
    }

    pub(in crate::store) async fn player(&self, id: PlayerId) -> Result<Option<StoredPlayer>, StoreError> {
        self.one_player(&PLAYER, id).await
    }

    /// The player `statement` finds by `key`.
    async fn one_player(
        &self,
        statement: &'static str,
        key: impl rusqlite::ToSql + Send + 'static,
    ) -> Result<Option<StoredPlayer>, StoreError> {
        self.readers
            .run(move |connection| {
                let mut query = connection.prepare_cached(statement)?;
                query.query_row([key], |row| Ok(player_from_row(row, 0))).optional()?.transpose()
            })
            .await
    }

    pub(in crate::store) async fn set_player_token(&self, id: PlayerId, token_hash: Vec<u8>) -> Result<(), StoreError> {
        self.execute(SET_PLAYER_TOKEN, move |statement| statement.execute(params![token_hash, id])).await
    }

    pub(in crate::store) async fn touch_player(&self, id: PlayerId, at: String) -> Result<(), StoreError> {
        self.execute(TOUCH_PLAYER, move |statement| statement.execute(params![id, at])).await
    }

    pub(in crate::store) async fn touch_seat(&self, game: GameId, seat: String, at: String) -> Result<(), StoreError> {
        self.execute(TOUCH_SEAT, move |statement| statement.execute(params![game, seat, at])).await
    }

    /// Runs `statement` as `run` binds it, on the writer.
    async fn execute(
        &self,
        statement: &'static str,
        run: impl FnOnce(&mut rusqlite::CachedStatement<'_>) -> rusqlite::Result<usize> + Send + 'static,
    ) -> Result<(), StoreError> {
        self.writer.write(move |tx| run(&mut tx.prepare_cached(statement)?).map(|_| Ok(())).map_err(Into::into)).await
    }

    pub(in crate::store) async fn player_games(&self, id: PlayerId, page: Page) -> Result<Vec<ListedGame>, StoreError> {
        self.readers
            .run(move |connection| {
                let values = params![id, page.status.map(Status::code), page.below(), page.limit];
                rows_of(connection, &PLAYER_GAMES, values, |row| listed_game_from_row(row))
            })
            .await
    }

    pub(in crate::store) async fn listed_games(&self, ids: Vec<GameId>) -> Result<Vec<ListedGame>, StoreError> {
        let ids = serde_json::to_string(&ids).expect("ids serialise");
        self.readers
            .run(move |connection| rows_of(connection, &LISTED_GAMES, [ids], |row| listed_game_from_row(row)))
            .await
    }

    pub(in crate::store) async fn player_results(&self, id: PlayerId) -> Result<Results, StoreError> {
        self.readers
            .run(move |connection| {
                connection.prepare_cached(&PLAYER_RESULTS)?.query_row([id], |row| Ok(results_from_row(row)))?
            })
            .await
    }

    pub(in crate::store) async fn player_events(
        &self,
        id: PlayerId,
        after: i64,
        most: u32,
    ) -> Result<Vec<StoredPlayerEvent>, StoreError> {
        self.readers
            .run(move |connection| {
                rows_of(connection, &PLAYER_EVENTS, params![id, after, most], |row| player_event_from_row(row))
            })
            .await
    }

    pub(in crate::store) async fn create_challenge(
        &self,
        new: NewChallenge,
        most_open: u32,
        tell: Vec<(PlayerId, PlayerEventKind)>,
    ) -> Result<Option<ChallengeId>, StoreError> {
        self.writer
            .write(move |tx| {
                let created_at = stamp(new.created_at);
                let open: u32 = tx
                    .prepare_cached(OPEN_CHALLENGES_SENT)?
                    .query_row(params![new.challenger, created_at], |row| row.get(0))?;
                if open >= most_open {
                    return Ok(Ok(None));
                }
                let clock = new.terms.clock.map(|clock| (clock.initial_ms, clock.increment_ms));
                tx.prepare_cached(INSERT_CHALLENGE)?.execute(params![
                    new.challenger,
                    new.challenged,
                    new.terms.variant.code(),
                    clock.map(|(initial, _)| initial),
                    clock.map(|(_, increment)| increment),
                    new.colour.code(),
                    created_at,
                    stamp(new.expires_at),
                    new.terms.rated
                ])?;
                let id = ChallengeId::new(tx.last_insert_rowid());
                insert_player_events(tx, &events_about(Subject::Challenge(id), &tell), new.created_at)?;
                Ok(Ok(Some(id)))
            })
            .await
    }

    pub(in crate::store) async fn challenge(&self, id: ChallengeId) -> Result<Option<StoredChallenge>, StoreError> {
        self.readers
            .run(move |connection| {
                let mut query = connection.prepare_cached(&CHALLENGE)?;
                query.query_row([id], |row| Ok(challenge_from_row(row))).optional()?.transpose()
            })
            .await
    }

    pub(in crate::store) async fn open_challenges(
        &self,
        id: PlayerId,
        now: String,
    ) -> Result<Vec<StoredChallenge>, StoreError> {
        self.readers
            .run(move |connection| {
                rows_of(connection, &OPEN_CHALLENGES, params![id, now], |row| challenge_from_row(row))
            })
            .await
    }

    pub(in crate::store) async fn close_challenge(
        &self,
        id: ChallengeId,
        status: ChallengeStatus,
        reason: Option<String>,
        at: jiff::Timestamp,
        tell: Vec<(PlayerId, PlayerEventKind)>,
    ) -> Result<bool, StoreError> {
        self.writer
            .write(move |tx| {
                if !close(tx, id, at, status, reason.as_deref())? {
                    return Ok(Ok(false));
                }
                insert_player_events(tx, &events_about(Subject::Challenge(id), &tell), at)?;
                Ok(Ok(true))
            })
            .await
    }

    pub(in crate::store) async fn accept_challenge(
        &self,
        id: ChallengeId,
        at: jiff::Timestamp,
        started: Started,
        tell: Vec<(PlayerId, PlayerEventKind)>,
    ) -> Result<Option<GameId>, StoreError> {
        self.writer
            .write(move |tx| {
                if !close(tx, id, at, ChallengeStatus::Accepted, None)? {
                    return Ok(Ok(None));
                }
                let (game, game_events) = &started;
                let game_id = insert_game(tx, game, None, game_events)?;
                tx.prepare_cached(SET_CHALLENGE_GAME)?.execute(params![game_id, id])?;
                insert_player_events(tx, &events_about(Subject::Challenge(id), &tell), at)?;
                Ok(Ok(Some(game_id)))
            })
            .await
    }

    pub(in crate::store) async fn seek<E: Send + 'static>(
        &self,
        new: NewSeek,
        most_open: u32,
        pair: impl FnOnce(&StoredSeek, Holder) -> Result<Started, E> + Send + 'static,
    ) -> Result<Result<Sought, E>, StoreError> {
        self.writer
            .write(move |tx| {
                let created_at = stamp(new.created_at);
                let open: u32 =
                    tx.prepare_cached(OPEN_SEEKS)?.query_row(params![new.player, created_at], |row| row.get(0))?;
                if open >= most_open {
                    return Ok(Ok(Ok(Sought::TooMany)));
                }
                let clock = new.terms.clock.map(|clock| (clock.initial_ms, clock.increment_ms));
                let partner = tx
                    .prepare_cached(&PARTNER)?
                    .query_row(
                        params![
                            new.terms.variant.code(),
                            clock.map(|(initial, _)| initial),
                            clock.map(|(_, increment)| increment),
                            new.player,
                            created_at,
                            new.terms.rated,
                            new.rating_range.map(|range| range.min),
                            new.rating_range.map(|range| range.max)
                        ],
                        |row| Ok(seek_and_holder_from_row(row)),
                    )
                    .optional()?
                    .transpose()?;
                let Some((partner, holder)) = partner else {
                    let id = insert_seek(tx, &new, SeekStatus::Open, None)?;
                    return Ok(Ok(Ok(Sought::Waiting(id))));
                };
                let (mut game, game_events) = match pair(&partner, holder) {
                    Ok(started) => started,
                    Err(refused) => return Ok(Ok(Err(refused))),
                };
                game.id = insert_game(tx, &game, None, &game_events)?;
                let seek = insert_seek(tx, &new, SeekStatus::Paired, Some(game.id))?;
                tx.prepare_cached(PAIR_SEEK)?.execute(params![game.id, partner.id])?;
                Ok(Ok(Ok(Sought::Paired { seek, game: Box::new(game) })))
            })
            .await
    }

    pub(in crate::store) async fn seek_by_id(&self, id: SeekId) -> Result<Option<StoredSeek>, StoreError> {
        self.readers
            .run(move |connection| {
                let mut query = connection.prepare_cached(&SEEK)?;
                query.query_row([id], |row| Ok(seek_from_row(row))).optional()?.transpose()
            })
            .await
    }

    pub(in crate::store) async fn cancel_seek(&self, id: SeekId) -> Result<bool, StoreError> {
        self.writer.write(move |tx| Ok(Ok(tx.prepare_cached(CANCEL_SEEK)?.execute([id])? > 0))).await
    }

    /// The page that `statement` (a table's, see [`crate::store::tables`])
    /// reads after `after`: its rows as JSON, their count, the last key.
    pub(in crate::store) async fn rows_after(
        &self,
        statement: &'static str,
        after: (i64, i64),
        most: u32,
    ) -> Result<(String, u64, (i64, i64)), StoreError> {
        self.readers
            .run(move |connection| {
                let mut page = connection.prepare_cached(statement)?;
                let (json, count, first, second): (String, i64, Option<i64>, Option<i64>) = page
                    .query_row(params![after.0, after.1, most], |row| {
                        Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?))
                    })?;
                let count = u64::try_from(count).unwrap_or_default();
                Ok((json, count, (first.unwrap_or(after.0), second.unwrap_or(0))))
            })
            .await
    }

    /// The count that `statement` answers.
    pub(in crate::store) async fn count_rows(&self, statement: &'static str) -> Result<u64, StoreError> {
        let count: i64 =
            self.readers.run(move |connection| Ok(connection.query_row(statement, [], |row| row.get(0))?)).await?;
        Ok(u64::try_from(count).unwrap_or_default())
    }
}

/// The player and their last sighting in `row`, read with [`PLAYER_BY_TOKEN`].
fn player_and_last_seen(row: &Row<'_>) -> Result<(StoredPlayer, Option<jiff::Timestamp>), StoreError> {
    Ok((player_from_row(row, 0)?, optional_time(row, 4)?))
}

/// Gives challenge `id` `status` at `at`, with `reason`, if it is open and has
/// not expired; answers whether it was.
fn close(
    tx: &Connection,
    id: ChallengeId,
    at: jiff::Timestamp,
    status: ChallengeStatus,
    reason: Option<&str>,
) -> rusqlite::Result<bool> {
    Ok(tx.prepare_cached(CLOSE_CHALLENGE)?.execute(params![stamp(at), id, status.code(), reason])? > 0)
}

/// Writes seek `new` with `status` and the game it was paired into; answers its id.
fn insert_seek(
    tx: &Connection,
    new: &NewSeek,
    status: SeekStatus,
    game_id: Option<GameId>,
) -> rusqlite::Result<SeekId> {
    let clock = new.terms.clock.map(|clock| (clock.initial_ms, clock.increment_ms));
    tx.prepare_cached(INSERT_SEEK)?.execute(params![
        new.player,
        new.terms.variant.code(),
        clock.map(|(initial, _)| initial),
        clock.map(|(_, increment)| increment),
        status.code(),
        game_id,
        stamp(new.created_at),
        stamp(new.expires_at),
        new.terms.rated,
        new.rating_range.map(|range| range.min),
        new.rating_range.map(|range| range.max)
    ])?;
    Ok(SeekId::new(tx.last_insert_rowid()))
}
