//! Rows as the database holds them, and their checked conversion to and from the
//! service's types: the same columns on every backend.

use jiff::Timestamp;
use serde::Deserialize;

use super::StoreError;
use crate::bot::Bot;
use crate::engine::{Action, Actor, GameResult, LogEntry, MoveNumber, Player, Square, Variant};
use crate::record::{
    ClockSettings, End, EndReason, Ending, Event, GameId, ListedGame, Status, StoredEntry, StoredGame, Summary, stamp,
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

// A game's id is a BIGINT column on every backend, and binds and reads as one.
impl rusqlite::types::ToSql for GameId {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        Ok(self.get().into())
    }
}

impl rusqlite::types::FromSql for GameId {
    fn column_result(value: rusqlite::types::ValueRef<'_>) -> rusqlite::types::FromSqlResult<GameId> {
        i64::column_result(value).map(GameId::new)
    }
}

impl sqlx::Type<sqlx::Postgres> for GameId {
    fn type_info() -> sqlx::postgres::PgTypeInfo {
        <i64 as sqlx::Type<sqlx::Postgres>>::type_info()
    }
}

impl sqlx::postgres::PgHasArrayType for GameId {
    fn array_type_info() -> sqlx::postgres::PgTypeInfo {
        <i64 as sqlx::postgres::PgHasArrayType>::array_type_info()
    }
}

impl sqlx::Encode<'_, sqlx::Postgres> for GameId {
    fn encode_by_ref(
        &self,
        buffer: &mut sqlx::postgres::PgArgumentBuffer,
    ) -> Result<sqlx::encode::IsNull, sqlx::error::BoxDynError> {
        <i64 as sqlx::Encode<'_, sqlx::Postgres>>::encode_by_ref(&self.get(), buffer)
    }
}

impl sqlx::Decode<'_, sqlx::Postgres> for GameId {
    fn decode(value: sqlx::postgres::PgValueRef<'_>) -> Result<GameId, sqlx::error::BoxDynError> {
        <i64 as sqlx::Decode<'_, sqlx::Postgres>>::decode(value).map(GameId::new)
    }
}

/// The columns a game is read with, as [`stored_game_from_row`] reads them, its
/// times given by `time`, the backend's expression for a column's RFC 3339 text.
pub(super) fn game_columns(time: impl Fn(&str) -> String) -> String {
    format!(
        "id, variant, {}, bot, mistake_chance, hints, clock_initial_ms, clock_increment_ms, rematch_of, \
         status, result, end_reason, end_player, {}, {}, \
         (SELECT token_hash FROM seats WHERE game_id = games.id AND player = 'X') AS x_token_hash, \
         (SELECT token_hash FROM seats WHERE game_id = games.id AND player = 'O') AS o_token_hash, invite_hash",
        time("created_at"),
        time("deadline"),
        time("ended_at")
    )
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
        let status = [Status::Waiting, Status::Ongoing, Status::Finished]
            .into_iter()
            .find(|s| s.code() == self.status)
            .ok_or_else(|| corrupt("status", &self.status))?;
        let result = [GameResult::Ongoing, GameResult::XWins, GameResult::OWins, GameResult::Draw, GameResult::Aborted]
            .into_iter()
            .find(|r| r.code() == self.result)
            .ok_or_else(|| corrupt("result", &self.result))?;
        let end = match self.end_reason {
            None => None,
            Some(reason) => Some(End {
                reason: EndReason::ALL
                    .into_iter()
                    .find(|r| r.code() == reason)
                    .ok_or_else(|| corrupt("end_reason", &reason))?,
                player: self.end_player.as_deref().map(player).transpose()?,
            }),
        };
        let (deadline, ended_at) =
            (self.deadline.as_deref().map(time).transpose()?, self.ended_at.as_deref().map(time).transpose()?);
        Ok(Summary { status, result, end, deadline, ended_at })
    }
}

/// The game in `row`, read with [`game_columns`], and `log`: its entries in order.
pub(super) fn stored_game_from_row(row: &impl Columns, log: Vec<EntryRow>) -> Result<StoredGame, StoreError> {
    let log: Vec<StoredEntry> = log.into_iter().map(EntryRow::into_entry).collect::<Result<_, _>>()?;
    if !log.iter().zip(1..).all(|(entry, seq)| entry.seq == seq) {
        return Err(corrupt("seq", "a log with gaps"));
    }
    let token_hashes = [(Player::X, row.column(15)?), (Player::O, row.column(16)?)]
        .into_iter()
        .filter_map(|(player, hash): (Player, Option<Vec<u8>>)| Some((player, hash?)))
        .collect();
    let opponent = match (row.column::<Option<String>>(3)?.as_deref(), row.column::<Option<f64>>(4)?) {
        (None, _) => None,
        (Some("random"), _) => Some(Bot::Random),
        (Some("perfect"), _) => Some(Bot::Perfect),
        (Some("parasite"), chance) => {
            Some(Bot::Parasite { mistake_chance: chance.unwrap_or(Bot::DEFAULT_MISTAKE_CHANCE) })
        }
        (Some(other), _) => return Err(corrupt("bot", other)),
    };
    let clock = match (row.column(6)?, row.column(7)?) {
        (Some(initial_ms), Some(increment_ms)) => Some(ClockSettings { initial_ms, increment_ms }),
        (None, None) => None,
        other => return Err(corrupt("clock", &format!("{other:?}"))),
    };
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
        token_hashes,
        invite_hash: row.column(17)?,
    })
}

/// The columns of a listing's rows, as [`listed_game_from_row`] reads them, its
/// times given by `time` as for [`game_columns`].
pub(super) fn listing_columns(time: impl Fn(&str) -> String) -> String {
    format!(
        "id, variant, {}, (SELECT COALESCE(MAX(seq), 0) FROM log_entries WHERE game_id = games.id) AS version, \
         status, result, end_reason, end_player, {}, {}",
        time("created_at"),
        time("deadline"),
        time("ended_at")
    )
}

/// The game in `row`, a row of a listing read with [`listing_columns`].
pub(super) fn listed_game_from_row(row: &impl Columns) -> Result<ListedGame, StoreError> {
    let summary = summary_from_row(row, 4)?;
    Ok(ListedGame {
        id: row.column(0)?,
        variant: variant(&row.column::<String>(1)?)?,
        created_at: time(&row.column::<String>(2)?)?,
        version: row.column(3)?,
        status: summary.status,
        result: summary.result,
        end: summary.end,
    })
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

fn variant(text: &str) -> Result<Variant, StoreError> {
    [Variant::PlayerChoice, Variant::Measurement]
        .into_iter()
        .find(|v| v.code() == text)
        .ok_or_else(|| corrupt("variant", text))
}

/// A stored value the code cannot read: the database is corrupt, never the client's fault.
/// The time a column's RFC 3339 text holds.
fn time(text: &str) -> Result<Timestamp, StoreError> {
    text.parse().map_err(|_| corrupt("time", text))
}

fn corrupt(column: &str, value: &str) -> StoreError {
    StoreError::Corrupt(format!("{column} {value:?}"))
}
