//! `qttt play`, driven through its input, checked by what it prints.

use qttt::bot::Bot;
use qttt::engine::{Game, GameResult, Variant, notation};
use qttt::terminal::{Occupant, play};
use rand::SeedableRng;
use rand::rngs::StdRng;

use crate::command_line::qttt;

fn run(variant: Variant, x: Occupant, o: Occupant, input: &str) -> (Game, String) {
    let mut output = Vec::new();
    let mut rng = StdRng::seed_from_u64(1);
    let game = play(variant, x, o, &mut input.as_bytes(), &mut output, &mut rng).expect("the terminal works");
    (game, String::from_utf8(output).expect("text"))
}

#[test]
fn two_players_at_one_keyboard_get_reasons_for_bad_input_and_the_score_at_the_end() {
    let input = "hello\n4 4\n0 9\n0 3\n0,3\n3\n2\n1 4\n1 4\n2\n2 6\n7 8\n2 6\n2\n";
    let (game, printed) = run(Variant::PlayerChoice, Occupant::Human, Occupant::Human, input);
    assert_eq!(game.result(), GameResult::XWins, "{printed}");
    for expected in [
        "X, move 1: type two squares 0-8 for your marks",
        "Not allowed: \"hello\" is not two squares. Try again.",
        "Not allowed: a move puts its two marks in two different squares",
        "Not allowed: squares are numbered 0 to 8. Try again.",
        "Move 2 closed a cycle. X, choose how it collapses:",
        "  1) X1 in 3, O2 in 0",
        "  2) X1 in 0, O2 in 3",
        "Not allowed: \"3\" is not 1 or 2. Try again.",
        " [X1]           | [X3]           | [X5]",
        "X wins, X 1 - O 0",
    ] {
        assert!(printed.contains(expected), "missing {expected:?} in:\n{printed}");
    }
}

#[test]
fn the_measurement_variant_says_how_the_measurement_collapsed() {
    let (game, printed) = run(Variant::Measurement, Occupant::Human, Occupant::Human, "0 1\n0 1\n");
    assert_eq!(game.collapses().len(), 1);
    assert!(printed.contains("The measurement collapses the cycle: move 2 ends in square"), "{printed}");
    assert!(printed.contains("The input ended; the game is left unfinished."), "{printed}");
}

#[test]
fn a_game_against_a_bot_through_stdin_ends_and_saves_its_transcript() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("game.txt");
    // Every pair of squares and both collapse options: enough for any game.
    let mut input = String::new();
    for _ in 0..9 {
        for a in 0..9 {
            for b in a..9 {
                input.push_str(&format!("{a} {b}\n1\n"));
            }
        }
    }
    let played = qttt(&["play", "--o", "parasite", "--seed", "4", "--transcript", path.to_str().unwrap()], &input);
    assert!(played.status.success());
    let printed = String::from_utf8(played.stdout).unwrap();
    assert!(printed.contains("O (bot) plays"), "{printed}");
    assert!(printed.contains("The transcript is in"), "{printed}");
    let transcript = std::fs::read_to_string(&path).unwrap();
    let log = notation::parse(&transcript, Variant::PlayerChoice).unwrap();
    let game = Game::replay(Variant::PlayerChoice, &log).unwrap();
    assert!(game.is_over(), "{transcript}");
    let verdict = qttt::board_text::status(&game);
    assert!(printed.contains(&verdict), "{verdict} in:\n{printed}");
}

#[test]
fn two_bots_play_each_other_without_input() {
    let (game, printed) =
        run(Variant::Measurement, Occupant::Bot(Bot::Parasite { mistake_chance: 0.0 }), Occupant::Bot(Bot::Random), "");
    assert!(game.is_over());
    let [a, b] = game.moves()[0].squares;
    assert!(printed.contains(&format!("X (bot) plays move 1 in squares {a} and {b}.")), "{printed}");
    assert!(printed.trim_end().ends_with(&qttt::board_text::status(&game)), "{printed}");
}
