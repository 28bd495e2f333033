//! `qttt bridge` against a real server: two bot accounts, each a bridge with
//! the shipped Python engine, play each other.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::helpers::TestApp;

/// The shipped engine that plays random legal actions.
const ENGINE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/engines/random_engine.py");

/// The longest a bridge's game may take here: random engines answer at once.
const GAME_PATIENCE: Duration = Duration::from_secs(60);

/// A `qttt bridge` process and the lines it prints.
struct Bridge {
    child: Child,
    lines: mpsc::Receiver<String>,
}

impl Bridge {
    /// A bridge for the bot of `token` on `app`, its engine `engine`.
    fn start(app: &TestApp, token: &str, engine: &str) -> Bridge {
        Bridge::start_with(app, token, engine, &["--max-games", "2"])
    }

    /// A bridge as [`Bridge::start`] starts it, with `options` of its own.
    fn start_with(app: &TestApp, token: &str, engine: &str, options: &[&str]) -> Bridge {
        let mut child = Command::new(env!("CARGO_BIN_EXE_qttt"))
            .args(["bridge", "--server", &format!("http://{}", app.address), "--engine", engine])
            .args(options)
            .env("QTTT_TOKEN", token)
            .stdout(Stdio::piped())
            .spawn()
            .expect("the bridge runs");
        let (tell, lines) = mpsc::channel();
        let output = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(output).lines().map_while(Result::ok) {
                if tell.send(line).is_err() {
                    return;
                }
            }
        });
        Bridge { child, lines }
    }

    /// The first line it prints that starts with `start`, within `patience`.
    fn said(&self, start: &str, patience: Duration) -> Option<String> {
        let deadline = Instant::now() + patience;
        loop {
            let line = self.lines.recv_timeout(deadline.saturating_duration_since(Instant::now())).ok()?;
            if line.starts_with(start) {
                return Some(line);
            }
        }
    }
}

impl Drop for Bridge {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl TestApp {
    /// Game `id` once `done` holds of it, within [`GAME_PATIENCE`].
    fn game_once(&self, id: i64, done: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + GAME_PATIENCE;
        loop {
            let game = self.get_game(id).json();
            if done(&game) {
                return game;
            }
            assert!(Instant::now() < deadline, "game {id} never got there: {game}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// A bot account named `name`; answers its token.
    fn bot(&self, name: &str) -> String {
        let token = self.player(name);
        assert_eq!(self.post_with_token("/api/v1/players/me/bot", &token, json!({})).status, 200);
        token
    }
}

/// How many moves and collapses game `game`'s log holds.
fn actions_in(game: &Value) -> usize {
    game["moves"].as_array().map_or(0, Vec::len) + game["collapses"].as_array().map_or(0, Vec::len)
}

#[test]
fn two_bridges_play_rated_games_in_both_variants_one_killed_mid_game_finishes_it_once_started_and_sigterm_stops_it() {
    let app = TestApp::spawn();
    let (alpha, beta) = (app.bot("alpha"), app.bot("beta"));
    let engine = format!("python3 {ENGINE}");
    let alphas = Bridge::start(&app, &alpha, &engine);
    let mut betas = Bridge::start(&app, &beta, &engine);
    for bridge in [&alphas, &betas] {
        assert!(
            bridge.said("bridge: ", Duration::from_secs(10)).is_some_and(|line| line.contains("plays with python3"))
        );
    }
    for variant in ["player_choice", "measurement"] {
        let sent = app.challenge(&alpha, "beta", json!({"variant": variant, "rated": true}));
        assert_eq!(sent.status, 201, "{}", sent.body);
        let challenge = sent.json()["id"].as_i64().unwrap();
        let accepted = app.game_once_challenge_accepted(&alpha, challenge);
        let game = app.game_once(accepted, |game| game["status"] == "finished");
        let reason = game["end"]["reason"].as_str().unwrap();
        assert!(["lines", "full_board"].contains(&reason), "ended by the rules, not by an illegal action: {game}");
        assert_eq!(game["rated"], true);
        let rated = app.rating_of("alpha", variant);
        assert_eq!(rated["games"], 1, "{variant}: {rated}");
        if game["result"] != "draw" {
            assert_ne!(rated["rating"], 1500.0, "{variant}: the rating moved");
        }
    }

    // Beta's engine answers slowly; its bridge is killed mid-game and started again.
    let slow = format!(
        "python3 -c 'import sys, time, subprocess; e = subprocess.Popen([\"python3\", \"{ENGINE}\"], stdin=subprocess.PIPE, text=True)\nfor l in sys.stdin:\n    time.sleep(0.3 if l.startswith(\"go\") else 0); e.stdin.write(l); e.stdin.flush()'"
    );
    drop(betas);
    betas = Bridge::start(&app, &beta, &slow);
    betas.said("bridge: ", Duration::from_secs(10)).expect("the bridge starts");
    let sent = app.challenge(&alpha, "beta", json!({"variant": "player_choice", "colour": "x"}));
    let id = app.game_once_challenge_accepted(&alpha, sent.json()["id"].as_i64().unwrap());
    let before = app.game_once(id, |game| actions_in(game) >= 2);
    assert_eq!(before["status"], "ongoing", "killed mid-game: {before}");
    drop(betas);
    let mut betas = Bridge::start(&app, &beta, &slow);
    let finished = app.game_once(id, |game| game["status"] == "finished");
    assert!(["lines", "full_board"].contains(&finished["end"]["reason"].as_str().unwrap()), "{finished}");
    let told = betas.said(&format!("game {id}: "), GAME_PATIENCE).expect("the game's transcript");
    assert!(told.contains("as O: X1+("), "{told}");
    // SIGTERM stops it cleanly.
    let pid = nix::unistd::Pid::from_raw(i32::try_from(betas.child.id()).unwrap());
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM).unwrap();
    assert!(betas.said("bridge: stopping", Duration::from_secs(10)).is_some());
    assert!(betas.child.wait().unwrap().success());
}

#[test]
fn the_perfect_engine_through_the_bridge_never_loses_twenty_games_as_x_to_the_random_bot() {
    let app = TestApp::spawn();
    let token = app.bot("perfectionist");
    let engine = format!("{} engine --bot perfect", env!("CARGO_BIN_EXE_qttt"));
    let bridge = Bridge::start(&app, &token, &engine);
    bridge.said("bridge: ", Duration::from_secs(10)).expect("the bridge starts");
    let mut results = Vec::new();
    for _ in 0..20 {
        let sent = app.challenge(&token, "random", json!({"variant": "player_choice", "colour": "x"}));
        assert_eq!(sent.json()["status"], "accepted", "{}", sent.body);
        let id = sent.json()["game_id"].as_i64().unwrap();
        let game = app.game_once(id, |game| game["status"] == "finished");
        assert_eq!(game["seats"]["X"]["name"], "perfectionist");
        assert_ne!(game["result"], "o_wins", "the perfect player lost: {game}");
        results.push(game["result"].as_str().unwrap().to_string());
    }
    // Against a random O, X's half point of perfect play is a win every time.
    assert!(results.iter().all(|result| result == "x_wins"), "{results:?}");
}

#[test]
fn two_seeking_bridges_pair_with_each_other_and_play() {
    let app = TestApp::spawn();
    let engine = format!("python3 {ENGINE}");
    let options = ["--seek", "--variant", "measurement", "--rated", "casual", "--max-games", "1"];
    let bridges: Vec<Bridge> =
        ["seeker_a", "seeker_b"].map(|name| Bridge::start_with(&app, &app.bot(name), &engine, &options)).into();
    let told = bridges[0].said("game ", GAME_PATIENCE).expect("a game played from a seek");
    let id: i64 = told.strip_prefix("game ").and_then(|rest| rest.split(':').next()).unwrap().parse().unwrap();
    let game = app.get_game(id).json();
    assert_eq!(
        (&game["variant"], &game["rated"], &game["status"]),
        (&json!("measurement"), &json!(false), &json!("finished"))
    );
    let names = [&game["seats"]["X"]["name"], &game["seats"]["O"]["name"]];
    assert!(names.contains(&&json!("seeker_a")) && names.contains(&&json!("seeker_b")), "{game}");
    assert!(["lines", "full_board"].contains(&game["end"]["reason"].as_str().unwrap()), "{game}");
}

impl TestApp {
    /// The game challenge `id`, sent by the player of `token`, started once accepted.
    fn game_once_challenge_accepted(&self, token: &str, id: i64) -> i64 {
        let deadline = Instant::now() + GAME_PATIENCE;
        loop {
            let challenge = self.get_with_token(&format!("/api/v1/challenges/{id}"), token).json();
            if let Some(game) = challenge["game_id"].as_i64() {
                return game;
            }
            assert!(Instant::now() < deadline && challenge["status"] == "open", "{challenge}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}
