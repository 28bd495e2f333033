//! The transcript notation against Goff's own examples and bad input.

use qttt::engine::{Action, Actor, Game, GameResult, Player, Variant, notation};

use crate::fixtures::square;

#[test]
fn goffs_complete_example_game_replays_to_a_draw() {
    let text = "X1+(1,2); O2+(2,5); X3+(5,1)[125]; O4!X3(5)@X1(1); \
                O4+(6,9); X5+(3,9); O6+(3,7); X7+(7,8); O8+(6,8)[3786|9]; X9!O8(6)@O4(9); X9+(4,4); X9!(4)[4]";
    let log = notation::parse(text, Variant::PlayerChoice).expect("Goff's example parses");
    assert_eq!(log.len(), 11, "the last-square confirmation adds no entry");
    assert_eq!(
        log[3],
        qttt::engine::LogEntry {
            actor: Actor::Player(Player::O),
            action: Action::Collapse { move_number: 3, square: square(4) }
        }
    );
    let game = Game::replay(Variant::PlayerChoice, &log).expect("Goff's example is legal");
    assert_eq!(game.result(), GameResult::Draw);
    let board: String = qttt::engine::Square::ALL
        .iter()
        .map(|&s| game.classical(s).map_or("-".to_string(), |mark| mark.to_string()))
        .collect::<Vec<_>>()
        .join(" ");
    assert_eq!(board, "X1 O2 X5 X9 X3 O8 O6 X7 O4");
    assert_eq!(
        notation::write(&game),
        "X1+(1,2); O2+(2,5); X3+(1,5); O4!X3(5); O4+(6,9); X5+(3,9); O6+(3,7); X7+(7,8); \
         O8+(6,8); X9!O8(6); X9+(4,4); X9!(4) {X0.0,O0.0}"
    );
}

#[test]
fn a_measured_collapse_reads_as_the_measurements_entry() {
    let log = notation::parse("X1+(1,2); O2+(1,2); X3!O2(1)", Variant::Measurement).unwrap();
    assert_eq!(log[2].actor, Actor::Measurement);
    let game = Game::replay(Variant::Measurement, &log).unwrap();
    assert_eq!(game.classical(square(0)).map(|m| m.to_string()).as_deref(), Some("O2"));
}

#[test]
fn a_finished_game_ends_with_its_score() {
    let log = notation::parse(
        "X1+(1,2); O2+(1,2); X3!O2(2); X3+(4,5); O4+(4,5); X5!O4(4); X5+(3,7); O6+(8,9); X7+(3,7); O8!X7(7)",
        Variant::PlayerChoice,
    )
    .unwrap();
    let game = Game::replay(Variant::PlayerChoice, &log).unwrap();
    assert_eq!(game.result(), GameResult::XWins);
    assert!(notation::write(&game).ends_with("O8!X7(7) {X1.0,O0.0}"), "{}", notation::write(&game));
}

#[test]
fn unreadable_transcripts_name_the_action_and_the_reason() {
    let cases = [
        ("X2+(1,2)", 1, "move 2 is O's, not X's"),
        ("X1+(0,2)", 1, "expected a square 1-9, found '0'"),
        ("X1+(1,2); X3+(3,4)", 2, "the next move is number 2"),
        ("X1+(1,2); O3+(3,4)", 2, "move 3 is X's, not O's"),
        ("X1+(1,2); O4+(3,4)", 2, "the next move is number 2"),
        ("X1-(1,2)", 1, "expected '+' for a move or '!' for a collapse after the mark"),
        ("X1+(1,2", 1, "expected ')', found the end"),
        ("X1+(1,2)x", 1, "unexpected 'x' at the end"),
        ("X1+(1,2); O2!(1)", 2, "this confirms a last-square move, and none came just before"),
        ("Z1+(1,2)", 1, "expected X or O, found 'Z'"),
        ("X+(1,2)", 1, "expected a move number after X"),
    ];
    for (text, action, reason) in cases {
        let error = notation::parse(text, Variant::PlayerChoice).expect_err(text);
        assert_eq!(error.action, action, "{text}");
        assert!(error.reason.starts_with(reason), "{text}: {}", error.reason);
    }
}

#[test]
fn a_readable_transcript_that_breaks_a_rule_fails_on_replay() {
    let log = notation::parse("X1+(1,2); O2+(1,1)", Variant::PlayerChoice).unwrap();
    let error = Game::replay(Variant::PlayerChoice, &log).unwrap_err();
    assert_eq!((error.entry, error.error.code()), (1, "same_square_twice"));
}
