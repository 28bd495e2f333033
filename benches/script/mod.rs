//! The games both HTTP benchmarks play: `load` over sockets, `api` in process.

/// The move script of every game: eight moves along a path through all nine
/// squares, which close no cycle, then move 9 closes the one cycle through them
/// all, and its collapse (the chooser takes move 9 into square 0 when the rule
/// lets a player choose) fills the board and ends the game. The same script is
/// legal whatever the measurement decides, so a client never reads a game view
/// to find its next move, and spends its time sending, not parsing.
pub const SCRIPT: [[u8; 2]; 9] = [[0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [5, 6], [6, 7], [7, 8], [0, 8]];

/// The collapse that ends a `player_choice` game of [`SCRIPT`]: X closes the
/// cycle with move 9, and O takes it into square 0.
pub fn collapse_body() -> serde_json::Value {
    serde_json::json!({ "move": 9, "square": 0 })
}

/// The parts of a seat's answer (creating or joining a game) that the script needs.
#[derive(serde::Deserialize)]
pub struct Seated {
    pub game: GameId,
    pub seat: Seat,
}

#[derive(serde::Deserialize)]
pub struct GameId {
    pub id: i64,
}

#[derive(serde::Deserialize)]
pub struct Seat {
    pub token: String,
}
