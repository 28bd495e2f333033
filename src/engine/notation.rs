//! Whole games as text, in the style of Goff's play specification.
//!
//! Squares are numbered 1-9 here, as Goff writes them (the API uses 0-8). Actions
//! are separated by `;`:
//! - `X1+(1,2)`: move 1 is X's, with spooky marks in squares 1 and 2;
//! - `O4!X3(5)`: O, about to make move 4, collapses the cycle so that X3 ends in
//!   square 5 (always named by the move that closed the cycle);
//! - `X9+(4,4); X9!(4)`: the last-square move, classical at once;
//! - a finished game ends with its score, `{X1.0,O0.5}`.
//!
//! When reading, Goff's annotations are accepted and ignored: `@X1(1)` (which mark
//! the chooser clicked), `[...]` (the cycle's moves) and the `{...}` score. So is
//! a [`header`]'s line, `[Variant "player_choice"] [Scoring "goff"]`, which names
//! the rules a whole transcript is played by.
//!
//! ```
//! use qttt::engine::{Game, Variant, notation};
//!
//! let text = "X1+(1,2); O2+(2,5); X3+(1,5); O4!X3(5)";
//! let log = notation::parse(text, Variant::PlayerChoice)?;
//! let game = Game::replay(Variant::PlayerChoice, &log)?;
//! assert_eq!(notation::write(&game), text);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt;

use super::board::{MoveNumber, Player, Square};
use super::game::Game;
use super::moves::{Action, Actor, LogEntry, Rules, Variant};

/// The transcript of `game`.
pub fn write(game: &Game) -> String {
    write_from(game, 0)
}

/// The transcript of `game`'s log from its entry `first` on: what follows the
/// transcript of its first `first` entries, after a `; `, to make the whole.
pub(crate) fn write_from(game: &Game, first: usize) -> String {
    let mut tokens = Vec::new();
    let mut placed: MoveNumber = 0;
    for (index, entry) in game.log().iter().enumerate() {
        let mut token = write_action(entry.action, placed + 1);
        if let Action::Move { squares: [a, b] } = entry.action {
            placed += 1;
            if a == b {
                token.push_str(&format!("; {}{placed}!({})", Player::of_move(placed), goff(a)));
            }
        }
        if index >= first {
            tokens.push(token);
        }
    }
    let mut text = tokens.join("; ");
    if game.is_over() {
        let score = game.score();
        text.push_str(&format!(" {{X{:.1},O{:.1}}}", score.x.as_f64(), score.o.as_f64()));
    }
    text
}

/// The line that names `rules` above a whole transcript, in the way of PGN's tags.
pub fn header(rules: Rules) -> String {
    format!("[Variant \"{}\"] [Scoring \"{}\"]", rules.variant.code(), rules.scoring.code())
}

/// One action, taken when the next move to place is number `turn`: a move is
/// that move, and a collapse is written under that turn by the player about to
/// make it.
pub(crate) fn write_action(action: Action, turn: MoveNumber) -> String {
    let player = Player::of_move(turn);
    match action {
        Action::Move { squares: [a, b] } => format!("{player}{turn}+({},{})", goff(a), goff(b)),
        Action::Collapse { move_number, square } => {
            format!("{player}{turn}!{}{move_number}({})", Player::of_move(move_number), goff(square))
        }
    }
}

/// The log that a transcript describes. Only the notation is checked here; the
/// rules are checked by replaying the log.
///
/// # Errors
/// The first action that cannot be read, with the reason.
pub fn parse(text: &str, variant: Variant) -> Result<Vec<LogEntry>, NotationError> {
    let mut log = Vec::new();
    let mut placed: MoveNumber = 0;
    let tokens = text.split(';').map(strip_annotations).filter(|token| !token.is_empty());
    for (index, token) in tokens.enumerate() {
        let fail = |reason: String| NotationError { action: index + 1, text: token.clone(), reason };
        let mut reader = Reader { rest: &token };
        let (player, turn) = reader.mark().map_err(&fail)?;
        match reader.next() {
            Some('+') => {
                if turn != placed + 1 {
                    return Err(fail(format!("the next move is number {}", placed + 1)));
                }
                let (a, b) = reader.pair().map_err(&fail)?;
                reader.end().map_err(&fail)?;
                placed = turn;
                log.push(LogEntry { actor: Actor::Player(player), action: Action::Move { squares: [a, b] } });
            }
            Some('!') if reader.rest.starts_with('(') => {
                let square = reader.single().map_err(&fail)?;
                reader.end().map_err(&fail)?;
                let last_square_move = Action::Move { squares: [square, square] };
                if turn != placed || log.last().map(|entry: &LogEntry| entry.action) != Some(last_square_move) {
                    return Err(fail("this confirms a last-square move, and none came just before".into()));
                }
            }
            Some('!') => {
                if turn != placed + 1 {
                    return Err(fail(format!("a collapse is written under the next turn, {}", placed + 1)));
                }
                let (_, move_number) = reader.mark().map_err(&fail)?;
                let square = reader.single().map_err(&fail)?;
                reader.end().map_err(&fail)?;
                let actor = match variant {
                    Variant::PlayerChoice => Actor::Player(player),
                    Variant::Measurement => Actor::Measurement,
                };
                log.push(LogEntry { actor, action: Action::Collapse { move_number, square } });
            }
            _ => {
                return Err(fail("expected '+' for a move or '!' for a collapse after the mark".into()));
            }
        }
    }
    Ok(log)
}

/// A transcript action that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotationError {
    /// The position of the action in the transcript, from 1.
    pub action: usize,
    /// The action as written, without annotations.
    pub text: String,
    /// What is wrong with it.
    pub reason: String,
}

impl fmt::Display for NotationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "action {} `{}`: {}", self.action, self.text, self.reason)
    }
}

impl std::error::Error for NotationError {}

/// A square as Goff numbers it, 1-9.
fn goff(square: Square) -> usize {
    square.index() + 1
}

/// The action without Goff's annotations and without white space.
fn strip_annotations(token: &str) -> String {
    let mut kept = String::new();
    let mut depth = 0;
    for c in token.chars() {
        match c {
            '@' if depth == 0 => break,
            '[' | '{' => depth += 1,
            ']' | '}' => depth -= 1,
            c if depth == 0 && !c.is_whitespace() => kept.push(c),
            _ => {}
        }
    }
    kept
}

/// Reads one action from left to right.
struct Reader<'a> {
    rest: &'a str,
}

impl Reader<'_> {
    fn next(&mut self) -> Option<char> {
        let c = self.rest.chars().next()?;
        self.rest = &self.rest[c.len_utf8()..];
        Some(c)
    }

    fn expect(&mut self, wanted: char) -> Result<(), String> {
        match self.next() {
            Some(c) if c == wanted => Ok(()),
            Some(c) => Err(format!("expected '{wanted}', found '{c}'")),
            None => Err(format!("expected '{wanted}', found the end")),
        }
    }

    /// A mark such as `X3`: a player and a move number of that player.
    fn mark(&mut self) -> Result<(Player, MoveNumber), String> {
        let letter = self.next().ok_or("expected a mark such as X1")?;
        let player = Player::from_letter(letter).ok_or(format!("expected X or O, found '{letter}'"))?;
        let digits = self.rest.len() - self.rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        let number: MoveNumber = self.rest[..digits]
            .parse()
            .ok()
            .filter(|number| (1..=10).contains(number))
            .ok_or(format!("expected a move number after {player}"))?;
        self.rest = &self.rest[digits..];
        if Player::of_move(number) != player {
            return Err(format!("move {number} is {}'s, not {player}'s", Player::of_move(number)));
        }
        Ok((player, number))
    }

    fn square(&mut self) -> Result<Square, String> {
        match self.next() {
            Some(digit @ '1'..='9') => {
                Square::try_from(i64::from(digit as u8 - b'1')).map_err(|error| error.to_string())
            }
            Some(c) => Err(format!("expected a square 1-9, found '{c}'")),
            None => Err("expected a square 1-9, found the end".into()),
        }
    }

    /// `(a,b)`.
    fn pair(&mut self) -> Result<(Square, Square), String> {
        self.expect('(')?;
        let a = self.square()?;
        self.expect(',')?;
        let b = self.square()?;
        self.expect(')')?;
        Ok((a, b))
    }

    /// `(s)`.
    fn single(&mut self) -> Result<Square, String> {
        self.expect('(')?;
        let square = self.square()?;
        self.expect(')')?;
        Ok(square)
    }

    fn end(&mut self) -> Result<(), String> {
        match self.rest {
            "" => Ok(()),
            rest => Err(format!("unexpected '{rest}' at the end")),
        }
    }
}
