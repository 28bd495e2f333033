//! What the live streams of one game share on an instance: the game as last
//! read, and each of its events encoded once. Ten thousand spectators of a game
//! then cost one read of its log and one encoding of each event, and hold the
//! same bytes, where each stream once read and encoded for itself. The first
//! stream that needs a newer version reads it for all; the others wait for that
//! read and take what it found. A feed lives as long as a stream holds it.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use actix_web::web::Bytes;
use serde::Serialize;
use tokio::time::Instant;
use utoipa::ToSchema;

use super::views::{
    ClockView, EndView, GameView, LegalActions, LogEntryView, PlayerName, ResultName, StatusName, ToAct,
};
use crate::engine::{Player, notation};
use crate::error::Error;
use crate::record::GameId;
use crate::service::{GameRecord, GameService};

/// The data of one event of the log: the log entry, and the game right after it.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct LiveEvent {
    /// What happened; its `seq` is the event's id.
    pub entry: LogEntryView,
    /// The game as it stood right after it.
    pub game: GameView,
}

/// The data of the `end` event, the last of a finished game's stream.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct LiveEnd {
    /// The game as it ended.
    pub game: GameView,
}

/// The data of an entry's event in a state stream (`?format=state`): the
/// entry, and what a player needs to act next, without the whole game.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct LiveState {
    /// What happened; its `seq` is the event's id and the game's version now.
    pub entry: LogEntryView,
    /// Where the game is in its life, as a game's view says.
    pub status: StatusName,
    /// The outcome, as a game's view says.
    pub result: ResultName,
    /// How the game ended: null while it goes on.
    #[schema(required = true)]
    pub end: Option<EndView>,
    /// Who acts now and how; null while a seat is free and once the game is over.
    #[schema(required = true)]
    pub to_act: Option<ToAct>,
    /// The clocks, as of the entry; null in an untimed game.
    #[schema(required = true)]
    pub clock: Option<ClockView>,
    /// The seat whose offer of a draw stands, or null.
    #[schema(required = true)]
    pub draw_offer: Option<PlayerName>,
    /// The legal actions of the side to act at this version.
    pub legal: LegalActions,
}

/// The data of the `game` event that opens a state stream: the whole game.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct LiveGame {
    /// The game, with `your_seat` for a seat's holder.
    pub game: GameView,
    /// The game in one line of the transcript's notation (`X1+(1,2); O2+(2,3)`,
    /// squares 1-9), as QTP's `position ... actions` takes it; empty before the
    /// first move, and the score in braces after the end.
    pub transcript: String,
    /// The legal actions of the side to act at this version.
    pub legal: LegalActions,
}

/// An event as a stream sends it: its id, if it has one, its kind, and its
/// data as one line of JSON.
pub(super) fn message(id: Option<i64>, kind: &str, data: &impl Serialize) -> Bytes {
    let data = serde_json::to_string(data).expect("an event serialises");
    match id {
        Some(id) => Bytes::from(format!("id: {id}\nevent: {kind}\ndata: {data}\n\n")),
        None => Bytes::from(format!("event: {kind}\ndata: {data}\n\n")),
    }
}

/// The last entry of `record`'s log, as a view, with its id and kind.
fn last_entry(record: &GameRecord) -> (i64, &'static str, LogEntryView) {
    let (entry, move_number) = record.numbered_log().last().expect("a game's log has its creator's seat");
    let entry = LogEntryView::new(entry, move_number);
    (entry.seq, entry.event.kind(), entry)
}

/// The event of the last entry of `record`'s log, with the game right after it.
fn event(record: &GameRecord, claim_after: Duration) -> Bytes {
    let (seq, kind, entry) = last_entry(record);
    message(Some(seq), kind, &LiveEvent { entry, game: GameView::new(record, claim_after) })
}

/// The state stream's event of the last entry of `record`'s log.
fn state(record: &GameRecord) -> Bytes {
    let (seq, kind, entry) = last_entry(record);
    let state = LiveState {
        entry,
        status: record.status().into(),
        result: record.result().into(),
        end: record.end().map(EndView::from),
        to_act: record.to_act().map(|player| ToAct::of(&record.game, player)),
        clock: record.clock().map(ClockView::from),
        draw_offer: record.draw_offer().map(PlayerName::from),
        legal: LegalActions::from(record),
    };
    message(Some(seq), kind, &state)
}

/// The `game` event that opens a state stream of `record`'s game for the
/// holder of `seat`, if it is one; its id is the game's version.
pub(super) fn whole_game(record: &GameRecord, seat: Option<Player>, claim_after: Duration) -> Bytes {
    let whole = LiveGame {
        game: GameView::new(record, claim_after).seen_from(seat),
        transcript: notation::write(&record.game),
        legal: LegalActions::from(record),
    };
    message(Some(record.version()), "game", &whole)
}

/// The `end` event of a finished game.
fn end(record: &GameRecord, claim_after: Duration) -> Bytes {
    message(None, "end", &LiveEnd { game: GameView::new(record, claim_after) })
}

/// The feeds of the games watched on this instance, shared by every worker.
#[derive(Debug, Default)]
pub struct Feeds(Mutex<HashMap<GameId, Weak<Feed>>>);

impl Feeds {
    /// The feed of game `id`, which its other streams here share.
    pub(super) fn of(&self, id: GameId) -> Arc<Feed> {
        let mut feeds = self.0.lock().expect("the feeds' lock is never poisoned");
        if let Some(feed) = feeds.get(&id).and_then(Weak::upgrade) {
            return feed;
        }
        // Feeds whose streams all closed go when another game is watched.
        feeds.retain(|_, feed| feed.strong_count() > 0);
        let feed = Arc::new(Feed::default());
        feeds.insert(id, Arc::downgrade(&feed));
        feed
    }
}

/// One game's feed: the last snapshot, behind a lock that the stream reading
/// a newer one holds while it reads; and how many of its streams here are
/// spectators'.
#[derive(Debug, Default)]
pub(crate) struct Feed {
    latest: tokio::sync::Mutex<Latest>,
    spectators: AtomicUsize,
    /// Whether a state stream has followed the game here: its snapshots are
    /// encoded in that form too from then on.
    states: AtomicBool,
}

/// A spectator's stream, counted among its feed's spectators while it lives.
#[derive(Debug)]
pub(crate) struct Spectator(Arc<Feed>);

impl Drop for Spectator {
    fn drop(&mut self) {
        self.0.spectators.fetch_sub(1, Ordering::Relaxed);
    }
}

/// What the last read of a feed found.
#[derive(Debug, Default)]
struct Latest {
    snapshot: Option<Arc<Snapshot>>,
    /// When the database was last found away, and what it said: the streams
    /// that waited for that read take its answer, rather than each waiting out
    /// a read of its own in turn.
    unavailable: Option<(Instant, String)>,
}

/// A game as read for its streams.
#[derive(Debug)]
pub(crate) struct Snapshot {
    /// The game as it stood when read.
    pub record: GameRecord,
    /// The event of each entry of its log, in order, with the entry's number.
    pub events: Vec<(i64, Bytes)>,
    /// The same in a state stream's form, when one of the game's streams is one.
    pub states: Option<Vec<(i64, Bytes)>>,
    /// The `end` event, once the game is over.
    pub end: Option<Bytes>,
    read_at: Instant,
}

/// How new a snapshot a stream needs.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Wanted {
    /// One that holds this version: a notice told of it.
    Version(i64),
    /// One read from the database after this instant: the stream may have
    /// missed news then, or the database was away.
    ReadAfter(Instant),
}

impl Snapshot {
    /// The snapshot of `record`, with the events `previous` encoded already;
    /// with `states`, in a state stream's form too.
    fn of(
        record: GameRecord,
        previous: Option<Arc<Snapshot>>,
        claim_after: Duration,
        states: bool,
    ) -> Result<Snapshot, Error> {
        let before = previous.as_deref();
        let mut events = kept(&record, before.map(|previous| &previous.events));
        let mut states = states.then(|| kept(&record, before.and_then(|previous| previous.states.as_ref())));
        // One replay of the log encodes both forms, from the first entry either lacks.
        let (events_to, states_to) = (last_seq(&events), states.as_deref().map(last_seq));
        for then in record.history(states_to.map_or(events_to, |states_to| states_to.min(events_to)))? {
            let version = then.version();
            if version > events_to {
                events.push((version, event(&then, claim_after)));
            }
            if let (Some(states), Some(states_to)) = (states.as_mut(), states_to)
                && version > states_to
            {
                states.push((version, state(&then)));
            }
        }
        let end = record.end().is_some().then(|| end(&record, claim_after));
        Ok(Snapshot { record, events, states, end, read_at: Instant::now() })
    }

    /// Whether it is as new as `wanted`, with the states when `states`.
    fn serves(&self, wanted: Wanted, states: bool) -> bool {
        let fresh = match wanted {
            Wanted::Version(version) => self.record.version() >= version,
            Wanted::ReadAfter(instant) => self.read_at > instant,
        };
        fresh && (self.states.is_some() || !states)
    }
}

/// The events `before` encoded that serve `record`: all of them, or none when
/// they say the log held more than it does (a log never loses entries).
fn kept(record: &GameRecord, before: Option<&Vec<(i64, Bytes)>>) -> Vec<(i64, Bytes)> {
    let events = before.cloned().unwrap_or_default();
    if last_seq(&events) > record.version() { Vec::new() } else { events }
}

/// The number of the last entry `events` encode; 0 for none.
fn last_seq(events: &[(i64, Bytes)]) -> i64 {
    events.last().map_or(0, |&(seq, _)| seq)
}

impl Feed {
    /// A snapshot of game `id` as new as `wanted`: the one held, or one read now.
    ///
    /// # Errors
    /// What reading the game fails with.
    pub(super) async fn snapshot(
        &self,
        service: &GameService,
        id: GameId,
        wanted: Wanted,
    ) -> Result<Arc<Snapshot>, Error> {
        let asked_at = Instant::now();
        let mut latest = self.latest.lock().await;
        let states = self.states.load(Ordering::Relaxed);
        if let Some(snapshot) = latest.snapshot.as_ref().filter(|snapshot| snapshot.serves(wanted, states)) {
            return Ok(Arc::clone(snapshot));
        }
        if let Some((_, detail)) = latest.unavailable.as_ref().filter(|&&(at, _)| at > asked_at) {
            return Err(Error::Unavailable(detail.clone()));
        }
        let record = match service.record(id).await {
            Err(Error::Unavailable(detail)) => {
                latest.unavailable = Some((Instant::now(), detail.clone()));
                return Err(Error::Unavailable(detail));
            }
            read => read?,
        };
        latest.hold(record, service.claim_after(), states)
    }

    /// The snapshot of `record`, which a stream that opens has just read, or
    /// the newer one held: the game is not read again for the feed.
    ///
    /// # Errors
    /// A log that does not replay.
    pub(super) async fn offer(&self, record: GameRecord, claim_after: Duration) -> Result<Arc<Snapshot>, Error> {
        let mut latest = self.latest.lock().await;
        let states = self.states.load(Ordering::Relaxed);
        match latest.snapshot.as_ref().filter(|snapshot| snapshot.serves(Wanted::Version(record.version()), states)) {
            Some(snapshot) => Ok(Arc::clone(snapshot)),
            None => latest.hold(record, claim_after, states),
        }
    }

    /// Encodes the game's events in a state stream's form too, from now on.
    pub(super) fn follow_states(&self) {
        self.states.store(true, Ordering::Relaxed);
    }

    /// Counts a spectator's stream in, until the answer is dropped.
    pub(super) fn spectate(self: &Arc<Feed>) -> Spectator {
        self.spectators.fetch_add(1, Ordering::Relaxed);
        Spectator(Arc::clone(self))
    }

    /// How many spectators' streams of the game are open here.
    pub(super) fn spectators(&self) -> usize {
        self.spectators.load(Ordering::Relaxed)
    }
}

impl Latest {
    /// Holds the snapshot of `record`, newer than the one held, and answers it.
    fn hold(&mut self, record: GameRecord, claim_after: Duration, states: bool) -> Result<Arc<Snapshot>, Error> {
        let snapshot = Arc::new(Snapshot::of(record, self.snapshot.take(), claim_after, states)?);
        self.snapshot = Some(Arc::clone(&snapshot));
        Ok(snapshot)
    }
}
