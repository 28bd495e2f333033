//! The live event stream of a game, as Server-Sent Events.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use actix_web::http::header;
use actix_web::web::Bytes;
use actix_web::{HttpRequest, HttpResponse, get, web};
use rand::RngExt;
use serde::{Deserialize, Serialize};
use tokio::sync::broadcast::{self, error::RecvError};
use tokio::time::{Instant, Interval, interval_at, sleep_until};
use utoipa::openapi::schema::{ObjectBuilder, OneOfBuilder, Schema, Type};
use utoipa::openapi::{Ref, RefOr};
use utoipa::{IntoParams, PartialSchema, ToSchema};

use super::extract::{Reader, invalid_query};
use super::feed::{
    Feed, Feeds, LiveEnd, LiveEvent, LiveGame, LiveState, Snapshot, Spectator, Wanted, message, whole_game,
};
use super::limit::{ClientAddress, Limits, StreamPlace};
use super::problem::ApiError;
use super::views::{EventView, PlayerName, StreamFormat};
use crate::engine::Player;
use crate::error::Error;
use crate::live::UNKNOWN_VERSION;
use crate::record::{GameId, stamp};
use crate::service::{Credentials, GameRecord, GameService};
use jiff::Timestamp;

/// How often an idle stream sends a comment, so that proxies keep it open and a
/// connection that went away unannounced is found out by a failed write.
pub(super) const KEEP_ALIVE: Duration = Duration::from_secs(5);

/// How long a watcher waits to read the log again after the database did not
/// answer: a time drawn at random up to a ceiling that starts here and doubles at
/// each failure in a row, up to [`RETRY_MOST`]. So thousands of watchers spread
/// their retries over an outage instead of all trying together, and a database
/// that comes back is not met by all of them at once.
const RETRY_FIRST: Duration = Duration::from_secs(4);
const RETRY_MOST: Duration = Duration::from_secs(16);

/// How long a watcher may wait to read the log after news may have been lost
/// (another instance's notices, while the connection that hears them was away):
/// at random up to this, so that the watchers of every game do not all read at once.
const REREAD_SPREAD: Duration = Duration::from_secs(4);

/// How long a browser waits to reconnect a stream that closed: from this many
/// milliseconds, plus up to as many again at random, so that the reconnects of
/// many watchers spread out instead of coming together.
const RECONNECT_MS: u32 = 2000;

/// One event as the stream sends it, its JSON `data` described by [`LiveEvent`]
/// or, for `end`, [`LiveEnd`]: the schema of each item of the stream, as OpenAPI
/// 3.2's `itemSchema` would give it.
pub(crate) struct LiveEventMessage;

impl utoipa::PartialSchema for LiveEventMessage {
    fn schema() -> RefOr<Schema> {
        let data = |schema: &str, kinds: &[&str], description: &str| {
            ObjectBuilder::new()
                .property(
                    "event",
                    ObjectBuilder::new()
                        .schema_type(Type::String)
                        .enum_values(Some(kinds.iter().copied()))
                        .description(Some("The event's kind.")),
                )
                .property(
                    "data",
                    ObjectBuilder::new()
                        .schema_type(Type::String)
                        .content_media_type("application/json")
                        .content_schema(Some(Ref::from_schema_name(schema)))
                        .description(Some(description)),
                )
                .required("event")
                .required("data")
        };
        let id = |description: &str| {
            ObjectBuilder::new().schema_type(Type::String).pattern(Some("^[0-9]+$")).description(Some(description))
        };
        let entry = data(LiveEvent::name().as_ref(), &EventView::KINDS, "A LiveEvent, as JSON.")
            .property("id", id("The entry's sequence number; send it back as Last-Event-ID to resume."))
            .required("id")
            .description(Some("An entry of the game's log."));
        let state = data(LiveState::name().as_ref(), &EventView::KINDS, "A LiveState, as JSON.")
            .property("id", id("The entry's sequence number; send it back as Last-Event-ID to resume."))
            .required("id")
            .description(Some("With ?format=state: an entry of the game's log, small."));
        let whole = data(LiveGame::name().as_ref(), &["game"], "A LiveGame, as JSON.")
            .property("id", id("The game's version; send it back as Last-Event-ID to resume."))
            .required("id")
            .description(Some("With ?format=state, the first event unless the stream resumes: the whole game."));
        let end = data(LiveEnd::name().as_ref(), &["end"], "A LiveEnd, as JSON.")
            .description(Some("The end of a finished game's stream, which then closes; it has no id."));
        let presence = data(
            LivePresence::name().as_ref(),
            &["opponent_gone", "opponent_back", "claim_open"],
            "A LivePresence, as JSON.",
        )
        .description(Some(
            "To a seat's holder only (a stream opened with a seat's or its player's token): the other player went \
                 or came back, or the game may now be claimed against them (claim_open). It has no id.",
        ));
        let spectators = data(LiveSpectators::name().as_ref(), &["spectators"], "A LiveSpectators, as JSON.").description(
            Some("How many watch the game without a seat: when the stream opens, and within 5 s of a change. It has no id."),
        );
        OneOfBuilder::new()
            .item(entry)
            .item(state)
            .item(whole)
            .item(end)
            .item(presence)
            .item(spectators)
            .description(Some("One Server-Sent Event."))
            .into()
    }
}

impl ToSchema for LiveEventMessage {
    fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
        schemas.push((LiveEvent::name().into(), LiveEvent::schema()));
        schemas.push((LiveEnd::name().into(), LiveEnd::schema()));
        schemas.push((LiveState::name().into(), LiveState::schema()));
        schemas.push((LiveGame::name().into(), LiveGame::schema()));
        schemas.push((LivePresence::name().into(), LivePresence::schema()));
        schemas.push((LiveSpectators::name().into(), LiveSpectators::schema()));
        <LiveEvent as ToSchema>::schemas(schemas);
    }
}

/// How long a stream waits to read again after `failures` reads in a row found
/// the database away: see [`RETRY_FIRST`].
pub(super) fn retry_wait(failures: u32) -> Duration {
    let ceiling = RETRY_FIRST.saturating_mul(1 << failures.saturating_sub(1).min(8)).min(RETRY_MOST);
    rand::rng().random_range(Duration::ZERO..=ceiling)
}

/// The `retry` field that opens a stream: how long a browser waits to reconnect.
pub(super) fn reconnect_field() -> Bytes {
    let reconnect_after = RECONNECT_MS + rand::rng().random_range(0..=RECONNECT_MS);
    Bytes::from(format!("retry: {reconnect_after}\n\n"))
}

/// A stream of Server-Sent Events, with the headers that keep caches and
/// proxies from holding it back.
pub(super) fn event_stream(stream: impl futures_util::Stream<Item = Result<Bytes, Error>> + 'static) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/event-stream")
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .insert_header(("X-Accel-Buffering", "no"))
        .streaming(stream)
}

/// The data of `opponent_gone` and `opponent_back`, which only a seat's holder
/// hears: the other player went (30 s without a sighting), or came back.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct LivePresence {
    /// The other player's seat.
    pub player: PlayerName,
    /// With `opponent_gone` in a game without a clock and the other player to
    /// act: from when you may claim the game (`POST /games/{id}/claim-victory`);
    /// else null.
    #[schema(required = true)]
    pub claim_from: Option<String>,
}

/// The data of `spectators`: how many watch the game.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct LiveSpectators {
    /// The streams of the game open without a seat's token (or its player's),
    /// on the instance that serves this stream: behind several instances, each
    /// counts its own.
    pub spectators: usize,
}

/// The event that tells how many `spectators` watch.
fn spectators(spectators: usize) -> Bytes {
    message(None, "spectators", &LiveSpectators { spectators })
}

/// The event `kind` about `other`, whom the game may be claimed against from
/// `claim_from`, if it may.
fn about_the_other(kind: &str, other: Player, claim_from: Option<Timestamp>) -> Bytes {
    message(None, kind, &LivePresence { player: other.into(), claim_from: claim_from.map(stamp) })
}

/// The event that tells that `other`, in `record`'s game, is `present` again, or gone.
fn presence(service: &GameService, record: &GameRecord, other: Player, present: bool) -> Bytes {
    let claim_from = service.claimable(record).filter(|&(gone, _)| gone == other && !present);
    let kind = if present { "opponent_back" } else { "opponent_gone" };
    about_the_other(kind, other, claim_from.map(|(_, from)| from))
}

/// A watcher's stream: what is queued to send, how far it got, its notices, when
/// to read the log again if the last read found the database away, and whether
/// the game has ended (the stream closes once its queue is sent).
struct Watch {
    service: web::Data<GameService>,
    id: GameId,
    /// What the game's streams on this instance share: its events, encoded once.
    feed: Arc<Feed>,
    sent: i64,
    queue: VecDeque<Bytes>,
    notices: broadcast::Receiver<i64>,
    keep_alive: Interval,
    /// When to read the log again, and the news it must be read after: a
    /// notice that news may have been lost, or a read that failed.
    retry_at: Option<(Instant, Instant)>,
    /// The reads of the log that failed in a row.
    failures: u32,
    /// When a finished game's rematch window closes, to look again then.
    final_at: Option<Instant>,
    ended: bool,
    /// Its place among the streams a client may hold open, given back with it.
    _place: StreamPlace,
    /// What its reader presented: a seat's holder keeps their seat present
    /// while the stream is open, and hears when the other player goes and
    /// comes back.
    credentials: Credentials,
    /// The reader's seat, if a seat's holder reads, and whether the other
    /// seat's holder was present when last looked at.
    seat: Option<(Player, bool)>,
    /// A spectator's place in the count, given back with the stream.
    _spectator: Option<Spectator>,
    /// The count of spectators told last.
    spectators_told: Option<usize>,
    /// In which form the events go out.
    format: StreamFormat,
    /// For a seat's holder: when the claim against the other player opens, to
    /// look then, and the moment of the claim told last.
    claim_at: Option<Instant>,
    claim_told: Option<Timestamp>,
}

impl Watch {
    /// Queues the count of spectators, if it changed since it was told.
    fn tell_spectators(&mut self) {
        let count = self.feed.spectators();
        if self.spectators_told != Some(count) && !self.ended {
            self.spectators_told = Some(count);
            self.queue.push_back(spectators(count));
        }
    }

    /// For a seat's holder: reads the game, which notes that they are here, and
    /// looks at the other seat in it. A read that fails is left to the next.
    async fn look_at_the_other_seat(&mut self) {
        if self.seat.is_none() {
            return;
        }
        if let Ok(record) = self.service.game(self.id, &self.credentials).await {
            self.look_at(&record);
        }
    }

    /// For a seat's holder, while `record`'s game goes on: queues
    /// `opponent_gone` or `opponent_back` when the other player went or came
    /// back since the last look, and `claim_open` once the game may be claimed
    /// against them (or looks again when it will be).
    fn look_at(&mut self, record: &GameRecord) {
        let Some((seat, was_present)) = self.seat else { return };
        if record.end().is_some() {
            return;
        }
        let other = seat.other();
        let present = record.is_present(other);
        self.seat = Some((seat, present));
        if present != was_present {
            self.queue.push_back(presence(&self.service, record, other, present));
        }
        self.claim_at = None;
        let Some((_, from)) = self.service.claimable(record).filter(|&(player, _)| player == other) else { return };
        match Duration::try_from(from.duration_since(self.service.now())) {
            Ok(wait) if !wait.is_zero() => self.claim_at = Some(Instant::now() + wait),
            _ if self.claim_told != Some(from) => {
                self.claim_told = Some(from);
                self.queue.push_back(about_the_other("claim_open", other, Some(from)));
            }
            _ => {}
        }
    }

    /// Queues the events of `snapshot`'s entries after those sent, and the end
    /// of a game to which nothing more will come; a finished game that may still
    /// get a rematch is looked at again when its window closes.
    fn enqueue(&mut self, snapshot: &Snapshot) {
        let sent = self.sent;
        let encoded = match self.format {
            StreamFormat::Game => &snapshot.events,
            // The feed encodes its states once a state stream has followed it.
            StreamFormat::State => snapshot.states.as_ref().unwrap_or(&snapshot.events),
        };
        for (seq, event) in encoded.iter().filter(|&&(seq, _)| seq > sent) {
            self.sent = *seq;
            self.queue.push_back(event.clone());
        }
        self.final_at = None;
        let Some(final_at) = self.service.final_at(&snapshot.record) else { return };
        match Duration::try_from(final_at.duration_since(self.service.now())) {
            // Final now: what is queued is all there will be.
            Ok(Duration::ZERO) | Err(_) => {
                self.queue.extend(snapshot.end.clone());
                self.ended = true;
            }
            Ok(wait) => self.final_at = Some(Instant::now() + wait),
        }
    }

    /// Queues what the log holds after what was sent, as new as `wanted`. While
    /// the database is away the stream stays open and tries again later: ended,
    /// it would leave a browser's `EventSource` to reconnect into a 503, after
    /// which it gives up.
    async fn catch_up(&mut self, wanted: Wanted) -> Result<(), Error> {
        self.retry_at = None;
        match self.feed.snapshot(&self.service, self.id, wanted).await {
            Ok(snapshot) => {
                self.failures = 0;
                self.enqueue(&snapshot);
            }
            Err(Error::Unavailable(detail)) => {
                self.failures = self.failures.saturating_add(1);
                let wait = retry_wait(self.failures);
                // Like a 503 answer, not worth a warning: with many watchers, an
                // outage would log one for each, again and again.
                log::debug!(
                    "game {}'s watcher will read its log again in {} ms (failure {}): {detail}",
                    self.id,
                    wait.as_millis(),
                    self.failures
                );
                let now = Instant::now();
                self.retry_at = Some((now + wait, now));
            }
            Err(error) => return Err(error),
        }
        Ok(())
    }

    /// The next bytes to send; `None` ends the stream.
    async fn next(mut self) -> Option<(Result<Bytes, Error>, Watch)> {
        loop {
            if let Some(bytes) = self.queue.pop_front() {
                return Some((Ok(bytes), self));
            }
            if self.ended {
                return None;
            }
            let caught_up = tokio::select! {
                notice = self.notices.recv() => match notice {
                    // The notices of what was written while the stream opened
                    // announce what it has sent already.
                    Ok(version) if version != UNKNOWN_VERSION && version <= self.sent => Ok(()),
                    // News may have been lost: read again soon, not all at once.
                    // (The read must come after this news, and after any heard
                    // before it: the latest is the one to read after.)
                    Ok(UNKNOWN_VERSION) => {
                        let now = Instant::now();
                        let reread_at = now + rand::rng().random_range(Duration::ZERO..=REREAD_SPREAD);
                        let reread_at = self.retry_at.map_or(reread_at, |(at, _)| at.min(reread_at));
                        self.retry_at = Some((reread_at, now));
                        Ok(())
                    }
                    Ok(version) => self.catch_up(Wanted::Version(version)).await,
                    // A lagging watcher lost notices, not entries: the log has them.
                    Err(RecvError::Lagged(_)) => self.catch_up(Wanted::ReadAfter(Instant::now())).await,
                    Err(RecvError::Closed) => return None,
                },
                () = sleep_until(self.retry_at.map_or_else(Instant::now, |(at, _)| at)), if self.retry_at.is_some() => {
                    let news = self.retry_at.map_or_else(Instant::now, |(_, news)| news);
                    self.catch_up(Wanted::ReadAfter(news)).await
                }
                () = sleep_until(self.final_at.unwrap_or_else(Instant::now)), if self.final_at.is_some() => {
                    let final_at = self.final_at.unwrap_or_else(Instant::now);
                    self.catch_up(Wanted::ReadAfter(final_at)).await
                }
                () = sleep_until(self.claim_at.unwrap_or_else(Instant::now)), if self.claim_at.is_some() => {
                    self.look_at_the_other_seat().await;
                    Ok(())
                }
                _ = self.keep_alive.tick() => {
                    self.look_at_the_other_seat().await;
                    self.tell_spectators();
                    self.queue.push_back(Bytes::from_static(b": keep-alive\n\n"));
                    Ok(())
                }
            };
            if let Err(error) = caught_up {
                return Some((Err(error), self));
            }
        }
    }
}

/// Where a stream resumes, for a client that cannot send `Last-Event-ID`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub(super) struct Resume {
    /// The last event seen, as `Last-Event-ID` gives it: a fresh `EventSource`
    /// (after a page reload) cannot send the header, but can open
    /// `events?last_event_id=N`. The header wins when both are sent: it is what a
    /// reconnecting `EventSource` saw last.
    #[param(pattern = r"^[0-9]{1,18}$")]
    last_event_id: Option<String>,
}

/// In which form a stream sends its events.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub(super) struct Format {
    /// `game` (the default): each entry's event holds the whole game. `state`:
    /// the whole game once, then small events, for a program that plays.
    format: Option<StreamFormat>,
}

/// The sequence number an event id names: up to 18 digits, as the spec says.
fn event_seq(id: &str) -> Option<i64> {
    let id = id.trim();
    (!id.is_empty() && id.len() <= 18 && id.bytes().all(|digit| digit.is_ascii_digit())).then(|| id.parse().ok())?
}

/// The sequence number a reconnecting `EventSource` last saw: its `Last-Event-ID`,
/// else the query's `last_event_id`; none on a first connection. Both are
/// checked when both are sent.
pub(super) fn last_event_id(request: &HttpRequest, resume: &Resume) -> Result<Option<i64>, ApiError> {
    let query = match &resume.last_event_id {
        None => None,
        Some(id) => Some(event_seq(id).ok_or_else(|| {
            ApiError::InvalidQuery(format!("last_event_id must be the id of an event, a whole number, not {id:?}"))
        })?),
    };
    match request.headers().get("Last-Event-ID").map(|value| value.to_str().ok().and_then(event_seq)) {
        None => Ok(query),
        Some(Some(seq)) => Ok(Some(seq)),
        Some(None) => Err(ApiError::InvalidHeader("Last-Event-ID must be the id of an event, a whole number".into())),
    }
}

/// Watch a game live, as Server-Sent Events.
///
/// Every entry of the game's log is an event: its `id` is the entry's sequence
/// number, its `event` the entry's kind (`seat`, `move`, `collapse`, `resign`,
/// `timeout`, `abort`, `abandon` or `rematch`), its `data`
/// a `LiveEvent`, `{"entry": ..., "game": ...}` with the game right after it. The
/// stream first sends the entries after `Last-Event-ID` (or `?last_event_id=`; all
/// of them on a first connection), then each new one as it is written. When the
/// game is finished and nothing more will come (against a bot at once; between two
/// people once a rematch is asked for, or the rematch window after the end), a last
/// event, `end` (with no id, its data a `LiveEnd`), and the stream closes; a
/// reconnect that has seen every event gets 204, which tells an `EventSource` to
/// stop. A comment every 5 s keeps idle streams open, and a
/// `retry` field of 2-4 s spreads reconnects. While the database is away the
/// stream stays open, and goes on when it is back. One client address holds at
/// most `MAX_LIVE_STREAMS_PER_ADDRESS` streams open (32 by default): 429 beyond.
/// `EventSource` hides a 404, 429 or 503: get the game first. A private game's
/// stream takes its invite as `?invite=` (an `EventSource` sends no header).
///
/// Opened with a seat's token (or its player's; `?token=` for an
/// `EventSource`), the stream keeps that seat present while it is open, and
/// tells its holder when the other player goes (`opponent_gone`: not seen for
/// 30 s) and comes back (`opponent_back`), and when the game may be claimed
/// against the other player (`claim_open`: an untimed game, the other player to
/// act and gone for `CLAIM_AFTER_SECONDS`), events with no id whose data is a
/// `LivePresence`.
///
/// With `?format=state`, for a program that plays: a first event, `game`, holds
/// the whole game (a `LiveGame`: the view with `your_seat`, the transcript in one
/// line, the legal actions), its id the game's version; then each entry's event
/// is small (a `LiveState`: the entry, the status, whose turn it is, the clocks,
/// and the legal actions of the side to act at that version). Resumed with
/// `Last-Event-ID`, it sends the small events after it, without `game`. Every stream tells how many watch the game without a seat:
/// `spectators`, with no id, its data a `LiveSpectators`, when it opens and
/// within 5 s of a change. Kinds may be added: a client that reads the game again
/// (`GET /games/{id}`) on a kind it does not know stays right.
///
/// ```js
/// const events = new EventSource(`/api/v1/games/${id}/events`);
/// for (const kind of ["seat", "move", "collapse", "resign", "timeout", "abort", "abandon", "rematch"])
///   events.addEventListener(kind, (e) => render(JSON.parse(e.data).game));
/// events.addEventListener("end", (e) => { render(JSON.parse(e.data).game); events.close(); });
/// ```
#[utoipa::path(
    tag = "games",
    security((), ("seat_token" = [])),
    params(
        ("id" = i64, Path, description = "The game's id."),
        ("Last-Event-ID" = Option<String>, Header, nullable = false, pattern = r"^[0-9]{1,18}$", description = "The last event seen; the stream resumes after it."),
        Resume,
        Format,
        Reader,
    ),
    responses(
        (status = 200, description = "A stream of events, each `id`, `event` and a `data` line of JSON.",
            content_type = "text/event-stream", body = LiveEventMessage),
        (status = 204, description = "The game is finished and the client has seen every event: nothing more will come."),
        (status = 400, response = super::docs::BadRequest),
        (status = 404, response = super::docs::NotFound),
        (status = 429, response = super::docs::TooManyRequests),
        (status = 500, response = super::docs::Internal),
        (status = 503, response = super::docs::Unavailable),
    )
)]
#[get("/games/{id}/events")]
async fn events(
    service: web::Data<GameService>,
    feeds: web::Data<Feeds>,
    id: web::Path<GameId>,
    resume: web::Query<Resume>,
    reader: Reader,
    request: HttpRequest,
    limits: web::Data<Limits>,
) -> Result<HttpResponse, ApiError> {
    let format =
        web::Query::<Format>::from_query(request.query_string()).map_err(invalid_query)?.format.unwrap_or_default();
    let (id, last) = (id.into_inner(), last_event_id(&request, &resume)?.unwrap_or(0));
    let place = Limits::open_stream(&limits, ClientAddress::of(&request))?;
    // Watch before reading the log: whatever is written in between is both in the
    // log read and announced, and `sent` keeps it from going out twice.
    let notices = service.watch(id);
    let record = service.game(id, &reader.0).await?;
    let seat = reader.0.seat(&record.stored).map(|seat| (seat, record.is_present(seat.other())));
    if service.is_final(&record) && last >= record.version() {
        return Ok(HttpResponse::NoContent().finish());
    }
    let feed = feeds.of(id);
    let spectator = seat.is_none().then(|| feed.spectate());
    if format == StreamFormat::State {
        feed.follow_states();
    }
    let snapshot = feed.offer(record, service.claim_after()).await?;
    // A state stream opens with the whole game, unless it resumes.
    let whole = (format == StreamFormat::State && last == 0)
        .then(|| whole_game(&snapshot.record, seat.map(|(seat, _)| seat), service.claim_after()));
    let mut watch = Watch {
        service,
        id,
        feed,
        sent: last,
        queue: VecDeque::new(),
        notices,
        keep_alive: interval_at(Instant::now() + KEEP_ALIVE, KEEP_ALIVE),
        retry_at: None,
        failures: 0,
        final_at: None,
        ended: false,
        _place: place,
        credentials: reader.0,
        seat,
        _spectator: spectator,
        spectators_told: None,
        format,
        claim_at: None,
        claim_told: None,
    };
    watch.queue.push_back(reconnect_field());
    if let Some(whole) = whole {
        watch.sent = snapshot.record.version();
        watch.queue.push_back(whole);
    }
    watch.enqueue(&snapshot);
    // The game was just read with the reader's credentials: the look needs no read of its own.
    watch.look_at(&snapshot.record);
    watch.tell_spectators();
    Ok(event_stream(futures_util::stream::unfold(watch, Watch::next)))
}

/// Registers the event stream.
pub fn routes(config: &mut utoipa_actix_web::service_config::ServiceConfig) {
    config.service(events);
}
