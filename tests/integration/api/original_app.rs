//! The original web app's routes: /state, /reset and /move on the original app's one game.

use serde_json::{Value, json};

use super::helpers::{Response, TestApp};

fn post(app: &TestApp, path: &str, body: Value) -> Response {
    app.request("POST", path, &[("Content-Type", "application/json")], Some(&body.to_string()))
}

/// The first two squares that hold no classical mark, or the last one twice.
fn open_squares(state: &Value) -> [i64; 2] {
    let open = spooky_squares(state);
    if open.len() == 1 { [open[0], open[0]] } else { [open[0], open[1]] }
}

fn assert_shape(state: &Value) {
    let board = state["board"].as_array().expect("a board");
    assert_eq!(board.len(), 9);
    for cell in board {
        let classical = cell.as_str().is_some_and(|mark| mark == "X" || mark == "O");
        let spooky =
            cell.as_array().is_some_and(|marks| marks.iter().all(|m| m.as_str().is_some_and(|m| m.len() == 2)));
        assert!(classical || spooky, "{cell}");
    }
    assert!(["X", "O"].contains(&state["current_player"].as_str().unwrap()));
    assert!(["ongoing", "Player X wins!", "Player O wins!", "Draw!"].contains(&state["status"].as_str().unwrap()));
    assert!(["PvP", "PvE"].contains(&state["mode"].as_str().unwrap()));
}

/// Plays the first open squares until the end; returns the last state.
fn play_out(app: &TestApp, mut state: Value) -> Value {
    for _ in 0..9 {
        if state["status"] != "ongoing" {
            break;
        }
        let [a, b] = open_squares(&state);
        let answer = post(app, "/move", json!({ "square_1": a, "square_2": b }));
        assert_eq!(answer.status, 200, "{}", answer.body);
        state = answer.json();
        assert_shape(&state);
    }
    assert_ne!(state["status"], "ongoing", "a game lasts at most nine moves");
    state
}

#[test]
fn the_first_state_is_a_fresh_game_against_the_bot() {
    let app = TestApp::spawn();
    let state = app.request("GET", "/state", &[("Origin", "http://localhost:3000")], None);
    assert_eq!(state.status, 200);
    assert_eq!(state.header("access-control-allow-origin"), Some("*"));
    assert_eq!(
        state.json(),
        json!({ "board": [[], [], [], [], [], [], [], [], []], "current_player": "X", "status": "ongoing",
                "mode": "PvE", "player_mark": "X" })
    );
}

#[test]
fn two_players_play_a_whole_game_at_one_screen() {
    let app = TestApp::spawn();
    let reset = post(&app, "/reset", json!({ "mode": "PvP" }));
    assert_eq!(reset.status, 200);
    assert_eq!((reset.json()["mode"].clone(), reset.json()["player_mark"].clone()), (json!("PvP"), json!("X")));
    let first = post(&app, "/move", json!({ "square_1": 0, "square_2": 1 })).json();
    assert_eq!(first["board"][0], json!(["X1"]));
    assert_eq!(first["current_player"], "O");
    let second = post(&app, "/move", json!({ "square_1": 0, "square_2": 1 })).json();
    // O2 closed a 2-cycle: it was measured at once, one mark in each square (as
    // the test server's seed has it).
    assert_eq!([&second["board"][0], &second["board"][1]], ["X", "O"], "{second}");
    assert_eq!(second["current_player"], "X");
    let last = play_out(&app, second);
    assert_eq!(app.request("GET", "/state", &[], None).json(), last);
}

#[test]
fn against_the_bot_it_opens_as_x_and_answers_every_move() {
    let app = TestApp::spawn();
    let state = post(&app, "/reset", json!({ "mode": "PvE", "player_mark": "O" })).json();
    assert_shape(&state);
    assert_eq!((state["mode"].clone(), state["player_mark"].clone()), (json!("PvE"), json!("O")));
    let marks: usize = state["board"].as_array().unwrap().iter().map(|c| c.as_array().map_or(1, Vec::len)).sum();
    assert_eq!(marks, 2, "the bot's first move is on the board: {state}");
    assert_eq!(state["current_player"], "O");
    let after = post(&app, "/move", json!({ "square_1": 2, "square_2": 6 })).json();
    // Nobody can have a line before move 5.
    assert_eq!(
        (&after["status"], &after["current_player"]),
        (&json!("ongoing"), &json!("O")),
        "the bot answered: {after}"
    );
    play_out(&app, after);
    // The original app's game is stored and listed like any other.
    let listed = app.request("GET", "/api/v1/games", &[], None).json();
    assert_eq!(listed["games"][0]["status"], "finished");
}

#[test]
fn errors_read_as_detail_with_400_for_bad_input_and_422_for_broken_rules() {
    let app = TestApp::spawn();
    post(&app, "/reset", json!({ "mode": "PvP" }));
    for (body, status) in [
        (json!({ "square_1": 4, "square_2": 4 }), 422),
        (json!({ "square_1": 0, "square_2": 9 }), 422),
        (json!({ "square_1": -1, "square_2": 3 }), 422),
        (json!({ "square_1": 0 }), 400),
        (json!({ "square_1": "a", "square_2": 1 }), 400),
        (json!([0, 1]), 400),
    ] {
        let answer = post(&app, "/move", body.clone());
        assert_eq!(answer.status, status, "{body}: {}", answer.body);
        let detail = answer.json()["detail"].as_str().map(String::from);
        assert!(detail.is_some_and(|d| !d.is_empty()), "{}", answer.body);
        assert_eq!(answer.json().as_object().unwrap().len(), 1, "only detail: {}", answer.body);
    }
    post(&app, "/reset", json!({ "mode": "tournament" })).json()["detail"].as_str().expect("a detail");
    let state = app.request("GET", "/state", &[], None).json();
    assert_eq!(state["board"], json!([[], [], [], [], [], [], [], [], []]), "nothing was played");
    let done = play_out(&app, state);
    let after_end = post(&app, "/move", json!({ "square_1": 0, "square_2": 1 }));
    assert_eq!(after_end.status, 422, "{done}");
    assert_eq!(after_end.json()["detail"], "the game is over");
}

/// The squares of the cells that hold no classical mark.
fn spooky_squares(state: &Value) -> Vec<i64> {
    let board = state["board"].as_array().expect("a board");
    board.iter().zip(0..).filter(|(cell, _)| cell.is_array()).map(|(_, square)| square).collect()
}

#[test]
fn after_move_8_the_server_plays_the_forced_last_square_move_for_two_players() {
    // Four 2-cycles, each measured at once: square 8 is left alone, unless the
    // fourth collapse made a line (column 0-3-6 or 1-4-7, diagonal 2-4-6).
    let app = TestApp::spawn();
    let script = [[0, 1], [0, 1], [2, 3], [2, 3], [4, 5], [4, 5], [6, 7], [6, 7]];
    let (mut forced, mut lines) = (0, 0);
    for _ in 0..100 {
        post(&app, "/reset", json!({ "mode": "PvP" }));
        let mut state = Value::Null;
        for (number, [a, b]) in (1..).zip(script) {
            let answer = post(&app, "/move", json!({ "square_1": a, "square_2": b }));
            assert_eq!(answer.status, 200, "{}", answer.body);
            state = answer.json();
            assert_shape(&state);
            assert_eq!(state["status"] == "ongoing", number < 8, "after move {number}: {state}");
        }
        let id = app.request("GET", "/api/v1/games", &[], None).json()["games"][0]["id"].as_i64().unwrap();
        let moves = app.get_game(id).json()["moves"].as_array().unwrap().clone();
        if spooky_squares(&state).is_empty() {
            // The answer to move 8 is already the finished game: X9 filled square 8.
            assert_eq!(state["board"][8], "X", "{state}");
            assert_eq!((moves.len(), &moves[8]["squares"]), (9, &json!([8, 8])));
            let log = app.request("GET", &format!("/api/v1/games/{id}/log"), &[], None).json();
            let last = log["entries"].as_array().unwrap().last().unwrap().clone();
            assert_eq!((&last["kind"], &last["player"], &last["by_bot"]), (&json!("move"), &json!("X"), &json!(false)));
            forced += 1;
        } else {
            assert_eq!((spooky_squares(&state), moves.len()), (vec![8], 8), "a line ended the game: {state}");
            assert_eq!(state["board"][8], json!([]));
            lines += 1;
        }
        if forced > 0 && lines > 0 {
            break;
        }
    }
    assert!(forced > 0 && lines > 0, "both ends came: {forced} forced moves, {lines} lines");
}

#[test]
fn against_the_bot_the_server_plays_the_persons_forced_move_after_the_bots_move_8() {
    // The person is X and plays the first and the last open square; in about one
    // game in ten the bot's move 8 leaves one square alone.
    let app = TestApp::spawn();
    let mut forced = 0;
    for _ in 0..100 {
        let mut state = post(&app, "/reset", json!({ "mode": "PvE", "player_mark": "X" })).json();
        while state["status"] == "ongoing" {
            let open = spooky_squares(&state);
            assert!(open.len() >= 2, "the person is never left to send the last-square move: {state}");
            let answer = post(&app, "/move", json!({ "square_1": open[0], "square_2": open[open.len() - 1] }));
            assert_eq!(answer.status, 200, "{}", answer.body);
            state = answer.json();
        }
        let id = app.request("GET", "/api/v1/games", &[], None).json()["games"][0]["id"].as_i64().unwrap();
        let log = app.request("GET", &format!("/api/v1/games/{id}/log"), &[], None).json();
        let moves: Vec<Value> =
            log["entries"].as_array().unwrap().iter().filter(|e| e["kind"] == "move").cloned().collect();
        if moves.len() == 9 && moves[8]["squares"][0] == moves[8]["squares"][1] {
            assert_eq!(
                (&moves[7]["by_bot"], &moves[8]["player"], &moves[8]["by_bot"]),
                (&json!(true), &json!("X"), &json!(false))
            );
            assert!(spooky_squares(&state).is_empty(), "{state}");
            forced += 1;
            break;
        }
    }
    assert_eq!(forced, 1, "a game came to the forced move");
}
