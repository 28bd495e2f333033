//! The engine protocol, QTP: a line protocol on standard input and output in
//! the way of UCI and GTP, which docs/ENGINE.md describes. A [`Session`] is one
//! engine's side of it: it takes each line it is sent and answers the lines to
//! write back, so that `qttt engine` only moves lines between it and the
//! terminal, and a test drives it without one.

use rand::Rng;

use super::{Bot, Solver};
use crate::engine::{Actor, Game, Rules, Scoring, Variant, notation};

/// What a session answers a line: the lines to write, and whether to stop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// The lines to write, in order, each without its newline.
    pub lines: Vec<String>,
    /// Whether the engine is to stop: it was told to `quit`.
    pub quit: bool,
}

impl Answer {
    fn lines(lines: Vec<String>) -> Answer {
        Answer { lines, quit: false }
    }
}

/// One engine's side of the protocol: the bot that plays, and the position it
/// was last given.
pub struct Session {
    bot: Bot,
    game: Game,
    /// The perfect player's search, kept from one `go` to the next.
    solver: Solver,
}

impl Session {
    /// A session in which `bot` plays, from the empty board of Goff's rule.
    pub fn new(bot: Bot) -> Session {
        Session { bot, game: Game::new(Variant::PlayerChoice), solver: Solver::default() }
    }

    /// The answer to `line`, one command with its arguments; `rng` draws the
    /// random and parasite bots' choices.
    pub fn answer(&mut self, line: &str, rng: &mut dyn Rng) -> Answer {
        let mut words = line.split_whitespace();
        let Some(command) = words.next() else { return Answer::lines(Vec::new()) };
        let arguments: Vec<&str> = words.collect();
        match command {
            "qtp" => Answer::lines(vec![
                format!("id name qttt {} bot", self.bot.code()),
                "id author qttt".into(),
                "qtpok".into(),
            ]),
            "isready" => Answer::lines(vec!["readyok".into()]),
            "newgame" => {
                self.game = Game::new(self.game.rules());
                Answer::lines(Vec::new())
            }
            "position" => match position(&arguments) {
                Ok(game) => {
                    self.game = game;
                    Answer::lines(Vec::new())
                }
                Err(reason) => Answer::lines(vec![format!("error {reason}")]),
            },
            // The clocks are read, not used: every bot here answers at once.
            "go" => Answer::lines(self.go(rng)),
            "quit" => Answer { lines: Vec::new(), quit: true },
            other => Answer::lines(vec![format!("error unknown command {other}")]),
        }
    }

    /// The answer to `go`: the perfect player's value as `info value`, then the
    /// best action, or `bestaction none` when no player is to act.
    fn go(&mut self, rng: &mut dyn Rng) -> Vec<String> {
        if !matches!(self.game.actor_to_act(), Some(Actor::Player(_))) {
            return vec!["bestaction none".into()];
        }
        let (value, action) = match self.bot {
            Bot::Perfect => {
                let solution = self.solver.answer(&self.game);
                (Some(solution.value.points), solution.action)
            }
            bot => (None, bot.strategy().choose(&self.game, rng)),
        };
        let turn = self.game.moves().len() + 1;
        let action = notation::write_action(action, u8::try_from(turn).expect("at most nine moves"));
        value.map(|value| format!("info value {value}")).into_iter().chain([format!("bestaction {action}")]).collect()
    }
}

/// The game that `position`'s arguments describe: `variant <measurement|player_choice>
/// [scoring <goff|complete_win|narrow_win>] [actions <a1> <a2> ...]`, each action as
/// the transcript writes it; Goff's scoring when none is named.
fn position(arguments: &[&str]) -> Result<Game, String> {
    let variant = match arguments {
        ["variant", "player_choice", ..] => Variant::PlayerChoice,
        ["variant", "measurement", ..] => Variant::Measurement,
        _ => return Err("position needs variant player_choice or variant measurement".into()),
    };
    let (scoring, rest) = match &arguments[2..] {
        ["scoring", code, rest @ ..] => {
            let scoring = Scoring::named(code)
                .ok_or_else(|| format!("there is no scoring {code}: it is goff, complete_win or narrow_win"))?;
            (scoring, rest)
        }
        rest => (Scoring::Goff, rest),
    };
    let actions = match rest {
        [] => &[][..],
        ["actions", actions @ ..] => actions,
        [other, ..] => return Err(format!("position expects its scoring or actions after its variant, not {other}")),
    };
    let log = notation::parse(&actions.join("; "), variant).map_err(|error| error.to_string())?;
    Game::replay(Rules { variant, scoring }, &log).map_err(|error| format!("the actions break a rule: {error}"))
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand::rngs::StdRng;

    use super::*;

    fn session_answers(bot: Bot, lines: &[&str]) -> Vec<String> {
        let (mut session, mut rng) = (Session::new(bot), StdRng::seed_from_u64(3));
        lines.iter().flat_map(|line| session.answer(line, &mut rng).lines).collect()
    }

    #[test]
    fn the_perfect_player_names_itself_and_opens_goffs_rule_with_its_value() {
        let answers =
            session_answers(Bot::Perfect, &["qtp", "isready", "newgame", "position variant player_choice", "go"]);
        assert_eq!(&answers[..4], ["id name qttt perfect bot", "id author qttt", "qtpok", "readyok"]);
        assert_eq!(answers[4], "info value 0.5");
        let action = answers[5].strip_prefix("bestaction ").expect("a best action");
        let log = notation::parse(action, Variant::PlayerChoice).expect("an action in the transcript's notation");
        assert!(Game::replay(Variant::PlayerChoice, &log).is_ok(), "{action} is legal");
        assert_eq!(answers.len(), 6);
    }

    #[test]
    fn a_position_names_its_scoring_and_the_value_follows_it() {
        let answers = session_answers(
            Bot::Perfect,
            &[
                "position variant player_choice scoring narrow_win",
                "go",
                "newgame",
                "go",
                "position variant player_choice scoring complete_win",
                "go",
                "position variant player_choice scoring narrow_win actions X1+(1,9)",
                "go",
                "position variant player_choice scoring chess",
            ],
        );
        // Narrow win is X's from the empty board, complete win a draw, and X's
        // best opening (opposite corners) keeps narrow win's value.
        assert_eq!(answers[..2], ["info value 1", "bestaction X1+(1,9)"], "{answers:?}");
        assert_eq!(answers[2], "info value 1", "a new game keeps the scoring: {answers:?}");
        assert_eq!(answers[4], "info value 0", "{answers:?}");
        assert_eq!(answers[6], "info value 1", "{answers:?}");
        assert_eq!(answers[8], "error there is no scoring chess: it is goff, complete_win or narrow_win");
        assert_eq!(answers.len(), 9);
    }

    #[test]
    fn a_pending_collapse_is_answered_with_a_collapse_choice_written_under_the_next_turn() {
        // O2 closes the cycle of squares 1 and 2: X, about to make move 3, chooses.
        let answers = session_answers(Bot::Random, &["position variant player_choice actions X1+(1,2) O2+(1,2)", "go"]);
        assert!(["bestaction X3!O2(1)", "bestaction X3!O2(2)"].contains(&answers[0].as_str()), "{answers:?}");
    }

    #[test]
    fn mistakes_are_told_and_never_fatal() {
        let answers = session_answers(
            Bot::Random,
            &[
                "hello",
                "position variant chess",
                "position variant measurement actions X1+(1,1)",
                "position variant measurement actions X1+(1,2) O3+(3,4)",
                "position variant measurement actions X1+(1,2) O2+(1,2) X3!O2(1)",
                "go",
                "quit",
            ],
        );
        assert_eq!(answers[0], "error unknown command hello");
        assert_eq!(answers[1], "error position needs variant player_choice or variant measurement");
        assert!(answers[2].starts_with("error the actions break a rule"), "{answers:?}");
        assert!(answers[3].starts_with("error action 2"), "{answers:?}");
        // A measurement was given: the measured collapse is the transcript's too, and X3 is to move.
        assert!(answers[4].starts_with("bestaction X3+("), "{answers:?}");
        assert_eq!(answers.len(), 5);
    }

    #[test]
    fn a_finished_game_or_a_measurement_to_come_has_no_best_action() {
        let answers = session_answers(Bot::Perfect, &["position variant measurement actions X1+(1,2) O2+(1,2)", "go"]);
        assert_eq!(answers, ["bestaction none"]);
    }
}
