//! Completed lines, points and the result.

use super::board::{LINES, MoveNumber, Player, Square};
use super::stack::Stack;

/// Points in half-point steps, so that sums stay exact: 1 1/2 is `Points(3)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Points {
    /// The number of half points.
    pub halves: u8,
}

impl Points {
    /// The points as a number: 0.0, 0.5, 1.0, 1.5 or 2.0.
    pub fn as_f64(self) -> f64 {
        f64::from(self.halves) / 2.0
    }
}

/// A line of three classical marks of one player.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Line {
    /// Whose marks fill the line.
    pub player: Player,
    /// The line's squares, ascending.
    pub squares: [Square; 3],
    /// The highest subscript in the line: the move that finished it in time.
    pub max_move: MoveNumber,
    /// 1 for the earliest line(s), 1/2 for any later one.
    pub points: Points,
}

/// Each player's points.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Score {
    /// X's points.
    pub x: Points,
    /// O's points.
    pub o: Points,
}

impl Score {
    /// The points of one player.
    pub fn of(self, player: Player) -> Points {
        match player {
            Player::X => self.x,
            Player::O => self.o,
        }
    }
}

/// How the game stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GameResult {
    /// Moves or a collapse choice are still to come.
    Ongoing,
    /// X ended with more points.
    XWins,
    /// O ended with more points.
    OWins,
    /// Equal points: a full board without a line.
    Draw,
    /// Called off before it got going: decided outside the rules, so the engine
    /// never gives it (the service does), and by nobody's points.
    Aborted,
}

impl GameResult {
    /// The stable name clients see.
    pub fn code(self) -> &'static str {
        match self {
            GameResult::Ongoing => "ongoing",
            GameResult::XWins => "x_wins",
            GameResult::OWins => "o_wins",
            GameResult::Draw => "draw",
            GameResult::Aborted => "aborted",
        }
    }
}

/// Every completed line of `classical` (the move whose mark is classical in each
/// square), scored: the line or lines with the lowest maximum subscript earn 1
/// point, every later line 1/2.
pub(crate) fn completed_lines(classical: &[Option<MoveNumber>; 9]) -> Stack<Line, 8> {
    let mut lines: Stack<Line, 8> = LINES
        .iter()
        .filter_map(|&squares| {
            let marks = squares.map(|square| classical[square.index()]);
            let [Some(a), Some(b), Some(c)] = marks else {
                return None;
            };
            let player = Player::of_move(a);
            (Player::of_move(b) == player && Player::of_move(c) == player).then(|| Line {
                player,
                squares,
                max_move: a.max(b).max(c),
                points: Points::default(),
            })
        })
        .collect();
    if let Some(earliest) = lines.iter().map(|line| line.max_move).min() {
        for line in lines.iter_mut() {
            line.points = Points { halves: if line.max_move == earliest { 2 } else { 1 } };
        }
    }
    lines
}

/// The points each player earned from `lines`.
pub fn score(lines: &[Line]) -> Score {
    let total = |player| Points {
        halves: lines.iter().filter(|line| line.player == player).map(|line| line.points.halves).sum(),
    };
    Score { x: total(Player::X), o: total(Player::O) }
}

/// The result of a finished game with `score`.
pub(crate) fn result_of_finished(score: Score) -> GameResult {
    match score.x.cmp(&score.o) {
        std::cmp::Ordering::Greater => GameResult::XWins,
        std::cmp::Ordering::Less => GameResult::OWins,
        std::cmp::Ordering::Equal => GameResult::Draw,
    }
}
