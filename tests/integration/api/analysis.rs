//! `GET /games/{id}/analysis`: every action of a game judged by perfect play.

use serde_json::{Value, json};

use super::helpers::{Step, TestApp, TestDatabase, goffs_draw, open_squares};

fn analysis(app: &TestApp, id: i64) -> Value {
    analysis_with(app, id, &[])
}

fn analysis_with(app: &TestApp, id: i64, headers: &[(&str, &str)]) -> Value {
    let answer = app.request("GET", &format!("/api/v1/games/{id}/analysis"), headers, None);
    assert_eq!(answer.status, 200, "{}", answer.body);
    answer.json()
}

/// Checks what every analysis must hold: values that chain from action to
/// action (through the outcome that happened after a measurement), losses
/// that are never negative and zero for a best action, and players' totals
/// that sum the actions'.
fn assert_consistent(analysis: &Value) {
    let actions = analysis["actions"].as_array().unwrap();
    for (judged, next) in actions.iter().zip(actions.iter().skip(1)) {
        let reached = match judged["measurement"].as_object() {
            None => judged["value_after"].clone(),
            Some(measured) => {
                let outcomes = measured["outcomes"].as_array().unwrap();
                let mean = (outcomes[0]["value"].as_f64().unwrap() + outcomes[1]["value"].as_f64().unwrap()) / 2.0;
                assert_eq!(judged["value_after"].as_f64(), Some(mean), "{judged}");
                let happened: Vec<&Value> = outcomes.iter().filter(|outcome| outcome["happened"] == true).collect();
                assert_eq!(happened.len(), 1, "{judged}");
                happened[0]["value"].clone()
            }
        };
        assert_eq!(reached, next["value_before"], "{judged} then {next}");
    }
    for player in ["X", "O"] {
        let own: Vec<&Value> = actions.iter().filter(|judged| judged["player"] == player).collect();
        let loss: f64 = own.iter().map(|judged| judged["loss"].as_f64().unwrap()).sum();
        let with_loss = own.iter().filter(|judged| judged["loss"].as_f64().unwrap() > 0.0).count();
        assert!(own.iter().all(|judged| judged["loss"].as_f64().unwrap() >= 0.0));
        assert!(own.iter().filter(|judged| judged["action"] == judged["best"]).all(|judged| judged["loss"] == 0.0));
        assert_eq!(
            analysis["players"][player],
            json!({ "loss": loss, "actions": own.len(), "actions_with_loss": with_loss }),
            "{analysis}"
        );
    }
}

#[test]
fn a_finished_game_is_judged_action_by_action_and_the_same_every_time() {
    let database = TestDatabase::new();
    let app = TestApp::spawn_on(&database);
    let (id, x, o) = app.two_player_game("player_choice");
    let steps = goffs_draw(&x, &o);
    for step in &steps {
        assert_eq!(step.take(&app, id).status, 201);
    }
    let judged = analysis(&app, id);
    assert_eq!(
        (&judged["game_id"], &judged["variant"], &judged["version"]),
        (&json!(id), &json!("player_choice"), &json!(15))
    );
    assert_eq!(judged["value_kind"], "guaranteed");
    let actions = judged["actions"].as_array().unwrap();
    // After the two seats, each of the thirteen steps is an action of a player.
    assert_eq!(actions.iter().map(|a| a["seq"].as_i64().unwrap()).collect::<Vec<_>>(), (3..=15).collect::<Vec<_>>());
    let kinds: Vec<&str> = actions.iter().map(|a| a["action"]["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, steps.iter().map(Step::kind).collect::<Vec<_>>());
    // The corner and the edge beside it: X gives away the half point the empty board is worth.
    assert_eq!(
        actions[0],
        json!({ "seq": 3, "player": "X", "action": { "kind": "move", "squares": [0, 1] }, "value_before": 0.5,
            "best": { "kind": "move", "squares": [0, 8] }, "value_after": 0.0, "loss": 0.5, "measurement": null })
    );
    assert_eq!(actions[12]["action"], json!({ "kind": "collapse", "move": 9, "square": 8 }));
    assert_eq!(actions[12]["value_after"], 0.0, "a draw");
    assert_eq!((&judged["players"]["X"]["actions"], &judged["players"]["O"]["actions"]), (&json!(8), &json!(5)));
    assert_consistent(&judged);

    assert_eq!(analysis(&app, id), judged, "from the cache");
    app.stop();
    let restarted = TestApp::spawn_on(&database);
    assert_eq!(analysis(&restarted, id), judged, "searched afresh from the log");
}

#[test]
fn a_game_that_goes_on_is_judged_so_far_when_it_gives_hints() {
    let app = TestApp::spawn();
    let created = app.create_game(json!({ "variant": "measurement", "opponent": { "bot": "perfect" } }));
    let body = created.json();
    let (id, token) = (body["game"]["id"].as_i64().unwrap(), body["seat"]["token"].as_str().unwrap().to_string());
    let seat = [("Authorization", format!("Bearer {token}"))];
    let seat: Vec<(&str, &str)> = seat.iter().map(|(name, value)| (*name, value.as_str())).collect();
    assert_eq!(analysis_with(&app, id, &seat)["actions"], json!([]));
    // The perfect bot answers [0, 8] with [2, 6], which X's [2, 6] closes into a cycle.
    for squares in [[0, 8], [2, 6]] {
        let played = app.place(id, &token, squares);
        assert_eq!(played.status, 201, "{}", played.body);
    }
    let open = open_squares(&app.get_game(id).json());
    assert_eq!(app.place(id, &token, [open[0], open[open.len() - 1]]).status, 201);
    let judged = analysis_with(&app, id, &seat);
    assert_eq!(judged["value_kind"], "expected");
    let actions = judged["actions"].as_array().unwrap();
    let players: Vec<&str> = actions.iter().map(|a| a["player"].as_str().unwrap()).collect();
    assert_eq!(players, ["X", "O", "X", "O", "X", "O"][..actions.len()]);
    assert!(actions.len() >= 5, "{judged}");
    assert_eq!(actions[0]["value_before"], 0.5);
    assert_eq!(judged["players"]["O"]["loss"], 0.0, "the perfect bot gives nothing away: {judged}");
    assert!(actions.iter().any(|a| a["measurement"].is_object()), "{judged}");
    assert_consistent(&judged);
}

#[test]
fn a_game_between_two_people_is_judged_during_play_only_with_hints() {
    let app = TestApp::spawn();
    let (id, x, _) = app.two_player_game("player_choice");
    assert_eq!(app.place(id, &x, [0, 4]).status, 201);
    let path = format!("/api/v1/games/{id}/analysis");
    app.request("GET", &path, &[], None).assert_problem(422, "hints_disabled");
    assert_eq!(app.post_with_token(&format!("/api/v1/games/{id}/resign"), &x, json!({})).status, 201);
    let judged = analysis(&app, id);
    assert_eq!(judged["actions"].as_array().unwrap().len(), 1, "the resignation is no action of the rules");

    let (id, x, o) = app.two_player_game_with(json!({ "variant": "player_choice", "hints": true }));
    assert_eq!(app.place(id, &x, [0, 8]).status, 201);
    // Advice to its players, each of them, and to nobody else while it goes on.
    let path = format!("/api/v1/games/{id}/analysis");
    app.request("GET", &path, &[], None).assert_problem(403, "forbidden");
    for token in [&x, &o] {
        let judged = analysis_with(&app, id, &[("Authorization", &format!("Bearer {token}"))]);
        assert_eq!(judged["actions"][0]["loss"], 0.0, "{judged}");
    }
    app.request("GET", "/api/v1/games/999/analysis", &[], None).assert_problem(404, "not_found");
}
