//! One game played through the bridge: its state stream followed (and
//! followed again after a break, from the last event seen), and the engine
//! asked for an action whenever the bot's side is to act.

use serde_json::{Value, json};

use super::decide::{entry_action, go_command, is_legal, moves_in, position_command, request_of, transcript_actions};
use super::engine::Engine;
use super::http::{Api, Failure, Follower};
use crate::engine::{Rules, Scoring, Variant};

/// What the bridge knows of a game from its stream.
struct Followed {
    rules: Rules,
    /// The bot's seat.
    seat: String,
    /// Its actions so far, as the transcript writes them.
    actions: Vec<String>,
    /// The latest state: `status`, `result`, `clock` and `legal`.
    state: Value,
    /// The version the bot last acted at: it acts once at each.
    acted_at: Option<i64>,
}

impl Followed {
    /// The game as its `game` event holds it.
    fn whole(data: &Value) -> Result<Followed, String> {
        let game = &data["game"];
        let variant = game["variant"].as_str().and_then(Variant::named).ok_or("a game without a variant")?;
        // A server from before scorings names none: its games are Goff's.
        let scoring =
            game["scoring"].as_str().map_or(Some(Scoring::Goff), Scoring::named).ok_or("an unknown scoring")?;
        let seat = game["your_seat"].as_str().ok_or("the bot holds no seat of this game")?.to_string();
        let actions = transcript_actions(data["transcript"].as_str().unwrap_or_default());
        let state =
            json!({"status": game["status"], "result": game["result"], "clock": game["clock"], "legal": data["legal"]});
        Ok(Followed { rules: Rules { variant, scoring }, seat, actions, state, acted_at: None })
    }

    /// Takes in an entry's state event.
    fn change(&mut self, data: &Value) {
        self.actions.extend(entry_action(&data["entry"], moves_in(&self.actions)));
        self.state = data.clone();
    }

    /// The version at which the bot is to act now, if it is and has not yet.
    fn to_act(&self) -> Option<i64> {
        let legal = &self.state["legal"];
        let version = legal["version"].as_i64()?;
        let ours = legal["player"] == self.seat.as_str() && legal["actions"].as_array().is_some_and(|a| !a.is_empty());
        (ours && self.acted_at != Some(version)).then_some(version)
    }

    fn finished(&self) -> bool {
        self.state["status"] == "finished"
    }
}

/// Plays game `id` to its end with an engine of its own, started by the
/// command line `engine`, each clock sent to it cut by `overhead_ms`; prints
/// its transcript then, or why it could not.
pub(super) async fn play(api: Api, engine: String, overhead_ms: i64, id: i64) {
    match play_to_the_end(&api, &engine, overhead_ms, id).await {
        Ok(told) => println!("game {id}: {told}"),
        Err(why) => eprintln!("game {id}: {why}"),
    }
}

async fn play_to_the_end(api: &Api, engine: &str, overhead_ms: i64, id: i64) -> Result<String, String> {
    let mut engine = Engine::start(engine).await?;
    engine.send("newgame")?;
    let mut followed: Option<Followed> = None;
    let mut stream = Follower::new(api, format!("/games/{id}/events?format=state"));
    loop {
        let event = stream.next().await.map_err(|failure| format!("cannot follow it: {failure}"))?;
        match event.kind.as_str() {
            "game" => followed = Some(Followed::whole(&event.data)?),
            "claim_open" => {
                let claimed = api.post(&format!("/games/{id}/claim-victory"), &json!({}), None).await;
                if let Err(failure) = claimed {
                    eprintln!("game {id}: the claim was refused: {failure}");
                }
            }
            _ if event.data.get("entry").is_some() => {
                if let Some(followed) = followed.as_mut() {
                    followed.change(&event.data);
                }
            }
            _ => {}
        }
        let Some(game) = followed.as_mut() else { continue };
        if game.finished() {
            let result = game.state["result"].as_str().unwrap_or_default();
            return Ok(format!("{result} as {}: {}", game.seat, game.actions.join("; ")));
        }
        if let Some(version) = game.to_act() {
            game.acted_at = Some(version);
            act(api, &mut engine, game, id, version, overhead_ms).await?;
        }
    }
}

/// Asks the engine for its action in `game` at `version`, and posts it; an
/// action that is not legal there resigns the game.
async fn act(
    api: &Api,
    engine: &mut Engine,
    game: &Followed,
    id: i64,
    version: i64,
    overhead_ms: i64,
) -> Result<(), String> {
    let position = position_command(game.rules, &game.actions);
    let best = match engine.best_action(&position, &go_command(&game.state["clock"], overhead_ms)).await {
        Ok(best) => best,
        Err(why) => {
            resign(api, id).await;
            return Err(format!("{why}; resigned"));
        }
    };
    let legal = &game.state["legal"]["actions"];
    let request =
        request_of(game.rules.variant, &game.actions, &best).and_then(|request| match is_legal(&request, legal) {
            true => Ok(request),
            false => Err(format!("{best} is not legal here")),
        });
    match request {
        Ok((path, body)) => match api.post(&format!("/games/{id}/{path}"), &body, Some(version)).await {
            // The game moved on meanwhile (a resignation, a timeout): its events tell.
            Ok(_) | Err(Failure::Answered(409, _)) => {}
            Err(failure) => eprintln!("game {id}: the server refused {best}: {failure}"),
        },
        Err(why) => {
            eprintln!("game {id}: the engine answered {best:?} after {position:?}: {why}; resigning");
            resign(api, id).await;
        }
    }
    Ok(())
}

/// Resigns game `id`, saying so when the server refuses.
async fn resign(api: &Api, id: i64) {
    if let Err(failure) = api.post(&format!("/games/{id}/resign"), &json!({}), None).await {
        eprintln!("game {id}: the resignation was refused: {failure}");
    }
}
