//! An arena's live stream, as Server-Sent Events: each pairing, the standings
//! whenever they move, and the end. The stream reads the arena again every
//! [`LOOK_EVERY`], on whichever instance its games are written: an arena's
//! news is its games and its players, which no notice names together.

use std::collections::VecDeque;
use std::time::Duration;

use actix_web::web::Bytes;
use actix_web::{HttpRequest, get, web};
use tokio::time::{Instant, Interval, MissedTickBehavior, interval, interval_at};

use super::events::{KEEP_ALIVE, Resume, event_stream, last_event_id, reconnect_field};
use super::feed::message;
use super::limit::{ClientAddress, Limits, StreamPlace};
use super::problem::ApiError;
use super::views::{ArenaDetail, ArenaGameView};
use crate::error::Error;
use crate::record::{ArenaId, ArenaStatus};
use crate::service::GameService;

/// How often a stream reads its arena again: the standings it shows are at
/// most this old.
const LOOK_EVERY: Duration = Duration::from_millis(500);

/// An arena's stream: what is queued to send, how many pairings it sent,
/// the standings it showed last, and whether it told the end.
struct ArenaWatch {
    service: web::Data<GameService>,
    id: ArenaId,
    paired: i64,
    shown: String,
    ended: bool,
    queue: VecDeque<Bytes>,
    look: Interval,
    keep_alive: Interval,
    _place: StreamPlace,
}

impl ArenaWatch {
    /// Queues what changed since the last look: the pairings after those
    /// sent, numbered from 1 in the order they were made; the standings, if
    /// they moved; the end, once the arena finished and its last game ended.
    /// While the database is away the stream stays open and looks again later.
    async fn look(&mut self) -> Result<(), Error> {
        let (state, standings) = match self.service.arena_state(self.id).await {
            Ok(read) => read,
            Err(Error::Unavailable(_)) => return Ok(()),
            Err(error) => return Err(error),
        };
        let detail = ArenaDetail::new(&state, &standings, self.service.now());
        let mut games: Vec<_> = state.games.iter().collect();
        games.sort_by_key(|game| game.id);
        for (number, game) in (1..).zip(games) {
            if number > self.paired {
                self.paired = number;
                let pairing = ArenaGameView::new(&state, game);
                self.queue.push_back(message(Some(number), "pairing", &pairing));
            }
        }
        let shown = serde_json::to_string(&(&detail.standings, &detail.playing, &detail.arena.status))
            .expect("standings serialise");
        if shown != self.shown {
            self.shown = shown;
            self.queue.push_back(message(None, "standings", &detail));
        }
        if state.arena.terms.status_at(self.service.now()) == ArenaStatus::Finished && detail.playing.is_empty() {
            self.queue.push_back(message(None, "end", &detail));
            self.ended = true;
        }
        Ok(())
    }

    /// The next bytes to send; `None` ends the stream, after the end.
    async fn next(mut self) -> Option<(Result<Bytes, Error>, ArenaWatch)> {
        loop {
            if let Some(bytes) = self.queue.pop_front() {
                return Some((Ok(bytes), self));
            }
            if self.ended {
                return None;
            }
            tokio::select! {
                _ = self.look.tick() => {
                    if let Err(error) = self.look().await {
                        return Some((Err(error), self));
                    }
                }
                _ = self.keep_alive.tick() => return Some((Ok(Bytes::from_static(b": keep-alive\n\n")), self)),
            }
        }
    }
}

/// Follow an arena live, as Server-Sent Events.
///
/// `pairing` (its `id` the pairing's number in the arena, from 1; `data` the
/// game and its two players) for each game the arena starts; `standings` (no
/// id; `data` the arena as `GET /arenas/{id}` gives it) when the stream
/// opens and whenever the standings, the games being played or the status
/// change; `end` (no id; the same `data`) once the arena finished and its
/// last game ended, after which the stream closes. Resumed with
/// `Last-Event-ID` (or `?last_event_id=`), it sends the pairings after it,
/// then the standings. A page follows its player to their games with their
/// own event stream (`game_start`), which this one does not replace.
#[utoipa::path(
    tag = "arenas",
    params(
        ("id" = i64, Path, description = "The arena's id."),
        ("Last-Event-ID" = Option<String>, Header, nullable = false, pattern = r"^[0-9]{1,18}$", description = "The last pairing seen; the stream resumes after it."),
        Resume,
    ),
    responses(
        (status = 200, description = "A stream of events: `pairing` (an ArenaGameView), `standings` and `end` (an ArenaDetail).",
            content_type = "text/event-stream", body = ArenaDetail),
        (status = 400, response = super::docs::BadRequest),
        (status = 404, response = super::docs::NotFound),
        (status = 429, response = super::docs::TooManyRequests),
        (status = 503, response = super::docs::Unavailable),
    )
)]
#[get("/arenas/{id}/stream")]
async fn arena_stream(
    service: web::Data<GameService>,
    id: web::Path<ArenaId>,
    resume: web::Query<Resume>,
    request: HttpRequest,
    limits: web::Data<Limits>,
    client: ClientAddress,
) -> Result<actix_web::HttpResponse, ApiError> {
    let paired = last_event_id(&request, &resume)?;
    let id = id.into_inner();
    service.arena(id).await?;
    let place = Limits::open_stream(&limits, client)?;
    let mut look = interval(LOOK_EVERY);
    look.set_missed_tick_behavior(MissedTickBehavior::Delay);
    let watch = ArenaWatch {
        service,
        id,
        paired,
        shown: String::new(),
        ended: false,
        queue: VecDeque::from([reconnect_field()]),
        look,
        keep_alive: interval_at(Instant::now() + KEEP_ALIVE, KEEP_ALIVE),
        _place: place,
    };
    Ok(event_stream(futures_util::stream::unfold(watch, ArenaWatch::next)))
}

/// Registers the arena's stream.
pub fn routes(config: &mut utoipa_actix_web::service_config::ServiceConfig) {
    config.service(arena_stream);
}
