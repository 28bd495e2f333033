//! The games as the service hands them to the API, defined above the store,
//! which converts its rows into them: a game as stored and as replayed, its log
//! entries, and a listing.

use super::life::{ClockSettings, ClockState, End, Ending, Life};
use super::time::{millis, stamp_of_millis};
use crate::bot::Bot;
use crate::engine::{Action, Actor, Game, GameResult, LogEntry, MoveNumber, Player, Variant};
use crate::error::Error;
use crate::store::Write;

/// Something that happened to a game, as its log keeps it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// A player took a seat.
    SeatTaken(Player),
    /// A move or a collapse outcome, as the engine logs it.
    Action(LogEntry),
    /// An ending beside the rules: a resignation, a timeout or an abort.
    Ended(Ending),
    /// `player` asked for a rematch, which is played in game `game_id`.
    Rematch {
        /// Who asked first.
        player: Player,
        /// The new game.
        game_id: i64,
    },
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
    /// Its clock, if it is a timed game.
    pub clock: Option<ClockSettings>,
    /// The game this one is the rematch of, if it is one: its free seat is kept
    /// for the other player of that game.
    pub rematch_of: Option<i64>,
    /// Its summary as stored, which a write updates when it changes.
    pub summary: Summary,
    /// Its log, in order.
    pub log: Vec<StoredEntry>,
    /// The hash of each seat's token; a bot's seat has none.
    pub token_hashes: Vec<(Player, Vec<u8>)>,
    /// A private game's invite's hash: joining it needs the invite. A private
    /// game is not listed.
    pub invite_hash: Option<Vec<u8>>,
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
    pub deadline: Option<String>,
    /// When it ended, RFC 3339 in UTC, once it has: the server deletes the games
    /// that ended before the retention period.
    pub ended_at: Option<String>,
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
    /// A clock, for a timed game.
    pub clock: Option<ClockSettings>,
    /// Whether the game is private: not listed, and joined only with its invite.
    pub private: bool,
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
    /// How it ended, once it has.
    pub end: Option<End>,
}

/// A game as a request sees it: what is stored, the state its log rebuilds, and
/// its life around the rules, as of the moment it was read.
#[derive(Debug, Clone)]
pub struct GameRecord {
    /// The stored game and its whole log.
    pub stored: StoredGame,
    /// The state, replayed from the log.
    pub game: Game,
    /// Seats, clocks and the endings beside the rules, folded with the game.
    life: Life,
    /// The moment the record speaks of, in milliseconds since the epoch: clocks
    /// run, and run out, until then.
    now_ms: i64,
    /// The entry after which the game was over, if it is.
    ended_by: Option<usize>,
}

impl GameRecord {
    /// Rebuilds the game and its life from its stored log, as of `now_ms`.
    ///
    /// # Errors
    /// [`Error::Internal`] when the log breaks a rule, goes on after the game's
    /// end, or holds a time that is none: it is corrupt, and it is never silently
    /// repaired.
    pub(super) fn replay(stored: StoredGame, now_ms: i64) -> Result<GameRecord, Error> {
        let corrupt = |detail: String| Error::Internal(format!("game {}: corrupt log: {detail}", stored.id));
        // Only a clocked game reads its entries' times.
        let times: Vec<i64> = match stored.clock {
            Some(_) => {
                stored.log.iter().map(|entry| millis(&entry.created_at)).collect::<Result<_, _>>().map_err(corrupt)?
            }
            None => Vec::new(),
        };
        let mut game = Game::new(stored.variant);
        let mut life = Life::new(stored.clock, bot_seat(&stored.log));
        let mut ended_by = None;
        for (index, entry) in stored.log.iter().enumerate() {
            let at = || times[index];
            match entry.event {
                Event::SeatTaken(player) => life.seat_taken(player, &game, &at),
                Event::Action(_) | Event::Ended(_) if ended_by.is_some() => {
                    return Err(corrupt(format!("entry {} comes after the end", entry.seq)));
                }
                Event::Action(logged) => {
                    game.play(logged.actor, logged.action).map_err(|error| {
                        corrupt(format!("entry {} breaks a rule: {error} ({})", entry.seq, error.code()))
                    })?;
                    life.acted(logged.actor, &game, &at);
                }
                Event::Ended(ending) => life.ended(ending, &game, &at),
                Event::Rematch { .. } => {}
            }
            if ended_by.is_none() && life.is_over(&game) {
                ended_by = Some(index);
            }
        }
        Ok(GameRecord { stored, game, life, now_ms, ended_by })
    }

    /// The game as it will stand once `events` (each with whether the bot did
    /// it) and `seat` are written after its log at `at_ms`, and the write that
    /// does it: the summary goes with it when it changes from the stored one.
    ///
    /// # Errors
    /// [`Error::Internal`] when the events break a rule, a bug.
    pub(super) fn with(
        self,
        events: &[(Event, bool)],
        seat: Option<(Player, Vec<u8>)>,
        at_ms: i64,
    ) -> Result<(GameRecord, Write), Error> {
        let created_at = stamp_of_millis(at_ms);
        let entries: Vec<StoredEntry> = (self.version() + 1..)
            .zip(events)
            .map(|(seq, &(event, by_bot))| StoredEntry { seq, created_at: created_at.clone(), event, by_bot })
            .collect();
        let mut stored = self.stored;
        stored.log.extend(entries.iter().cloned());
        stored.token_hashes.extend(seat.clone());
        let mut after = GameRecord::replay(stored, at_ms)?;
        let summary = after.summary();
        let changed = (summary != after.stored.summary).then(|| summary.clone());
        after.stored.summary = summary;
        Ok((after, Write { seat, entries, summary: changed }))
    }

    /// The game as it stood right after each entry of its log after sequence
    /// number `after`, in order: the last entry of each is the entry.
    ///
    /// # Errors
    /// [`Error::Internal`] when the log is corrupt.
    pub fn history(&self, after: i64) -> Result<Vec<GameRecord>, Error> {
        let log = &self.stored.log;
        (0..log.len())
            .filter(|&index| log[index].seq > after)
            .map(|index| {
                let then = StoredGame { log: log[..=index].to_vec(), ..self.stored.clone() };
                GameRecord::replay(then, self.now_ms)
            })
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
        [Player::X, Player::O]
            .into_iter()
            .filter(|&player| !self.stored.log.iter().any(|entry| entry.event == Event::SeatTaken(player)))
            .collect()
    }

    /// The seat the game's bot holds, in a game against the computer.
    pub fn bot_seat(&self) -> Option<Player> {
        bot_seat(&self.stored.log)
    }

    /// How the game ended, if it has: by the rules, an entry of its life, or a
    /// clock that has run out (written down by the server soon after).
    pub fn end(&self) -> Option<End> {
        self.life.end(&self.game, self.now_ms)
    }

    /// Waiting for a player, ongoing, or finished.
    pub fn status(&self) -> Status {
        if self.end().is_some() {
            Status::Finished
        } else if self.life.both_seated() {
            Status::Ongoing
        } else {
            Status::Waiting
        }
    }

    /// The result: the rules', or a win by resignation or timeout, or an abort.
    pub fn result(&self) -> GameResult {
        self.life.result(&self.game, self.now_ms)
    }

    /// The clocks as of the record's moment, in a clocked game.
    pub fn clock(&self) -> Option<ClockState> {
        self.life.clock(self.now_ms)
    }

    /// The player whose clock has run out, before the log says so.
    pub fn flagged(&self) -> Option<Player> {
        self.life.flagged(self.now_ms)
    }

    /// The clock's time as of the record's moment, in milliseconds since the epoch.
    pub fn now_ms(&self) -> i64 {
        self.now_ms
    }

    /// The player who acts now, and whether by a move or a collapse choice:
    /// nobody while a seat is free or once the game is over.
    pub fn to_act(&self) -> Option<Player> {
        match (self.status(), self.game.actor_to_act()) {
            (Status::Ongoing, Some(Actor::Player(player))) => Some(player),
            _ => None,
        }
    }

    /// The game a rematch of this one is played in, once asked for.
    pub fn rematch(&self) -> Option<i64> {
        self.rematch_request().map(|(_, game_id)| game_id)
    }

    /// Who asked for a rematch of this game, and the game it is played in.
    pub fn rematch_request(&self) -> Option<(Player, i64)> {
        self.stored.log.iter().find_map(|entry| match entry.event {
            Event::Rematch { player, game_id } => Some((player, game_id)),
            _ => None,
        })
    }

    /// When the game was over, in milliseconds since the epoch, if it is.
    ///
    /// # Errors
    /// [`Error::Internal`] when the time of that entry is none: a corrupt log.
    pub fn ended_at_ms(&self) -> Result<Option<i64>, Error> {
        self.ended_by.map(|index| millis(&self.stored.log[index].created_at).map_err(Error::Internal)).transpose()
    }

    /// The summary a listing shows, as of the record's moment.
    pub fn summary(&self) -> Summary {
        let deadline = self.clock().and_then(|clock| clock.deadline_ms).map(stamp_of_millis);
        let ended_at = self.ended_by.map(|index| self.stored.log[index].created_at.clone());
        Summary { status: self.status(), result: self.result(), end: self.end(), deadline, ended_at }
    }
}

pub(super) fn bot_seat(log: &[StoredEntry]) -> Option<Player> {
    log.iter().find_map(|entry| match entry.event {
        Event::SeatTaken(player) if entry.by_bot => Some(player),
        _ => None,
    })
}
