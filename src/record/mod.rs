//! A game's record, the words that the store keeps and the service and the API
//! speak: a game as stored, its log entries, how it ended, its summary and its
//! listing. Pure: below both the store, which converts its rows into these, and
//! the service, which replays them.

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::bot::Bot;
use crate::engine::{GameResult, LogEntry, Player, Rules, Scoring, Variant};

mod arenas;
mod players;
mod puzzles;
mod ratings;

pub use arenas::*;
pub use players::*;
pub use puzzles::*;
pub use ratings::*;

/// An id that the database gives: a number of its own type for each kind of
/// row, so that a game's id is never taken for a player's, nor for a version, a
/// count or a time. It binds and reads as a BIGINT on every backend, and is a
/// plain integer in JSON and in the URLs.
macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(i64);

        impl $name {
            /// The row whose id is `id`.
            #[must_use]
            pub const fn new(id: i64) -> $name {
                $name(id)
            }

            /// The id as a number, for the database and the URLs.
            #[must_use]
            pub const fn get(self) -> i64 {
                self.0
            }
        }

        impl std::str::FromStr for $name {
            type Err = std::num::ParseIntError;

            fn from_str(text: &str) -> Result<$name, Self::Err> {
                text.parse().map($name)
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                self.0.fmt(formatter)
            }
        }
    };
}

id_type!(
    /// A game's id: the number that the API's paths, the database's rows and the
    /// live streams know a game by.
    GameId
);

id_type!(
    /// A player's id: the database's, never shown; the API knows a player by name.
    PlayerId
);

id_type!(
    /// A challenge's id.
    ChallengeId
);

id_type!(
    /// A seek's id.
    SeekId
);

id_type!(
    /// An arena's id.
    ArenaId
);

id_type!(
    /// A puzzle's id.
    PuzzleId
);

id_type!(
    /// An attempt's id: an attempt at a puzzle, step by step.
    AttemptId
);

/// `at` as the database and the API write a time: RFC 3339 in UTC, to the
/// millisecond, always with three digits, so that the text of two times sorts
/// as the times do.
#[must_use]
pub fn stamp(at: Timestamp) -> String {
    format!("{at:.3}")
}

/// A Fischer clock: each player's time at the start, and what each of their
/// actions adds to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClockSettings {
    /// Each player's time when the clock starts, in milliseconds.
    pub initial_ms: i64,
    /// The time each action of a player adds to their clock, in milliseconds.
    pub increment_ms: i64,
}

impl ClockSettings {
    /// The shortest clock a game may have: one second.
    pub(crate) const MIN_INITIAL_MS: i64 = 1_000;
    /// The longest: seven days.
    pub(crate) const MAX_INITIAL_MS: i64 = 7 * 24 * 3_600_000;
    /// The largest increment: an hour.
    pub(crate) const MAX_INCREMENT_MS: i64 = 3_600_000;
}

/// Why a game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EndReason {
    /// A collapse made a line.
    Lines,
    /// The board filled without a line.
    FullBoard,
    /// A player resigned.
    Resignation,
    /// A player's clock ran out.
    Timeout,
    /// A seat holder called the game off before it got going, or nobody took the
    /// free seat in time.
    Aborted,
    /// The player to act walked away, and the other claimed the game.
    Abandoned,
    /// One player offered a draw, and the other accepted it.
    Agreement,
    /// In a clocked game, a player made no first move in time: nothing is
    /// decided.
    NoFirstMove,
}

impl EndReason {
    /// Every reason, for listings and tests.
    pub const ALL: [EndReason; 8] = [
        EndReason::Lines,
        EndReason::FullBoard,
        EndReason::Resignation,
        EndReason::Timeout,
        EndReason::Aborted,
        EndReason::Abandoned,
        EndReason::Agreement,
        EndReason::NoFirstMove,
    ];

    /// The name used in the database and the API.
    pub fn code(self) -> &'static str {
        match self {
            EndReason::Lines => "lines",
            EndReason::FullBoard => "full_board",
            EndReason::Resignation => "resignation",
            EndReason::Timeout => "timeout",
            EndReason::Aborted => "aborted",
            EndReason::Abandoned => "abandoned",
            EndReason::Agreement => "agreement",
            EndReason::NoFirstMove => "no_first_move",
        }
    }
}

/// How a game ended: why, and the player it was about (who resigned, ran out of
/// time, aborted or walked away; none for the rules' ends and for an abort by
/// the server).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct End {
    /// Why.
    pub reason: EndReason,
    /// Whose doing, or whose clock.
    pub player: Option<Player>,
}

/// An ending the log records beside the rules' actions, each named as its log
/// entry's kind is in the database and the API (`resign`, `timeout`, `abort`,
/// `abandon`, `agreement`, `no_first_move`);
/// the game's [`EndReason`] then names why it ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// The player resigned: the other wins.
    Resign(Player),
    /// The player's clock ran out: the other wins.
    Timeout(Player),
    /// The game was called off, by a seat holder or (`None`) by the server.
    Abort(Option<Player>),
    /// The player, to act, walked away, and the other claimed the game: the
    /// other wins.
    Abandon(Player),
    /// The player accepted the other's offer of a draw.
    Agreement(Player),
    /// The player, in a clocked game, made no first move in time: an abort.
    NoFirstMove(Player),
}

impl Ending {
    /// How the game ended, as its view shows it.
    pub fn end(self) -> End {
        match self {
            Ending::Resign(player) => End { reason: EndReason::Resignation, player: Some(player) },
            Ending::Timeout(player) => End { reason: EndReason::Timeout, player: Some(player) },
            Ending::Abort(player) => End { reason: EndReason::Aborted, player },
            Ending::Abandon(player) => End { reason: EndReason::Abandoned, player: Some(player) },
            Ending::Agreement(player) => End { reason: EndReason::Agreement, player: Some(player) },
            Ending::NoFirstMove(player) => End { reason: EndReason::NoFirstMove, player: Some(player) },
        }
    }
}

/// Something that happened to a game, as its log keeps it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// A player took a seat.
    SeatTaken(Player),
    /// A move or a collapse outcome, as the engine logs it.
    Action(LogEntry),
    /// An ending beside the rules: a resignation, a timeout or an abort.
    Ended(Ending),
    /// The player offered a draw: it stands until the other accepts or
    /// declines it, or until the next action of either.
    DrawOffer(Player),
    /// The player declined the other's offer of a draw.
    DrawDecline(Player),
    /// `player` asked for a rematch, which is played in game `game_id`.
    Rematch {
        /// Who asked first.
        player: Player,
        /// The new game.
        game_id: GameId,
    },
}

/// One entry of a stored log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredEntry {
    /// The entry's place in the log, from 1; the game's version is the last one.
    pub seq: i64,
    /// When it was written, to the millisecond.
    pub created_at: Timestamp,
    /// What happened.
    pub event: Event,
    /// Whether the game's bot did it.
    pub by_bot: bool,
}

/// A game as stored: its identity and its whole log.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredGame {
    /// The game's id.
    pub id: GameId,
    /// Its collapse rule.
    pub variant: Variant,
    /// How its lines score.
    pub scoring: Scoring,
    /// When it was created, to the millisecond.
    pub created_at: Timestamp,
    /// The bot that holds the seat the creator left, in a game against the computer.
    pub opponent: Option<Bot>,
    /// Whether hints are given while the game goes on.
    pub hints: bool,
    /// Whether its end changes its players' ratings.
    pub rated: bool,
    /// Its clock, if it is a timed game.
    pub clock: Option<ClockSettings>,
    /// The game this one is the rematch of, if it is one: its free seat is kept
    /// for the other player of that game.
    pub rematch_of: Option<GameId>,
    /// The arena it was paired in, if it was.
    pub arena: Option<ArenaId>,
    /// Its summary as stored, which a write updates when it changes.
    pub summary: Summary,
    /// Its log, in order.
    pub log: Vec<StoredEntry>,
    /// The seats taken by people, each with its token's hash and its holder, if
    /// a player took it; a bot's seat is in the log alone.
    pub seats: Vec<StoredSeat>,
    /// A private game's invite's hash: joining it needs the invite. A private
    /// game is not listed.
    pub invite_hash: Option<Vec<u8>>,
    /// In a rated game, X's and O's ratings, for each seat held; as read, not
    /// written.
    pub ratings: [Option<SeatRating>; 2],
}

impl StoredGame {
    /// The rules it is played by.
    pub fn rules(&self) -> Rules {
        Rules { variant: self.variant, scoring: self.scoring }
    }

    /// The sequence number of the last entry: every write moves it on by one or more.
    pub fn version(&self) -> i64 {
        self.log.last().map_or(0, |entry| entry.seq)
    }

    /// The seat for which the token hashing to `token_hash` acts, if any: the
    /// seat's own token, or its holder's.
    pub(crate) fn seat_of(&self, token_hash: &[u8]) -> Option<Player> {
        self.seats.iter().find(|seat| seat.is_held_by(token_hash)).map(|seat| seat.player)
    }

    /// Seat `player`, if a person took it.
    pub fn seat(&self, player: Player) -> Option<&StoredSeat> {
        self.seats.iter().find(|seat| seat.player == player)
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
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    /// Waiting, ongoing or finished.
    pub status: Status,
    /// The result so far.
    pub result: GameResult,
    /// How it ended, once it has.
    pub end: Option<End>,
    /// When the running clock runs out, in a timed game: the server's timer looks
    /// for games past theirs.
    pub deadline: Option<Timestamp>,
    /// When it ended, once it has: the server deletes the games that ended before
    /// the retention period.
    pub ended_at: Option<Timestamp>,
}

impl Summary {
    /// A new game's: waiting for its players.
    pub(crate) const WAITING: Summary =
        Summary { status: Status::Waiting, result: GameResult::Ongoing, end: None, deadline: None, ended_at: None };
}

/// What a new game is to be.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GameSettings {
    /// Its collapse rule.
    pub variant: Variant,
    /// How its lines score.
    pub scoring: Scoring,
    /// The seat its creator takes.
    pub play_as: Player,
    /// The bot that takes the other seat, in a game against the computer.
    pub opponent: Option<Bot>,
    /// Whether hints are given while the game goes on; by default only against a
    /// bot: between two people a hint would be an advisor at the table.
    pub hints: Option<bool>,
    /// A clock, for a timed game.
    pub clock: Option<ClockSettings>,
    /// Whether the game is private: not listed, and joined only with its invite.
    pub private: bool,
    /// Whether its end changes its players' ratings: a rated game is between
    /// two players, or a player and a bot, and gives no hints.
    pub rated: bool,
}

/// A page of a listing of games, newest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Page {
    /// Only games with this status, when given.
    pub status: Option<Status>,
    /// Only games with ids below this one, when given: the page after the one
    /// that ended there.
    pub before: Option<GameId>,
    /// At most this many games.
    pub limit: u32,
}

impl Page {
    /// The id the page's games are below: `before`, or above every id for the
    /// first page. Bound as a number every time, it gives the statement one
    /// plan, which starts along its index where the page starts.
    #[must_use]
    pub fn below(&self) -> GameId {
        self.before.unwrap_or(GameId::new(i64::MAX))
    }
}

/// One game of a listing.
#[derive(Debug, Clone, PartialEq)]
pub struct ListedGame {
    /// The game's id.
    pub id: GameId,
    /// Its collapse rule.
    pub variant: Variant,
    /// How its lines score.
    pub scoring: Scoring,
    /// When it was created.
    pub created_at: Timestamp,
    /// Its version.
    pub version: i64,
    /// Waiting, ongoing or finished.
    pub status: Status,
    /// Its result so far.
    pub result: GameResult,
    /// How it ended, once it has.
    pub end: Option<End>,
    /// The seats players took, with their names; an anonymous seat, a bot's
    /// and a free one are not here.
    pub holders: Vec<(Player, Username)>,
    /// The bot that holds a seat, in a game against one.
    pub opponent: Option<Bot>,
    /// Whether its end changes its players' ratings.
    pub rated: bool,
    /// Its clock, if it is a timed game.
    pub clock: Option<ClockSettings>,
    /// In a rated game, X's and O's ratings, for each seat held.
    pub ratings: [Option<SeatRating>; 2],
    /// The arena that paired it, if one did.
    pub arena: Option<ArenaId>,
}

impl ListedGame {
    /// The name of the player who holds seat `player`, if one does.
    pub fn holder(&self, player: Player) -> Option<String> {
        self.holders.iter().find(|(seat, _)| *seat == player).map(|(_, name)| name.to_string())
    }
}

/// A write to one game's log, decided on the version it was read at: its
/// entries follow that version, and the first of them cannot land if another
/// write took its sequence number first.
#[derive(Debug, Clone, PartialEq)]
pub struct Write {
    /// A seat taken, with the hash of its token and its holder.
    pub seat: Option<StoredSeat>,
    /// The entries to append, numbered and stamped.
    pub entries: Vec<StoredEntry>,
    /// The game's new summary, when the entries change it.
    pub summary: Option<Summary>,
    /// What the write tells the players who hold its seats: their game started
    /// or finished. Written with it, each the next of its player's events.
    pub player_events: Vec<(PlayerId, PlayerEventKind)>,
    /// A rated game's end, which changes its players' ratings in the same
    /// transaction.
    pub rated: Option<RatedEnd>,
}

impl Write {
    /// Whether it finishes the game: the one write whose summary changes to finished.
    pub fn finishes(&self) -> bool {
        self.summary.as_ref().is_some_and(|summary| summary.status == Status::Finished)
    }

    /// The version of the game once this write lands.
    pub fn version(&self) -> i64 {
        self.entries.last().map_or(0, |entry| entry.seq)
    }

    /// `game` as it is once this write lands on it.
    pub(crate) fn applied_to(&self, mut game: StoredGame) -> StoredGame {
        game.seats.extend(self.seat.clone());
        game.log.extend(self.entries.iter().cloned());
        if let Some(summary) = &self.summary {
            game.summary = summary.clone();
        }
        game
    }
}

/// The entry a new game's creation writes in the game it is the rematch of: by
/// `player`, at sequence number `seq` of game `game_id`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RematchOf {
    /// The finished game.
    pub game_id: GameId,
    /// The entry's place in that game's log: a rematch asked for by both players
    /// at once lands once.
    pub seq: i64,
    /// Who asked for it.
    pub player: Player,
}
