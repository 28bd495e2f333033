//! Puzzles: the positions of the games a database holds, judged by the
//! perfect player.

use super::helpers::{TestApp, TestDatabase};
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
        format!("{position} | O8+(3,9); X9!O8(3); X9+(2,8); O10!X9(8) {{X0.5,O1.0}} | closing_cycle | game {id}"),
        format!("{position}; O8+(1,2) | X9+(3,9); O10!X9(3) {{X2.0,O0.0}} | double_line | game {id}"),
    ];
    assert_eq!(said.lines().collect::<Vec<_>>(), found, "{said}");
}
