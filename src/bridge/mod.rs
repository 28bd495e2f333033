//! `qttt bridge`: plugs any engine that speaks QTP into a bot account, as
//! lichess-bot does for UCI engines on lichess. It follows the account's
//! event stream, accepts the challenges its filters allow and declines the
//! others with a reason, seeks games when asked to, and plays each game with
//! an engine process of its own. Its games that go on when it starts (after
//! a restart of the bridge) it plays on; after a restart of the server it
//! follows the streams again from the last event seen.

mod decide;
mod engine;
mod game;
mod http;

use std::cell::RefCell;
use std::collections::HashSet;
use std::rc::Rc;
use std::time::Duration;

use serde_json::{Value, json};

pub use decide::Filters;
use http::{Api, Failure, Follower};

/// How often a seeking bridge looks at its seek.
const SEEK_EVERY: Duration = Duration::from_secs(5);

/// What a bridge plays, and how.
#[derive(Debug, Clone)]
pub struct Options {
    /// The server, as `http://host:port`.
    pub server: String,
    /// The bot account's player token.
    pub token: String,
    /// The engine's command line, run by `sh -c` once for each game.
    pub engine: String,
    /// The challenges it accepts.
    pub filters: Filters,
    /// The terms of the seek it keeps open while it has room for a game
    /// (a `POST /seeks` body), if it seeks.
    pub seek: Option<Value>,
    /// What each clock sent to the engine is cut by: the bridge's own delay.
    pub move_overhead_ms: i64,
}

/// The games the bridge plays now, each with its own task.
#[derive(Clone)]
struct Playing {
    api: Api,
    options: Rc<Options>,
    games: Rc<RefCell<HashSet<i64>>>,
}

impl Playing {
    /// Plays game `id`, unless it plays it already.
    fn start(&self, id: i64) {
        if !self.games.borrow_mut().insert(id) {
            return;
        }
        let (api, games) = (self.api.clone(), Rc::clone(&self.games));
        let (engine, overhead_ms) = (self.options.engine.clone(), self.options.move_overhead_ms);
        tokio::task::spawn_local(async move {
            game::play(api, engine, overhead_ms, id).await;
            games.borrow_mut().remove(&id);
        });
    }

    fn count(&self) -> usize {
        self.games.borrow().len()
    }
}

/// Runs the bridge until SIGTERM or Ctrl-C; its engines are stopped with it.
///
/// # Errors
/// When the server does not know the token.
pub async fn run(options: Options) -> Result<(), String> {
    let api = Api::new(&options.server, &options.token);
    let me = api
        .get("/players/me")
        .await
        .map_err(|failure| format!("{} as the token's player: {failure}", options.server))?;
    let name = me["name"].as_str().unwrap_or_default().to_string();
    if me["bot"] != true {
        eprintln!("bridge: {name} is not a bot account; make it one with POST /api/v1/players/me/bot");
    }
    println!("bridge: {name} on {} plays with {}", options.server, options.engine);
    let playing = Playing { api: api.clone(), options: Rc::new(options), games: Rc::default() };
    // The games that go on when the bridge starts are its own to play on.
    match api.get("/players/me/games?status=ongoing&limit=100").await {
        Ok(page) => page["games"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|game| game["id"].as_i64())
            .for_each(|id| playing.start(id)),
        Err(failure) => eprintln!("bridge: cannot list its games: {failure}"),
    }
    tokio::select! {
        () = stopped() => {
            println!("bridge: stopping, with {} games going on", playing.count());
            Ok(())
        }
        followed = follow_events(&playing) => followed,
        () = seek(&playing) => Ok(()),
    }
}

/// Once SIGTERM or Ctrl-C comes.
async fn stopped() {
    let mut terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
    let terminated = async {
        match terminate.as_mut() {
            Some(signal) => drop(signal.recv().await),
            None => std::future::pending().await,
        }
    };
    tokio::select! {
        () = terminated => {}
        _ = tokio::signal::ctrl_c() => {}
    }
}

/// Follows the bot's event stream for ever: answers each open challenge, and
/// plays each game that starts.
///
/// # Errors
/// When the server refuses the stream: the token is no player's.
async fn follow_events(playing: &Playing) -> Result<(), String> {
    let mut stream = Follower::new(&playing.api, "/players/me/events".into());
    loop {
        let event = stream.next().await.map_err(|failure| format!("its event stream was refused: {failure}"))?;
        match event.kind.as_str() {
            "challenge" if event.data["challenge"]["status"] == "open" => {
                answer(playing, &event.data["challenge"]).await
            }
            "game_start" if event.data["game"]["status"] != "finished" => {
                event.data["game"]["id"].as_i64().into_iter().for_each(|id| playing.start(id));
            }
            _ => {}
        }
    }
}

/// Accepts `challenge` when the filters allow it, else declines it with why.
async fn answer(playing: &Playing, challenge: &Value) {
    let id = challenge["id"].as_i64().unwrap_or_default();
    let from = challenge["challenger"].as_str().unwrap_or_default();
    let answered = match playing.options.filters.refusal(challenge, playing.count()) {
        None => match playing.api.post(&format!("/challenges/{id}/accept"), &json!({}), None).await {
            Ok(seated) => {
                println!("bridge: accepted {from}'s challenge {id}");
                seated["game"]["id"].as_i64().into_iter().for_each(|game| playing.start(game));
                Ok(())
            }
            Err(failure) => Err(failure),
        },
        Some(reason) => {
            println!("bridge: declined {from}'s challenge {id}: {reason}");
            playing.api.post(&format!("/challenges/{id}/decline"), &json!({ "reason": reason }), None).await.map(drop)
        }
    };
    if let Err(failure) = answered {
        eprintln!("bridge: cannot answer challenge {id}: {failure}");
    }
}

/// Keeps a seek open while the bridge has room for a game, when it seeks.
async fn seek(playing: &Playing) {
    let Some(terms) = playing.options.seek.clone() else { return std::future::pending().await };
    let mut open: Option<i64> = None;
    loop {
        if let Some(id) = open {
            match playing.api.get(&format!("/seeks/{id}")).await {
                Ok(seek) if seek["status"] == "open" => {}
                Ok(seek) => {
                    seek["game_id"].as_i64().into_iter().for_each(|game| playing.start(game));
                    open = None;
                }
                Err(failure) => eprintln!("bridge: cannot read its seek {id}: {failure}"),
            }
        }
        if open.is_none() && playing.count() < playing.options.filters.max_games {
            match playing.api.post("/seeks", &terms, None).await {
                Ok(seek) if seek["status"] == "paired" => {
                    seek["game_id"].as_i64().into_iter().for_each(|game| playing.start(game));
                }
                Ok(seek) => open = seek["id"].as_i64(),
                Err(Failure::Answered(status, problem)) => {
                    eprintln!("bridge: its seek was refused: {status} {}", problem["detail"]);
                }
                Err(failure) => eprintln!("bridge: cannot seek: {failure}"),
            }
        }
        tokio::time::sleep(SEEK_EVERY).await;
    }
}
