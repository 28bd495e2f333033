//! `qttt copy`: a SQLite database's games onto PostgreSQL, where they go on.
//! Needs a PostgreSQL server: `QTTT_TEST_POSTGRES` (see `.ci/run`).

use serde_json::{Value, json};

use super::helpers::{TestApp, TestDatabase, goffs_draw};
use crate::command_line::qttt_with;

/// Runs `qttt copy` with `args`: (exit code, standard output, standard error).
fn copy(args: &[&str]) -> (Option<i32>, String, String) {
    let mut all = vec!["copy"];
    all.extend_from_slice(args);
    let done = qttt_with(&[], &all, "");
    (done.status.code(), String::from_utf8(done.stdout).unwrap(), String::from_utf8(done.stderr).unwrap())
}

#[test]
#[ignore = "needs PostgreSQL: QTTT_TEST_POSTGRES (see .ci/run)"]
fn a_sqlite_database_copied_onto_postgres_plays_on_with_its_tokens_and_copies_nothing_twice() {
    let maintenance = std::env::var("QTTT_TEST_POSTGRES").expect("set QTTT_TEST_POSTGRES to run this test");
    let sqlite = TestDatabase::sqlite();
    let postgres = TestDatabase::on_postgres(&maintenance);
    let app = TestApp::spawn_on(&sqlite);
    // A game in every state, each with a token that may still act in it, kept as the path that reads
    // it: the private game's with its invite, which must read it after the copy too.
    let mut games: Vec<String> = Vec::new();
    let read = |id: i64| format!("/api/v1/games/{id}");
    let waiting = app.create_game(json!({ "variant": "measurement", "private": true })).json();
    let invite = waiting["invite"].as_str().unwrap();
    games.push(format!("{}?invite={invite}", read(waiting["game"]["id"].as_i64().unwrap())));
    let (ongoing, x, _) = app.two_player_game("player_choice");
    assert_eq!(app.place(ongoing, &x, [0, 1]).status, 201);
    games.push(read(ongoing));
    let (pending, pending_x, o) = app.two_player_game("player_choice");
    for (token, squares) in [(&pending_x, [0, 1]), (&o, [0, 1])] {
        assert_eq!(app.place(pending, token, squares).status, 201);
    }
    games.push(read(pending));
    let (finished, x, o) = app.two_player_game("player_choice");
    for step in goffs_draw(&x, &o) {
        assert_eq!(step.take(&app, finished).status, 201);
    }
    games.push(read(finished));
    let rematch = app.post_with_token(&format!("/api/v1/games/{finished}/rematch"), &x, json!({}));
    assert_eq!(rematch.status, 201, "{}", rematch.body);
    games.push(read(rematch.json()["game"]["id"].as_i64().unwrap()));
    let against_bot = app.create_game(json!({ "variant": "measurement", "opponent": {"bot": "random"} }));
    let bot_game = against_bot.json()["game"]["id"].as_i64().unwrap();
    let bot_token = against_bot.json()["seat"]["token"].as_str().unwrap().to_string();
    assert_eq!(app.place(bot_game, &bot_token, [4, 5]).status, 201);
    games.push(read(bot_game));
    let views: Vec<Value> = games.iter().map(|path| app.request("GET", path, &[], None).json()).collect();
    assert_eq!(views[0]["open_seats"], json!(["O"]), "{}", views[0]);
    assert_eq!(views[2]["pending_collapse"]["chooser"], "X", "{}", views[2]);
    app.stop();

    let (from, to) = (sqlite.url(), postgres.url());
    let (code, printed, said) = copy(&["--from", &from, "--to", &to]);
    assert_eq!(code, Some(0), "{said}");
    assert!(printed.starts_with("copied 6 games ("), "{printed}");
    assert!(said.ends_with("6/6 games\n"), "{said}");

    let app = TestApp::spawn_on(&postgres);
    for (path, view) in games.iter().zip(&views) {
        assert_eq!(&app.request("GET", path, &[], None).json(), view, "{path}");
    }
    // The old tokens act in the copied games, and new games get new ids.
    assert_eq!(app.collapse(pending, &pending_x, 2, 0).status, 201);
    let moved = app.place(bot_game, &bot_token, [6, 7]);
    assert_eq!(moved.status, 201, "{}", moved.body);
    assert!(moved.json()["version"].as_i64() > views[5]["version"].as_i64(), "{}", moved.body);
    let created = app.create_game(json!({}));
    assert_eq!(created.json()["game"]["id"].as_i64(), Some(bot_game + 1));
    app.stop();

    let (code, _, said) = copy(&["--from", &from, "--to", &to]);
    assert_eq!((code, said.lines().count()), (Some(1), 1), "{said}");
    assert!(said.contains("the target already holds games"), "{said}");
    let (code, printed, said) = copy(&["--from", &from, "--to", &to, "--skip-existing"]);
    assert_eq!(code, Some(0), "{said}");
    assert!(printed.starts_with("copied 0 games (0 log entries)") && printed.contains("skipped 6"), "{printed}");
}

#[test]
#[ignore = "needs PostgreSQL: QTTT_TEST_POSTGRES (see .ci/run)"]
fn players_their_challenges_seeks_and_events_are_copied_onto_postgres_and_their_tokens_work() {
    let maintenance = std::env::var("QTTT_TEST_POSTGRES").expect("set QTTT_TEST_POSTGRES to run this test");
    let sqlite = TestDatabase::sqlite();
    let postgres = TestDatabase::on_postgres(&maintenance);
    let app = TestApp::spawn_on(&sqlite);
    let (alice, bob) = (app.player("alice"), app.player("bob"));
    let challenge = app.post_with_token("/api/v1/players/bob/challenges", &alice, json!({"colour": "x"})).json();
    let accepted = app.post_with_token(&format!("/api/v1/challenges/{}/accept", challenge["id"]), &bob, json!({}));
    let game = accepted.json()["game"]["id"].as_i64().unwrap();
    assert_eq!(app.place(game, &alice, [0, 1]).status, 201);
    let seek = app.post_with_token("/api/v1/seeks", &bob, json!({})).json();
    // Two rated games: Alice against the perfect bot, and against Bob; she resigns both.
    let against_bot = app.create_game_as(&alice, json!({"rated": true, "opponent": {"bot": "perfect"}}));
    let against_bob = app.create_game_as(&alice, json!({"rated": true}));
    let joined = app.post_with_token(&format!("/api/v1/games/{against_bob}/join"), &bob, json!({}));
    assert_eq!(joined.status, 201, "{}", joined.body);
    // Both sides move first: a rated game resigned before is aborted, unrated.
    assert_eq!(app.place(against_bot, &alice, [0, 1]).status, 201);
    assert_eq!(app.place(against_bob, &alice, [0, 1]).status, 201);
    assert_eq!(app.place(against_bob, &bob, [2, 3]).status, 201);
    for id in [against_bot, against_bob] {
        let resigned = app.post_with_token(&format!("/api/v1/games/{id}/resign"), &alice, json!({}));
        assert_eq!(resigned.status, 201, "{}", resigned.body);
    }
    let profiles: Vec<Value> = ["alice", "bob", "perfect"]
        .iter()
        .map(|name| app.request("GET", &format!("/api/v1/players/{name}"), &[], None).json())
        .collect();
    let alices_games = app.get_with_token("/api/v1/players/me/games", &alice).json();
    let bobs_events: Vec<Value> = (1..=2)
        .map(|seq| app.player_events(&bob, Some(seq - 1)).next_event(super::events::PATIENCE).unwrap().data)
        .collect();
    app.stop();

    let (code, printed, said) = copy(&["--from", &sqlite.url(), "--to", &postgres.url()]);
    assert_eq!(code, Some(0), "{said}");
    // Five players (three of them bots), a challenge, a seek, ten events (bob's challenge and
    // game_start, alice's challenge_accepted and game_start, and a game_start and game_end for
    // each player of each rated game), three ratings (alice's, bob's and the bot's) and four
    // changes; and the 1,200 puzzles that ship with the server.
    assert!(printed.contains(" and 1224 rows of players"), "{printed}");

    let app = TestApp::spawn_on(&postgres);
    for (name, profile) in ["alice", "bob", "perfect"].iter().zip(&profiles) {
        assert_eq!(&app.request("GET", &format!("/api/v1/players/{name}"), &[], None).json(), profile, "{name}");
    }
    let checked = qttt_with(&[("DATABASE_URL", &postgres.url())], &["ratings", "check"], "");
    assert!(checked.status.success(), "{}", String::from_utf8_lossy(&checked.stdout));
    assert_eq!(app.get_with_token("/api/v1/players/me", &alice).json()["name"], "alice");
    assert_eq!(app.get_with_token("/api/v1/players/me/games", &alice).json(), alices_games);
    assert_eq!(
        app.get_with_token(&format!("/api/v1/challenges/{}", challenge["id"]), &bob).json()["status"],
        "accepted"
    );
    assert_eq!(app.get_with_token(&format!("/api/v1/seeks/{}", seek["id"]), &bob).json()["status"], "open");
    for (seq, event) in (1..=2).zip(&bobs_events) {
        let copied = app.player_events(&bob, Some(seq - 1)).next_event(super::events::PATIENCE).unwrap().data;
        assert_eq!(&copied, event, "bob's event {seq}");
    }
    // Play goes on with the players' tokens, and new rows get new ids.
    assert_eq!(app.place(game, &bob, [2, 3]).status, 201);
    assert_eq!(app.create_player(Some("carol")).status, 201);
    let paired = app.post_with_token("/api/v1/seeks", &alice, json!({})).json();
    assert_eq!(
        (paired["status"].as_str(), paired["id"].as_i64()),
        (Some("paired"), Some(seek["id"].as_i64().unwrap() + 1))
    );
}
