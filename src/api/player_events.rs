//! A player's live event stream, as Server-Sent Events: their games starting
//! and finishing, challenges coming and answered. Every event is a row of the
//! player's events, numbered per player and written with what it tells; the
//! stream reads what came after the last it sent whenever a notice says there
//! is news, so that a lost notice costs nothing and a reconnect resumes where
//! it left off.

use std::collections::VecDeque;

use actix_web::web::Bytes;
use actix_web::{HttpRequest, get, web};
use tokio::sync::broadcast::{self, error::RecvError};
use tokio::time::{Instant, Interval, interval_at, sleep_until};

use super::events::{KEEP_ALIVE, Resume, event_stream, last_event_id, reconnect_field, retry_wait};
use super::extract::{StreamToken, player};
use super::feed::message;
use super::limit::{ClientAddress, Limits, StreamPlace};
use super::problem::ApiError;
use super::views::PlayerEventView;
use crate::error::Error;
use crate::record::Holder;
use crate::service::{EVENTS_AT_ONCE, GameService};

/// A player's stream: what is queued to send, the last event queued, whether
/// more were written after it, its notices, and when to read again after the
/// database was away.
struct PlayerWatch {
    service: web::Data<GameService>,
    player: Holder,
    sent: i64,
    queue: VecDeque<Bytes>,
    more: bool,
    notices: broadcast::Receiver<i64>,
    keep_alive: Interval,
    retry_at: Option<Instant>,
    failures: u32,
    _place: StreamPlace,
}

impl PlayerWatch {
    /// Queues a page of the player's events after those queued: the next is
    /// read once this one is sent, so that a reader who does not read holds
    /// one page at most. While the database is away the stream stays open and
    /// reads again later.
    async fn catch_up(&mut self) -> Result<(), Error> {
        self.retry_at = None;
        let events = match self.service.player_events(self.player.id, self.sent).await {
            Ok(events) => events,
            Err(Error::Unavailable(_)) => {
                self.failures = self.failures.saturating_add(1);
                self.retry_at = Some(Instant::now() + retry_wait(self.failures));
                return Ok(());
            }
            Err(error) => return Err(error),
        };
        self.failures = 0;
        self.more = events.len() == EVENTS_AT_ONCE as usize;
        let now = self.service.now();
        for event in &events {
            self.sent = event.event.seq;
            if let Some(about) = &event.about {
                let view = PlayerEventView::new(event, about, &self.player.name, now);
                self.queue.push_back(message(Some(self.sent), event.event.kind.code(), &view));
            }
        }
        Ok(())
    }

    /// Whether the stream's token is no longer its player's: a new token
    /// ends the streams opened with the old one. While the database is away,
    /// it stays theirs.
    async fn token_replaced(&self) -> bool {
        matches!(self.service.still_holds_token(&self.player).await, Ok(false))
    }

    /// The next bytes to send; `None` ends the stream (the server stops, or
    /// the player's token was replaced).
    async fn next(mut self) -> Option<(Result<Bytes, Error>, PlayerWatch)> {
        loop {
            if let Some(bytes) = self.queue.pop_front() {
                return Some((Ok(bytes), self));
            }
            if self.more {
                if let Err(error) = self.catch_up().await {
                    return Some((Err(error), self));
                }
                continue;
            }
            let caught_up = tokio::select! {
                notice = self.notices.recv() => match notice {
                    Ok(_) | Err(RecvError::Lagged(_)) if self.token_replaced().await => return None,
                    Ok(_) | Err(RecvError::Lagged(_)) => self.catch_up().await,
                    Err(RecvError::Closed) => return None,
                },
                () = sleep_until(self.retry_at.unwrap_or_else(Instant::now)), if self.retry_at.is_some() => {
                    self.catch_up().await
                }
                _ = self.keep_alive.tick() => {
                    // A token replaced on an instance whose notice was lost.
                    if self.token_replaced().await {
                        return None;
                    }
                    // A stream held open is its player, here: a sighting that
                    // cannot be written now is written at the next tick.
                    let _ = self.service.keep_seen(&mut self.player).await;
                    return Some((Ok(Bytes::from_static(b": keep-alive\n\n")), self));
                }
            };
            if let Err(error) = caught_up {
                return Some((Err(error), self));
            }
        }
    }
}

/// Follow your own events live, as Server-Sent Events.
///
/// Each event's `event` is its kind: `game_start` (a game of yours started:
/// both seats are taken), `game_finish`, `challenge` (one came for you),
/// `challenge_accepted`, `challenge_declined` (one of yours was) or
/// `challenge_cancelled` (one sent to you was); its `data` a `PlayerEventView`;
/// its `id` the event's number among yours. The stream first sends the events
/// after `Last-Event-ID` (or `?last_event_id=`; your last 20 on a first
/// connection: read what is open now with `GET /players/me/challenges` and
/// `GET /players/me/games?status=ongoing`), then each new one as it happens,
/// on whichever instance. The server keeps your last 1,000 events: a stream
/// resumed from before them starts at the oldest kept. It
/// stays open; a comment every 5 s keeps it so. While it is open you count as
/// present in all your games. A new token (`POST /players/me/token`) ends the
/// streams opened with the old one. An `EventSource` cannot send a header: give it
/// the token as `?token=`. Kinds may be added: listen for those you know, and
/// read a game again (`GET /games/{id}`) on any other.
///
/// ```js
/// const events = new EventSource(`/api/v1/players/me/events?token=${token}`);
/// events.addEventListener("game_start", (e) => open(JSON.parse(e.data).game.id));
/// events.addEventListener("challenge", (e) => offer(JSON.parse(e.data).challenge));
/// ```
#[utoipa::path(
    tag = "players",
    security(("player_token" = []), ("player_token_in_query" = [])),
    params(
        ("Last-Event-ID" = Option<String>, Header, nullable = false, pattern = r"^[0-9]{1,18}$", description = "The last event seen; the stream resumes after it."),
        Resume,
    ),
    responses(
        (status = 200, description = "A stream of events, each `id`, `event` and a `data` line of JSON (a PlayerEventView).",
            content_type = "text/event-stream", body = PlayerEventView),
        (status = 400, response = super::docs::BadRequest),
        super::docs::PlayerRefusals,
    )
)]
#[get("/players/me/events")]
async fn player_events(
    service: web::Data<GameService>,
    token: StreamToken,
    resume: web::Query<Resume>,
    request: HttpRequest,
    limits: web::Data<Limits>,
    client: ClientAddress,
) -> Result<actix_web::HttpResponse, ApiError> {
    let last = last_event_id(&request, &resume)?;
    let place = Limits::open_stream(&limits, client)?;
    let player = player(&service, &token.0).await?;
    let sent = match last {
        Some(last) => last,
        None => service.recent_events_start(player.id).await?,
    };
    // Watch before reading: whatever is written in between is both read and
    // announced, and `sent` keeps it from going out twice.
    let notices = service.watch_player(player.id);
    let mut watch = PlayerWatch {
        service,
        player,
        sent,
        queue: VecDeque::from([reconnect_field()]),
        more: false,
        notices,
        keep_alive: interval_at(Instant::now() + KEEP_ALIVE, KEEP_ALIVE),
        retry_at: None,
        failures: 0,
        _place: place,
    };
    watch.catch_up().await?;
    Ok(event_stream(futures_util::stream::unfold(watch, PlayerWatch::next)))
}

/// Registers the player's event stream.
pub fn routes(config: &mut utoipa_actix_web::service_config::ServiceConfig) {
    config.service(player_events);
}
