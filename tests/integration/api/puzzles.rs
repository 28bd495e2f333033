//! Puzzles: served with their positions, tried an action at a time, rated;
//! and found in the games a database holds.

use qttt::api::views::{ActionView, ReplyStepView};
use qttt::bot::puzzle::{Puzzle, Step, shipped};
use qttt::engine::{Action, Actor, LogEntry, Variant};
use serde_json::{Value, json};

use super::helpers::{Client, Response, TestApp, TestDatabase, limited};
use crate::command_line::qttt_with;

#[test]
fn puzzles_are_found_in_the_finished_games_of_the_database() {
    let database = TestDatabase::new();
    let app = TestApp::spawn_on(&database);
    // X1+(1,9); O2+(1,7); X3+(3,6); O4+(2,8); X5+(1,5); O6+(4,5); X7+(3,7);
    // O8+(1,2); X9+(3,9); O10!X9(3), in the API's squares.
    let (id, x, o) = app.two_player_game("player_choice");
    let moves = [[0, 8], [0, 6], [2, 5], [1, 7], [0, 4], [3, 4], [2, 6], [0, 1], [2, 8]];
    for (number, squares) in moves.into_iter().enumerate() {
        let token = if number % 2 == 0 { &x } else { &o };
        assert_eq!(app.place(id, token, squares).status, 201);
    }
    assert_eq!(app.collapse(id, &o, 9, 2).json()["status"], "finished");
    app.stop();

    let url = database.url();
    let args = ["puzzles", "generate", "--count", "2", "--variant", "player_choice", "--from-database"];
    let done = qttt_with(&[("DATABASE_URL", &url)], &args, "");
    let said = String::from_utf8_lossy(&done.stdout).to_string();
    assert!(done.status.success(), "{said}{}", String::from_utf8_lossy(&done.stderr));
    // O's blunder at move 8 (O8+(3,9) would have won), then X's answer.
    let position = "X1+(1,9); O2+(1,7); X3+(3,6); O4+(2,8); X5+(1,5); O6+(4,5); X7+(3,7)";
    let found = [
        format!(
            "{position} | O8+(3,9); X9!O8(3); X9+(2,8); O10!X9(8) {{X0.5,O1.0}} | closing_cycle | 1647 | game {id}"
        ),
        format!("{position}; O8+(1,2) | X9+(3,9); O10!X9(3) {{X2.0,O0.0}} | double_line | 1610 | game {id}"),
    ];
    assert_eq!(said.lines().collect::<Vec<_>>(), found, "{said}");

    // Both positions are among the shipped puzzles (the file's lines 505
    // and 506): stored, each is kept once.
    let args = ["puzzles", "generate", "--count", "2", "--variant", "player_choice", "--from-database", "--store"];
    let told = String::from_utf8_lossy(&qttt_with(&[("DATABASE_URL", &url)], &args, "").stderr).to_string();
    assert!(told.contains("0 of them new to the database"), "{told}");
}

#[test]
fn a_puzzle_generated_into_a_new_database_is_served_beside_the_shipped_ones() {
    let database = TestDatabase::new();
    // Seed 2: the shipped puzzles are seed 1's.
    let args = ["puzzles", "generate", "--count", "1", "--variant", "measurement", "--seed", "2", "--store"];
    let done = qttt_with(&[("DATABASE_URL", &database.url())], &args, "");
    let told = String::from_utf8_lossy(&done.stderr).to_string();
    assert!(told.contains("1 of them new to the database"), "{told}");
    let line = String::from_utf8_lossy(&done.stdout).trim().to_string();
    let app = TestApp::spawn_on(&database);
    let generated = app.request("GET", "/api/v1/puzzles/1", &[], None).json();
    assert_eq!(generated["transcript"], line.split(" | ").next().unwrap(), "{generated}");
    assert_eq!(generated["source"], "bots, seed 2, game 1");
    let (id, puzzle) = deep_puzzle();
    let shipped = app.request("GET", &format!("/api/v1/puzzles/{}", id + 1), &[], None).json();
    assert_eq!(shipped["transcript"], puzzle.transcripts().0, "{shipped}");
}

/// The id of the `index`-th shipped puzzle of `variant`: a new server adds
/// them in the order of the files, variant after variant.
fn shipped_id(variant: Variant, index: usize) -> i64 {
    let before: usize =
        Variant::ALL.iter().take_while(|&&other| other != variant).map(|&other| shipped(other).unwrap().len()).sum();
    i64::try_from(before + index + 1).unwrap()
}

/// The first shipped puzzle of player_choice whose solution takes its side
/// two actions or more, with its id.
fn deep_puzzle() -> (i64, Puzzle) {
    let puzzles = shipped(Variant::PlayerChoice).unwrap();
    let (index, puzzle) = puzzles.iter().enumerate().find(|(_, puzzle)| puzzle.depth() >= 2).unwrap();
    (shipped_id(Variant::PlayerChoice, index), puzzle.clone())
}

/// A first action of `puzzle` that fails it.
fn wrong_first_action(puzzle: &Puzzle) -> Action {
    let actions = puzzle.position.legal_actions();
    actions.into_iter().find(|&action| matches!(puzzle.step(&puzzle.position, action), Ok((_, Step::Wrong)))).unwrap()
}

/// `action` as the API writes it.
fn action_json(action: Action) -> Value {
    serde_json::to_value(ActionView::from(action)).unwrap()
}

/// `entries` as the API writes a reply, or a solution without its positions.
fn steps_json(entries: &[LogEntry]) -> Value {
    Value::Array(entries.iter().map(|entry| serde_json::to_value(ReplyStepView::from(entry)).unwrap()).collect())
}

/// Checks that `attempt` shows `puzzle`'s solution, each step with the
/// position it leaves: as many moves as then, and at the end the end's score.
fn assert_shows_solution(attempt: &Value, puzzle: &Puzzle) {
    let shown = attempt["solution"].as_array().expect("a solution");
    let steps: Vec<Value> =
        shown.iter().map(|step| json!({"actor": step["actor"], "action": step["action"]})).collect();
    assert_eq!(Value::Array(steps), steps_json(&puzzle.solution), "{attempt}");
    for (step, after) in shown.iter().zip(puzzle.solution_positions()) {
        assert_eq!(step["position"]["moves"].as_array().unwrap().len(), after.moves().len(), "{step}");
    }
    let end = puzzle.end().score();
    let score = json!({"X": end.x.as_f64(), "O": end.o.as_f64()});
    assert_eq!(shown.last().unwrap()["position"]["score"], score, "{attempt}");
}

impl Client {
    /// Posts `action` to `path` (an attempt's), with `token` if any.
    fn act_in_puzzle(&self, path: &str, token: Option<&str>, action: Value) -> Response {
        let body = json!({ "action": action }).to_string();
        let authorization = token.map(|token| format!("Bearer {token}"));
        let mut headers = vec![("Content-Type", "application/json")];
        headers.extend(authorization.as_deref().map(|value| ("Authorization", value)));
        self.request("POST", path, &headers, Some(&body))
    }
}

#[test]
fn a_puzzle_solved_step_by_step_is_answered_with_the_defence_and_rated_as_a_win() {
    let app = TestApp::spawn();
    let (id, puzzle) = deep_puzzle();
    let shown = app.request("GET", &format!("/api/v1/puzzles/{id}"), &[], None).json();
    assert_eq!(shown["transcript"], puzzle.transcripts().0);
    assert_eq!(shown["player"], puzzle.player().to_string());
    assert_eq!(shown["variant"], "player_choice");
    assert_eq!(shown["position"]["to_act"]["player"], puzzle.player().to_string());
    assert_eq!(shown["position"]["legal_actions"].as_array().unwrap().len(), puzzle.position.legal_actions().len());
    assert!(shown.get("solution").is_none(), "the solution is not shown before an attempt: {shown}");
    let rating = shown["rating"].as_f64().unwrap();

    let bob = app.player("bob");
    let actor = Actor::Player(puzzle.player());
    let own: Vec<usize> = (0..puzzle.solution.len()).filter(|&at| puzzle.solution[at].actor == actor).collect();
    let mut path = format!("/api/v1/puzzles/{id}/attempts");
    for (step, &at) in own.iter().enumerate() {
        let answered = app.act_in_puzzle(&path, Some(&bob), action_json(puzzle.solution[at].action));
        assert_eq!(answered.status, if step == 0 { 201 } else { 200 }, "{}", answered.body);
        let attempt = answered.json();
        let reply_end = own.get(step + 1).copied().unwrap_or(puzzle.solution.len());
        assert_eq!(attempt["correct"], true, "{attempt}");
        assert_eq!(attempt["reply"], steps_json(&puzzle.solution[at + 1..reply_end]), "{attempt}");
        let last = step + 1 == own.len();
        assert_eq!(attempt["status"], if last { "solved" } else { "ongoing" }, "{attempt}");
        if last {
            assert_shows_solution(&attempt, &puzzle);
            assert!(attempt["rating"]["rating_diff"].as_f64().unwrap() > 0.0, "{attempt}");
            assert_eq!(attempt["rating"]["rating_before"], 1500.0);
        } else {
            assert_eq!((&attempt["solution"], &attempt["rating"]), (&Value::Null, &Value::Null), "{attempt}");
            path = format!("/api/v1/puzzles/{id}/attempts/{}", attempt["id"]);
            if step == 0 {
                assert_eq!(answered.header("Location"), Some(path.as_str()));
            }
        }
    }
    // The attempt is over; the puzzle lost to bob.
    let again = app.act_in_puzzle(&path, Some(&bob), action_json(puzzle.solution[own[own.len() - 1]].action));
    again.assert_problem(409, "not_open");
    let after = app.request("GET", &format!("/api/v1/puzzles/{id}"), &[], None).json();
    assert_eq!(after["attempts"], 1);
    assert!(after["rating"].as_f64().unwrap() < rating, "{after}");
}

#[test]
fn a_wrong_action_is_answered_with_the_solution_and_a_loss_and_a_second_attempt_changes_no_rating() {
    let app = TestApp::spawn();
    let (id, puzzle) = deep_puzzle();
    let wrong = wrong_first_action(&puzzle);
    let right = puzzle.solution[0].action;
    let attempts = format!("/api/v1/puzzles/{id}/attempts");
    let alice = app.player("alice");

    // An action the rules refuse changes nothing; then the wrong one.
    let same_square = json!({ "kind": "move", "squares": [4, 4] });
    app.act_in_puzzle(&attempts, Some(&alice), same_square).assert_problem(422, "same_square_twice");
    let failed = app.act_in_puzzle(&attempts, Some(&alice), action_json(wrong));
    assert_eq!(failed.status, 201, "{}", failed.body);
    let failed = failed.json();
    assert_eq!(
        (&failed["correct"], &failed["status"], &failed["rated"]),
        (&json!(false), &json!("failed"), &json!(true))
    );
    assert_eq!(failed["reply"], json!([]));
    assert_shows_solution(&failed, &puzzle);
    let loss = failed["rating"]["rating_diff"].as_f64().unwrap();
    assert!(loss < 0.0, "{failed}");
    let puzzle_after = app.request("GET", &format!("/api/v1/puzzles/{id}"), &[], None).json();
    let hers = app.get_with_token("/api/v1/players/me", &alice).json()["puzzle_ratings"]["player_choice"].clone();
    assert_eq!(hers["attempts"], 1, "{hers}");
    assert_eq!(hers["rating"], failed["rating"]["rating_after"]);

    // Her second attempt, right this time, is not rated, and changes neither rating.
    let second = app.act_in_puzzle(&attempts, Some(&alice), action_json(right)).json();
    assert_eq!((&second["correct"], &second["rated"]), (&json!(true), &json!(false)), "{second}");
    let mut path = format!("{attempts}/{}", second["id"]);
    let actor = Actor::Player(puzzle.player());
    for entry in puzzle.solution[1..].iter().filter(|entry| entry.actor == actor) {
        let step = app.act_in_puzzle(&path, Some(&alice), action_json(entry.action)).json();
        path = format!("{attempts}/{}", step["id"]);
        if step["status"] == "solved" {
            assert_eq!(step["rating"], Value::Null, "{step}");
        }
    }
    assert_eq!(app.request("GET", &format!("/api/v1/puzzles/{id}"), &[], None).json(), puzzle_after);
    let still = app.get_with_token("/api/v1/players/me", &alice).json()["puzzle_ratings"]["player_choice"].clone();
    assert_eq!(still, hers);
    // A third player's first attempt is rated: the refused action made no attempt of hers.
    let carol = app.player("carol");
    let first = app.act_in_puzzle(&attempts, Some(&carol), action_json(right)).json();
    assert_eq!(first["rated"], true);
    // Nobody else may act in carol's attempt; an unknown puzzle is not found.
    let carols = format!("{attempts}/{}", first["id"]);
    app.act_in_puzzle(&carols, Some(&alice), action_json(right)).assert_problem(403, "forbidden");
    app.act_in_puzzle("/api/v1/puzzles/999999/attempts", None, action_json(right)).assert_problem(404, "not_found");
    app.request("GET", "/api/v1/puzzles/999999", &[], None).assert_problem(404, "not_found");
}

#[test]
fn next_never_gives_a_player_a_puzzle_they_have_tried() {
    let app = TestApp::spawn();
    let dave = app.player("dave");
    let mut tried = Vec::new();
    for _ in 0..6 {
        let next = app.get_with_token("/api/v1/puzzles/next?variant=player_choice", &dave);
        assert_eq!(next.status, 200, "{}", next.body);
        let next = next.json();
        assert!(!tried.contains(&next["id"]), "{} again after {tried:?}", next["id"]);
        // Half of them failed, half of them right first: every one counts as tried.
        let action = next["position"]["legal_actions"][0].clone();
        let path = format!("/api/v1/puzzles/{}/attempts", next["id"]);
        assert_eq!(app.act_in_puzzle(&path, Some(&dave), action).status, 201);
        tried.push(next["id"].clone());
    }
    // Without a token, one of the easiest: rated at most as the 50th easiest.
    let easy = app.request("GET", "/api/v1/puzzles/next?variant=measurement", &[], None).json();
    assert_eq!(easy["variant"], "measurement");
    let mut ratings: Vec<f64> = shipped(Variant::Measurement).unwrap().iter().map(|puzzle| puzzle.rating).collect();
    ratings.sort_by(f64::total_cmp);
    assert!(easy["rating"].as_f64().unwrap() <= ratings[49], "{easy}");
}

#[test]
fn the_daily_puzzle_is_the_same_on_two_servers() {
    let (first, second) = (TestApp::spawn(), TestApp::spawn());
    for variant in ["player_choice", "measurement"] {
        let path = format!("/api/v1/puzzles/daily?variant={variant}");
        let (a, b) = (first.request("GET", &path, &[], None), second.request("GET", &path, &[], None));
        assert_eq!(a.status, 200, "{}", a.body);
        assert_eq!(a.json(), b.json());
        assert_eq!(a.json()["variant"], variant);
    }
}

#[test]
fn attempts_are_limited_as_other_creations_are() {
    let app = TestApp::spawn_with(|config| config.create_rate_limit = limited(2));
    let (id, puzzle) = deep_puzzle();
    let path = format!("/api/v1/puzzles/{id}/attempts");
    for _ in 0..2 {
        assert_eq!(app.act_in_puzzle(&path, None, action_json(puzzle.solution[0].action)).status, 201);
    }
    app.act_in_puzzle(&path, None, action_json(puzzle.solution[0].action)).assert_problem(429, "rate_limited");
}

#[test]
fn a_rated_attempt_left_open_counts_as_failed_and_keeps_the_solution_from_its_player_meanwhile() {
    let app = TestApp::spawn();
    let (id, puzzle) = deep_puzzle();
    let attempts = format!("/api/v1/puzzles/{id}/attempts");
    let wrong = wrong_first_action(&puzzle);
    let dave = app.player("dave");
    let rated = app.act_in_puzzle(&attempts, Some(&dave), action_json(puzzle.solution[0].action)).json();
    assert_eq!((&rated["rated"], &rated["status"]), (&json!(true), &json!("ongoing")), "{rated}");
    // His own second attempt, failed at once, shows no solution while the rated one is open.
    let peek = app.act_in_puzzle(&attempts, Some(&dave), action_json(wrong)).json();
    assert_eq!((&peek["rated"], &peek["status"], &peek["solution"]), (&json!(false), &json!("failed"), &Value::Null));
    // An attempt without a token is nobody's: it shows the solution.
    let anonymous = app.act_in_puzzle(&attempts, None, action_json(wrong)).json();
    assert_shows_solution(&anonymous, &puzzle);

    // He goes on to another puzzle, solved in one action: the one left open is failed and rated so.
    let shallow = shipped(Variant::PlayerChoice).unwrap();
    let (index, next) = shallow.iter().enumerate().find(|(_, puzzle)| puzzle.depth() == 1).unwrap();
    let other = shipped_id(Variant::PlayerChoice, index);
    let path = format!("/api/v1/puzzles/{other}/attempts");
    let solved = app.act_in_puzzle(&path, Some(&dave), action_json(next.solution[0].action)).json();
    assert_eq!((&solved["status"], &solved["rated"]), (&json!("solved"), &json!(true)), "{solved}");
    let left = format!("{attempts}/{}", rated["id"]);
    let over = app.act_in_puzzle(&left, Some(&dave), action_json(puzzle.solution[2].action));
    let over = over.assert_problem(409, "not_open");
    assert!(over["detail"].as_str().unwrap().ends_with("is over: failed"), "{over}");
    let his = app.get_with_token("/api/v1/players/me", &dave).json()["puzzle_ratings"]["player_choice"].clone();
    assert_eq!(his["attempts"], 2, "{his}");
}
