//! Rows as the database holds them, and their checked conversion to and from the
//! service's types: the same columns on every backend.

use jiff::Timestamp;
use serde::Deserialize;

use super::StoreError;
use crate::bot::Bot;
use crate::engine::{Action, Actor, GameResult, LogEntry, MoveNumber, Player, Square, Variant};
use crate::rating::Rating;
use crate::record::{
    AttemptId, ChallengeId, ClockSettings, End, EndReason, Ending, Event, GameId, Holder, PlayerId, PuzzleId,
    SeatRating, SeekId, Status, StoredEntry, StoredGame, StoredSeat, Summary, Username, stamp,
};

/// A row as any backend gives it, read column by column, so that what each
/// column holds is written here once for every backend.
pub(super) trait Columns {
    /// The value of column `index`, counted from 0.
    fn column<T: Value>(&self, index: usize) -> Result<T, StoreError>;
}

/// A value that every backend reads from a column.
pub(super) trait Value:
    rusqlite::types::FromSql + for<'r> sqlx::Decode<'r, sqlx::Postgres> + sqlx::Type<sqlx::Postgres>
{
}

impl<T> Value for T where
    T: rusqlite::types::FromSql + for<'r> sqlx::Decode<'r, sqlx::Postgres> + sqlx::Type<sqlx::Postgres>
{
}

/// Binds and reads an id of the record's (`GameId`, `PlayerId`, ...) as the
/// BIGINT column it is on every backend.
macro_rules! id_column {
    ($($id:ty),*) => {$(
        impl rusqlite::types::ToSql for $id {
            fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
                Ok(self.get().into())
            }
        }

        impl rusqlite::types::FromSql for $id {
            fn column_result(value: rusqlite::types::ValueRef<'_>) -> rusqlite::types::FromSqlResult<$id> {
                i64::column_result(value).map(<$id>::new)
            }
        }

        impl sqlx::Type<sqlx::Postgres> for $id {
            fn type_info() -> sqlx::postgres::PgTypeInfo {
                <i64 as sqlx::Type<sqlx::Postgres>>::type_info()
            }
        }

        impl sqlx::postgres::PgHasArrayType for $id {
            fn array_type_info() -> sqlx::postgres::PgTypeInfo {
                <i64 as sqlx::postgres::PgHasArrayType>::array_type_info()
            }
        }

        impl sqlx::Encode<'_, sqlx::Postgres> for $id {
            fn encode_by_ref(
                &self,
                buffer: &mut sqlx::postgres::PgArgumentBuffer,
            ) -> Result<sqlx::encode::IsNull, sqlx::error::BoxDynError> {
                <i64 as sqlx::Encode<'_, sqlx::Postgres>>::encode_by_ref(&self.get(), buffer)
            }
        }

        impl sqlx::Decode<'_, sqlx::Postgres> for $id {
            fn decode(value: sqlx::postgres::PgValueRef<'_>) -> Result<$id, sqlx::error::BoxDynError> {
                <i64 as sqlx::Decode<'_, sqlx::Postgres>>::decode(value).map(<$id>::new)
            }
        }
    )*};
}

id_column!(GameId, PlayerId, ChallengeId, SeekId, PuzzleId, AttemptId);

/// The columns a game is read with, as [`stored_game_from_row`] reads them, its
/// times given by `time`, the backend's expression for a column's RFC 3339 text.
pub(super) fn game_columns(time: impl Fn(&str) -> String) -> String {
    format!(
        "id, variant, {}, bot, mistake_chance, hints, clock_initial_ms, clock_increment_ms, rematch_of, \
         status, result, end_reason, end_player, {}, {}, invite_hash, rated, {}",
        time("created_at"),
        time("deadline"),
        time("ended_at"),
        seat_rating_columns()
    )
}

/// The columns of a rated game's seats' ratings, X's then O's, each its
/// rating, deviation and change, as [`seat_ratings_from_row`] reads them: as
/// its rating wrote them, or, until then, as the seat's holder (a player, or
/// the bot) is rated now; nulls for a casual game and a free seat.
pub(super) fn seat_rating_columns() -> String {
    let start = Rating::START;
    let columns = |seat: &str| {
        let holder = holder_id(seat);
        let change = |column: &str| {
            format!(
                "(SELECT {column} FROM rating_changes \
                 WHERE rating_changes.game_id = games.id AND rating_changes.seat = '{seat}')"
            )
        };
        let now = |column: &str| {
            format!(
                "(SELECT {column} FROM ratings WHERE ratings.player_id = {holder} AND ratings.variant = games.variant)"
            )
        };
        let held = |value: String| format!("CASE WHEN games.rated AND {holder} IS NOT NULL THEN {value} END");
        let name = seat.to_lowercase();
        [
            held(format!("coalesce({}, {}, {})", change("rating_before"), now("rating"), start.rating))
                + " AS "
                + &name
                + "_rating",
            held(format!("coalesce({}, {}, {})", change("deviation_before"), now("deviation"), start.deviation))
                + " AS "
                + &name
                + "_deviation",
            held(change("rating_after - rating_before")) + " AS " + &name + "_rating_diff",
        ]
        .join(", ")
    };
    format!("{}, {}", columns("X"), columns("O"))
}

/// X's and O's ratings in `row` from column `first` on, read with
/// [`seat_rating_columns`].
fn seat_ratings_from_row(row: &impl Columns, first: usize) -> Result<[Option<SeatRating>; 2], StoreError> {
    let seat = |first: usize| -> Result<Option<SeatRating>, StoreError> {
        let (rating, deviation): (Option<f64>, Option<f64>) = (row.column(first)?, row.column(first + 1)?);
        let rating_diff = row.column(first + 2)?;
        Ok(rating.zip(deviation).map(|(rating, deviation)| SeatRating { rating, deviation, rating_diff }))
    };
    Ok([seat(first)?, seat(first + 3)?])
}

/// The bot in `row`'s columns `first` (its level) and the one after (its
/// mistake chance).
fn bot_from_row(row: &impl Columns, first: usize) -> Result<Option<Bot>, StoreError> {
    bot_of(row.column::<Option<String>>(first)?.as_deref(), row.column(first + 1)?)
}

/// The bot whose columns hold `code` and `mistake_chance`.
pub(super) fn bot_of(code: Option<&str>, mistake_chance: Option<f64>) -> Result<Option<Bot>, StoreError> {
    Ok(match (code, mistake_chance) {
        (None, _) => None,
        (Some("random"), _) => Some(Bot::Random),
        (Some("perfect"), _) => Some(Bot::Perfect),
        (Some("parasite"), chance) => {
            Some(Bot::Parasite { mistake_chance: chance.unwrap_or(Bot::DEFAULT_MISTAKE_CHANCE) })
        }
        (Some(other), _) => return Err(corrupt("bot", other)),
    })
}

/// The summary in `row`, from column `first` on, in the order of
/// [`SummaryColumns`]' fields.
fn summary_from_row(row: &impl Columns, first: usize) -> Result<Summary, StoreError> {
    SummaryColumns {
        status: row.column(first)?,
        result: row.column(first + 1)?,
        end_reason: row.column(first + 2)?,
        end_player: row.column(first + 3)?,
        deadline: row.column(first + 4)?,
        ended_at: row.column(first + 5)?,
    }
    .into_summary()
}

/// A game's summary as its columns hold it.
pub(super) struct SummaryColumns {
    pub status: String,
    pub result: String,
    pub end_reason: Option<String>,
    pub end_player: Option<String>,
    pub deadline: Option<String>,
    pub ended_at: Option<String>,
}

impl SummaryColumns {
    /// The columns of `summary`, to write.
    pub(super) fn of(summary: &Summary) -> SummaryColumns {
        SummaryColumns {
            status: summary.status.code().to_string(),
            result: summary.result.code().to_string(),
            end_reason: summary.end.map(|end| end.reason.code().to_string()),
            end_player: summary.end.and_then(|end| end.player).map(|player| player.to_string()),
            deadline: summary.deadline.map(stamp),
            ended_at: summary.ended_at.map(stamp),
        }
    }

    fn into_summary(self) -> Result<Summary, StoreError> {
        let (deadline, ended_at) =
            (self.deadline.as_deref().map(time).transpose()?, self.ended_at.as_deref().map(time).transpose()?);
        summary_of(
            &self.status,
            &self.result,
            self.end_reason.as_deref(),
            self.end_player.as_deref(),
            deadline,
            ended_at,
        )
    }
}

/// The summary whose columns hold these values.
pub(super) fn summary_of(
    status: &str,
    result: &str,
    end_reason: Option<&str>,
    end_player: Option<&str>,
    deadline: Option<Timestamp>,
    ended_at: Option<Timestamp>,
) -> Result<Summary, StoreError> {
    let status = [Status::Waiting, Status::Ongoing, Status::Finished]
        .into_iter()
        .find(|s| s.code() == status)
        .ok_or_else(|| corrupt("status", status))?;
    let result = [GameResult::Ongoing, GameResult::XWins, GameResult::OWins, GameResult::Draw, GameResult::Aborted]
        .into_iter()
        .find(|r| r.code() == result)
        .ok_or_else(|| corrupt("result", result))?;
    let end = match end_reason {
        None => None,
        Some(reason) => Some(End {
            reason: EndReason::ALL
                .into_iter()
                .find(|r| r.code() == reason)
                .ok_or_else(|| corrupt("end_reason", reason))?,
            player: end_player.map(player).transpose()?,
        }),
    };
    Ok(Summary { status, result, end, deadline, ended_at })
}

/// The game in `row`, read with [`game_columns`], its `log` (its entries in
/// order) and its `seats`.
pub(super) fn stored_game_from_row(
    row: &impl Columns,
    log: Vec<EntryRow>,
    seats: Vec<SeatRow>,
) -> Result<StoredGame, StoreError> {
    let log: Vec<StoredEntry> = log.into_iter().map(EntryRow::into_entry).collect::<Result<_, _>>()?;
    if !log.iter().zip(1..).all(|(entry, seq)| entry.seq == seq) {
        return Err(corrupt("seq", "a log with gaps"));
    }
    let opponent = bot_from_row(row, 3)?;
    let clock = clock_from_row(row, 6)?;
    Ok(StoredGame {
        id: row.column(0)?,
        variant: variant(&row.column::<String>(1)?)?,
        created_at: time(&row.column::<String>(2)?)?,
        opponent,
        hints: row.column(5)?,
        clock,
        rematch_of: row.column(8)?,
        summary: summary_from_row(row, 9)?,
        log,
        seats: seats.into_iter().map(SeatRow::into_seat).collect::<Result<_, _>>()?,
        invite_hash: row.column(15)?,
        rated: row.column(16)?,
        ratings: seat_ratings_from_row(row, 17)?,
    })
}

/// The columns a game's seats are read with, in the order of [`SeatRow`]'s
/// fields, each with its holder's, its times given by `time` as for
/// [`game_columns`], and its hashes by `bytes`, the backend's expression for a
/// binary column (as it is, or as text in JSON).
pub(super) fn seat_columns(time: impl Fn(&str) -> String, bytes: impl Fn(&str) -> String) -> String {
    format!(
        "seats.player, {}, {}, seats.player_id, players.name, {}, {}",
        bytes("seats.token_hash"),
        time("seats.last_seen_at"),
        bytes("players.token_hash"),
        time("players.last_seen_at")
    )
}

/// The tables a game's seats are read from: each seat with its holder, if it has one.
pub(super) const SEATS_WITH_HOLDERS: &str = "seats LEFT JOIN players ON players.id = seats.player_id";

/// A seat as its columns hold it, with its holder's, or the JSON array of them in this order.
#[derive(Deserialize)]
pub(super) struct SeatRow {
    pub player: String,
    #[serde(deserialize_with = "hex_bytes")]
    pub token_hash: Vec<u8>,
    pub last_seen_at: Option<String>,
    pub player_id: Option<PlayerId>,
    pub name: Option<String>,
    #[serde(deserialize_with = "hex_bytes_or_none")]
    pub player_token_hash: Option<Vec<u8>>,
    pub player_last_seen_at: Option<String>,
}

impl SeatRow {
    /// The seat in `row`, read with [`seat_columns`].
    pub(super) fn from_row(row: &impl Columns) -> Result<SeatRow, StoreError> {
        Ok(SeatRow {
            player: row.column(0)?,
            token_hash: row.column(1)?,
            last_seen_at: row.column(2)?,
            player_id: row.column(3)?,
            name: row.column(4)?,
            player_token_hash: row.column(5)?,
            player_last_seen_at: row.column(6)?,
        })
    }

    /// The rows of `seats`, a JSON array of such arrays, their hashes in hex.
    pub(super) fn from_json(seats: &str) -> Result<Vec<SeatRow>, StoreError> {
        serde_json::from_str(seats).map_err(|error| corrupt("seats", &error.to_string()))
    }

    fn into_seat(self) -> Result<StoredSeat, StoreError> {
        let holder = match (self.player_id, self.name, self.player_token_hash) {
            (None, _, _) => None,
            (Some(id), Some(name), Some(token_hash)) => Some(Holder {
                id,
                name: Username::parse(&name).map_err(|_| corrupt("name", &name))?,
                token_hash,
                last_seen_at: self.player_last_seen_at.as_deref().map(time).transpose()?,
            }),
            (Some(id), ..) => return Err(corrupt("player_id", &id.to_string())),
        };
        Ok(StoredSeat {
            player: player(&self.player)?,
            token_hash: self.token_hash,
            holder,
            last_seen_at: self.last_seen_at.as_deref().map(time).transpose()?,
        })
    }
}

/// Bytes written in hex, as PostgreSQL's `encode(..., 'hex')` writes them in JSON.
fn hex_bytes<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Vec<u8>, D::Error> {
    from_hex(&String::deserialize(deserializer)?).ok_or_else(|| serde::de::Error::custom("not hex"))
}

fn hex_bytes_or_none<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<Vec<u8>>, D::Error> {
    match Option::<String>::deserialize(deserializer)? {
        None => Ok(None),
        Some(text) => from_hex(&text).map(Some).ok_or_else(|| serde::de::Error::custom("not hex")),
    }
}

fn from_hex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len()).step_by(2).map(|at| u8::from_str_radix(text.get(at..at + 2)?, 16).ok()).collect()
}

/// A row of `log_entries`, or the JSON array of its columns in this order.
#[derive(Deserialize)]
pub(super) struct EntryRow {
    pub seq: i64,
    pub kind: String,
    pub actor: String,
    pub square_a: Option<i64>,
    pub square_b: Option<i64>,
    pub closing_move: Option<i64>,
    pub square: Option<i64>,
    pub rematch: Option<GameId>,
    pub by_bot: bool,
    pub created_at: String,
}

/// The columns an entry is read with, in the order of [`EntryRow`]'s fields, its
/// creation time as `created_at` (the backend's expression for its RFC 3339 text).
pub(super) fn entry_columns(created_at: &str) -> String {
    format!("seq, kind, actor, square_a, square_b, closing_move, square, rematch, by_bot, {created_at}")
}

/// The columns of an entry to write: the game's id, then those of [`EntryRow`]
/// in the order of its fields.
pub(super) const NEW_ENTRY_COLUMNS: &str =
    "game_id, seq, kind, actor, square_a, square_b, closing_move, square, rematch, by_bot, created_at";

impl From<&StoredEntry> for EntryRow {
    fn from(entry: &StoredEntry) -> EntryRow {
        let square_number = |square: Square| i64::from(square.number());
        let row = |kind: &str, actor: String| EntryRow {
            seq: entry.seq,
            kind: kind.to_string(),
            actor,
            square_a: None,
            square_b: None,
            closing_move: None,
            square: None,
            rematch: None,
            by_bot: entry.by_bot,
            created_at: stamp(entry.created_at),
        };
        match entry.event {
            Event::SeatTaken(player) => row("seat", player.to_string()),
            Event::Action(LogEntry { actor, action }) => {
                let actor = match actor {
                    Actor::Player(player) => player.to_string(),
                    Actor::Measurement => "measurement".to_string(),
                };
                match action {
                    Action::Move { squares: [a, b] } => EntryRow {
                        square_a: Some(square_number(a)),
                        square_b: Some(square_number(b)),
                        ..row("move", actor)
                    },
                    Action::Collapse { move_number, square } => EntryRow {
                        closing_move: Some(i64::from(move_number)),
                        square: Some(square_number(square)),
                        ..row("collapse", actor)
                    },
                }
            }
            Event::Ended(Ending::Resign(player)) => row("resign", player.to_string()),
            Event::Ended(Ending::Timeout(player)) => row("timeout", player.to_string()),
            Event::Ended(Ending::Abort(player)) => row("abort", player.map_or("server".into(), |p| p.to_string())),
            Event::Ended(Ending::Abandon(player)) => row("abandon", player.to_string()),
            Event::Rematch { player, game_id } => {
                EntryRow { rematch: Some(game_id), ..row("rematch", player.to_string()) }
            }
        }
    }
}

impl EntryRow {
    /// The entry in `row`, read with [`entry_columns`].
    pub(super) fn from_row(row: &impl Columns) -> Result<EntryRow, StoreError> {
        Ok(EntryRow {
            seq: row.column(0)?,
            kind: row.column(1)?,
            actor: row.column(2)?,
            square_a: row.column(3)?,
            square_b: row.column(4)?,
            closing_move: row.column(5)?,
            square: row.column(6)?,
            rematch: row.column(7)?,
            by_bot: row.column(8)?,
            created_at: row.column(9)?,
        })
    }

    /// The rows of `log`, a JSON array of such arrays.
    pub(super) fn from_json(log: &str) -> Result<Vec<EntryRow>, StoreError> {
        serde_json::from_str(log).map_err(|error| corrupt("log", &error.to_string()))
    }

    pub(super) fn into_entry(self) -> Result<StoredEntry, StoreError> {
        let square = |value: Option<i64>| {
            value.and_then(|v| Square::try_from(v).ok()).ok_or_else(|| corrupt("square", &format!("{value:?}")))
        };
        let event = match self.kind.as_str() {
            "seat" => Event::SeatTaken(player(&self.actor)?),
            "move" => Event::Action(LogEntry {
                actor: Actor::Player(player(&self.actor)?),
                action: Action::Move { squares: [square(self.square_a)?, square(self.square_b)?] },
            }),
            "collapse" => Event::Action(LogEntry {
                actor: match self.actor.as_str() {
                    "measurement" => Actor::Measurement,
                    other => Actor::Player(player(other)?),
                },
                action: Action::Collapse {
                    move_number: self
                        .closing_move
                        .and_then(|m| MoveNumber::try_from(m).ok())
                        .ok_or_else(|| corrupt("closing_move", &format!("{:?}", self.closing_move)))?,
                    square: square(self.square)?,
                },
            }),
            "resign" => Event::Ended(Ending::Resign(player(&self.actor)?)),
            "timeout" => Event::Ended(Ending::Timeout(player(&self.actor)?)),
            "abort" => Event::Ended(Ending::Abort(match self.actor.as_str() {
                "server" => None,
                other => Some(player(other)?),
            })),
            "abandon" => Event::Ended(Ending::Abandon(player(&self.actor)?)),
            "rematch" => Event::Rematch {
                player: player(&self.actor)?,
                game_id: self.rematch.ok_or_else(|| corrupt("rematch", "none"))?,
            },
            other => return Err(corrupt("kind", other)),
        };
        Ok(StoredEntry { seq: self.seq, created_at: time(&self.created_at)?, event, by_bot: self.by_bot })
    }
}

pub(super) fn player(text: &str) -> Result<Player, StoreError> {
    text.chars().next().filter(|_| text.len() == 1).and_then(Player::from_letter).ok_or_else(|| corrupt("player", text))
}

pub(super) fn variant(text: &str) -> Result<Variant, StoreError> {
    [Variant::PlayerChoice, Variant::Measurement]
        .into_iter()
        .find(|v| v.code() == text)
        .ok_or_else(|| corrupt("variant", text))
}

/// The time a column's RFC 3339 text holds.
fn time(text: &str) -> Result<Timestamp, StoreError> {
    text.parse().map_err(|_| corrupt("time", text))
}

/// A stored value the code cannot read: the database is corrupt, never the client's fault.
pub(super) fn corrupt(column: &str, value: &str) -> StoreError {
    StoreError::Corrupt(format!("{column} {value:?}"))
}

/// A player's name as stored.
pub(super) fn username(name: &str) -> Result<Username, StoreError> {
    Username::parse(name).map_err(|_| corrupt("name", name))
}

/// The clock in `row`'s columns `first` (its initial time) and the one after (its increment).
fn clock_from_row(row: &impl Columns, first: usize) -> Result<Option<ClockSettings>, StoreError> {
    clock_of(row.column(first)?, row.column(first + 1)?)
}

/// The clock whose columns hold `initial_ms` and `increment_ms`: none or both.
pub(super) fn clock_of(
    initial_ms: Option<i64>,
    increment_ms: Option<i64>,
) -> Result<Option<ClockSettings>, StoreError> {
    match (initial_ms, increment_ms) {
        (Some(initial_ms), Some(increment_ms)) => Ok(Some(ClockSettings { initial_ms, increment_ms })),
        (None, None) => Ok(None),
        other => Err(corrupt("clock", &format!("{other:?}"))),
    }
}

/// The player who holds seat `seat` of the game of the row: a player, or the
/// bot's own player.
pub(super) fn holder_id(seat: &str) -> String {
    format!(
        "coalesce((SELECT seats.player_id FROM seats WHERE seats.game_id = games.id AND seats.player = '{seat}'), \
         (SELECT players.id FROM players WHERE players.bot = games.bot))"
    )
}

/// The bot a game is played against, as its column holds it.
pub(super) fn bot_code(game: &StoredGame) -> Option<&'static str> {
    game.opponent.map(Bot::code)
}

/// The parasite's chance of a mistake, as its column holds it.
pub(super) fn mistake_chance(game: &StoredGame) -> Option<f64> {
    game.opponent.and_then(|bot| match bot {
        Bot::Parasite { mistake_chance } => Some(mistake_chance),
        Bot::Random | Bot::Perfect => None,
    })
}
