//! Each operation's success: create, join, get, move, collapse, list, log, transcript.

use serde_json::json;

use super::helpers::{TestApp, TestDatabase, open_squares};

#[test]
fn creating_a_game_seats_the_creator_and_says_where_the_game_is() {
    let app = TestApp::spawn();
    let created = app.create_game(json!({ "variant": "player_choice", "play_as": "O" }));
    assert_eq!(created.status, 201, "{}", created.body);
    let body = created.json();
    let id = body["game"]["id"].as_i64().unwrap();
    assert_eq!(created.header("location"), Some(format!("/api/v1/games/{id}").as_str()));
    assert_eq!(created.header("etag"), Some("\"1\""));
    assert_eq!(body["seat"]["player"], "O");
    assert_eq!(body["seat"]["token"].as_str().map(str::len), Some(64));
    let game = &body["game"];
    assert_eq!(game["variant"], "player_choice");
    assert_eq!((game["version"].as_i64(), &game["status"]), (Some(1), &json!("waiting")));
    assert_eq!(game["open_seats"], json!(["X"]));
    // Nobody may move while a seat is free.
    assert_eq!((&game["to_act"], &game["next_to_move"]), (&json!(null), &json!(null)));
    assert_eq!(game["board"].as_array().map(Vec::len), Some(9));
    assert_eq!(
        game["board"][4],
        json!({ "square": 4, "classical": null, "spooky": [],
        "probabilities": { "X": 0.0, "O": 0.0, "empty": 1.0 } })
    );
    assert_eq!((&game["result"], &game["score"]), (&json!("ongoing"), &json!({ "X": 0.0, "O": 0.0 })));
}

#[test]
fn a_game_created_without_a_body_is_a_measurement_game_with_the_creator_as_x() {
    let app = TestApp::spawn();
    for (headers, body) in [(vec![], None), (vec![("Content-Type", "application/json")], Some("null"))] {
        let created = app.request("POST", "/api/v1/games", &headers, body);
        assert_eq!(created.status, 201, "{}", created.body);
        let body = created.json();
        assert_eq!((&body["game"]["variant"], &body["seat"]["player"]), (&json!("measurement"), &json!("X")));
    }
}

#[test]
fn joining_takes_the_free_seat_once() {
    let app = TestApp::spawn();
    let id = app.create_game(json!({})).json()["game"]["id"].as_i64().unwrap();
    let joined = app.join(id);
    assert_eq!(joined.status, 201, "{}", joined.body);
    let body = joined.json();
    assert_eq!(body["seat"]["player"], "O");
    assert_eq!((&body["game"]["status"], &body["game"]["open_seats"]), (&json!("ongoing"), &json!([])));
    assert_eq!(body["game"]["version"], 2);
    let again = app.join(id);
    let problem = again.assert_problem(409, "conflict");
    assert_eq!(problem["detail"], "both seats of this game are taken");
}

#[test]
fn getting_a_game_gives_its_view_and_a_304_while_unchanged() {
    let app = TestApp::spawn();
    let (id, x, _) = app.two_player_game("player_choice");
    let got = app.get_game(id);
    assert_eq!((got.status, got.header("etag")), (200, Some("\"2\"")));
    assert_eq!(got.json()["id"], id);
    let unchanged = app.request("GET", &format!("/api/v1/games/{id}"), &[("If-None-Match", "\"2\"")], None);
    assert_eq!((unchanged.status, unchanged.body.as_str(), unchanged.header("etag")), (304, "", Some("\"2\"")));
    assert_eq!(app.place(id, &x, [0, 1]).status, 201);
    let changed = app.request("GET", &format!("/api/v1/games/{id}"), &[("If-None-Match", "\"2\"")], None);
    assert_eq!((changed.status, changed.header("etag")), (200, Some("\"3\"")));
}

#[test]
fn moves_and_a_chosen_collapse_change_the_board() {
    let app = TestApp::spawn();
    let (id, x, o) = app.two_player_game("player_choice");
    let first = app.place(id, &x, [1, 0]);
    assert_eq!((first.status, first.header("etag")), (201, Some("\"3\"")));
    let view = first.json();
    assert_eq!(view["moves"], json!([{ "move": 1, "player": "X", "squares": [0, 1], "landed": null }]));
    assert_eq!(view["board"][0]["spooky"], json!(["X1"]));
    assert_eq!(view["board"][0]["probabilities"], json!({ "X": 0.5, "O": 0.0, "empty": 0.5 }));
    assert_eq!(app.place(id, &o, [1, 4]).status, 201);
    let closed = app.place(id, &x, [0, 4]).json();
    assert_eq!(closed["next_to_move"], json!(null));
    assert_eq!(
        closed["pending_collapse"],
        json!({
            "chooser": "O", "closing_move": 3, "cycle_moves": [1, 2, 3], "square": null,
            "options": [
                { "square": 0, "outcome": [{ "move": 1, "square": 1 }, { "move": 2, "square": 4 }, { "move": 3, "square": 0 }] },
                { "square": 4, "outcome": [{ "move": 1, "square": 0 }, { "move": 2, "square": 1 }, { "move": 3, "square": 4 }] }
            ]
        })
    );
    let collapsed = app.collapse(id, &o, 2, 4);
    assert_eq!(collapsed.status, 201, "{}", collapsed.body);
    let view = collapsed.json();
    let classical: Vec<_> = view["board"].as_array().unwrap().iter().map(|c| c["classical"].clone()).collect();
    assert_eq!(classical[..5], [json!("X3"), json!("X1"), json!(null), json!(null), json!("O2")]);
    assert_eq!(view["collapses"][0]["square"], 0, "named through move 2, logged by the closing move");
    assert_eq!(view["next_to_move"], json!({ "player": "O", "move": 4, "forced_squares": null }));
}

#[test]
fn the_forced_last_square_move_is_shown_and_then_sent_as_it_is() {
    use super::helpers::Step::{Collapse, Move};
    let app = TestApp::spawn();
    let (id, x, o) = app.two_player_game("player_choice");
    // Four 2-cycles, each collapsed by X without a line: square 8 is left alone.
    let steps = [
        Move(&x, [0, 1]),
        Move(&o, [0, 1]),
        Collapse(&x, 2, 1),
        Move(&x, [2, 3]),
        Move(&o, [2, 3]),
        Collapse(&x, 4, 3),
        Move(&x, [4, 5]),
        Move(&o, [4, 5]),
        Collapse(&x, 6, 4),
        Move(&x, [6, 7]),
        Move(&o, [6, 7]),
    ];
    for step in &steps {
        let answer = step.take(&app, id);
        assert_eq!(answer.status, 201, "{}", answer.body);
        assert_eq!(answer.json()["next_to_move"]["forced_squares"], json!(null));
    }
    let view = Collapse(&x, 8, 6).take(&app, id).json();
    assert_eq!(view["next_to_move"], json!({ "player": "X", "move": 9, "forced_squares": [8, 8] }));
    app.place(id, &x, [7, 8]).assert_problem(422, "square_is_classical");
    let last = app.place(id, &x, [8, 8]).json();
    assert_eq!(
        (&last["status"], &last["result"], &last["next_to_move"]),
        (&json!("finished"), &json!("x_wins"), &json!(null))
    );
    assert_eq!(last["lines"], json!([{ "player": "X", "squares": [2, 5, 8], "max_move": 9, "points": 1.0 }]));
}

#[test]
fn a_measurement_game_measures_a_closed_cycle_in_the_same_request() {
    let app = TestApp::spawn();
    let (id, x, o) = app.two_player_game("measurement");
    app.place(id, &x, [0, 1]);
    app.place(id, &o, [0, 1]);
    let view = app.get_game(id).json();
    assert_eq!(view["pending_collapse"], json!(null));
    assert_eq!(view["collapses"][0]["chooser"], "measurement");
    let landed: Vec<_> = view["moves"].as_array().unwrap().iter().map(|m| m["landed"].as_i64().unwrap()).collect();
    assert_eq!(landed, [0, 1], "as the test server's seed measures it");
    assert_eq!(view["next_to_move"], json!({ "player": "X", "move": 3, "forced_squares": null }));
    assert_eq!(view["version"], 5, "two seats, two moves and the measurement");
}

#[test]
fn a_seed_measures_alike_every_time_and_other_seeds_otherwise() {
    // Where X1 lands when O2 closes the 2-cycle of squares 0 and 1, by seed.
    let x1_lands = |seed| {
        let app = TestApp::spawn_with(|config| config.random_seed = Some(seed));
        let (id, x, o) = app.two_player_game("measurement");
        app.place(id, &x, [0, 1]);
        app.place(id, &o, [0, 1]).json()["moves"][0]["landed"].as_i64().unwrap()
    };
    let by_seed: Vec<i64> = (1..=6).map(x1_lands).collect();
    assert_eq!(by_seed, (1..=6).map(x1_lands).collect::<Vec<_>>(), "a seed plays alike");
    assert!(by_seed.contains(&0) && by_seed.contains(&1), "both outcomes: {by_seed:?}");
}

#[test]
fn games_are_listed_newest_first_a_page_at_a_time_and_by_status() {
    let app = TestApp::spawn();
    let ids: Vec<i64> = (0..5).map(|_| app.create_game(json!({})).json()["game"]["id"].as_i64().unwrap()).collect();
    app.join(ids[1]);
    let first = app.request("GET", "/api/v1/games?limit=2", &[], None).json();
    let listed: Vec<_> = first["games"].as_array().unwrap().iter().map(|g| g["id"].as_i64().unwrap()).collect();
    assert_eq!(listed, [ids[4], ids[3]]);
    let cursor = first["next_cursor"].as_str().expect("a next page").to_string();
    let second = app.request("GET", &format!("/api/v1/games?limit=2&cursor={cursor}"), &[], None).json();
    let listed: Vec<_> = second["games"].as_array().unwrap().iter().map(|g| g["id"].as_i64().unwrap()).collect();
    assert_eq!(listed, [ids[2], ids[1]]);
    let ongoing = app.request("GET", "/api/v1/games?status=ongoing", &[], None).json();
    assert_eq!(ongoing["games"].as_array().unwrap().len(), 1);
    assert_eq!(ongoing["games"][0]["id"], ids[1]);
    assert_eq!(ongoing["games"][0]["status"], "ongoing");
    assert_eq!(ongoing["next_cursor"], json!(null));
    let waiting = app.request("GET", "/api/v1/games?status=waiting&limit=100", &[], None).json();
    assert_eq!(waiting["games"].as_array().unwrap().len(), 4);
}

#[test]
fn the_log_and_the_transcript_tell_the_whole_game() {
    let app = TestApp::spawn();
    let (id, x, o) = app.two_player_game("player_choice");
    app.place(id, &x, [0, 1]);
    app.place(id, &o, [1, 4]);
    app.place(id, &x, [0, 4]);
    app.collapse(id, &o, 3, 0);
    let log = app.request("GET", &format!("/api/v1/games/{id}/log"), &[], None);
    assert_eq!(log.status, 200);
    let mut log = log.json();
    for entry in log["entries"].as_array_mut().unwrap() {
        assert!(entry["created_at"].as_str().is_some_and(|t| t.ends_with('Z')));
        entry.as_object_mut().unwrap().remove("created_at");
    }
    assert_eq!(
        log,
        json!({ "game_id": id, "variant": "player_choice", "scoring": "goff", "version": 6, "entries": [
            { "seq": 1, "kind": "seat", "player": "X", "by_bot": false },
            { "seq": 2, "kind": "seat", "player": "O", "by_bot": false },
            { "seq": 3, "kind": "move", "player": "X", "move": 1, "squares": [0, 1], "by_bot": false },
            { "seq": 4, "kind": "move", "player": "O", "move": 2, "squares": [1, 4], "by_bot": false },
            { "seq": 5, "kind": "move", "player": "X", "move": 3, "squares": [0, 4], "by_bot": false },
            { "seq": 6, "kind": "collapse", "chooser": "O", "closing_move": 3, "square": 0, "by_bot": false }
        ]})
    );
    let transcript = app.request("GET", &format!("/api/v1/games/{id}/transcript"), &[], None);
    assert_eq!(transcript.header("content-type"), Some("text/plain; charset=utf-8"));
    assert_eq!(
        transcript.body,
        "[Variant \"player_choice\"] [Scoring \"goff\"]\nX1+(1,2); O2+(2,5); X3+(1,5); O4!X3(1)"
    );
}

#[test]
fn a_game_survives_a_restart_on_the_same_database() {
    let database = TestDatabase::new();
    let app = TestApp::spawn_on(&database);
    let (id, x, o) = app.two_player_game("player_choice");
    app.place(id, &x, [0, 1]);
    app.place(id, &o, [0, 1]);
    let before = app.get_game(id).json();
    app.stop();

    let restarted = TestApp::spawn_on(&database);
    assert_eq!(restarted.get_game(id).json(), before);
    let chosen = restarted.collapse(id, &x, 2, 0);
    assert_eq!(chosen.status, 201, "the seat tokens still work: {}", chosen.body);
    assert_eq!(chosen.json()["board"][0]["classical"], "O2");
}

#[test]
fn the_probes_answer() {
    let app = TestApp::spawn();
    let alive = app.request("GET", "/healthz", &[], None);
    assert_eq!((alive.status, alive.json()), (200, json!({ "status": "ok" })));
    let ready = app.request("GET", "/readyz", &[], None);
    assert_eq!((ready.status, ready.json()), (200, json!({ "status": "ready" })));
}

#[test]
fn a_log_that_breaks_the_rules_is_a_logged_500_and_is_left_as_it_is() {
    let database = TestDatabase::new();
    let app = TestApp::spawn_on(&database);
    let (id, _, _) = app.two_player_game("player_choice");
    app.stop();

    // O cannot make move 1: written behind the server's back, this log is corrupt.
    database.execute(&format!(
        "INSERT INTO log_entries (game_id, seq, kind, actor, square_a, square_b) VALUES ({id}, 3, 'move', 'O', 0, 1)"
    ));

    let restarted = TestApp::spawn_on(&database);
    let problem = restarted.get_game(id).assert_problem(500, "internal");
    assert_eq!(problem["detail"], "something went wrong on the server; it has been logged");
    restarted.get_game(id).assert_problem(500, "internal");
    let log = restarted.request("GET", &format!("/api/v1/games/{id}/log"), &[], None);
    log.assert_problem(500, "internal");
}

#[test]
fn every_read_of_an_unknown_game_is_not_found() {
    let app = TestApp::spawn();
    for path in ["", "/log", "/transcript"] {
        app.request("GET", &format!("/api/v1/games/404{path}"), &[], None).assert_problem(404, "not_found");
    }
    app.collapse(404, "token", 1, 0).assert_problem(404, "not_found");
}

#[test]
fn whole_games_play_to_the_end_in_both_variants_and_match_their_transcripts() {
    use qttt::engine::{Game, Variant, notation};
    use rand::rngs::StdRng;
    use rand::{RngExt, SeedableRng};

    let app = TestApp::spawn();
    let mut rng = StdRng::seed_from_u64(3);
    for (variant, name) in [(Variant::PlayerChoice, "player_choice"), (Variant::Measurement, "measurement")] {
        for _ in 0..10 {
            let (id, x, o) = app.two_player_game(name);
            let mut view = app.get_game(id).json();
            while view["result"] == "ongoing" {
                let token_of = |player: &serde_json::Value| if player == "X" { &x } else { &o };
                let answer = if let Some(pending) = view["pending_collapse"].as_object() {
                    let option = &pending["options"][rng.random_range(0..2)];
                    let closing = pending["closing_move"].as_i64().unwrap();
                    app.collapse(id, token_of(&pending["chooser"]), closing, option["square"].as_i64().unwrap())
                } else {
                    let open = open_squares(&view);
                    let a = open[rng.random_range(0..open.len())];
                    let others: Vec<i64> = open.iter().copied().filter(|&s| s != a).collect();
                    let b = if others.is_empty() { a } else { others[rng.random_range(0..others.len())] };
                    let forced = if others.is_empty() { json!([a, a]) } else { json!(null) };
                    assert_eq!(view["next_to_move"]["forced_squares"], forced, "{view}");
                    app.place(id, token_of(&view["next_to_move"]["player"]), [a, b])
                };
                assert_eq!(answer.status, 201, "{}", answer.body);
                view = answer.json();
            }
            assert_eq!(view["status"], "finished");
            assert!(view["moves"].as_array().unwrap().len() <= 9);
            let transcript = app.request("GET", &format!("/api/v1/games/{id}/transcript"), &[], None).body;
            let game = Game::replay(variant, &notation::parse(&transcript, variant).unwrap()).unwrap();
            assert_eq!(view["result"], game.result().code(), "{transcript}");
            assert_eq!(view["score"]["X"], game.score().x.as_f64(), "{transcript}");
        }
    }
}
