//! A game's scoring, chosen at its creation: the perfect player against itself
//! through HTTP ends as each rule is proved to, and every answer names the rule.

use serde_json::{Value, json};

use super::helpers::TestApp;

/// Plays game `id` to its end, each side taking its hint (the perfect player's
/// best action); answers the empty board's hint value and the final view.
fn perfect_against_itself(app: &TestApp, id: i64, tokens: [&str; 2]) -> (f64, Value) {
    let mut view = app.get_game(id).json();
    let mut opening_value = None;
    while view["status"] == "ongoing" {
        let player = view["to_act"]["player"].as_str().expect("someone acts").to_string();
        let token = if player == "X" { tokens[0] } else { tokens[1] };
        let hint = app.hint(id, token);
        assert_eq!(hint.status, 200, "{}", hint.body);
        let hint = hint.json();
        opening_value.get_or_insert(hint["value"].as_f64().expect("a value"));
        let answer = app.take(id, token, &hint["action"]);
        assert_eq!(answer.status, 201, "{}", answer.body);
        view = answer.json();
    }
    (opening_value.expect("the game was played"), view)
}

#[test]
fn the_perfect_player_against_itself_ends_as_each_scoring_is_proved_to() {
    let app = TestApp::spawn();
    // Goff's: X by 1/2; complete win: a draw; narrow win: X, with all nine moves.
    for (scoring, value, result, score) in [
        ("goff", 0.5, "x_wins", json!({ "X": 1.0, "O": 0.5 })),
        ("complete_win", 0.0, "draw", json!({ "X": 0.0, "O": 0.0 })),
        ("narrow_win", 1.0, "x_wins", json!({ "X": 1.0, "O": 0.0 })),
    ] {
        let body = json!({ "variant": "player_choice", "scoring": scoring, "hints": true });
        let (id, x, o) = app.two_player_game_with(body);
        let (opening_value, view) = perfect_against_itself(&app, id, [&x, &o]);
        assert_eq!(opening_value, value, "{scoring}: the empty board's hint");
        assert_eq!(
            (view["scoring"].as_str(), &view["result"], &view["score"]),
            (Some(scoring), &json!(result), &score)
        );
        if scoring == "narrow_win" {
            assert_eq!(view["moves"].as_array().map(Vec::len), Some(9), "{view}");
        }
        let transcript = app.request("GET", &format!("/api/v1/games/{id}/transcript"), &[], None).body;
        let header = format!("[Variant \"player_choice\"] [Scoring \"{scoring}\"]\n");
        assert!(transcript.starts_with(&header), "{transcript}");
        let log = app.request("GET", &format!("/api/v1/games/{id}/log"), &[], None).json();
        assert_eq!(log["scoring"], scoring);
        let listed = app.request("GET", "/api/v1/games?status=finished&limit=1", &[], None).json();
        assert_eq!((&listed["games"][0]["id"], &listed["games"][0]["scoring"]), (&json!(id), &json!(scoring)));
    }
}

#[test]
fn a_game_is_goffs_unless_it_names_another_scoring_and_a_rated_one_is_goffs() {
    let app = TestApp::spawn();
    let created = app.create_game(json!({ "variant": "player_choice" }));
    assert_eq!(created.json()["game"]["scoring"], "goff");
    app.create_game(json!({ "scoring": "chess" })).assert_problem(400, "invalid_body");
    let player = app.create_player(Some("scorer")).json();
    let token = player["token"].as_str().expect("a token");
    let body = json!({ "scoring": "narrow_win", "rated": true, "opponent": { "bot": "random" } });
    app.post_with_token("/api/v1/games", token, body).assert_problem(422, "rated_game");
}

#[test]
fn challenges_seeks_and_arenas_play_the_scoring_they_ask_for_and_a_rated_one_is_goffs() {
    let app = TestApp::spawn();
    let (alice, bob, carol) = (app.player("alice"), app.player("bob"), app.player("carol"));
    let game_scoring = |id: &Value| app.get_game(id.as_i64().expect("a game")).json()["scoring"].clone();

    let sent = app.challenge(&alice, "bob", json!({"variant": "player_choice", "scoring": "complete_win"}));
    assert_eq!(sent.status, 201, "{}", sent.body);
    assert_eq!(sent.json()["scoring"], "complete_win");
    let id = sent.json()["id"].as_i64().expect("an id");
    let listed = app.get_with_token("/api/v1/players/me/challenges", &bob).json();
    assert_eq!(listed["received"][0]["scoring"], "complete_win");
    let accepted = app.answer(&bob, id, "accept", json!({})).json();
    assert_eq!(accepted["game"]["scoring"], "complete_win", "{accepted}");
    // The server's bot plays a challenge's scoring too; a challenge without one is Goff's.
    let to_bot = app.challenge(&alice, "perfect", json!({"variant": "player_choice", "scoring": "narrow_win"})).json();
    assert_eq!((&to_bot["status"], game_scoring(&to_bot["game_id"])), (&json!("accepted"), json!("narrow_win")));
    assert_eq!(app.challenge(&carol, "bob", json!({})).json()["scoring"], "goff");
    let rated = json!({"variant": "player_choice", "scoring": "narrow_win", "rated": true});
    app.challenge(&alice, "carol", rated).assert_problem(422, "rated_game");

    // A seek pairs with a seek of the same scoring alone.
    let narrow = json!({"variant": "measurement", "scoring": "narrow_win"});
    let waiting = app.seek(&alice, narrow.clone()).json();
    assert_eq!((&waiting["status"], &waiting["scoring"]), (&json!("open"), &json!("narrow_win")));
    let goffs = app.seek(&bob, json!({"variant": "measurement"})).json();
    assert_eq!((&goffs["status"], &goffs["scoring"]), (&json!("open"), &json!("goff")));
    let paired = app.seek(&carol, narrow).json();
    assert_eq!(paired["status"], "paired", "{paired}");
    assert_eq!(game_scoring(&paired["game_id"]), "narrow_win");
    let alices = app.get_with_token(&format!("/api/v1/seeks/{}", waiting["id"]), &alice).json();
    assert_eq!(alices["game_id"], paired["game_id"]);
    let rated = json!({"variant": "measurement", "scoring": "complete_win", "rated": true});
    app.seek(&carol, rated).assert_problem(422, "rated_game");

    // An arena names its scoring; a rated one is Goff's.
    let arena = |scoring: &str, rated: bool| {
        let body = json!({"name": "Fair play", "scoring": scoring, "clock": {"initial_ms": 60000, "increment_ms": 0},
            "minutes": 10, "rated": rated});
        app.post_with_token("/api/v1/arenas", &alice, body)
    };
    let created = arena("complete_win", false);
    assert_eq!(created.status, 201, "{}", created.body);
    let shown = app.request("GET", &format!("/api/v1/arenas/{}", created.json()["id"]), &[], None).json();
    assert_eq!(shown["scoring"], "complete_win", "{shown}");
    arena("narrow_win", true).assert_problem(422, "rated_game");
}
