//! Arenas as the store keeps them: the tournament, who joined it, and its
//! games as its standings are scored from them.

use jiff::Timestamp;

use super::{ArenaId, ClockSettings, GameId, Holder, PlayerId, Terms, Username};
use crate::bot::Bot;
use crate::engine::{Player, Scoring, Variant};

/// An arena as its creator asks for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArenaSettings {
    /// Its name.
    pub name: String,
    /// The collapse rule of its games.
    pub variant: Variant,
    /// How its games' lines score.
    pub scoring: Scoring,
    /// The clock of its games.
    pub clock: ClockSettings,
    /// How long it runs, in minutes.
    pub minutes: u32,
    /// When it starts; a few minutes from its creation when not given.
    pub starts_at: Option<Timestamp>,
    /// Whether its games are rated.
    pub rated: bool,
    /// Whether bots may play.
    pub bots: bool,
}

/// What an arena plays, and when: its settings, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArenaTerms {
    /// Its name.
    pub name: String,
    /// The collapse rule of its games.
    pub variant: Variant,
    /// How its games' lines score.
    pub scoring: Scoring,
    /// The clock of its games.
    pub clock: ClockSettings,
    /// Whether its games are rated.
    pub rated: bool,
    /// Whether bots may play.
    pub bots: bool,
    /// When its first pairing is made.
    pub starts_at: Timestamp,
    /// When nobody is paired any more.
    pub ends_at: Timestamp,
}

/// An arena to create, before the database gives it an id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewArena {
    /// What it plays, and when.
    pub terms: ArenaTerms,
    /// Who creates it.
    pub created_by: PlayerId,
    /// When.
    pub created_at: Timestamp,
}

/// An arena as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredArena {
    /// Its id.
    pub id: ArenaId,
    /// What it plays, and when.
    pub terms: ArenaTerms,
    /// The name of who created it.
    pub created_by: Username,
    /// When.
    pub created_at: Timestamp,
}

/// Where an arena stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArenaStatus {
    /// Players may join; nobody is paired yet.
    Upcoming,
    /// Whoever is free is paired.
    Running,
    /// Nobody is paired any more; games begun before the end are played out.
    Finished,
}

impl ArenaStatus {
    /// Every status.
    pub const ALL: [ArenaStatus; 3] = [ArenaStatus::Upcoming, ArenaStatus::Running, ArenaStatus::Finished];

    /// The name used in the API.
    pub fn code(self) -> &'static str {
        match self {
            ArenaStatus::Upcoming => "upcoming",
            ArenaStatus::Running => "running",
            ArenaStatus::Finished => "finished",
        }
    }
}

impl ArenaTerms {
    /// Where the arena stands at `now`.
    pub fn status_at(&self, now: Timestamp) -> ArenaStatus {
        if now < self.starts_at {
            ArenaStatus::Upcoming
        } else if now < self.ends_at {
            ArenaStatus::Running
        } else {
            ArenaStatus::Finished
        }
    }

    /// The terms of its games.
    pub fn game_terms(&self) -> Terms {
        Terms { variant: self.variant, scoring: self.scoring, clock: Some(self.clock), rated: self.rated }
    }
}

/// A player who joined an arena.
#[derive(Debug, Clone, PartialEq)]
pub struct ArenaPlayer {
    /// The player, as a seat would hold them.
    pub holder: Holder,
    /// The server's bot they are, if they are one: always present, and in
    /// as many games outside the arena as people ask of it.
    pub server_bot: Option<Bot>,
    /// Their rating in the arena's variant (the start's before their first rated game).
    pub rating: f64,
    /// When they first joined.
    pub joined_at: Timestamp,
    /// Whether they withdrew: they keep their points and are not paired.
    pub withdrawn: bool,
    /// Whether they play a game now: a person anywhere, a server's bot in this arena.
    pub playing: bool,
}

/// One of an arena's games, as the standings and the pairing read it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArenaGame {
    /// The game's id.
    pub id: GameId,
    /// X's player and O's.
    pub players: [PlayerId; 2],
    /// Who won, `None` for a draw; the outer `None` while it goes on, or
    /// when it was aborted (which counts for nobody).
    pub result: Option<Option<Player>>,
    /// Whether it goes on.
    pub ongoing: bool,
}

impl ArenaGame {
    /// The seat `player` holds in it, if any.
    pub fn seat_of(&self, player: PlayerId) -> Option<Player> {
        match self.players {
            [x, _] if x == player => Some(Player::X),
            [_, o] if o == player => Some(Player::O),
            _ => None,
        }
    }
}

/// An arena with its players and its games, those that ended first first
/// (then those that go on, in the order they began): what its standings and
/// its pairing are decided on.
#[derive(Debug, Clone, PartialEq)]
pub struct ArenaState {
    /// The arena.
    pub arena: StoredArena,
    /// Who joined it, in the order they did.
    pub players: Vec<ArenaPlayer>,
    /// Its games.
    pub games: Vec<ArenaGame>,
}

/// What became of a request to join an arena.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Joined {
    /// They joined it.
    Joined,
    /// They had withdrawn and are back.
    Back,
    /// They are in it already.
    Already,
}
