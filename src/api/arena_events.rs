//! An arena's live stream, as Server-Sent Events: each pairing, the standings
//! whenever they move, and the end. Each instance reads an arena that it
//! streams every [`LOOK_EVERY`], once for all of the arena's streams: an
//! arena's news is its games and its players, written on any instance, which
//! no notice names together.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use actix_web::web::Bytes;
use actix_web::{HttpRequest, get, web};
use tokio::sync::watch;
use tokio::time::{Instant, Interval, MissedTickBehavior, interval, interval_at};

use super::events::{KEEP_ALIVE, Resume, event_stream, last_event_id, reconnect_field};
use super::feed::message;
use super::limit::{ClientAddress, Limits, StreamPlace};
use super::problem::ApiError;
use super::views::{ArenaDetail, ArenaGameView};
use crate::error::Error;
use crate::record::{ArenaId, ArenaStatus};
use crate::service::GameService;

/// How often an instance reads an arena that it streams again: the
/// standings it shows are at most this old.
const LOOK_EVERY: Duration = Duration::from_millis(500);

/// An arena as one read of it shows it, which every stream of the arena on
/// this instance is sent from.
#[derive(Debug)]
struct Look {
    /// Its games, each as a pairing, in the order they were made.
    pairings: Vec<ArenaGameView>,
    /// The standings, the games being played and the status, as JSON: what,
    /// once changed, is sent again.
    shown: String,
    /// The arena, as its `standings` and `end` events carry it.
    detail: ArenaDetail,
    /// Whether it finished and its last game ended.
    ended: bool,
}

/// The arenas this instance streams, each read once for all its streams by
/// a task of its own, while any stream follows it.
#[derive(Debug, Default)]
pub struct ArenaLooks(Mutex<HashMap<ArenaId, watch::Sender<Option<Arc<Look>>>>>);

impl ArenaLooks {
    /// The looks at arena `id`, as they come: its task starts with the first stream.
    fn follow(
        looks: &web::Data<ArenaLooks>,
        service: &web::Data<GameService>,
        id: ArenaId,
    ) -> watch::Receiver<Option<Arc<Look>>> {
        let mut arenas = looks.0.lock().expect("nothing panics under this lock");
        if let Some(sender) = arenas.get(&id) {
            return sender.subscribe();
        }
        let (sender, receiver) = watch::channel(None);
        arenas.insert(id, sender.clone());
        actix_web::rt::spawn(look_while_followed(looks.clone(), service.clone(), id, sender));
        receiver
    }
}

/// Reads arena `id` every [`LOOK_EVERY`] and sends what it shows, until no
/// stream follows it (or it ended).
async fn look_while_followed(
    looks: web::Data<ArenaLooks>,
    service: web::Data<GameService>,
    id: ArenaId,
    sender: watch::Sender<Option<Arc<Look>>>,
) {
    let mut every = interval(LOOK_EVERY);
    every.set_missed_tick_behavior(MissedTickBehavior::Delay);
    loop {
        every.tick().await;
        {
            let mut arenas = looks.0.lock().expect("nothing panics under this lock");
            if sender.receiver_count() == 0 {
                arenas.remove(&id);
                return;
            }
        }
        // While the database is away the streams stay open and the next turn reads again.
        let Ok((state, standings)) = service.arena_state(id).await else { continue };
        let detail = ArenaDetail::new(&state, &standings, service.now());
        let mut games: Vec<_> = state.games.iter().collect();
        games.sort_by_key(|game| game.id);
        let shown = serde_json::to_string(&(&detail.standings, &detail.playing, &detail.arena.status))
            .expect("standings serialise");
        let ended = state.arena.terms.status_at(service.now()) == ArenaStatus::Finished && detail.playing.is_empty();
        let pairings = games.into_iter().map(|game| ArenaGameView::new(&state, game)).collect();
        sender.send_replace(Some(Arc::new(Look { pairings, shown, detail, ended })));
    }
}

/// An arena's stream: what is queued to send, how many pairings it sent,
/// the standings it showed last, and whether it told the end.
struct ArenaWatch {
    looks: watch::Receiver<Option<Arc<Look>>>,
    paired: i64,
    shown: String,
    ended: bool,
    queue: VecDeque<Bytes>,
    keep_alive: Interval,
    _place: StreamPlace,
}

impl ArenaWatch {
    /// Queues what changed in `look` since the last: the pairings after those
    /// sent, numbered from 1 in the order they were made; the standings, if
    /// they moved; the end.
    fn queue(&mut self, look: &Look) {
        for (number, pairing) in (1..).zip(&look.pairings) {
            if number > self.paired {
                self.paired = number;
                self.queue.push_back(message(Some(number), "pairing", pairing));
            }
        }
        if look.shown != self.shown {
            self.shown.clone_from(&look.shown);
            self.queue.push_back(message(None, "standings", &look.detail));
        }
        if look.ended {
            self.queue.push_back(message(None, "end", &look.detail));
            self.ended = true;
        }
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
                changed = self.looks.changed() => {
                    changed.ok()?;
                    let look = self.looks.borrow_and_update().clone();
                    if let Some(look) = look {
                        self.queue(&look);
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
    arena_looks: web::Data<ArenaLooks>,
    client: ClientAddress,
) -> Result<actix_web::HttpResponse, ApiError> {
    let paired = last_event_id(&request, &resume)?.unwrap_or(0);
    let id = id.into_inner();
    service.arena(id).await?;
    let place = Limits::open_stream(&limits, client)?;
    let mut looks = ArenaLooks::follow(&arena_looks, &service, id);
    // The stream opens with the last look, when there is one.
    looks.mark_changed();
    let watch = ArenaWatch {
        looks,
        paired,
        shown: String::new(),
        ended: false,
        queue: VecDeque::from([reconnect_field()]),
        keep_alive: interval_at(Instant::now() + KEEP_ALIVE, KEEP_ALIVE),
        _place: place,
    };
    Ok(event_stream(futures_util::stream::unfold(watch, ArenaWatch::next)))
}

/// Registers the arena's stream.
pub fn routes(config: &mut utoipa_actix_web::service_config::ServiceConfig) {
    config.service(arena_stream);
}
