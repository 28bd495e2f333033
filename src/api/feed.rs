//! What the live streams of one game share on an instance: the game as last
//! read, and each of its events encoded once. Ten thousand spectators of a game
//! then cost one read of its log and one encoding of each event, and hold the
//! same bytes, where each stream once read and encoded for itself. The first
//! stream that needs a newer version reads it for all; the others wait for that
//! read and take what it found. A feed lives as long as a stream holds it.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use actix_web::web::Bytes;
use serde::Serialize;
use tokio::time::Instant;
use utoipa::ToSchema;

use super::views::{GameView, LogEntryView};
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

/// The event of the last entry of `record`'s log, with the game right after it.
fn event(record: &GameRecord, claim_after: Duration) -> Bytes {
    let (entry, move_number) = record.numbered_log().last().expect("a game's log has its creator's seat");
    let entry = LogEntryView::new(entry, move_number);
    let kind = entry.event.kind();
    let seq = entry.seq;
    let data = serde_json::to_string(&LiveEvent { entry, game: GameView::new(record, claim_after) })
        .expect("an event serialises");
    Bytes::from(format!("id: {seq}\nevent: {kind}\ndata: {data}\n\n"))
}

/// The `end` event of a finished game.
fn end(record: &GameRecord, claim_after: Duration) -> Bytes {
    let data =
        serde_json::to_string(&LiveEnd { game: GameView::new(record, claim_after) }).expect("an event serialises");
    Bytes::from(format!("event: end\ndata: {data}\n\n"))
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
    /// The snapshot of `record`, with the events `previous` encoded already.
    fn of(record: GameRecord, previous: Option<Arc<Snapshot>>, claim_after: Duration) -> Result<Snapshot, Error> {
        let mut events = previous.map(|previous| previous.events.clone()).unwrap_or_default();
        // A log never loses entries; a snapshot that says otherwise is dropped.
        if events.last().is_some_and(|&(seq, _)| seq > record.version()) {
            events.clear();
        }
        let encoded = events.last().map_or(0, |&(seq, _)| seq);
        events.extend(record.history(encoded)?.iter().map(|then| (then.version(), event(then, claim_after))));
        let end = record.end().is_some().then(|| end(&record, claim_after));
        Ok(Snapshot { record, events, end, read_at: Instant::now() })
    }

    fn serves(&self, wanted: Wanted) -> bool {
        match wanted {
            Wanted::Version(version) => self.record.version() >= version,
            Wanted::ReadAfter(instant) => self.read_at > instant,
        }
    }
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
        if let Some(snapshot) = latest.snapshot.as_ref().filter(|snapshot| snapshot.serves(wanted)) {
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
        latest.hold(record, service.claim_after())
    }

    /// The snapshot of `record`, which a stream that opens has just read, or
    /// the newer one held: the game is not read again for the feed.
    ///
    /// # Errors
    /// A log that does not replay.
    pub(super) async fn offer(&self, record: GameRecord, claim_after: Duration) -> Result<Arc<Snapshot>, Error> {
        let mut latest = self.latest.lock().await;
        match latest.snapshot.as_ref().filter(|snapshot| snapshot.serves(Wanted::Version(record.version()))) {
            Some(snapshot) => Ok(Arc::clone(snapshot)),
            None => latest.hold(record, claim_after),
        }
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
    fn hold(&mut self, record: GameRecord, claim_after: Duration) -> Result<Arc<Snapshot>, Error> {
        let snapshot = Arc::new(Snapshot::of(record, self.snapshot.take(), claim_after)?);
        self.snapshot = Some(Arc::clone(&snapshot));
        Ok(snapshot)
    }
}
