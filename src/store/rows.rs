//! Rows as SQLite holds them, and their checked conversion to and from engine types.

use serde::Deserialize;
use sqlx::{FromRow, QueryBuilder, Sqlite, SqliteExecutor};

use super::{Event, ListedGame, NewEntry, Status, StoredEntry, StoredGame};
use crate::bot::Level;
use crate::engine::{Action, Actor, GameResult, LogEntry, MoveNumber, Player, Square, Variant};
use crate::error::Error;

#[derive(FromRow)]
pub(super) struct GameRow {
    id: i64,
    variant: String,
    created_at: String,
    bot_level: Option<String>,
    bot_mistake_chance: Option<f64>,
    x_token_hash: Option<Vec<u8>>,
    o_token_hash: Option<Vec<u8>>,
    /// The log entries as a JSON array of arrays, in the column order of [`EntryRow`].
    log: String,
}

impl GameRow {
    pub(super) fn into_game(self) -> Result<StoredGame, Error> {
        let entries: Vec<EntryRow> = serde_json::from_str(&self.log).map_err(|e| corrupt("log", &e.to_string()))?;
        let log: Vec<StoredEntry> = entries.into_iter().map(EntryRow::into_entry).collect::<Result<_, _>>()?;
        if !log.iter().zip(1..).all(|(entry, seq)| entry.seq == seq) {
            return Err(corrupt("seq", "a log with gaps"));
        }
        let token_hashes = [(Player::X, self.x_token_hash), (Player::O, self.o_token_hash)]
            .into_iter()
            .filter_map(|(player, hash)| Some((player, hash?)))
            .collect();
        let opponent = match (self.bot_level.as_deref(), self.bot_mistake_chance) {
            (None, _) => None,
            (Some("random"), _) => Some(Level::Random),
            (Some("perfect"), _) => Some(Level::Perfect),
            (Some("parasite"), chance) => {
                Some(Level::Parasite { mistake_chance: chance.unwrap_or(Level::DEFAULT_MISTAKE_CHANCE) })
            }
            (Some(other), _) => return Err(corrupt("bot_level", other)),
        };
        Ok(StoredGame {
            id: self.id,
            variant: variant(&self.variant)?,
            created_at: self.created_at,
            opponent,
            log,
            token_hashes,
        })
    }
}

#[derive(FromRow)]
pub(super) struct SummaryRow {
    id: i64,
    variant: String,
    created_at: String,
    version: i64,
    status: String,
    result: String,
}

impl SummaryRow {
    pub(super) fn into_listed(self) -> Result<ListedGame, Error> {
        let status = [Status::Waiting, Status::Ongoing, Status::Finished]
            .into_iter()
            .find(|s| s.code() == self.status)
            .ok_or_else(|| corrupt("status", &self.status))?;
        let result = [GameResult::Ongoing, GameResult::XWins, GameResult::OWins, GameResult::Draw]
            .into_iter()
            .find(|r| r.code() == self.result)
            .ok_or_else(|| corrupt("result", &self.result))?;
        Ok(ListedGame {
            id: self.id,
            variant: variant(&self.variant)?,
            created_at: self.created_at,
            version: self.version,
            status,
            result,
        })
    }
}

/// One log entry as `load_game` reads it: a JSON array of these columns, in order.
#[derive(Deserialize)]
pub(super) struct EntryRow {
    seq: i64,
    kind: String,
    actor: String,
    square_a: Option<i64>,
    square_b: Option<i64>,
    closing_move: Option<i64>,
    collapse_square: Option<i64>,
    by_bot: u8,
    created_at: String,
}

/// Writes `entries` as the entries after `after` of game `game_id`, in one
/// statement, and returns them as stored.
pub(super) async fn insert_entries(
    executor: impl SqliteExecutor<'_>,
    game_id: i64,
    after: i64,
    entries: &[NewEntry],
) -> Result<Vec<StoredEntry>, sqlx::Error> {
    let mut insert = QueryBuilder::<Sqlite>::new(
        "INSERT INTO log_entries (game_id, seq, kind, actor, square_a, square_b, closing_move, collapse_square, by_bot) ",
    );
    insert.push_values((after + 1..).zip(entries), |mut row, (seq, entry)| {
        let (kind, actor, squares, collapse) = match entry.event {
            Event::SeatTaken(player) => ("seat", player.to_string(), None, None),
            Event::Action(LogEntry { actor, action }) => {
                let actor = match actor {
                    Actor::Player(player) => player.to_string(),
                    Actor::Measurement => "measurement".to_string(),
                };
                match action {
                    Action::Move { squares } => ("move", actor, Some(squares), None),
                    Action::Collapse { move_number, square } => ("collapse", actor, None, Some((move_number, square))),
                }
            }
        };
        let square_index = |square: Square| square.index() as i64;
        row.push_bind(game_id)
            .push_bind(seq)
            .push_bind(kind)
            .push_bind(actor)
            .push_bind(squares.map(|[a, _]| square_index(a)))
            .push_bind(squares.map(|[_, b]| square_index(b)))
            .push_bind(collapse.map(|(number, _)| i64::from(number)))
            .push_bind(collapse.map(|(_, square)| square_index(square)))
            .push_bind(entry.by_bot);
    });
    insert.push(" RETURNING seq, created_at");
    let mut stamped: Vec<(i64, String)> = insert.build_query_as().fetch_all(executor).await?;
    // RETURNING gives its rows in no set order.
    stamped.sort_unstable();
    Ok(stamped
        .into_iter()
        .zip(entries)
        .map(|((seq, created_at), entry)| StoredEntry { seq, created_at, event: entry.event, by_bot: entry.by_bot })
        .collect())
}

impl EntryRow {
    pub(super) fn into_entry(self) -> Result<StoredEntry, Error> {
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
                    square: square(self.collapse_square)?,
                },
            }),
            other => return Err(corrupt("kind", other)),
        };
        Ok(StoredEntry { seq: self.seq, created_at: self.created_at, event, by_bot: self.by_bot != 0 })
    }
}

pub(super) fn player(text: &str) -> Result<Player, Error> {
    text.chars().next().filter(|_| text.len() == 1).and_then(Player::from_letter).ok_or_else(|| corrupt("player", text))
}

fn variant(text: &str) -> Result<Variant, Error> {
    [Variant::PlayerChoice, Variant::Measurement]
        .into_iter()
        .find(|v| v.code() == text)
        .ok_or_else(|| corrupt("variant", text))
}

/// A stored value the code cannot read: the database is corrupt, never the client's fault.
fn corrupt(column: &str, value: &str) -> Error {
    Error::Internal(format!("corrupt database: {column} {value:?}"))
}

pub(super) fn is_unique_violation(error: &sqlx::Error) -> bool {
    error.as_database_error().is_some_and(|e| e.is_unique_violation())
}
