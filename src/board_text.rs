//! The board drawn as text: classical marks in brackets, spooky marks in move
//! order, and an empty square's number so a player knows what to type; and a
//! game's analysis as a table.

use crate::bot::Analysis;
use crate::engine::notation::write_action;
use crate::engine::{Action, Game, GameResult, Player, Square, Variant};

/// Wide enough for the most spooky marks a square can hold at once: five.
const CELL_WIDTH: usize = 16;

/// The board of `game`, one text line per row, rows separated by rules.
///
/// ```
/// use qttt::engine::{Action, Actor, Game, Player, Square, Variant};
///
/// let mut game = Game::new(Variant::PlayerChoice);
/// let squares = [Square::try_from(0).unwrap(), Square::try_from(4).unwrap()];
/// game.play(Actor::Player(Player::X), Action::Move { squares }).unwrap();
/// assert_eq!(qttt::board_text::board(&game).lines().next(),
///            Some(" X1             | 1              | 2"));
/// ```
pub fn board(game: &Game) -> String {
    let rule = vec!["-".repeat(CELL_WIDTH); 3].join("+");
    let rows: Vec<String> = Square::ALL
        .chunks(3)
        .map(|row| {
            row.iter()
                .map(|&square| format!(" {:<width$}", cell(game, square), width = CELL_WIDTH - 1))
                .collect::<Vec<_>>()
                .join("|")
                .trim_end()
                .to_string()
        })
        .collect();
    rows.join(&format!("\n{rule}\n")) + "\n"
}

fn cell(game: &Game, square: Square) -> String {
    if let Some(mark) = game.classical(square) {
        return format!("[{mark}]");
    }
    let spooky: Vec<String> = game.spooky(square).map(|mark| mark.to_string()).collect();
    if spooky.is_empty() { square.to_string() } else { spooky.join(" ") }
}

/// One line on how the game stands: who acts next, or the result and score.
pub fn status(game: &Game) -> String {
    let score = game.score();
    let points = format!("X {} - O {}", score.x.as_f64(), score.o.as_f64());
    match game.result() {
        GameResult::XWins => format!("X wins, {points}"),
        GameResult::OWins => format!("O wins, {points}"),
        GameResult::Draw => format!("Draw, {points}"),
        GameResult::Aborted => "Aborted".to_string(),
        GameResult::Ongoing => match (game.pending_collapse(), game.next_to_move()) {
            (Some(pending), _) => format!(
                "Move {} closed a cycle of moves {:?}; it waits to be collapsed",
                pending.closing_move, pending.cycle_moves
            ),
            (None, Some((player, number))) => format!("{player} to make move {number}"),
            (None, None) => unreachable!("an ongoing game has a pending collapse or a next move"),
        },
    }
}

/// `analysis` as a table a person reads: a row per action of a player, in
/// Goff's notation, with a best action and the values around it; a line under
/// each measured cycle; then what each player gave away.
pub fn analysis(analysis: &Analysis) -> String {
    let mut text =
        format!("{:>4}  {:<12} {:<12} {:>8} {:>8} {:>8}\n", "move", "action", "best", "before", "after", "loss");
    for judged in &analysis.actions {
        text.push_str(&format!(
            "{:>4}  {:<12} {:<12} {:>+8} {:>+8} {:>8}\n",
            judged.turn,
            write_action(judged.action, judged.turn),
            write_action(judged.best, judged.turn),
            judged.value_before,
            judged.value_after,
            judged.loss
        ));
        if let Some(measured) = judged.measurement {
            // Written under the turn after the closing move, as the transcript does.
            let outcome = |square| write_action(Action::Collapse { move_number: judged.turn, square }, judged.turn + 1);
            let [first, second] = measured.outcomes;
            let came = measured.happened.map_or("nothing yet".to_string(), outcome);
            text.push_str(&format!(
                "      measured: {} {:+} or {} {:+}; came {came}\n",
                outcome(first.square),
                first.value,
                outcome(second.square),
                second.value
            ));
        }
    }
    for player in [Player::X, Player::O] {
        let lost = analysis.loss_of(player);
        text.push_str(&format!(
            "{player} gave away {} in {} of {} actions\n",
            lost.loss, lost.actions_with_loss, lost.actions
        ));
    }
    let kind = match analysis.variant {
        Variant::PlayerChoice => "",
        Variant::Measurement => ", expected over the measurements",
    };
    text.push_str(&format!("Values: the final score difference X minus O with perfect play{kind}.\n"));
    text
}
