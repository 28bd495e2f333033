//! The vocabulary of the board: players, squares, move numbers, marks and lines.

use std::fmt::{self, Write as _};

use super::RuleError;

/// One of the two players. X makes the odd moves, O the even ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum Player {
    /// The player who opens and makes moves 1, 3, 5, 7 and 9.
    #[default]
    X,
    /// The player who makes moves 2, 4, 6 and 8.
    O,
}

impl Player {
    /// The opponent.
    pub fn other(self) -> Player {
        match self {
            Player::X => Player::O,
            Player::O => Player::X,
        }
    }

    /// The player who makes move `number` (counted from 1).
    pub(crate) fn of_move(number: MoveNumber) -> Player {
        if number % 2 == 1 { Player::X } else { Player::O }
    }

    /// The player's letter, as written in marks and transcripts.
    pub(crate) fn letter(self) -> char {
        match self {
            Player::X => 'X',
            Player::O => 'O',
        }
    }

    /// The player named by a letter, `X` or `O`.
    pub(crate) fn from_letter(letter: char) -> Option<Player> {
        match letter {
            'X' => Some(Player::X),
            'O' => Some(Player::O),
            _ => None,
        }
    }
}

impl fmt::Display for Player {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.letter())
    }
}

/// A move's number, counted from 1; it is also the subscript of its marks.
pub type MoveNumber = u8;

/// The most moves a game can have: nine squares, each move fills at most one.
pub const MAX_MOVES: MoveNumber = 9;

/// A square of the board, 0-8 row-major from the top-left.
///
/// Only a checked conversion makes one, so a `Square` in hand is always on the board.
/// The default, square 0, only fills unused places of fixed-size storage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Square(u8);

impl Square {
    /// The nine squares in order.
    pub const ALL: [Square; 9] =
        [Square(0), Square(1), Square(2), Square(3), Square(4), Square(5), Square(6), Square(7), Square(8)];

    /// The square's number, 0-8, to index with.
    pub fn index(self) -> usize {
        usize::from(self.0)
    }

    /// The square's number, 0-8.
    pub fn number(self) -> u8 {
        self.0
    }
}

impl TryFrom<i64> for Square {
    type Error = RuleError;

    /// # Errors
    /// [`RuleError::SquareOutOfRange`] for anything outside 0-8.
    fn try_from(value: i64) -> Result<Self, RuleError> {
        match u8::try_from(value) {
            Ok(index) if index < 9 => Ok(Square(index)),
            _ => Err(RuleError::SquareOutOfRange),
        }
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A mark on the board: the player and the move that wrote it, shown as `X3`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Mark {
    /// The move that wrote the mark; its parity gives the player.
    pub move_number: MoveNumber,
}

impl Mark {
    /// Whose mark it is.
    pub fn player(self) -> Player {
        Player::of_move(self.move_number)
    }
}

impl fmt::Display for Mark {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Two characters written as they are: a board's answer holds up to 17 marks,
        // and formatting each with `write!` showed in the load profile.
        f.write_char(self.player().letter())?;
        match char::from_digit(u32::from(self.move_number), 10) {
            Some(digit) => f.write_char(digit),
            None => write!(f, "{}", self.move_number),
        }
    }
}

/// The eight lines of three: rows, then columns, then the two diagonals.
pub const LINES: [[Square; 3]; 8] = [
    [Square(0), Square(1), Square(2)],
    [Square(3), Square(4), Square(5)],
    [Square(6), Square(7), Square(8)],
    [Square(0), Square(3), Square(6)],
    [Square(1), Square(4), Square(7)],
    [Square(2), Square(5), Square(8)],
    [Square(0), Square(4), Square(8)],
    [Square(2), Square(4), Square(6)],
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn squares_convert_only_from_zero_to_eight() {
        assert_eq!(Square::try_from(0).map(Square::index), Ok(0));
        assert_eq!(Square::try_from(8).map(Square::index), Ok(8));
        assert_eq!(Square::try_from(9), Err(RuleError::SquareOutOfRange));
        assert_eq!(Square::try_from(-1), Err(RuleError::SquareOutOfRange));
        assert_eq!(Square::try_from(256), Err(RuleError::SquareOutOfRange));
    }

    #[test]
    fn odd_moves_are_x_and_even_moves_are_o() {
        assert_eq!(Player::of_move(1), Player::X);
        assert_eq!(Player::of_move(8), Player::O);
        assert_eq!(Mark { move_number: 7 }.to_string(), "X7");
        assert_eq!(Mark { move_number: 4 }.to_string(), "O4");
        // A number of two digits, which no game reaches, still prints whole.
        assert_eq!(Mark { move_number: 12 }.to_string(), "O12");
    }
}
