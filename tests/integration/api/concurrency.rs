//! Two writes racing for one game: exactly one lands, the log stays whole.

use std::sync::{Arc, Barrier};

use super::helpers::{Response, TestApp};

/// A request to send from a thread of its own.
pub(super) type RacingRequest = Box<dyn Fn(&TestApp) -> Response + std::marker::Send + Sync>;

/// Sends both requests at once, each to its app, from two threads released together.
pub(super) fn race(apps: [&TestApp; 2], requests: [RacingRequest; 2]) -> Vec<Response> {
    let barrier = Arc::new(Barrier::new(2));
    std::thread::scope(|scope| {
        let handles: Vec<_> = requests
            .iter()
            .zip(apps)
            .map(|(send, app)| {
                let barrier = Arc::clone(&barrier);
                scope.spawn(move || {
                    barrier.wait();
                    send(app)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("a request thread")).collect()
    })
}

pub(super) fn place_if_match(id: i64, token: String, squares: [i64; 2], version: i64) -> RacingRequest {
    Box::new(move |app: &TestApp| {
        let auth = format!("Bearer {token}");
        let tag = format!("\"{version}\"");
        let body = format!(r#"{{"squares": [{}, {}]}}"#, squares[0], squares[1]);
        app.request(
            "POST",
            &format!("/api/v1/games/{id}/moves"),
            &[("Authorization", &auth), ("Content-Type", "application/json"), ("If-Match", &tag)],
            Some(&body),
        )
    })
}

#[test]
fn two_concurrent_submissions_of_a_move_give_one_201_and_one_409() {
    let app = TestApp::spawn();
    for _ in 0..10 {
        let (id, x, _) = app.two_player_game("player_choice");
        let answers =
            race([&app, &app], [place_if_match(id, x.clone(), [0, 1], 2), place_if_match(id, x.clone(), [0, 1], 2)]);
        let mut statuses: Vec<u16> = answers.iter().map(|a| a.status).collect();
        statuses.sort_unstable();
        assert_eq!(statuses, [201, 409], "{answers:?}");
        let loser = answers.iter().find(|a| a.status == 409).unwrap();
        assert_eq!(loser.assert_problem(409, "conflict")["current_version"], 3);

        let log = app.request("GET", &format!("/api/v1/games/{id}/log"), &[], None).json();
        let seqs: Vec<i64> = log["entries"].as_array().unwrap().iter().map(|e| e["seq"].as_i64().unwrap()).collect();
        assert_eq!(seqs, [1, 2, 3], "one move, no gap, no duplicate");
        assert_eq!(app.get_game(id).json()["moves"].as_array().unwrap().len(), 1);
    }
}

#[test]
fn racing_moves_without_if_match_never_both_land() {
    let app = TestApp::spawn();
    for _ in 0..10 {
        let (id, x, _) = app.two_player_game("measurement");
        let plain = |squares: [i64; 2]| -> RacingRequest {
            let token = x.clone();
            Box::new(move |app: &TestApp| app.place(id, &token, squares))
        };
        let answers = race([&app, &app], [plain([0, 1]), plain([2, 3])]);
        let landed = answers.iter().filter(|a| a.status == 201).count();
        assert_eq!(landed, 1, "{answers:?}");
        let loser = answers.iter().find(|a| a.status != 201).unwrap();
        // The loser either lost the insert race (409) or saw the winner's move first (422).
        assert!([409, 422].contains(&loser.status), "{loser:?}");
        let view = app.get_game(id).json();
        assert_eq!((view["version"].as_i64(), view["moves"].as_array().map(Vec::len)), (Some(3), Some(1)));
    }
}
