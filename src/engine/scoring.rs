//! Completed lines, points and the result, under each of the published scorings.

use super::board::{LINES, MoveNumber, Player, Square};
use super::stack::Stack;

/// How completed lines score. Chosen per game. Numbered in the order of
/// [`Scoring::ALL`], for the keys and files that name one in a byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
#[repr(u8)]
pub enum Scoring {
    /// Goff's: the earliest line 1 point, every later line 1/2.
    #[default]
    Goff = 0,
    /// Ishizeki and Matsuura's complete win: the player whose line appears first
    /// wins 1 to 0; lines for both in one collapse are a draw.
    CompleteWin = 1,
    /// Ishizeki and Matsuura's narrow win: the line with the smaller maximum
    /// subscript wins 1 to 0, even when one collapse completes both.
    NarrowWin = 2,
}

impl Scoring {
    /// Every scoring.
    pub const ALL: [Scoring; 3] = [Scoring::Goff, Scoring::CompleteWin, Scoring::NarrowWin];

    /// The stable name clients see.
    pub fn code(self) -> &'static str {
        match self {
            Scoring::Goff => "goff",
            Scoring::CompleteWin => "complete_win",
            Scoring::NarrowWin => "narrow_win",
        }
    }

    /// The scoring whose [`Scoring::code`] is `code`, if one is.
    pub fn named(code: &str) -> Option<Scoring> {
        Scoring::ALL.into_iter().find(|scoring| scoring.code() == code)
    }
}

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
    /// What the line earns under the game's [`Scoring`].
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
    /// Equal points: a full board without a line, or under complete win lines for
    /// both in one collapse.
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
/// square), scored by `scoring`.
pub(crate) fn completed_lines(classical: &[Option<MoveNumber>; 9], scoring: Scoring) -> Stack<Line, 8> {
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
    let Some(earliest) = lines.iter().map(|line| line.max_move).min() else {
        return lines;
    };
    match scoring {
        Scoring::Goff => {
            for line in lines.iter_mut() {
                line.points = Points { halves: if line.max_move == earliest { 2 } else { 1 } };
            }
        }
        Scoring::CompleteWin | Scoring::NarrowWin => {
            // One point for the game, carried by one earliest line: a double line
            // wins no more than a single one.
            let both = lines.iter().any(|line| line.player != lines[0].player);
            if scoring == Scoring::NarrowWin || !both {
                let first =
                    lines.iter().position(|line| line.max_move == earliest).expect("the earliest line is a line");
                lines[first].points = Points { halves: 2 };
            }
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
