//! What a frontend reads: who acts now, the legal actions, fair hints, odds that
//! mean what they show, and streams that end and resume as browsers expect.

use std::time::Duration;

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use serde_json::{Value, json};

use super::events::PATIENCE;
use super::helpers::{Step, TestApp, goffs_draw, limited};

/// Four 2-cycles in `player_choice`, each collapsed by X without a line, up to
/// O's move 8: square 8 is left alone once X collapses it.
fn steps_to_the_last_square<'a>(x: &'a str, o: &'a str) -> Vec<Step<'a>> {
    use Step::{Collapse, Move};
    vec![
        Move(x, [0, 1]),
        Move(o, [0, 1]),
        Collapse(x, 2, 1),
        Move(x, [2, 3]),
        Move(o, [2, 3]),
        Collapse(x, 4, 3),
        Move(x, [4, 5]),
        Move(o, [4, 5]),
        Collapse(x, 6, 4),
        Move(x, [6, 7]),
        Move(o, [6, 7]),
    ]
}

#[test]
fn to_act_says_who_acts_now_and_how_in_every_phase() {
    let app = TestApp::spawn();
    let (id, x, o) = app.two_player_game("player_choice");
    let to_act = |view: &Value| view["to_act"].clone();
    assert_eq!(to_act(&app.get_game(id).json()), json!({ "player": "X", "kind": "move", "forced_squares": null }));
    let mut view = Value::Null;
    for step in steps_to_the_last_square(&x, &o) {
        view = step.take(&app, id).json();
    }
    // O8 closed a 2-cycle: X chooses.
    assert_eq!(to_act(&view), json!({ "player": "X", "kind": "collapse", "forced_squares": null }));
    assert_eq!(view["next_to_move"], json!(null));
    let forced = app.collapse(id, &x, 8, 6).json();
    assert_eq!(to_act(&forced), json!({ "player": "X", "kind": "move", "forced_squares": [8, 8] }));
    let finished = app.place(id, &x, [8, 8]).json();
    assert_eq!((to_act(&finished), &finished["status"]), (json!(null), &json!("finished")));
}

#[test]
fn legal_lists_the_opening_moves_a_collapse_and_the_forced_move() {
    let app = TestApp::spawn();
    let (id, x, o) = app.two_player_game("player_choice");
    let opening = app.legal(id);
    assert_eq!(opening.len(), 36);
    assert_eq!(
        (&opening[0], &opening[35]),
        (&json!({ "kind": "move", "squares": [0, 1] }), &json!({ "kind": "move", "squares": [7, 8] }))
    );
    for step in steps_to_the_last_square(&x, &o) {
        step.take(&app, id);
    }
    assert_eq!(
        app.legal(id),
        [json!({ "kind": "collapse", "move": 8, "square": 6 }), json!({ "kind": "collapse", "move": 8, "square": 7 })]
    );
    app.collapse(id, &x, 8, 6);
    assert_eq!(app.legal(id), [json!({ "kind": "move", "squares": [8, 8] })]);
    app.place(id, &x, [8, 8]);
    assert_eq!(app.legal(id), [] as [Value; 0], "nothing once the game is over");
    app.request("GET", "/api/v1/games/404/legal", &[], None).assert_problem(404, "not_found");
}

#[test]
fn every_listed_action_is_accepted_and_others_are_refused_in_random_games() {
    let app = TestApp::spawn();
    let mut rng = StdRng::seed_from_u64(22);
    for variant in ["player_choice", "measurement"] {
        for _ in 0..6 {
            let (id, x, o) = app.two_player_game(variant);
            let mut view = app.get_game(id).json();
            while let Some(to_act) = view["to_act"].as_object().cloned() {
                let token = if to_act["player"] == "X" { &x } else { &o };
                let actions = app.legal(id);
                // A pair of squares that is no listed move is refused.
                if to_act["kind"] == "move" {
                    let (a, b) = (rng.random_range(0..9_i64), rng.random_range(0..9_i64));
                    let unlisted = !actions.contains(&json!({ "kind": "move", "squares": [a.min(b), a.max(b)] }));
                    if unlisted {
                        assert_eq!(app.place(id, token, [a, b]).status, 422, "{a}, {b} in {view}");
                    }
                }
                let action = &actions[rng.random_range(0..actions.len())];
                let answer = app.take(id, token, action);
                assert_eq!(answer.status, 201, "{action} was listed: {}", answer.body);
                view = answer.json();
            }
            assert_eq!(view["status"], "finished");
        }
    }
}

#[test]
fn hints_are_off_between_two_people_and_on_against_a_bot_unless_the_creator_says_otherwise() {
    let app = TestApp::spawn();
    let (people, x, o) = app.two_player_game("player_choice");
    assert_eq!(app.get_game(people).json()["hints"], false);
    let refused = app.hint(people, &x).assert_problem(422, "hints_disabled");
    assert!(refused["detail"].as_str().unwrap().contains("\"hints\": true"), "{refused}");
    let (with_hints, with_x, _) = app.two_player_game_with(json!({ "variant": "player_choice", "hints": true }));
    assert_eq!(
        (app.get_game(with_hints).json()["hints"].clone(), app.hint(with_hints, &with_x).status),
        (json!(true), 200)
    );
    let against_bot = app.create_game(json!({ "opponent": { "bot": "random" } })).json();
    let (bot_game, token) = (&against_bot["game"], against_bot["seat"]["token"].as_str().unwrap());
    assert_eq!(
        (bot_game["hints"].clone(), app.hint(bot_game["id"].as_i64().unwrap(), token).status),
        (json!(true), 200)
    );
    let no_hints = app.create_game(json!({ "opponent": { "bot": "random" }, "hints": false })).json();
    let no_hints_token = no_hints["seat"]["token"].as_str().unwrap();
    app.hint(no_hints["game"]["id"].as_i64().unwrap(), no_hints_token).assert_problem(422, "hints_disabled");
    // Over, there is nothing left to hint, in any game.
    for step in goffs_draw(&x, &o) {
        step.take(&app, people);
    }
    app.hint(people, &x).assert_problem(422, "game_over");
}

#[test]
fn a_finished_games_squares_without_a_classical_mark_are_empty() {
    let app = TestApp::spawn();
    let (id, x, o) = app.two_player_game("player_choice");
    use Step::{Collapse, Move};
    // X wins with the top row while O6 is still spooky in squares 7 and 8.
    let steps = [
        Move(&x, [0, 3]),
        Move(&o, [0, 3]),
        Collapse(&x, 2, 3),
        Move(&x, [1, 4]),
        Move(&o, [1, 4]),
        Collapse(&x, 4, 4),
        Move(&x, [2, 6]),
        Move(&o, [7, 8]),
        Move(&x, [2, 6]),
    ];
    for step in &steps {
        step.take(&app, id);
    }
    let before = app.get_game(id).json();
    assert_eq!(before["board"][7]["probabilities"], json!({ "X": 0.0, "O": 0.5, "empty": 0.5 }), "O6 may land in 7");
    let view = Collapse(&o, 7, 6).take(&app, id).json();
    assert_eq!((&view["result"], &view["board"][7]["spooky"]), (&json!("x_wins"), &json!(["O6"])));
    for square in [5, 7, 8] {
        assert_eq!(view["board"][square]["probabilities"], json!({ "X": 0.0, "O": 0.0, "empty": 1.0 }), "{square}");
    }
    assert_eq!(view["board"][0]["probabilities"], json!({ "X": 1.0, "O": 0.0, "empty": 0.0 }));
}

#[test]
fn a_finished_games_stream_ends_with_an_end_event_and_a_reconnect_gets_204() {
    // No wait for a rematch: the stream ends with the game.
    let app = TestApp::spawn_with(|config| config.rematch_window = Duration::ZERO);
    let (id, x, o) = app.two_player_game("player_choice");
    let mut watcher = app.watch(id, None);
    let seats = [watcher.next_event(PATIENCE).unwrap(), watcher.next_event(PATIENCE).unwrap()];
    assert_eq!(seats.map(|event| event.id), [Some(1), Some(2)]);
    let steps = goffs_draw(&x, &o);
    let mut last = 2;
    for step in &steps {
        step.take(&app, id);
        let event = watcher.next_event(PATIENCE).expect("every step is an event");
        last += 1;
        assert_eq!(event.id, Some(last));
        if event.kind == "move" {
            assert!(event.data["entry"]["move"].is_u64(), "a move entry has its number: {event:?}");
        }
    }
    let end = watcher.next_event(PATIENCE).expect("the end event");
    // It has no id of its own: a reconnect resumes after the last entry.
    assert_eq!((end.id, end.kind.as_str()), (Some(last), "end"));
    let received = watcher.received();
    let end_block = received.split("\n\n").find(|block| block.contains("event: end")).expect("the end's block");
    assert!(!end_block.contains("id:"), "{end_block}");
    assert_eq!(end.data["game"], app.get_game(id).json());
    assert!(watcher.ends_within(PATIENCE), "the stream closes after the end");
    // A reconnect that has seen every event: 204, and the EventSource stops.
    let again =
        app.request("GET", &format!("/api/v1/games/{id}/events"), &[("Last-Event-ID", &last.to_string())], None);
    assert_eq!((again.status, again.body.as_str()), (204, ""));
    // One that missed the last event gets it, the end, and the close.
    let mut behind = app.watch(id, Some(last - 1));
    assert_eq!(behind.next_event(PATIENCE).map(|event| event.id), Some(Some(last)));
    assert_eq!(behind.next_event(PATIENCE).map(|event| event.kind), Some("end".to_string()));
    assert!(behind.ends_within(PATIENCE));
}

#[test]
fn a_stream_resumes_from_the_query_as_from_the_header_and_spreads_its_reconnects() {
    let app = TestApp::spawn();
    let (id, x, o) = app.two_player_game("measurement");
    for (token, squares) in [(&x, [0, 1]), (&o, [2, 3]), (&x, [4, 5])] {
        app.place(id, token, squares);
    }
    let mut resumed = app.watch_at(&format!("/api/v1/games/{id}/events?last_event_id=3"), &[]);
    let ids: Vec<_> = (0..2).map(|_| resumed.next_event(PATIENCE).unwrap().id).collect();
    assert_eq!(ids, [Some(4), Some(5)], "exactly what came after 3");
    assert!(resumed.next_event(Duration::from_millis(300)).is_none(), "nothing more");
    // The header, which a reconnecting EventSource sends, wins over the query.
    let mut both = app.watch_at(&format!("/api/v1/games/{id}/events?last_event_id=1"), &[("Last-Event-ID", "4")]);
    assert_eq!(both.next_event(PATIENCE).unwrap().id, Some(5));
    // Each stream asks browsers to wait 2-4 s before reconnecting.
    let retries: Vec<u32> = (0..8)
        .map(|_| {
            let mut stream = app.watch(id, Some(5));
            stream.next_event(Duration::from_millis(200));
            let received = stream.received();
            let retry = received.lines().find_map(|line| line.strip_prefix("retry: ")).expect("a retry field");
            retry.trim().parse().unwrap()
        })
        .collect();
    assert!(retries.iter().all(|ms| (2000..=4000).contains(ms)), "{retries:?}");
    assert!(retries.iter().any(|&ms| ms != retries[0]), "spread: {retries:?}");
    app.request("GET", &format!("/api/v1/games/{id}/events?last_event_id=x"), &[], None)
        .assert_problem(400, "invalid_query");
    // Checked even when the header wins.
    app.request("GET", &format!("/api/v1/games/{id}/events?last_event_id=-1"), &[("Last-Event-ID", "0")], None)
        .assert_problem(400, "invalid_query");
    app.request("GET", &format!("/api/v1/games/{id}/events"), &[("Last-Event-ID", "-1")], None)
        .assert_problem(400, "invalid_header");
}

#[test]
fn a_browser_may_read_retry_after_on_a_cross_origin_429() {
    let app = TestApp::spawn_with(|config| config.create_rate_limit = limited(1));
    let create = || {
        app.request(
            "POST",
            "/api/v1/games",
            &[("Origin", "http://localhost:3000"), ("Content-Type", "application/json")],
            Some("{}"),
        )
    };
    assert_eq!(create().status, 201);
    let refused = create();
    refused.assert_problem(429, "rate_limited");
    assert!(refused.header("retry-after").is_some());
    let exposed = refused.header("access-control-expose-headers").unwrap_or_default().to_ascii_lowercase();
    for header in ["retry-after", "etag", "location"] {
        assert!(exposed.contains(header), "{header} in {exposed}");
    }
}
