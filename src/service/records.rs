//! The games as the service hands them to the API, defined above the store,
//! which converts its rows into them: a game as stored and as replayed, its log
//! entries, and a listing.

use crate::bot::Bot;
use crate::engine::{Action, Game, GameResult, LogEntry, MoveNumber, Player, Variant};
use crate::error::Error;

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
    pub opponent: Option<Bot>,
    /// Whether hints are given while the game goes on.
    pub hints: bool,
    /// Its log, in order.
    pub log: Vec<StoredEntry>,
    /// The hash of each seat's token; a bot's seat has none.
    pub token_hashes: Vec<(Player, Vec<u8>)>,
}

impl StoredGame {
    /// The sequence number of the last entry: every write moves it on by one or more.
    pub fn version(&self) -> i64 {
        self.log.last().map_or(0, |entry| entry.seq)
    }

    /// The seat whose token hashes to `token_hash`, if any.
    pub fn seat_of(&self, token_hash: &[u8]) -> Option<Player> {
        self.token_hashes.iter().find(|(_, hash)| hash == token_hash).map(|&(player, _)| player)
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

/// What a new game is to be.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GameSettings {
    /// Its collapse rule.
    pub variant: Variant,
    /// The seat its creator takes.
    pub play_as: Player,
    /// The bot that takes the other seat, in a game against the computer.
    pub opponent: Option<Bot>,
    /// Whether hints are given while the game goes on; by default only against a
    /// bot: between two people a hint would be an advisor at the table.
    pub hints: Option<bool>,
}

/// A page of a listing of games, newest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Page {
    /// Only games with this status, when given.
    pub status: Option<Status>,
    /// Only games with ids below this one, when given: the page after the one
    /// that ended there.
    pub before: Option<i64>,
    /// At most this many games.
    pub limit: u32,
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

/// A game as a request sees it: what is stored, and the state its log rebuilds.
#[derive(Debug, Clone)]
pub struct GameRecord {
    /// The stored game and its whole log.
    pub stored: StoredGame,
    /// The state, replayed from the log.
    pub game: Game,
}

impl GameRecord {
    /// Rebuilds the game from its stored log.
    ///
    /// # Errors
    /// [`Error::Internal`] when the log breaks a rule: it is corrupt, and it is never
    /// silently repaired.
    pub(super) fn replay(stored: StoredGame) -> Result<GameRecord, Error> {
        let actions: Vec<_> = stored
            .log
            .iter()
            .filter_map(|entry| match entry.event {
                Event::Action(action) => Some(action),
                Event::SeatTaken(_) => None,
            })
            .collect();
        let game = Game::replay(stored.variant, &actions)
            .map_err(|error| Error::Internal(format!("game {}: corrupt log: {error}", stored.id)))?;
        Ok(GameRecord { stored, game })
    }

    /// The game as it stood right after each entry of its log after sequence
    /// number `after`, in order: the last entry of each is the entry.
    ///
    /// # Errors
    /// [`Error::Internal`] when the log breaks a rule.
    pub fn history(&self, after: i64) -> Result<Vec<GameRecord>, Error> {
        let log = &self.stored.log;
        (0..log.len())
            .filter(|&index| log[index].seq > after)
            .map(|index| GameRecord::replay(StoredGame { log: log[..=index].to_vec(), ..self.stored.clone() }))
            .collect()
    }

    /// The game's version: the sequence number of its last log entry.
    pub fn version(&self) -> i64 {
        self.stored.version()
    }

    /// Its log, each entry with the number of its move when it is a move.
    pub fn numbered_log(&self) -> impl Iterator<Item = (&StoredEntry, Option<MoveNumber>)> {
        let mut moves = 0;
        self.stored.log.iter().map(move |entry| {
            let is_move = matches!(entry.event, Event::Action(LogEntry { action: Action::Move { .. }, .. }));
            moves += u8::from(is_move);
            (entry, is_move.then_some(moves))
        })
    }

    /// The seats nobody has taken yet.
    pub fn open_seats(&self) -> Vec<Player> {
        open_seats(&self.stored.log)
    }

    /// Waiting for a player, ongoing, or finished.
    pub fn status(&self) -> Status {
        summary(&self.game, &self.open_seats()).status
    }

    /// The seat the game's bot holds, in a game against the computer.
    pub fn bot_seat(&self) -> Option<Player> {
        bot_seat(&self.stored.log)
    }
}

pub(super) fn bot_seat(log: &[StoredEntry]) -> Option<Player> {
    log.iter().find_map(|entry| match entry.event {
        Event::SeatTaken(player) if entry.by_bot => Some(player),
        _ => None,
    })
}

pub(super) fn open_seats(log: &[StoredEntry]) -> Vec<Player> {
    [Player::X, Player::O]
        .into_iter()
        .filter(|&player| !log.iter().any(|entry| entry.event == Event::SeatTaken(player)))
        .collect()
}

pub(super) fn summary(game: &Game, open_seats: &[Player]) -> Summary {
    let status = if game.is_over() {
        Status::Finished
    } else if open_seats.is_empty() {
        Status::Ongoing
    } else {
        Status::Waiting
    };
    Summary { status, result: game.result() }
}
