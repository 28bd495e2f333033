//! `qttt play`: a game in the terminal, on the engine directly, against a bot or
//! between two players at one keyboard.

use std::io::{self, BufRead, Write};

use rand::Rng;

use crate::board_text;
use crate::bot::Bot;
use crate::engine::{Action, Actor, Game, Player, Square, Variant};

/// Who plays a seat.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Occupant {
    /// Someone at the keyboard.
    Human,
    /// A bot of this level.
    Bot(Bot),
}

/// Plays one game of `variant` with `x` and `o`, reading a human's actions from
/// `input` and writing the board, prompts and answers to `output`. Returns the
/// game as it stands when it ends, or when the input ends first.
///
/// # Errors
/// When reading or writing fails.
pub fn play(
    variant: Variant,
    x: Occupant,
    o: Occupant,
    input: &mut impl BufRead,
    output: &mut impl Write,
    rng: &mut dyn Rng,
) -> io::Result<Game> {
    let mut game = Game::new(variant);
    let mut bots = [x, o].map(|seat| match seat {
        Occupant::Human => None,
        Occupant::Bot(bot) => Some(bot.strategy()),
    });
    writeln!(output, "Quantum Tic-Tac-Toe, {} variant. Squares are numbered 0-8:", variant.code())?;
    writeln!(output, "  0 1 2\n  3 4 5\n  6 7 8")?;
    while let Some(Actor::Player(player)) = game.actor_to_act() {
        writeln!(output, "\n{}", board_text::board(&game))?;
        let bot = &mut bots[if player == Player::X { 0 } else { 1 }];
        let action = match bot {
            Some(bot) => {
                let action = bot.choose(&game, rng);
                writeln!(output, "{player} (bot) plays {}.", describe(&game, action))?;
                action
            }
            None => match ask(&game, player, input, output)? {
                Some(action) => action,
                None => {
                    writeln!(output, "\nThe input ended; the game is left unfinished.")?;
                    return Ok(game);
                }
            },
        };
        let logged = game.log().len();
        game.play_measured(Actor::Player(player), action, rng).expect("only legal actions get here");
        for entry in &game.log()[logged..] {
            if let (Actor::Measurement, Action::Collapse { move_number, square }) = (entry.actor, entry.action) {
                writeln!(output, "The measurement collapses the cycle: move {move_number} ends in square {square}.")?;
            }
        }
    }
    writeln!(output, "\n{}", board_text::board(&game))?;
    writeln!(output, "{}", board_text::status(&game))?;
    Ok(game)
}

/// What an action does, in words.
fn describe(game: &Game, action: Action) -> String {
    match action {
        Action::Move { squares: [a, b] } if a == b => format!("both marks in the last open square, {a}"),
        Action::Move { squares: [a, b] } => format!("move {} in squares {a} and {b}", game.moves().len() + 1),
        Action::Collapse { move_number, square } => {
            format!("the collapse where move {move_number} ends in square {square}")
        }
    }
}

/// Asks `player` for an action until one is legal; `None` when the input ends.
fn ask(game: &Game, player: Player, input: &mut impl BufRead, output: &mut impl Write) -> io::Result<Option<Action>> {
    let pending = game.pending_collapse().copied();
    loop {
        match &pending {
            Some(collapse) => {
                writeln!(output, "Move {} closed a cycle. {player}, choose how it collapses:", collapse.closing_move)?;
                for (number, option) in collapse.options.iter().enumerate() {
                    let landings: Vec<String> = option
                        .outcome
                        .iter()
                        .map(|&(move_number, square)| {
                            format!("{}{move_number} in {square}", Player::of_move(move_number))
                        })
                        .collect();
                    writeln!(output, "  {}) {}", number + 1, landings.join(", "))?;
                }
                write!(output, "Type 1 or 2: ")?;
            }
            None => {
                let number = game.moves().len() + 1;
                let open: Vec<Square> = game.open_squares().collect();
                if open.len() == 1 {
                    write!(
                        output,
                        "{player}, move {number}: one square is left; type it twice, as in `{0} {0}`: ",
                        open[0]
                    )?;
                } else {
                    write!(output, "{player}, move {number}: type two squares 0-8 for your marks, as in `0 4`: ")?;
                }
            }
        }
        output.flush()?;
        let mut line = String::new();
        if input.read_line(&mut line)? == 0 {
            return Ok(None);
        }
        let answer = match &pending {
            Some(collapse) => match line.trim() {
                "1" | "2" => {
                    let option = &collapse.options[usize::from(line.trim() == "2")];
                    Ok(Action::Collapse { move_number: collapse.closing_move, square: option.square })
                }
                other => Err(format!("{other:?} is not 1 or 2")),
            },
            None => read_move(&line),
        };
        let checked = answer.and_then(|action| {
            let mut trial = *game;
            trial.play(Actor::Player(player), action).map(|()| action).map_err(|rule| rule.to_string())
        });
        match checked {
            Ok(action) => return Ok(Some(action)),
            Err(reason) => writeln!(output, "Not allowed: {reason}. Try again.")?,
        }
    }
}

/// Two squares from a line such as `0 4` or `0,4`.
fn read_move(line: &str) -> Result<Action, String> {
    let numbers: Vec<&str> =
        line.split(|c: char| c.is_whitespace() || c == ',').filter(|word| !word.is_empty()).collect();
    let [a, b] = numbers[..] else {
        return Err(format!("{:?} is not two squares", line.trim()));
    };
    let square = |word: &str| -> Result<Square, String> {
        let number: i64 = word.parse().map_err(|_| format!("{word:?} is not a number"))?;
        Square::try_from(number).map_err(|rule| rule.to_string())
    };
    Ok(Action::Move { squares: [square(a)?, square(b)?] })
}
