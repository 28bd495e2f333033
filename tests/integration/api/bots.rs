//! Playing against a bot over HTTP, and hints.

use serde_json::{Value, json};

use super::helpers::{Response, TestApp, open_squares};

fn created_against(app: &TestApp, body: Value) -> (i64, String, Value) {
    let created = app.create_game(body);
    assert_eq!(created.status, 201, "{}", created.body);
    let body = created.json();
    (body["game"]["id"].as_i64().unwrap(), body["seat"]["token"].as_str().unwrap().to_string(), body["game"].clone())
}

fn log_of(app: &TestApp, id: i64) -> Vec<Value> {
    app.request("GET", &format!("/api/v1/games/{id}/log"), &[], None).json()["entries"].as_array().unwrap().clone()
}

#[test]
fn a_bot_that_is_x_opens_in_the_creating_request() {
    let app = TestApp::spawn();
    let (id, _, game) =
        created_against(&app, json!({ "variant": "player_choice", "play_as": "O", "opponent": { "bot": "parasite" } }));
    assert_eq!(game["opponent"], json!({ "bot": "parasite", "player": "X", "mistake_chance": 0.1 }));
    assert_eq!((&game["status"], &game["open_seats"]), (&json!("ongoing"), &json!([])));
    assert_eq!(game["moves"].as_array().unwrap().len(), 1);
    assert_eq!(game["next_to_move"], json!({ "player": "O", "move": 2, "forced_squares": null }));
    let log = log_of(&app, id);
    let marks: Vec<(&str, bool)> =
        log.iter().map(|e| (e["kind"].as_str().unwrap(), e["by_bot"].as_bool().unwrap())).collect();
    assert_eq!(marks, [("seat", false), ("seat", true), ("move", true)]);
    assert_eq!((&log[0]["player"], &log[1]["player"]), (&json!("O"), &json!("X")));
}

#[test]
fn the_bot_answers_each_action_until_it_is_the_humans_turn_again() {
    let app = TestApp::spawn();
    for variant in ["player_choice", "measurement"] {
        let (id, token, game) = created_against(&app, json!({ "variant": variant, "opponent": { "bot": "random" } }));
        assert_eq!(game["moves"].as_array().unwrap().len(), 0, "the human is X and opens");
        let mut view = game;
        let mut turns = 0;
        while view["result"] == "ongoing" {
            let answer: Response = if let Some(pending) = view["pending_collapse"].as_object() {
                assert_eq!(pending["chooser"], "X", "the bot never leaves its own choice pending");
                app.collapse(
                    id,
                    &token,
                    pending["closing_move"].as_i64().unwrap(),
                    pending["options"][0]["square"].as_i64().unwrap(),
                )
            } else {
                assert_eq!(view["next_to_move"]["player"], "X", "{view}");
                let open = open_squares(&view);
                let squares = if open.len() == 1 { [open[0], open[0]] } else { [open[0], open[open.len() - 1]] };
                app.place(id, &token, squares)
            };
            assert_eq!(answer.status, 201, "{}", answer.body);
            view = answer.json();
            turns += 1;
            assert!(turns <= 9, "a game lasts at most 9 moves and their collapses");
        }
        assert_eq!(view["status"], "finished");
        for entry in log_of(&app, id) {
            let bots_player = entry["player"] == "O" || entry["chooser"] == "O";
            assert_eq!(entry["by_bot"].as_bool(), Some(bots_player), "{entry}");
        }
    }
}

#[test]
fn a_bot_game_cannot_be_joined() {
    let app = TestApp::spawn();
    let (id, _, _) = created_against(&app, json!({ "opponent": { "bot": "random" } }));
    app.join(id).assert_problem(409, "conflict");
}

#[test]
fn an_opponent_must_be_a_known_bot_with_a_sensible_mistake_chance() {
    let app = TestApp::spawn();
    for opponent in [
        json!({ "bot": "grandmaster" }),
        json!({ "bot": "parasite", "mistake_chance": 1.5 }),
        json!({ "bot": "parasite", "mistake_chance": -0.1 }),
        json!({ "bot": "random", "mistake_chance": 0.2 }),
        json!({ "bot": "parasite", "mistakes": 0.2 }),
        json!("parasite"),
    ] {
        app.create_game(json!({ "opponent": opponent })).assert_problem(400, "invalid_body");
    }
    let (_, _, game) = created_against(&app, json!({ "opponent": { "bot": "parasite", "mistake_chance": 0 } }));
    assert_eq!(game["opponent"]["mistake_chance"], 0.0);
}

#[test]
fn a_hint_gives_the_best_action_and_its_guaranteed_value() {
    let app = TestApp::spawn();
    let (id, x, o) = app.two_player_game_with(json!({ "variant": "player_choice", "hints": true }));
    for (token, squares) in
        [(&x, [0, 4]), (&o, [2, 8]), (&x, [0, 3]), (&o, [2, 5]), (&x, [3, 6]), (&o, [4, 8]), (&x, [0, 4])]
    {
        assert_eq!(app.place(id, token, squares).status, 201);
    }
    let hint = app.hint(id, &o);
    assert_eq!(hint.status, 200, "{}", hint.body);
    assert_eq!(
        hint.json(),
        json!({ "player": "O", "action": { "kind": "collapse", "move": 7, "square": 0 }, "value": -0.5, "value_kind": "guaranteed" })
    );
    // A hint is advice to the player to act: not to the other, nor to a spectator.
    app.hint(id, &x).assert_problem(422, "not_your_turn");
    app.hint(id, "made-up").assert_problem(403, "forbidden");
    app.request("GET", &format!("/api/v1/games/{id}/hint"), &[], None).assert_problem(401, "unauthorized");
    let taken = app.collapse(id, &o, 7, 0).json();
    assert_eq!((&taken["result"], &taken["score"]), (&json!("o_wins"), &json!({ "X": 0.5, "O": 1.0 })));
    app.hint(id, &o).assert_problem(422, "game_over");
    app.hint(999, &o).assert_problem(404, "not_found");
}

#[test]
fn a_hint_in_the_measurement_variant_gives_an_expected_value() {
    let app = TestApp::spawn();
    let (id, x, o) = app.two_player_game_with(json!({ "variant": "measurement", "hints": true }));
    // No cycle until O6 closes 0-1-8; measured, it makes no line, so X moves next.
    for (token, squares) in [(&x, [0, 1]), (&o, [2, 3]), (&x, [4, 5]), (&o, [6, 7]), (&x, [0, 8]), (&o, [1, 8])] {
        assert_eq!(app.place(id, token, squares).status, 201);
    }
    let view = app.get_game(id).json();
    assert_eq!(view["next_to_move"], json!({ "player": "X", "move": 7, "forced_squares": null }));
    let hint = app.hint(id, &x).json();
    assert_eq!(hint["value_kind"], "expected");
    assert_eq!(hint["player"], view["next_to_move"]["player"]);
    let squares = hint["action"]["squares"].as_array().unwrap();
    let token = if hint["player"] == "X" { &x } else { &o };
    let played = app.place(id, token, [squares[0].as_i64().unwrap(), squares[1].as_i64().unwrap()]);
    assert_eq!(played.status, 201, "the hinted move is legal: {}", played.body);
}
