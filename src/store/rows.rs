//! Rows as the database holds them, and their checked conversion to and from
//! engine types: the same columns on every backend.

use serde::Deserialize;

use super::{Event, ListedGame, NewEntry, Status, StoreError, StoredEntry, StoredGame};
use crate::bot::Bot;
use crate::engine::{Action, Actor, GameResult, LogEntry, MoveNumber, Player, Square, Variant};

/// A row of `games`, with its seats' token hashes.
pub(super) struct GameRow {
    pub id: i64,
    pub variant: String,
    pub created_at: String,
    pub bot: Option<String>,
    pub mistake_chance: Option<f64>,
    pub hints: bool,
    pub x_token_hash: Option<Vec<u8>>,
    pub o_token_hash: Option<Vec<u8>>,
}

/// The columns a game is read with, in the order of [`GameRow`]'s fields, its
/// creation time as `created_at` (the backend's expression for its RFC 3339 text).
pub(super) fn game_columns(created_at: &str) -> String {
    format!(
        "id, variant, {created_at}, bot, mistake_chance, hints, \
         (SELECT token_hash FROM seats WHERE game_id = games.id AND player = 'X') AS x_token_hash, \
         (SELECT token_hash FROM seats WHERE game_id = games.id AND player = 'O') AS o_token_hash"
    )
}

impl GameRow {
    /// The game, with `log`: its entries in order.
    pub(super) fn into_game(self, log: Vec<EntryRow>) -> Result<StoredGame, StoreError> {
        let log: Vec<StoredEntry> = log.into_iter().map(EntryRow::into_entry).collect::<Result<_, _>>()?;
        if !log.iter().zip(1..).all(|(entry, seq)| entry.seq == seq) {
            return Err(corrupt("seq", "a log with gaps"));
        }
        let token_hashes = [(Player::X, self.x_token_hash), (Player::O, self.o_token_hash)]
            .into_iter()
            .filter_map(|(player, hash)| Some((player, hash?)))
            .collect();
        let opponent = match (self.bot.as_deref(), self.mistake_chance) {
            (None, _) => None,
            (Some("random"), _) => Some(Bot::Random),
            (Some("perfect"), _) => Some(Bot::Perfect),
            (Some("parasite"), chance) => {
                Some(Bot::Parasite { mistake_chance: chance.unwrap_or(Bot::DEFAULT_MISTAKE_CHANCE) })
            }
            (Some(other), _) => return Err(corrupt("bot", other)),
        };
        Ok(StoredGame {
            id: self.id,
            variant: variant(&self.variant)?,
            created_at: self.created_at,
            opponent,
            hints: self.hints,
            log,
            token_hashes,
        })
    }
}

/// A row of a listing.
pub(super) struct SummaryRow {
    pub id: i64,
    pub variant: String,
    pub created_at: String,
    pub status: String,
    pub result: String,
    pub version: i64,
}

impl SummaryRow {
    pub(super) fn into_listed(self) -> Result<ListedGame, StoreError> {
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
    pub by_bot: bool,
    pub created_at: String,
}

/// The columns an entry is read with, in the order of [`EntryRow`]'s fields, its
/// creation time as `created_at` (the backend's expression for its RFC 3339 text).
pub(super) fn entry_columns(created_at: &str) -> String {
    format!("seq, kind, actor, square_a, square_b, closing_move, square, by_bot, {created_at}")
}

/// The columns of an entry to write, in the order of [`NewEntryRow`]'s fields
/// after the game's id and the sequence number.
pub(super) const NEW_ENTRY_COLUMNS: &str =
    "game_id, seq, kind, actor, square_a, square_b, closing_move, square, by_bot";

/// An entry to write, as columns.
pub(super) struct NewEntryRow {
    pub kind: &'static str,
    pub actor: String,
    pub square_a: Option<i64>,
    pub square_b: Option<i64>,
    pub closing_move: Option<i64>,
    pub square: Option<i64>,
    pub by_bot: bool,
}

impl From<&NewEntry> for NewEntryRow {
    fn from(entry: &NewEntry) -> NewEntryRow {
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
        let square_index = |square: Square| i64::from(square.number());
        NewEntryRow {
            kind,
            actor,
            square_a: squares.map(|[a, _]| square_index(a)),
            square_b: squares.map(|[_, b]| square_index(b)),
            closing_move: collapse.map(|(number, _)| i64::from(number)),
            square: collapse.map(|(_, square)| square_index(square)),
            by_bot: entry.by_bot,
        }
    }
}

impl EntryRow {
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
            other => return Err(corrupt("kind", other)),
        };
        Ok(StoredEntry { seq: self.seq, created_at: self.created_at, event, by_bot: self.by_bot })
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
fn corrupt(column: &str, value: &str) -> StoreError {
    StoreError::Corrupt(format!("{column} {value:?}"))
}
