//! Every error is problem+json with a stable code, and changes nothing.

use serde_json::json;

use super::helpers::{Response, TestApp, limited};

#[test]
fn moving_needs_a_seat_token_of_this_game() {
    let app = TestApp::spawn();
    let (id, x, _) = app.two_player_game("player_choice");
    let (other_id, other_x, _) = app.two_player_game("player_choice");
    let path = format!("/api/v1/games/{id}/moves");
    let body = json!({ "squares": [0, 1] }).to_string();
    let json_type = ("Content-Type", "application/json");

    let missing = app.request("POST", &path, &[json_type], Some(&body));
    missing.assert_problem(401, "unauthorized");
    assert_eq!(missing.header("www-authenticate"), Some("Bearer"));
    app.request("POST", &path, &[json_type, ("Authorization", &format!("Basic {x}"))], Some(&body))
        .assert_problem(401, "unauthorized");
    app.request("POST", &path, &[json_type, ("Authorization", "Bearer ")], Some(&body))
        .assert_problem(401, "unauthorized");
    app.place(id, "not-a-token", [0, 1]).assert_problem(403, "forbidden");
    app.place(id, &other_x, [0, 1]).assert_problem(403, "forbidden");
    app.collapse(id, &other_x, 1, 0).assert_problem(403, "forbidden");

    assert_eq!(app.get_game(id).json()["version"], 2, "nothing was played");
    assert_eq!(app.get_game(other_id).json()["version"], 2);
    assert_eq!(app.place(id, &x, [0, 1]).status, 201);
}

/// An illegal action and the rule code it must be answered with.
type Case<'a> = (&'static str, Box<dyn Fn() -> Response + 'a>);

#[test]
fn illegal_actions_answer_with_the_rule_they_break_and_change_nothing() {
    let app = TestApp::spawn();
    let (id, x, o) = app.two_player_game("player_choice");
    let cases: [Case; 8] = [
        ("not_your_turn", Box::new(|| app.place(id, &o, [0, 1]))),
        ("same_square_twice", Box::new(|| app.place(id, &x, [4, 4]))),
        ("square_out_of_range", Box::new(|| app.place(id, &x, [0, 9]))),
        ("square_out_of_range", Box::new(|| app.place(id, &x, [-1, 3]))),
        ("square_out_of_range", Box::new(|| app.place(id, &x, [0, 1_000_000_000_000]))),
        ("no_collapse_pending", Box::new(|| app.collapse(id, &x, 1, 0))),
        ("no_collapse_pending", Box::new(|| app.collapse(id, &o, 300, 0))),
        ("square_out_of_range", Box::new(|| app.collapse(id, &o, 1, -5))),
    ];
    for (code, act) in cases {
        act().assert_problem(422, code);
        assert_eq!(app.get_game(id).json()["version"], 2, "{code} changed the game");
    }

    app.place(id, &x, [0, 1]);
    app.place(id, &o, [0, 1]);
    let pending: [Case; 5] = [
        ("collapse_pending", Box::new(|| app.place(id, &x, [2, 3]))),
        ("not_the_chooser", Box::new(|| app.collapse(id, &o, 2, 0))),
        ("move_not_in_cycle", Box::new(|| app.collapse(id, &x, 3, 0))),
        ("move_not_in_cycle", Box::new(|| app.collapse(id, &x, 1_000, 0))),
        ("square_not_in_move", Box::new(|| app.collapse(id, &x, 2, 5))),
    ];
    for (code, act) in pending {
        act().assert_problem(422, code);
        assert_eq!(app.get_game(id).json()["version"], 4, "{code} changed the game");
    }
}

#[test]
fn after_the_end_every_action_is_game_over() {
    let app = TestApp::spawn();
    let (id, x, o) = app.two_player_game("player_choice");
    for (token, squares) in [(&x, [0, 3]), (&o, [0, 3])] {
        app.place(id, token, squares);
    }
    app.collapse(id, &x, 2, 3);
    for (token, squares) in [(&x, [1, 4]), (&o, [1, 4])] {
        app.place(id, token, squares);
    }
    app.collapse(id, &x, 4, 4);
    for (token, squares) in [(&x, [2, 6]), (&o, [7, 8]), (&x, [2, 6])] {
        app.place(id, token, squares);
    }
    let end = app.collapse(id, &o, 7, 6).json();
    assert_eq!((&end["result"], &end["status"]), (&json!("x_wins"), &json!("finished")));
    app.place(id, &o, [5, 8]).assert_problem(422, "game_over");
    app.place(id, &x, [5, 8]).assert_problem(422, "game_over");
    app.collapse(id, &o, 7, 2).assert_problem(422, "game_over");
    app.join(id).assert_problem(409, "conflict");
}

#[test]
fn bodies_that_are_not_the_json_an_operation_takes_are_invalid_body() {
    let app = TestApp::spawn();
    let (id, x, _) = app.two_player_game("player_choice");
    let path = format!("/api/v1/games/{id}/moves");
    let auth = format!("Bearer {x}");
    let post = |content_type: &str, body: &str| {
        app.request("POST", &path, &[("Authorization", &auth), ("Content-Type", content_type)], Some(body))
    };
    let json = "application/json";
    let cases = [
        (json, "{", 400),
        (json, "[0, 1]", 400),
        (json, "{}", 400),
        (json, r#"{"squares": [0]}"#, 400),
        (json, r#"{"squares": [0, 1, 2]}"#, 400),
        (json, r#"{"squares": ["0", "1"]}"#, 400),
        (json, r#"{"squares": [0.5, 1]}"#, 400),
        (json, r#"{"squares": [0, 99999999999999999999999]}"#, 400),
        (json, r#"{"squares": [0, 1], "squares": [2, 3]}"#, 400),
        (json, r#"{"squares": [0, 1], "extra": true}"#, 400),
        ("text/plain", r#"{"squares": [0, 1]}"#, 415),
        (json, &format!(r#"{{"squares": [0, 1], "pad": "{}"}}"#, "x".repeat(5000)), 413),
        (json, &format!("{}{}", "[".repeat(2000), "]".repeat(2000)), 400),
    ];
    for (content_type, body, status) in cases {
        let answer = post(content_type, body);
        answer.assert_problem(status, "invalid_body");
    }
    app.request("POST", "/api/v1/games", &[("Content-Type", json)], Some(r#"{"variant": "quantum"}"#))
        .assert_problem(400, "invalid_body");
    // No body at all is an empty object; a body of whitespace is no JSON.
    app.request("POST", "/api/v1/games", &[("Content-Type", json)], Some("\t")).assert_problem(400, "invalid_body");
    assert_eq!(app.get_game(id).json()["version"], 2);
    // JSON Schema's integers include 0.0 and 4.0; so do the API's.
    let placed = post(json, r#"{"squares": [0.0, 4.0]}"#);
    assert_eq!((placed.status, &placed.json()["moves"][0]["squares"]), (201, &serde_json::json!([0, 4])));
}

#[test]
fn unknown_games_paths_and_methods_have_their_own_codes() {
    let app = TestApp::spawn();
    app.get_game(999).assert_problem(404, "not_found");
    app.get_game(-1).assert_problem(404, "not_found");
    app.join(999).assert_problem(404, "not_found");
    app.place(999, "token", [0, 1]).assert_problem(404, "not_found");
    for path in [
        "/api/v1/games/abc",
        "/api/v1/games/1.5",
        "/api/v1/games/99999999999999999999",
        "/api/v1/games/%F0%9F%8E%B2/log",
    ] {
        app.request("GET", path, &[], None).assert_problem(400, "invalid_path");
    }
    app.request("GET", "/nowhere", &[], None).assert_problem(404, "not_found");
    app.request("GET", "/api/v1/games/1/moves/2", &[], None).assert_problem(404, "not_found");
    let wrong_method = app.request("DELETE", "/api/v1/games/1", &[], None);
    wrong_method.assert_problem(405, "method_not_allowed");
    assert_eq!(wrong_method.header("allow"), Some("GET"));
    let wrong_method = app.request("GET", "/api/v1/games/1/moves", &[], None);
    wrong_method.assert_problem(405, "method_not_allowed");
    assert_eq!(wrong_method.header("allow"), Some("POST"));
}

#[test]
fn listing_rejects_queries_out_of_range() {
    let app = TestApp::spawn();
    for query in ["limit=0", "limit=101", "limit=-1", "limit=ten", "status=lost", "cursor=abc"] {
        app.request("GET", &format!("/api/v1/games?{query}"), &[], None).assert_problem(400, "invalid_query");
    }
}

#[test]
fn a_stale_or_malformed_if_match_is_refused() {
    let app = TestApp::spawn();
    let (id, x, _) = app.two_player_game("player_choice");
    let auth = format!("Bearer {x}");
    let place = |if_match: &str| {
        app.request(
            "POST",
            &format!("/api/v1/games/{id}/moves"),
            &[("Authorization", &auth), ("Content-Type", "application/json"), ("If-Match", if_match)],
            Some(r#"{"squares": [0, 1]}"#),
        )
    };
    let stale = place("\"1\"").assert_problem(409, "conflict");
    assert_eq!(stale["current_version"], 2);
    place("seven").assert_problem(400, "invalid_header");
    assert_eq!(place("\"2\"").status, 201);
}

#[test]
fn with_a_creation_limit_a_client_that_creates_too_many_games_waits() {
    let app = TestApp::spawn_with(|config| config.create_rate_limit = limited(2));
    assert_eq!(app.create_game(json!({})).status, 201);
    assert_eq!(app.create_game(json!({})).status, 201);
    let refused = app.create_game(json!({}));
    refused.assert_problem(429, "rate_limited");
    let wait: u64 = refused.header("retry-after").expect("Retry-After").parse().expect("seconds");
    assert!((1..=60).contains(&wait), "{wait}");
    assert!(refused.json()["detail"].as_str().unwrap().contains("too many games and seats"), "{}", refused.body);
    // Only creation is limited.
    assert_eq!(app.request("GET", "/api/v1/games", &[], None).status, 200);
    // Without a limit, the default, nothing is refused.
    let unlimited = TestApp::spawn();
    assert!((0..5).all(|_| unlimited.create_game(json!({})).status == 201));
}

#[test]
fn a_resign_and_rematch_loop_is_held_to_the_creation_limit() {
    let app = TestApp::spawn_with(|config| config.create_rate_limit = limited(5));
    let created = app.create_game(json!({"opponent": {"bot": "random"}})).json();
    let (mut id, mut token) =
        (created["game"]["id"].as_i64().unwrap(), created["seat"]["token"].as_str().unwrap().to_string());
    // The game counts one; each rematch another, until the fifth row.
    for rematches in 1..=4 {
        let resigned = app.post_with_token(&format!("/api/v1/games/{id}/resign"), &token, json!({}));
        assert_eq!(resigned.status, 201, "{}", resigned.body);
        let rematch = app.post_with_token(&format!("/api/v1/games/{id}/rematch"), &token, json!({}));
        assert_eq!(rematch.status, 201, "rematch {rematches}: {}", rematch.body);
        (id, token) = (
            rematch.json()["game"]["id"].as_i64().unwrap(),
            rematch.json()["seat"]["token"].as_str().unwrap().to_string(),
        );
    }
    app.post_with_token(&format!("/api/v1/games/{id}/resign"), &token, json!({}));
    let refused = app.post_with_token(&format!("/api/v1/games/{id}/rematch"), &token, json!({}));
    refused.assert_problem(429, "rate_limited");
    assert!(refused.header("retry-after").is_some());
}
