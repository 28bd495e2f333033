//! The live event stream of a game, as Server-Sent Events.

use std::collections::VecDeque;
use std::time::Duration;

use actix_web::http::header;
use actix_web::web::Bytes;
use actix_web::{HttpRequest, HttpResponse, get, web};
use serde::Serialize;
use tokio::sync::broadcast::{self, error::RecvError};
use tokio::time::{Instant, Interval, interval_at, sleep_until};
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};
use utoipa::openapi::{Ref, RefOr};
use utoipa::{PartialSchema, ToSchema};

use super::problem::ApiError;
use super::views::{EventView, GameView, LogEntryView};
use crate::error::Error;
use crate::live::UNKNOWN_VERSION;
use crate::service::StoredEntry;
use crate::service::{GameRecord, GameService};

/// How often an idle stream sends a comment, so that proxies keep it open.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// How long a watcher waits to read the log again after the database did not answer.
const RETRY: Duration = Duration::from_secs(1);

/// The data of one event: the log entry, and the game right after it.
#[derive(Debug, Serialize, ToSchema)]
pub struct LiveEvent {
    /// What happened; its `seq` is the event's id.
    pub entry: LogEntryView,
    /// The game as it stood right after it.
    pub game: GameView,
}

/// One event as the stream sends it, its JSON `data` described by [`LiveEvent`]:
/// the schema of each item of the stream, as OpenAPI 3.2's `itemSchema` would give it.
pub struct LiveEventMessage;

impl utoipa::PartialSchema for LiveEventMessage {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .property(
                "id",
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .pattern(Some("^[0-9]+$"))
                    .description(Some("The entry's sequence number; send it back as Last-Event-ID to resume.")),
            )
            .property(
                "event",
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .enum_values(Some(["seat", "move", "collapse"]))
                    .description(Some("The entry's kind.")),
            )
            .property(
                "data",
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .content_media_type("application/json")
                    .content_schema(Some(Ref::from_schema_name(LiveEvent::name())))
                    .description(Some("A LiveEvent, as JSON.")),
            )
            .required("id")
            .required("event")
            .required("data")
            .description(Some("One Server-Sent Event."))
            .into()
    }
}

impl ToSchema for LiveEventMessage {
    fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
        schemas.push((LiveEvent::name().into(), LiveEvent::schema()));
        <LiveEvent as ToSchema>::schemas(schemas);
    }
}

fn event(entry: &StoredEntry, record: &GameRecord) -> Bytes {
    let entry = LogEntryView::from(entry);
    let kind = match entry.event {
        EventView::Seat { .. } => "seat",
        EventView::Move { .. } => "move",
        EventView::Collapse { .. } => "collapse",
    };
    let seq = entry.seq;
    let data = serde_json::to_string(&LiveEvent { entry, game: GameView::from(record) }).expect("an event serialises");
    Bytes::from(format!("id: {seq}\nevent: {kind}\ndata: {data}\n\n"))
}

/// A watcher's stream: what is queued to send, how far it got, its notices, and
/// when to read the log again if the last read found the database away.
struct Watch {
    service: web::Data<GameService>,
    id: i64,
    sent: i64,
    queue: VecDeque<Bytes>,
    notices: broadcast::Receiver<i64>,
    keep_alive: Interval,
    retry_at: Option<Instant>,
}

impl Watch {
    fn enqueue(&mut self, history: Vec<(StoredEntry, GameRecord)>) {
        for (entry, record) in history {
            self.sent = entry.seq;
            self.queue.push_back(event(&entry, &record));
        }
    }

    /// Queues what the log holds after what was sent. While the database is away
    /// the stream stays open and tries again later: ended, it would leave a
    /// browser's `EventSource` to reconnect into a 503, after which it gives up.
    async fn catch_up(&mut self) -> Result<(), Error> {
        self.retry_at = None;
        match self.service.history(self.id, self.sent).await {
            Ok(history) => self.enqueue(history),
            Err(Error::Unavailable(detail)) => {
                // Like a 503 answer, not worth a warning: with many watchers, an
                // outage would log one every second for each.
                log::debug!("game {}'s watcher will read its log again: {detail}", self.id);
                self.retry_at = Some(Instant::now() + RETRY);
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
            let caught_up = tokio::select! {
                notice = self.notices.recv() => match notice {
                    // The notices of what was written while the stream opened
                    // announce what it has sent already.
                    Ok(version) if version != UNKNOWN_VERSION && version <= self.sent => Ok(()),
                    // A lagging watcher lost notices, not entries: the log has them.
                    Ok(_) | Err(RecvError::Lagged(_)) => self.catch_up().await,
                    Err(RecvError::Closed) => return None,
                },
                () = sleep_until(self.retry_at.unwrap_or_else(Instant::now)), if self.retry_at.is_some() => {
                    self.catch_up().await
                }
                _ = self.keep_alive.tick() => return Some((Ok(Bytes::from_static(b": keep-alive\n\n")), self)),
            };
            if let Err(error) = caught_up {
                return Some((Err(error), self));
            }
        }
    }
}

/// The sequence number a reconnecting `EventSource` last saw: its `Last-Event-ID`.
fn last_event_id(request: &HttpRequest) -> Result<i64, ApiError> {
    match request.headers().get("Last-Event-ID").map(|value| value.to_str().ok().and_then(|v| v.trim().parse().ok())) {
        None => Ok(0),
        Some(Some(seq)) => Ok(seq),
        Some(None) => Err(ApiError::InvalidHeader("Last-Event-ID must be the id of an event, a whole number".into())),
    }
}

/// Watch a game live, as Server-Sent Events.
///
/// Every entry of the game's log is an event: its `id` is the entry's sequence
/// number, its `event` the entry's kind (`seat`, `move` or `collapse`), its `data`
/// `{"entry": ..., "game": ...}` with the game right after it. The stream first
/// sends the entries after `Last-Event-ID` (all of them on a first connection),
/// then each new one as it is written. A comment every 15 s keeps idle streams open.
/// While the database is away the stream stays open, and goes on when it is back.
///
/// ```js
/// const events = new EventSource(`/api/v1/games/${id}/events`);
/// for (const kind of ["seat", "move", "collapse"])
///   events.addEventListener(kind, (e) => render(JSON.parse(e.data).game));
/// ```
#[utoipa::path(
    tag = "games",
    params(
        ("id" = i64, Path, description = "The game's id."),
        ("Last-Event-ID" = Option<String>, Header, nullable = false, pattern = r"^[0-9]{1,18}$", description = "The last event seen; the stream resumes after it."),
    ),
    responses(
        (status = 200, description = "A stream of events, each `id`, `event` and a `data` line of LiveEvent JSON.",
            content_type = "text/event-stream", body = LiveEventMessage),
        (status = 400, response = super::docs::BadRequest),
        (status = 404, response = super::docs::NotFound),
        (status = 500, response = super::docs::Internal),
        (status = 503, response = super::docs::Unavailable),
    )
)]
#[get("/games/{id}/events")]
async fn events(
    service: web::Data<GameService>,
    id: web::Path<i64>,
    request: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let (id, last) = (id.into_inner(), last_event_id(&request)?);
    // Watch before reading the log: whatever is written in between is both in the
    // log read and announced, and `sent` keeps it from going out twice.
    let notices = service.watch(id);
    let history = service.history(id, last).await?;
    let mut watch = Watch {
        service,
        id,
        sent: last,
        queue: VecDeque::new(),
        notices,
        keep_alive: interval_at(Instant::now() + KEEP_ALIVE, KEEP_ALIVE),
        retry_at: None,
    };
    watch.enqueue(history);
    let stream = futures_util::stream::unfold(watch, Watch::next);
    Ok(HttpResponse::Ok()
        .content_type("text/event-stream")
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .insert_header(("X-Accel-Buffering", "no"))
        .streaming(stream))
}

/// Registers the event stream.
pub fn routes(config: &mut utoipa_actix_web::service_config::ServiceConfig) {
    config.service(events);
}
