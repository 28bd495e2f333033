//! A game as the service hands it to the API: its record as stored, replayed
//! into the state its log rebuilds, as of a moment.

use jiff::Timestamp;

use std::time::Duration;

use super::life::{self, ClockState, Life};
use super::presence::{PRESENT_FOR, STALLED_AFTER};
use super::time::after;
use crate::engine::{Action, Actor, Game, GameResult, LogEntry, MoveNumber, Player};
use crate::error::{Error, Fault};
use crate::record::{
    End, Ending, Event, GameId, PlayerEventKind, RatedEnd, Rater, Status, StoredEntry, StoredGame, StoredSeat, Summary,
    Write,
};

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
    /// The moment the record speaks of: clocks run, and run out, until then.
    now: Timestamp,
    /// The entry after which the game was over, if it is.
    ended_by: Option<usize>,
}

impl GameRecord {
    /// Rebuilds the game and its life from its stored log, as of `now`, each
    /// player having `first_move` for their first move in a clocked game.
    ///
    /// # Errors
    /// [`Error::Internal`] when the log breaks a rule, goes on after the game's
    /// end: it is corrupt, and it is never silently repaired.
    pub(super) fn replay(stored: StoredGame, now: Timestamp, first_move: Duration) -> Result<GameRecord, Error> {
        let (game, life) = (Game::new(stored.rules()), Life::new(stored.clock, first_move));
        let mut record = GameRecord { stored, game, life, now, ended_by: None };
        for index in 0..record.stored.log.len() {
            record.fold(index)?;
        }
        Ok(record)
    }

    /// Folds entry `index` of the log, the one after those folded so far, into
    /// the game and its life.
    ///
    /// # Errors
    /// [`Error::Internal`], as [`GameRecord::replay`] says.
    fn fold(&mut self, index: usize) -> Result<(), Error> {
        let entry = &self.stored.log[index];
        let corrupt = |detail: String| format!("game {}: corrupt log: {detail}", self.stored.id);
        let (game, life, at) = (&mut self.game, &mut self.life, entry.created_at);
        match entry.event {
            Event::SeatTaken(player) => life.seat_taken(player, entry.by_bot, game, at),
            Event::Action(_) | Event::Ended(_) | Event::DrawOffer(_) | Event::DrawDecline(_)
                if self.ended_by.is_some() =>
            {
                return Err(Error::Internal(Fault::new(corrupt(format!("entry {} comes after the end", entry.seq)))));
            }
            Event::Action(logged) => {
                game.play(logged.actor, logged.action).map_err(|error| {
                    let what = corrupt(format!("entry {} breaks a rule ({})", entry.seq, error.code()));
                    Error::Internal(Fault::caused_by(what, error))
                })?;
                life.acted(logged.actor, game, at);
            }
            Event::Ended(ending) => life.ended(ending, game, at),
            Event::DrawOffer(_) | Event::DrawDecline(_) | Event::Rematch { .. } => {}
        }
        if self.ended_by.is_none() && life.is_over(game) {
            self.ended_by = Some(index);
        }
        Ok(())
    }

    /// The game as it will stand once `events` (each with whether the bot did
    /// it) and `seat` are written after its log at `at`, and the write that
    /// does it: the summary goes with it when it changes from the stored one,
    /// and so do the events that tell the players who hold its seats that it
    /// started or finished. Only the new entries are folded in: the log before
    /// them was replayed.
    ///
    /// # Errors
    /// [`Error::Internal`] when the events break a rule, a bug.
    pub(super) fn with(
        mut self,
        events: &[(Event, bool)],
        seat: Option<StoredSeat>,
        at: Timestamp,
    ) -> Result<(GameRecord, Write), Error> {
        let entries: Vec<StoredEntry> = (self.version() + 1..)
            .zip(events)
            .map(|(seq, &(event, by_bot))| StoredEntry { seq, created_at: at, event, by_bot })
            .collect();
        let folded = self.stored.log.len();
        self.stored.log.extend(entries.iter().cloned());
        self.stored.seats.extend(seat.clone());
        self.now = at;
        for index in folded..self.stored.log.len() {
            self.fold(index)?;
        }
        let summary = self.summary();
        let changed = (summary != self.stored.summary).then(|| summary.clone());
        let told = match summary.status {
            status if status == self.stored.summary.status => None,
            Status::Ongoing => Some(PlayerEventKind::GameStart),
            Status::Finished => Some(PlayerEventKind::GameFinish),
            Status::Waiting => None,
        };
        let player_events = told.map_or_else(Vec::new, |kind| {
            self.stored.seats.iter().filter_map(|seat| Some((seat.holder.as_ref()?.id, kind))).collect()
        });
        let rated = (told == Some(PlayerEventKind::GameFinish)).then(|| self.rated_end(&summary)).flatten();
        self.stored.summary = summary;
        Ok((self, Write { seat, entries, summary: changed, player_events, rated }))
    }

    /// The end that `summary` tells, to rate, in a rated game that ended with
    /// a result to rate (not an abort) between two raters, both of whom moved.
    fn rated_end(&self, summary: &Summary) -> Option<RatedEnd> {
        if !self.stored.rated || summary.result == GameResult::Aborted || !self.both_moved() {
            return None;
        }
        let rater = |player: Player| match self.stored.seat(player).and_then(|seat| seat.holder.as_ref()) {
            Some(holder) => Some(Rater::Player(holder.id)),
            None => self.stored.opponent.filter(|_| self.bot_seat() == Some(player)).and_then(Rater::bot),
        };
        let (x, o) = (rater(Player::X)?, rater(Player::O)?);
        Some(RatedEnd { variant: self.stored.variant, x, o, result: summary.result, ended_at: summary.ended_at? })
    }

    /// The game as it stood right after each entry of its log after sequence
    /// number `after`, in order: the last entry of each is the entry.
    ///
    /// # Errors
    /// [`Error::Internal`] when the log is corrupt.
    pub fn history(&self, after: i64) -> Result<Vec<GameRecord>, Error> {
        let unplayed = StoredGame { log: Vec::new(), ..self.stored.clone() };
        let mut then = GameRecord::replay(unplayed, self.now, self.life.first_move())?;
        let mut history = Vec::new();
        for (index, entry) in self.stored.log.iter().enumerate() {
            then.stored.log.push(entry.clone());
            then.fold(index)?;
            if entry.seq > after {
                history.push(then.clone());
            }
        }
        Ok(history)
    }

    /// The game's version: the sequence number of its last log entry.
    pub fn version(&self) -> i64 {
        self.stored.version()
    }

    /// Its log, each entry with the number of its move when it is a move.
    pub(crate) fn numbered_log(&self) -> impl Iterator<Item = (&StoredEntry, Option<MoveNumber>)> {
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
    pub(crate) fn bot_seat(&self) -> Option<Player> {
        self.life.bot()
    }

    /// How the game ended, if it has: by the rules, an entry of its life, or a
    /// clock that has run out (written down by the server soon after).
    pub fn end(&self) -> Option<End> {
        self.life.end(&self.game, self.now)
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
        self.life.result(&self.game, self.now)
    }

    /// The clocks as of the record's moment, in a clocked game.
    pub fn clock(&self) -> Option<ClockState> {
        self.life.clock(self.now)
    }

    /// The ending that time brought, before the log says so: a clock that ran
    /// out, or a first move not made in time.
    pub fn overdue(&self) -> Option<Ending> {
        self.life.overdue(self.now)
    }

    /// Whether both players have made their first move.
    pub(crate) fn both_moved(&self) -> bool {
        life::both_moved(&self.game)
    }

    /// The record's moment.
    pub fn now(&self) -> Timestamp {
        self.now
    }

    /// The player who acts now, and whether by a move or a collapse choice:
    /// nobody while a seat is free or once the game is over.
    pub fn to_act(&self) -> Option<Player> {
        match (self.status(), self.game.actor_to_act()) {
            (Status::Ongoing, Some(Actor::Player(player))) => Some(player),
            _ => None,
        }
    }

    /// The player whose offer of a draw stands: the last offer, unless an
    /// action, a decline or the end came after it.
    pub fn draw_offer(&self) -> Option<Player> {
        let last = self.stored.log.iter().rev().find_map(|entry| match entry.event {
            Event::DrawOffer(player) => Some(Some(player)),
            Event::Action(_) | Event::Ended(_) | Event::DrawDecline(_) => Some(None),
            Event::SeatTaken(_) | Event::Rematch { .. } => None,
        });
        last.flatten().filter(|_| self.ended_by.is_none())
    }

    /// The game a rematch of this one is played in, once asked for.
    pub fn rematch(&self) -> Option<GameId> {
        self.rematch_request().map(|(_, game_id)| game_id)
    }

    /// Who asked for a rematch of this game, and the game it is played in.
    pub(crate) fn rematch_request(&self) -> Option<(Player, GameId)> {
        self.stored.log.iter().find_map(|entry| match entry.event {
            Event::Rematch { player, game_id } => Some((player, game_id)),
            _ => None,
        })
    }

    /// When the game was over, if it is.
    pub fn ended_at(&self) -> Option<Timestamp> {
        self.ended_by.map(|index| self.stored.log[index].created_at)
    }

    /// When the holder of seat `player` was last seen in this game: an action
    /// of theirs, a read of it with their token, its stream held open, or (a
    /// player's seat) anything they did with their player's token.
    pub(crate) fn last_seen(&self, player: Player) -> Option<Timestamp> {
        let seat = self.stored.seat(player)?;
        let acted = self.stored.log.iter().rev().find(|entry| !entry.by_bot && acted_by(entry.event) == Some(player));
        [
            seat.last_seen_at,
            seat.holder.as_ref().and_then(|holder| holder.last_seen_at),
            acted.map(|entry| entry.created_at),
        ]
        .into_iter()
        .flatten()
        .max()
    }

    /// Whether the holder of seat `player` is present as of the record's
    /// moment: seen within [`PRESENT_FOR`], or the game's bot.
    pub(crate) fn is_present(&self, player: Player) -> bool {
        self.bot_seat() == Some(player) || self.gone_since(player).is_some_and(|gone| gone > self.now)
    }

    /// The player to act in the game, which may be claimed against them,
    /// and from when, with `claim_after` the wait after they are gone: a game
    /// without a clock that goes on, whose player to act is a person. In a
    /// rated one, also [`STALLED_AFTER`] after their turn began, present or not.
    /// None in any other game.
    pub(crate) fn claimable(&self, claim_after: Duration) -> Option<(Player, Timestamp)> {
        let to_act = self.to_act().filter(|&player| self.stored.clock.is_none() && self.bot_seat() != Some(player))?;
        let gone = self.gone_since(to_act).map(|gone| after(gone, claim_after));
        let turn_began = self.stored.log.last().map(|entry| entry.created_at).filter(|_| self.stored.rated);
        let stalled = turn_began.map(|began| after(began, STALLED_AFTER));
        Some((to_act, gone.into_iter().chain(stalled).min()?))
    }

    /// When the holder of seat `player` went (or will go, unless seen again)
    /// from present to gone: [`PRESENT_FOR`] after they were last seen. None
    /// for a free seat and for the bot's, which never go.
    pub(crate) fn gone_since(&self, player: Player) -> Option<Timestamp> {
        if self.bot_seat() == Some(player) {
            return None;
        }
        self.last_seen(player).map(|seen| after(seen, PRESENT_FOR))
    }

    /// The summary a listing shows, as of the record's moment.
    pub fn summary(&self) -> Summary {
        let deadline = self.clock().and_then(|clock| clock.deadline);
        Summary { status: self.status(), result: self.result(), end: self.end(), deadline, ended_at: self.ended_at() }
    }
}

/// The seat whose holder made `event`, if one did: a seat taken, an action, a
/// resignation, an abort, a rematch asked for; none for a measurement, a
/// timeout, an abort by the server, nor a game walked away from.
fn acted_by(event: Event) -> Option<Player> {
    match event {
        Event::SeatTaken(player)
        | Event::Action(LogEntry { actor: Actor::Player(player), .. })
        | Event::Ended(Ending::Resign(player) | Ending::Abort(Some(player)))
        | Event::DrawOffer(player)
        | Event::DrawDecline(player)
        | Event::Rematch { player, .. } => Some(player),
        Event::Action(_) | Event::Ended(_) => None,
    }
}

#[cfg(test)]
pub(super) mod tests {
    use rand::SeedableRng;
    use rand::rngs::StdRng;

    use super::*;
    use crate::bot::{RandomBot, Strategy};
    use crate::engine::Variant;
    use crate::record::ClockSettings;
    use crate::service::DEFAULT_FIRST_MOVE;
    use crate::service::time::timestamp_of_millis;

    /// A new casual game of Goff's rule, created at 0, with `clock` and `seats`.
    pub(in crate::service) fn new_game(clock: Option<ClockSettings>, seats: Vec<StoredSeat>) -> StoredGame {
        StoredGame {
            id: GameId::new(1),
            variant: Variant::PlayerChoice,
            scoring: crate::engine::Scoring::Goff,
            created_at: timestamp_of_millis(0),
            opponent: None,
            hints: false,
            rated: false,
            clock,
            rematch_of: None,
            arena: None,
            summary: Summary::WAITING,
            log: Vec::new(),
            seats,
            invite_hash: None,
            ratings: [None; 2],
        }
    }

    /// A clocked game against a bot, seated and played by random actions a
    /// second apart, as the events a service would write.
    fn random_events(seed: u64) -> (StoredGame, Vec<(Event, bool)>) {
        let stored = new_game(Some(ClockSettings { initial_ms: 10_000, increment_ms: 500 }), Vec::new());
        let mut events = vec![(Event::SeatTaken(Player::X), false), (Event::SeatTaken(Player::O), true)];
        let (mut game, mut rng) = (Game::new(Variant::PlayerChoice), StdRng::seed_from_u64(seed));
        while let Some(actor) = game.actor_to_act() {
            let action = RandomBot.choose(&game, &mut rng);
            game.play(actor, action).unwrap();
            events.push((Event::Action(LogEntry { actor, action }), actor == Actor::Player(Player::O)));
        }
        (stored, events)
    }

    #[test]
    fn folding_new_entries_onto_a_record_gives_the_record_its_whole_log_replays_to() {
        for seed in 0..50 {
            let (stored, events) = random_events(seed);
            let mut record = GameRecord::replay(stored, timestamp_of_millis(0), DEFAULT_FIRST_MOVE).unwrap();
            for (step, event) in events.iter().enumerate() {
                let at = timestamp_of_millis(1_000 * i64::try_from(step).unwrap());
                let (after, write) = record.with(std::slice::from_ref(event), None, at).unwrap();
                let replayed = GameRecord::replay(after.stored.clone(), at, DEFAULT_FIRST_MOVE).unwrap();
                assert_eq!((after.game, after.life, after.ended_by), (replayed.game, replayed.life, replayed.ended_by));
                assert_eq!(after.summary(), replayed.summary(), "seed {seed}, step {step}");
                assert_eq!(write.version(), after.version());
                record = after;
            }
            assert_eq!(record.status(), Status::Finished, "seed {seed}");
        }
    }

    /// A game between two people, both seats taken at 0, with `clock`, whose
    /// players were last seen `seen_ms` after it began, as of `now_ms`.
    fn game(clock: Option<ClockSettings>, seen_ms: i64, now_ms: i64) -> GameRecord {
        let seat = |player: Player| StoredSeat {
            player,
            token_hash: player.to_string().into_bytes(),
            holder: None,
            last_seen_at: Some(timestamp_of_millis(seen_ms)),
        };
        let stored = new_game(clock, vec![seat(Player::X), seat(Player::O)]);
        let seated = [(Event::SeatTaken(Player::X), false), (Event::SeatTaken(Player::O), false)];
        let (record, _) = GameRecord::replay(stored, timestamp_of_millis(0), DEFAULT_FIRST_MOVE)
            .unwrap()
            .with(&seated, None, timestamp_of_millis(0))
            .unwrap();
        GameRecord::replay(record.stored, timestamp_of_millis(now_ms), DEFAULT_FIRST_MOVE).unwrap()
    }

    #[test]
    fn a_game_without_a_clock_may_be_claimed_against_the_player_to_act_once_they_are_gone_for_the_wait() {
        let claim_after = Duration::from_secs(60);
        let gone = after(timestamp_of_millis(10_000), PRESENT_FOR);
        assert_eq!(
            game(None, 10_000, 20_000).claimable(claim_after),
            Some((Player::X, after(gone, claim_after))),
            "X opens, and may be claimed against from the end of their presence and the wait"
        );
        let clock = Some(ClockSettings { initial_ms: 60_000, increment_ms: 0 });
        assert_eq!(game(clock, 10_000, 20_000).claimable(claim_after), None, "a clock ends such a game itself");
    }
}
