//! The life of a game: no move before both seats are taken, resignation, a draw
//! by agreement, clocks and timeouts, abort, a game that waits too long, rematch.

use std::time::{Duration, Instant};

use qttt::engine::{Action, Square};
use qttt::record::{ClockSettings, EndReason, GameSettings, Status};
use qttt::service::{Credentials, GameService, ServiceOptions, Time};
use qttt::store::{PoolSettings, SqliteSettings, Store};
use serde_json::{Value, json};

use super::events::PATIENCE;
use super::helpers::{Response, TestApp, TestDatabase};

fn post(app: &TestApp, id: i64, operation: &str, token: &str) -> Response {
    app.post_with_token(&format!("/api/v1/games/{id}/{operation}"), token, json!({}))
}

pub(super) fn log_kinds(app: &TestApp, id: i64) -> Vec<String> {
    let log = app.request("GET", &format!("/api/v1/games/{id}/log"), &[], None).json();
    log["entries"].as_array().unwrap().iter().map(|entry| entry["kind"].as_str().unwrap().to_string()).collect()
}

#[test]
fn nobody_acts_before_both_seats_are_taken() {
    let app = TestApp::spawn();
    let created = app.create_game(json!({ "variant": "player_choice" })).json();
    let (id, x) = (created["game"]["id"].as_i64().unwrap(), created["seat"]["token"].as_str().unwrap().to_string());
    assert_eq!((&created["game"]["to_act"], &created["game"]["status"]), (&json!(null), &json!("waiting")));
    app.place(id, &x, [0, 1]).assert_problem(422, "waiting_for_opponent");
    app.collapse(id, &x, 1, 0).assert_problem(422, "waiting_for_opponent");
    post(&app, id, "resign", &x).assert_problem(422, "waiting_for_opponent");
    let legal = app.request("GET", &format!("/api/v1/games/{id}/legal"), &[], None).json();
    assert_eq!(legal["actions"], json!([]));
    assert_eq!(log_kinds(&app, id), ["seat"], "nothing was written");
    app.join(id);
    assert_eq!(app.place(id, &x, [0, 1]).status, 201);
}

#[test]
fn either_player_may_resign_in_either_variant_and_the_other_wins() {
    let app = TestApp::spawn();
    for variant in ["player_choice", "measurement"] {
        for resigner in ["X", "O"] {
            let (id, x, o) = app.two_player_game(variant);
            assert_eq!(app.place(id, &x, [0, 1]).status, 201);
            let token = if resigner == "X" { &x } else { &o };
            let resigned = post(&app, id, "resign", token);
            assert_eq!(resigned.status, 201, "{}", resigned.body);
            let view = resigned.json();
            let winner = if resigner == "X" { "o_wins" } else { "x_wins" };
            assert_eq!((&view["status"], &view["result"]), (&json!("finished"), &json!(winner)));
            assert_eq!(view["end"], json!({ "reason": "resignation", "player": resigner }));
            assert_eq!(view["score"], json!({ "X": 0.0, "O": 0.0 }), "the board's points stay");
            assert_eq!((&view["to_act"], &view["next_to_move"]), (&json!(null), &json!(null)));
            assert_eq!(log_kinds(&app, id).last().map(String::as_str), Some("resign"));
            post(&app, id, "resign", &o).assert_problem(422, "game_over");
            app.place(id, &o, [2, 3]).assert_problem(422, "game_over");
            post(&app, id, "resign", "not-a-seat").assert_problem(403, "forbidden");
        }
    }
    app.request("POST", "/api/v1/games/404/resign", &[("Authorization", "Bearer x")], None)
        .assert_problem(404, "not_found");
    app.request("POST", "/api/v1/games/1/resign", &[], None).assert_problem(401, "unauthorized");
}

#[test]
fn a_draw_offered_stands_until_declined_or_the_next_move_and_accepted_ends_the_game_drawn() {
    let app = TestApp::spawn();
    let (alice, bob) = (app.player("alice"), app.player("bob"));
    let id = app.create_game_as(&alice, json!({"variant": "player_choice", "rated": true}));
    assert_eq!(app.post_with_token(&format!("/api/v1/games/{id}/join"), &bob, json!({})).status, 201);
    let mut watching = app.watch_at(&format!("/api/v1/games/{id}/events"), &[]);
    assert_eq!(app.place(id, &alice, [0, 1]).status, 201);

    // Offered, offered again (nothing changes), declined by the other alone.
    let offered = post(&app, id, "draw", &alice);
    assert_eq!((offered.status, offered.json()["draw_offer"].as_str()), (201, Some("X")), "{}", offered.body);
    let again = post(&app, id, "draw", &alice).json();
    assert_eq!(
        (again["version"].clone(), again["draw_offer"].clone()),
        (offered.json()["version"].clone(), json!("X"))
    );
    post(&app, id, "draw/decline", &alice).assert_problem(422, "draw_not_allowed");
    let declined = post(&app, id, "draw/decline", &bob);
    assert_eq!((declined.status, declined.json()["draw_offer"].clone()), (201, json!(null)), "{}", declined.body);
    post(&app, id, "draw/decline", &bob).assert_problem(422, "draw_not_allowed");

    // An offer lapses with the next move, whoever makes it.
    assert_eq!(post(&app, id, "draw", &alice).json()["draw_offer"], "X");
    assert_eq!(app.place(id, &bob, [2, 3]).json()["draw_offer"], json!(null));

    // Accepted: the game is drawn by agreement, and rated as a draw.
    assert_eq!(post(&app, id, "draw", &bob).json()["draw_offer"], "O");
    let agreed = post(&app, id, "draw", &alice);
    assert_eq!(agreed.status, 201, "{}", agreed.body);
    let game = agreed.json();
    assert_eq!((game["status"].as_str(), game["result"].as_str()), (Some("finished"), Some("draw")));
    assert_eq!(
        (game["end"].clone(), game["draw_offer"].clone()),
        (json!({"reason": "agreement", "player": "X"}), json!(null))
    );
    assert_eq!(
        log_kinds(&app, id)[2..],
        ["move", "draw_offer", "draw_decline", "draw_offer", "move", "draw_offer", "agreement"]
    );
    let profile = app.request("GET", "/api/v1/players/bob", &[], None).json();
    assert_eq!(
        (profile["games"]["drawn"].as_i64(), profile["ratings"]["player_choice"]["games"].as_i64()),
        (Some(1), Some(1))
    );
    post(&app, id, "draw", &bob).assert_problem(422, "game_over");
    // The stream told each step.
    let mut kinds = Vec::new();
    while kinds.last().is_none_or(|kind| kind != "agreement") {
        kinds.push(watching.next_event(PATIENCE).expect("the stream's next event").kind);
    }
    assert_eq!(kinds[2..], ["move", "draw_offer", "draw_decline", "draw_offer", "move", "draw_offer", "agreement"]);

    // A bot takes no draw.
    let against_bot = app.create_game(json!({"opponent": {"bot": "random"}})).json();
    let (bot_game, mine) =
        (against_bot["game"]["id"].as_i64().unwrap(), against_bot["seat"]["token"].as_str().unwrap());
    post(&app, bot_game, "draw", mine).assert_problem(422, "draw_not_allowed");
}

#[test]
fn a_seat_holder_aborts_before_both_have_moved_and_not_after() {
    let app = TestApp::spawn();
    // Waiting for the second player.
    let created = app.create_game(json!({})).json();
    let (id, x) = (created["game"]["id"].as_i64().unwrap(), created["seat"]["token"].as_str().unwrap().to_string());
    let aborted = post(&app, id, "abort", &x).json();
    assert_eq!((&aborted["status"], &aborted["result"]), (&json!("finished"), &json!("aborted")));
    assert_eq!(aborted["end"], json!({ "reason": "aborted", "player": "X" }));
    post(&app, id, "abort", &x).assert_problem(422, "game_over");
    app.join(id).assert_problem(409, "conflict");
    // After X's first move, O may still call it off.
    let (id, x, o) = app.two_player_game("measurement");
    app.place(id, &x, [0, 1]);
    assert_eq!(post(&app, id, "abort", &o).json()["end"], json!({ "reason": "aborted", "player": "O" }));
    // Once both have moved, no more.
    let (id, x, o) = app.two_player_game("measurement");
    app.place(id, &x, [0, 1]);
    app.place(id, &o, [2, 3]);
    post(&app, id, "abort", &x).assert_problem(422, "abort_not_allowed");
    assert_eq!(app.get_game(id).json()["status"], "ongoing");
}

#[test]
fn a_game_nobody_joins_in_time_is_aborted_by_the_server() {
    let app = TestApp::spawn_with(|config| config.waiting_game_timeout = Some(Duration::from_secs(1)));
    let id = app.create_game(json!({})).json()["game"]["id"].as_i64().unwrap();
    let (joined, _, _) = app.two_player_game("measurement");
    assert_eq!(app.request("GET", "/api/v1/games?status=waiting", &[], None).json()["games"][0]["id"], id);
    let started = Instant::now();
    let view = loop {
        let view = app.get_game(id).json();
        if view["status"] == "finished" || started.elapsed() > Duration::from_secs(5) {
            break view;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!((&view["result"], &view["end"]), (&json!("aborted"), &json!({ "reason": "aborted", "player": null })));
    assert_eq!(log_kinds(&app, id), ["seat", "abort"]);
    let waiting = app.request("GET", "/api/v1/games?status=waiting", &[], None).json();
    assert_eq!(waiting["games"], json!([]), "the lobby is fresh");
    let listed = app.request("GET", "/api/v1/games?status=finished", &[], None).json();
    assert_eq!(listed["games"][0]["end"], json!({ "reason": "aborted", "player": null }));
    assert_eq!(app.get_game(joined).json()["status"], "ongoing", "a game with both seats taken never expires");
}

/// A timed game of two people whose clocks run: both have made their first
/// move, and X's clock runs.
fn timed_game(app: &TestApp, initial_ms: i64, increment_ms: i64) -> (i64, String, String) {
    let body =
        json!({ "variant": "player_choice", "clock": { "initial_ms": initial_ms, "increment_ms": increment_ms } });
    let (id, x, o) = app.two_player_game_with(body);
    for (token, squares) in [(&x, [0, 1]), (&o, [2, 3])] {
        assert_eq!(app.place(id, token, squares).status, 201);
    }
    (id, x, o)
}

fn millis(stamp: &Value) -> i64 {
    stamp.as_str().expect("a time").parse::<jiff::Timestamp>().expect("RFC 3339").as_millisecond()
}

#[test]
fn a_clock_out_of_its_bounds_is_refused() {
    let app = TestApp::spawn();
    for (clock, said) in [
        (json!({ "initial_ms": 999, "increment_ms": 0 }), "clock.initial_ms must be from 1000 to 604800000, not 999"),
        (json!({ "initial_ms": 604_800_001, "increment_ms": 0 }), "clock.initial_ms must be from 1000"),
        (json!({ "initial_ms": 60_000, "increment_ms": 3_600_001 }), "clock.increment_ms must be from 0 to 3600000"),
        (json!({ "initial_ms": 60_000, "increment_ms": -1 }), "clock.increment_ms must be from 0"),
        (json!({ "initial_ms": 60_000 }), "missing field `increment_ms`"),
    ] {
        let refused = app.create_game(json!({ "clock": clock })).assert_problem(400, "invalid_body");
        assert!(refused["detail"].as_str().unwrap().contains(said), "{refused}");
    }
    assert_eq!(app.request("GET", "/api/v1/games", &[], None).json()["games"], json!([]), "nothing was created");
}

/// Twenty thousand games waiting for a second player since long before the
/// waiting timeout, written behind the server's back as a flood of unjoined
/// games leaves them: each with its creator's seat entry.
const UNJOINED_GAMES: &str = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000) \
     INSERT INTO games (variant, created_at, status, result) \
     SELECT 'measurement', '2026-01-01T00:00:00.000Z', 'waiting', 'ongoing' FROM n; \
     INSERT INTO log_entries (game_id, seq, kind, actor, created_at) \
     SELECT id, 1, 'seat', 'X', created_at FROM games WHERE status = 'waiting'";

#[test]
fn a_timeout_is_written_within_a_second_and_a_half_of_its_deadline_behind_a_backlog_of_aborts() {
    let database = TestDatabase::new();
    let app = TestApp::spawn_on(&database);
    database.execute(UNJOINED_GAMES);
    let (id, _, _) = timed_game(&app, 2_000, 0);
    let view = app.get_game(id).json();
    let deadline = millis(&view["clock"]["deadline"]);
    let mut watcher = app.watch(id, Some(view["version"].as_i64().unwrap()));
    let timeout = watcher.next_event(Duration::from_secs(10)).expect("the timeout comes by itself");
    let late_ms = jiff::Timestamp::now().as_millisecond() - deadline;
    let waiting = |limit: u32| {
        let page = app.request("GET", &format!("/api/v1/games?status=waiting&limit={limit}"), &[], None).json();
        page["games"].as_array().unwrap().len()
    };
    eprintln!("the timeout came {late_ms} ms after its deadline, with {} or more games still to abort", waiting(100));
    assert_eq!(timeout.kind, "timeout");
    assert!(late_ms < 1_500, "{late_ms} ms after the deadline");
    // Meanwhile the backlog drains.
    let finished = app.request("GET", "/api/v1/games?status=finished&limit=100", &[], None).json();
    let aborted = finished["games"].as_array().unwrap().iter().filter(|game| game["end"]["reason"] == "aborted");
    assert!(aborted.count() > 0, "no unjoined game was aborted: {finished}");
}

#[test]
fn a_clock_that_runs_out_while_nobody_asks_ends_the_game_for_every_watcher() {
    let app = TestApp::spawn();
    let (id, _, _) = timed_game(&app, 2_000, 0);
    let view = app.get_game(id).json();
    assert_eq!(view["clock"]["running"], "X");
    assert_eq!(view["clock"]["remaining_ms"]["O"], 2_000);
    let deadline = millis(&view["clock"]["deadline"]);
    let mut watcher = app.watch(id, Some(view["version"].as_i64().unwrap()));
    let timeout = watcher.next_event(Duration::from_secs(5)).expect("the timeout comes by itself");
    let late_ms = jiff::Timestamp::now().as_millisecond() - deadline;
    assert_eq!(timeout.kind, "timeout");
    assert!(late_ms < 1_500, "{late_ms} ms after the deadline");
    let game = &timeout.data["game"];
    assert_eq!((&game["result"], &game["end"]), (&json!("o_wins"), &json!({ "reason": "timeout", "player": "X" })));
    assert_eq!(game["clock"]["remaining_ms"]["X"], 0);
    assert_eq!(game["clock"]["running"], json!(null));
    assert_eq!(log_kinds(&app, id).iter().filter(|kind| *kind == "timeout").count(), 1);
}

#[test]
fn a_move_just_after_the_deadline_is_refused_and_the_game_shows_the_timeout() {
    let app = TestApp::spawn();
    let (id, x, _) = timed_game(&app, 1_000, 0);
    let deadline = millis(&app.get_game(id).json()["clock"]["deadline"]);
    let wait = deadline - jiff::Timestamp::now().as_millisecond();
    std::thread::sleep(Duration::from_millis(u64::try_from(wait).unwrap_or(0) + 20));
    app.place(id, &x, [4, 5]).assert_problem(422, "game_over");
    let view = app.get_game(id).json();
    assert_eq!((&view["status"], &view["end"]["reason"]), (&json!("finished"), &json!("timeout")));
    assert_eq!(view["moves"].as_array().unwrap().len(), 2, "the first moves only");
}

/// When the log's entry `index` of game `id` was written, in milliseconds.
fn stamped_ms(app: &TestApp, id: i64, index: usize) -> i64 {
    let log = app.request("GET", &format!("/api/v1/games/{id}/log"), &[], None).json();
    millis(&log["entries"][index]["created_at"])
}

#[test]
fn the_clocks_start_with_the_second_first_move_and_a_first_move_not_made_in_time_aborts_unrated() {
    let app = TestApp::spawn_with(|config| config.first_move = Duration::from_secs(2));
    let (alice, bob) = (app.player("alice"), app.player("bob"));
    let clocked = json!({"rated": true, "clock": {"initial_ms": 60_000, "increment_ms": 1_000}});
    let id = app.game_between(&alice, &bob, clocked.clone());
    // No clock runs before both first moves: X owes one from the second seat,
    // then O from X's; the first moves cost nothing and gain nothing.
    let clock_of = |view: &Value| {
        let clock = &view["clock"];
        (clock["running"].clone(), clock["remaining_ms"].clone(), millis(&clock["deadline"]))
    };
    let untouched = json!({"X": 60_000, "O": 60_000});
    assert_eq!(clock_of(&app.get_game(id).json()), (json!(null), untouched.clone(), stamped_ms(&app, id, 1) + 2_000));
    let moved = app.place(id, &alice, [0, 1]).json();
    assert_eq!(clock_of(&moved), (json!(null), untouched.clone(), stamped_ms(&app, id, 2) + 2_000));
    let moved = app.place(id, &bob, [2, 3]).json();
    assert_eq!(clock_of(&moved), (json!("X"), untouched, stamped_ms(&app, id, 3) + 60_000));
    // Games in which X, then O, makes no first move are aborted by the timer:
    // no_first_move, whose player, unrated.
    let unmoved = app.game_between(&alice, &bob, clocked.clone());
    let o_unmoved = app.game_between(&alice, &bob, clocked);
    let mut watchers = [app.watch(unmoved, Some(2)), app.watch(o_unmoved, Some(2))];
    assert_eq!(app.place(o_unmoved, &alice, [4, 5]).status, 201);
    for (watcher, player) in watchers.iter_mut().zip(["X", "O"]) {
        let event = loop {
            let event = watcher.next_event(PATIENCE).expect("the abort comes by itself");
            if event.kind != "move" {
                break event;
            }
        };
        assert_eq!((event.kind.as_str(), &event.data["entry"]["player"]), ("no_first_move", &json!(player)));
        let game = &event.data["game"];
        assert_eq!(
            (&game["status"], &game["result"], &game["end"]),
            (&json!("finished"), &json!("aborted"), &json!({"reason": "no_first_move", "player": player}))
        );
    }
    for name in ["alice", "bob"] {
        assert_eq!(app.rating_of(name, "player_choice")["games"], 0, "{name}: an aborted game is not rated");
    }
    assert_eq!(app.get_game(id).json()["status"], "ongoing", "a game whose clocks run is not aborted");
}

#[test]
fn a_restarted_server_keeps_both_clocks_where_they_were() {
    let database = TestDatabase::new();
    let app = TestApp::spawn_on(&database);
    let (id, x, _) = timed_game(&app, 600_000, 5_000);
    app.place(id, &x, [4, 5]);
    let before = app.get_game(id).json()["clock"].clone();
    app.stop();
    std::thread::sleep(Duration::from_millis(300));
    let restarted = TestApp::spawn_on(&database);
    let after = restarted.get_game(id).json()["clock"].clone();
    assert_eq!(after["deadline"], before["deadline"], "a deadline is absolute");
    assert_eq!(after["running"], "O");
    assert_eq!(after["remaining_ms"]["X"], before["remaining_ms"]["X"], "X's clock stands");
    let o_spent = before["remaining_ms"]["O"].as_i64().unwrap() - after["remaining_ms"]["O"].as_i64().unwrap();
    assert!(o_spent >= 300, "the time the server was down counts: {o_spent} ms");
}

/// A service on `database` whose clock stands until the test moves it on, its
/// options changed by `configure`, and a runtime to drive it: no sleeping for the
/// clock arithmetic.
pub(super) fn service_on(
    database: &TestDatabase,
    configure: impl FnOnce(&mut ServiceOptions),
) -> (tokio::runtime::Runtime, GameService, Time) {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let time = Time::manual(jiff::Timestamp::from_second(1_800_000_000).unwrap());
    let store = runtime
        .block_on(Store::connect(&database.url(), SqliteSettings::default(), PoolSettings::default()))
        .expect("the database opens");
    let mut options = ServiceOptions { time: time.clone(), ..ServiceOptions::default() };
    configure(&mut options);
    (runtime, GameService::new(store, options), time)
}

/// A public game between two people, in `player_choice`, its creator X, with no clock.
pub(super) const BETWEEN_TWO: GameSettings = GameSettings {
    variant: qttt::engine::Variant::PlayerChoice,
    scoring: qttt::engine::Scoring::Goff,
    play_as: qttt::engine::Player::X,
    opponent: None,
    hints: None,
    clock: None,
    private: false,
    rated: false,
};

/// The move onto squares `a` and `b`.
pub(super) fn squares(a: usize, b: usize) -> Action {
    Action::Move { squares: [Square::ALL[a], Square::ALL[b]] }
}

#[test]
fn increments_add_up_and_a_timeout_is_written_once_by_the_timer() {
    let database = TestDatabase::new();
    let (runtime, service, time) = service_on(&database, |_| {});
    runtime.block_on(async {
        let settings =
            GameSettings { clock: Some(ClockSettings { initial_ms: 10_000, increment_ms: 3_000 }), ..BETWEEN_TWO };
        let (game, x) = service.create_game(settings).await.unwrap();
        let id = game.stored.id;
        time.advance(Duration::from_secs(30));
        let (_, o) = service.join(id, None).await.unwrap();
        // X thinks 4 s, O 1 s (first moves: on no clock), X 2 s, O 1 s: each
        // action on a running clock gains 3 s.
        let thoughts = [(4, &x, squares(0, 1)), (1, &o, squares(2, 3)), (2, &x, squares(4, 5)), (1, &o, squares(6, 7))];
        for (thinking, token, action) in thoughts {
            time.advance(Duration::from_secs(thinking));
            service.act(id, &token.token, action, None).await.unwrap();
        }
        let clock = service.game(id, &Credentials::default()).await.unwrap().clock().unwrap();
        assert_eq!(clock.remaining_ms, [10_000 - 2_000 + 3_000, 10_000 - 1_000 + 3_000]);
        assert_eq!(clock.running, Some(qttt::engine::Player::X));
        // X's 11 s run out; nothing has been written yet, and an action is refused.
        time.advance(Duration::from_millis(11_000));
        let flagged = service.game(id, &Credentials::default()).await.unwrap();
        assert_eq!(
            (flagged.status(), flagged.end().map(|end| end.reason)),
            (Status::Finished, Some(EndReason::Timeout))
        );
        let version = flagged.version();
        let late = service.act(id, &x.token, squares(8, 0), None).await.unwrap_err();
        assert_eq!(late.code(), "game_over");
        // The timer writes it, once however often it runs.
        assert_eq!(service.end_timed_out_games().await.unwrap(), 1);
        assert_eq!(service.end_timed_out_games().await.unwrap(), 0);
        let written = service.game(id, &Credentials::default()).await.unwrap();
        assert_eq!(written.version(), version + 1);
        assert_eq!(written.result(), qttt::engine::GameResult::OWins);
        assert_eq!(written.clock().unwrap().remaining_ms[0], 0);
    });
}

#[test]
fn both_players_asking_for_a_rematch_end_up_in_one_new_game_with_the_colours_swapped() {
    let app = TestApp::spawn();
    let (id, x, o) = timed_game(&app, 300_000, 2_000);
    app.place(id, &x, [0, 1]).json();
    post(&app, id, "rematch", &x).assert_problem(422, "game_not_over");
    post(&app, id, "resign", &o);
    let mut watcher = app.watch(id, Some(app.get_game(id).json()["version"].as_i64().unwrap()));
    let first = post(&app, id, "rematch", &x);
    assert_eq!(first.status, 201, "{}", first.body);
    let (new, x_now_o) = (first.json()["game"].clone(), first.json()["seat"].clone());
    let new_id = new["id"].as_i64().unwrap();
    assert_eq!(first.header("location"), Some(format!("/api/v1/games/{new_id}").as_str()));
    assert_eq!((&x_now_o["player"], &new["status"], &new["rematch_of"]), (&json!("O"), &json!("waiting"), &json!(id)));
    assert_eq!(
        (&new["variant"], &new["clock"]["initial_ms"], &new["clock"]["increment_ms"]),
        (&json!("player_choice"), &json!(300_000), &json!(2_000))
    );
    assert_eq!(app.get_game(id).json()["rematch"], json!({ "game_id": new_id }));
    let event = watcher.next_event(PATIENCE).expect("the watchers hear of it");
    assert_eq!((event.kind.as_str(), &event.data["entry"]["game_id"]), ("rematch", &json!(new_id)));
    assert_eq!(watcher.next_event(PATIENCE).map(|event| event.kind), Some("end".into()), "nothing more will come");
    // Its seat is kept for O, who takes it by asking too.
    app.join(new_id).assert_problem(409, "conflict");
    // Asking again names the rematch, for either player.
    let again = post(&app, id, "rematch", &x);
    again.assert_problem(409, "already_rematched");
    assert_eq!(again.json()["game_id"], json!(new_id));
    let second = post(&app, id, "rematch", &o);
    assert_eq!(second.status, 201, "{}", second.body);
    assert_eq!((&second.json()["game"]["id"], &second.json()["seat"]["player"]), (&json!(new_id), &json!("X")));
    let again = post(&app, id, "rematch", &o);
    again.assert_problem(409, "already_rematched");
    assert_eq!(again.json()["game_id"], json!(new_id));
    assert_eq!(second.json()["game"]["status"], "ongoing");
    let o_now_x = second.json()["seat"]["token"].as_str().unwrap().to_string();
    assert_eq!(app.place(new_id, &o_now_x, [4, 5]).status, 201, "the new X opens");
}

#[test]
fn a_rematch_declined_is_aborted_in_the_name_of_the_seat_kept_for_the_decliner() {
    let app = TestApp::spawn();
    let (id, x, o) = app.two_player_game("player_choice");
    app.place(id, &x, [0, 1]);
    post(&app, id, "resign", &o);
    let unasked = post(&app, id, "rematch/decline", &o).assert_problem(409, "not_open");
    assert!(unasked["detail"].as_str().unwrap().contains("asked for no rematch"), "{unasked}");
    let asked = post(&app, id, "rematch", &x).json();
    let rematch = asked["game"]["id"].as_i64().unwrap();
    let mut asker = app.watch(rematch, Some(asked["game"]["version"].as_i64().unwrap()));
    post(&app, id, "rematch/decline", &x).assert_problem(409, "not_open");
    let declined = post(&app, id, "rematch/decline", &o);
    assert_eq!(declined.status, 201, "{}", declined.body);
    // O was O: the seat of the rematch kept for them is X.
    let aborted = json!({"reason": "aborted", "player": "X"});
    let game = declined.json();
    assert_eq!((&game["id"], &game["result"], &game["end"]), (&json!(rematch), &json!("aborted"), &aborted));
    let told = asker.next_event(PATIENCE).expect("the player who asked hears of it");
    assert_eq!((told.kind.as_str(), &told.data["game"]["end"]), ("abort", &aborted));
    let again = post(&app, id, "rematch/decline", &o);
    assert_eq!((again.status, again.json()["version"].clone()), (201, game["version"].clone()), "{}", again.body);
}

#[test]
fn rematch_calls_at_the_same_moment_make_one_game() {
    let app = TestApp::spawn();
    for _ in 0..5 {
        let (id, x, o) = app.two_player_game("measurement");
        app.place(id, &x, [0, 1]);
        post(&app, id, "resign", &x);
        let (a, b) = std::thread::scope(|scope| {
            let a = scope.spawn(|| post(&app, id, "rematch", &x));
            let b = scope.spawn(|| post(&app, id, "rematch", &o));
            (a.join().unwrap(), b.join().unwrap())
        });
        assert_eq!((a.status, b.status), (201, 201), "{} / {}", a.body, b.body);
        assert_eq!(a.json()["game"]["id"], b.json()["game"]["id"], "one new game");
        let seats = [a.json()["seat"]["player"].clone(), b.json()["seat"]["player"].clone()];
        assert_eq!(seats, [json!("O"), json!("X")], "colours swapped");
    }
}

#[test]
fn against_a_bot_the_rematch_seats_the_bot_at_once() {
    let app = TestApp::spawn();
    let created = app.create_game(json!({ "opponent": { "bot": "random" } })).json();
    let (id, token) = (created["game"]["id"].as_i64().unwrap(), created["seat"]["token"].as_str().unwrap().to_string());
    post(&app, id, "resign", &token);
    let rematch = post(&app, id, "rematch", &token).json();
    assert_eq!((&rematch["seat"]["player"], &rematch["game"]["status"]), (&json!("O"), &json!("ongoing")));
    assert_eq!(rematch["game"]["moves"].as_array().unwrap().len(), 1, "the bot, now X, opened");
}

#[test]
#[ignore = "needs PostgreSQL: QTTT_TEST_POSTGRES (see .ci/run)"]
fn two_instances_running_the_timer_write_each_timeout_and_each_first_move_abort_once() {
    let database = TestDatabase::new();
    assert!(matches!(database, TestDatabase::Postgres(_)), "set QTTT_TEST_POSTGRES to run this test");
    let first_move = |config: &mut qttt::config::Config| config.first_move = Duration::from_secs(1);
    let instances =
        [TestApp::spawn_with_database(&database, first_move), TestApp::spawn_with_database(&database, first_move)];
    // Four games whose clocks run out, and four in which X makes no first move.
    let mut ids = Vec::new();
    for moved in [true, false] {
        for _ in 0..4 {
            let body = json!({ "clock": { "initial_ms": 1_000, "increment_ms": 0 } });
            let created = instances[0].create_game(body).json();
            let (id, x) = (created["game"]["id"].as_i64().unwrap(), created["seat"]["token"].as_str().unwrap());
            let o = instances[1].join(id).json()["seat"]["token"].as_str().unwrap().to_string();
            if moved {
                assert_eq!(instances[0].place(id, x, [0, 1]).status, 201);
                assert_eq!(instances[1].place(id, &o, [2, 3]).status, 201);
            }
            ids.push((id, if moved { "timeout" } else { "no_first_move" }));
        }
    }
    std::thread::sleep(Duration::from_millis(2_500));
    for (id, ending) in ids {
        let endings = log_kinds(&instances[1], id).iter().filter(|kind| *kind == ending).count();
        assert_eq!(endings, 1, "game {id}: {ending}");
    }
}
