//! The `qttt` command.

use std::io::Read;
use std::process::ExitCode;

use qttt::board_text;
use qttt::engine::{Game, Variant, notation};

const USAGE: &str = "usage: qttt show [player_choice|measurement] < transcript
  show   read a game transcript (Goff's notation, squares 1-9) on standard input and
         print its board and status";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let result = match args[..] {
        ["show"] => show(Variant::PlayerChoice),
        ["show", "player_choice"] => show(Variant::PlayerChoice),
        ["show", "measurement"] => show(Variant::Measurement),
        _ => Err(USAGE.to_string()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("{message}");
            ExitCode::FAILURE
        }
    }
}

/// Prints the board and status of the game whose transcript is on standard input.
fn show(variant: Variant) -> Result<(), String> {
    let mut text = String::new();
    std::io::stdin()
        .read_to_string(&mut text)
        .map_err(|e| format!("cannot read standard input: {e}"))?;
    let log = notation::parse(&text, variant).map_err(|e| e.to_string())?;
    let game = Game::replay(variant, &log).map_err(|e| e.to_string())?;
    print!("{}", board_text::board(&game));
    println!("{}", board_text::status(&game));
    Ok(())
}
