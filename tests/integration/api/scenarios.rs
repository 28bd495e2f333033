//! Every rule scenario, played through HTTP by two seats.

use serde_json::{Value, json};

use super::helpers::{Response, TestApp};
use crate::fixtures::{LineState, NextToMove, PendingState, ScoreState, State, Step, scenarios};

/// The scenario state that a GameView shows.
fn state_of_view(view: &Value) -> State {
    let strings = |value: &Value| -> Vec<String> {
        value.as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_string()).collect()
    };
    let numbers = |value: &Value| -> Vec<u8> {
        value.as_array().unwrap().iter().map(|v| u8::try_from(v.as_u64().unwrap()).unwrap()).collect()
    };
    let board = view["board"].as_array().unwrap();
    State {
        classical: board.iter().map(|cell| cell["classical"].as_str().map(String::from)).collect(),
        spooky: board.iter().map(|cell| strings(&cell["spooky"])).collect(),
        pending_collapse: match &view["pending_collapse"] {
            Value::Null => None,
            pending => Some(PendingState {
                chooser: pending["chooser"].as_str().unwrap().to_string(),
                closing_move: u8::try_from(pending["closing_move"].as_u64().unwrap()).unwrap(),
                cycle_moves: numbers(&pending["cycle_moves"]),
                options: pending["options"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|o| usize::try_from(o["square"].as_u64().unwrap()).unwrap())
                    .collect(),
            }),
        },
        next_to_move: match &view["next_to_move"] {
            Value::Null => None,
            next => Some(NextToMove {
                player: next["player"].as_str().unwrap().to_string(),
                move_number: u8::try_from(next["move"].as_u64().unwrap()).unwrap(),
            }),
        },
        game_over: view["status"] == "finished",
        result: view["result"].as_str().unwrap().to_string(),
        score: ScoreState { x: view["score"]["X"].as_f64().unwrap(), o: view["score"]["O"].as_f64().unwrap() },
        lines: view["lines"]
            .as_array()
            .unwrap()
            .iter()
            .map(|line| LineState {
                player: line["player"].as_str().unwrap().to_string(),
                squares: line["squares"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|s| usize::try_from(s.as_u64().unwrap()).unwrap())
                    .collect(),
                max_move: u8::try_from(line["max_move"].as_u64().unwrap()).unwrap(),
                points: line["points"].as_f64().unwrap(),
            })
            .collect(),
    }
}

/// Sends `step` with the seat token of its actor.
fn send(app: &TestApp, id: i64, tokens: &(String, String), step: &Step) -> Response {
    let token = if step.actor == "X" { &tokens.0 } else { &tokens.1 };
    match (&step.squares, &step.collapse) {
        (Some(squares), None) => app.place(id, token, *squares),
        (None, Some(choice)) => app.collapse(id, token, i64::from(choice.move_number), choice.square),
        _ => panic!("a step is a move or a collapse"),
    }
}

/// Plays every step of a scenario in a new game; returns the game's last view.
fn play(app: &TestApp, name: &str, variant: &str, steps: &[Step]) -> Value {
    let (id, x, o) = app.two_player_game(variant);
    let tokens = (x, o);
    for (index, step) in steps.iter().enumerate() {
        let context = format!("{name} step {}", index + 1);
        let before = app.get_game(id).json();
        let answer = send(app, id, &tokens, step);
        match &step.rejected {
            Some(codes) => {
                assert_eq!(answer.status, 422, "{context}: {}", answer.body);
                let code = answer.json()["code"].as_str().unwrap().to_string();
                assert!(codes.contains(&code), "{context}: {code} is not one of {codes:?}");
                assert_eq!(app.get_game(id).json(), before, "{context}: a rejected action changed the game");
            }
            None => assert_eq!(answer.status, 201, "{context}: {}", answer.body),
        }
        if let Some(expected) = &step.expect {
            assert_eq!(&state_of_view(&app.get_game(id).json()), expected, "{context}");
        }
    }
    app.get_game(id).json()
}

#[test]
fn every_player_choice_scenario_plays_out_through_http() {
    let app = TestApp::spawn();
    for scenario in scenarios().iter().filter(|s| s.variant == "player_choice") {
        let view = play(&app, &scenario.name, "player_choice", &scenario.steps);
        assert_eq!(Some(state_of_view(&view)), scenario.r#final, "{}", scenario.name);
    }
}

#[test]
fn every_measurement_scenario_ends_in_one_of_its_outcomes_and_reaches_both() {
    let app = TestApp::spawn();
    for scenario in scenarios().iter().filter(|s| s.variant == "measurement") {
        let mut seen = vec![false; scenario.measurements.len()];
        // Thirty games miss one of two even outcomes about once in 500 million runs.
        for _ in 0..30 {
            let view = play(&app, &scenario.name, "measurement", &scenario.steps);
            let state = state_of_view(&view);
            let outcome = scenario.measurements.iter().position(|m| m.r#final == state);
            let outcome = outcome.unwrap_or_else(|| panic!("{}: unlisted state {state:?}", scenario.name));
            seen[outcome] = true;
            assert_eq!(view["collapses"].as_array().unwrap().last().unwrap()["chooser"], json!("measurement"));
        }
        assert_eq!(seen, [true, true], "{}", scenario.name);
    }
}
