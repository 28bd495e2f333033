//! A game as the service hands it to the API: its record as stored, replayed
//! into the state its log rebuilds, as of a moment.

use super::life::{ClockState, Life};
use super::time::{millis, stamp_of_millis};
use crate::engine::{Action, Actor, Game, GameResult, LogEntry, MoveNumber, Player};
use crate::error::Error;
use crate::record::{End, Event, Status, StoredEntry, StoredGame, Summary};
use crate::store::Write;

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
