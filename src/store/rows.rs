//! Rows as SQLite holds them, and their checked conversion to and from engine types.

use sqlx::{FromRow, Sqlite, Transaction};

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
}

impl GameRow {
    pub(super) fn into_game(self, log: Vec<StoredEntry>) -> Result<StoredGame, Error> {
        let opponent = match (self.bot_level.as_deref(), self.bot_mistake_chance) {
            (None, _) => None,
            (Some("random"), _) => Some(Level::Random),
            (Some("perfect"), _) => Some(Level::Perfect),
            (Some("parasite"), chance) => {
                Some(Level::Parasite { mistake_chance: chance.unwrap_or(Level::DEFAULT_MISTAKE_CHANCE) })
            }
            (Some(other), _) => return Err(corrupt("bot_level", other)),
        };
        Ok(StoredGame { id: self.id, variant: variant(&self.variant)?, created_at: self.created_at, opponent, log })
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

#[derive(FromRow)]
pub(super) struct EntryRow {
    seq: i64,
    kind: String,
    actor: String,
    square_a: Option<i64>,
    square_b: Option<i64>,
    closing_move: Option<i64>,
    collapse_square: Option<i64>,
    by_bot: bool,
    created_at: String,
}

impl EntryRow {
    /// Writes `event` as entry `seq` of game `game_id` and returns it as stored.
    pub(super) async fn insert(
        tx: &mut Transaction<'_, Sqlite>,
        game_id: i64,
        seq: i64,
        entry: &NewEntry,
    ) -> Result<StoredEntry, sqlx::Error> {
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
        let created_at: String = sqlx::query_scalar(
            "INSERT INTO log_entries \
             (game_id, seq, kind, actor, square_a, square_b, closing_move, collapse_square, by_bot) \
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING created_at",
        )
        .bind(game_id)
        .bind(seq)
        .bind(kind)
        .bind(actor)
        .bind(squares.map(|[a, _]| square_index(a)))
        .bind(squares.map(|[_, b]| square_index(b)))
        .bind(collapse.map(|(number, _)| i64::from(number)))
        .bind(collapse.map(|(_, square)| square_index(square)))
        .bind(entry.by_bot)
        .fetch_one(&mut **tx)
        .await?;
        Ok(StoredEntry { seq, created_at, event: entry.event, by_bot: entry.by_bot })
    }

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
        Ok(StoredEntry { seq: self.seq, created_at: self.created_at, event, by_bot: self.by_bot })
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
