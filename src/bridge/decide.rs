//! What the bridge decides, as pure functions of what the server sent: which
//! challenges to accept, the engine's position and clocks, and what its answer
//! asks the server for.

use serde_json::Value;

use crate::engine::{Action, MoveNumber, Rules, Scoring, Square, Variant, notation};

/// The challenges a bridge accepts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Filters {
    /// The variants it plays.
    pub variants: Vec<Variant>,
    /// The scorings it plays.
    pub scorings: Vec<Scoring>,
    /// Whether it plays rated games, and casual ones.
    pub rated: bool,
    /// Whether it plays casual games.
    pub casual: bool,
    /// Whether it plays games without a clock, and with one.
    pub untimed: bool,
    /// Whether it plays games with a clock.
    pub timed: bool,
    /// The most games it plays at once.
    pub max_games: usize,
}

impl Filters {
    /// Whether to accept `challenge` (a `ChallengeView`) while `playing` games
    /// go on: none, or the reason to decline it with.
    pub fn refusal(&self, challenge: &Value, playing: usize) -> Option<String> {
        let variant = challenge["variant"].as_str().unwrap_or_default();
        let rated = challenge["rated"].as_bool().unwrap_or(false);
        let timed = !challenge["clock"].is_null();
        if !Variant::named(variant).is_some_and(|variant| self.variants.contains(&variant)) {
            let played: Vec<&str> = self.variants.iter().map(|variant| variant.code()).collect();
            return Some(format!("this bot plays {} only", played.join(" and ")));
        }
        // A challenge from before scorings asks for Goff's.
        let scoring = challenge["scoring"].as_str().unwrap_or(Scoring::Goff.code());
        if !Scoring::named(scoring).is_some_and(|scoring| self.scorings.contains(&scoring)) {
            let played: Vec<&str> = self.scorings.iter().map(|scoring| scoring.code()).collect();
            return Some(format!("this bot plays {} scoring only", played.join(" and ")));
        }
        if (rated && !self.rated) || (!rated && !self.casual) {
            return Some(format!("this bot plays {} games only", if rated { "casual" } else { "rated" }));
        }
        if (timed && !self.timed) || (!timed && !self.untimed) {
            return Some(format!(
                "this bot plays games {} only",
                if timed { "without a clock" } else { "with a clock" }
            ));
        }
        if playing >= self.max_games {
            return Some(format!("this bot plays {} games at once, the most it takes; try again later", playing));
        }
        None
    }
}

/// The actions of a game's transcript line (a `game` event's `transcript`):
/// its tokens, without the score that follows the end.
pub fn transcript_actions(transcript: &str) -> Vec<String> {
    let actions = transcript.split(" {").next().unwrap_or_default();
    actions.split("; ").map(str::trim).filter(|token| !token.is_empty()).map(String::from).collect()
}

/// The transcript's token of a log entry (`entry` of a state event), when it
/// is an action, `moves` moves having been placed before it.
pub fn entry_action(entry: &Value, moves: usize) -> Option<String> {
    let square = |value: &Value| Square::try_from(value.as_i64()?).ok();
    let (action, turn) = match entry["kind"].as_str()? {
        "move" => {
            let squares = [square(&entry["squares"][0])?, square(&entry["squares"][1])?];
            (Action::Move { squares }, MoveNumber::try_from(entry["move"].as_u64()?).ok()?)
        }
        "collapse" => {
            let move_number = MoveNumber::try_from(entry["closing_move"].as_u64()?).ok()?;
            (Action::Collapse { move_number, square: square(&entry["square"])? }, MoveNumber::try_from(moves + 1).ok()?)
        }
        _ => return None,
    };
    Some(notation::write_action(action, turn))
}

/// How many moves `actions`, transcript tokens, place.
pub fn moves_in(actions: &[String]) -> usize {
    actions.iter().filter(|token| token.contains('+')).count()
}

/// The `position` command for the game played by `rules` after `actions`. A
/// Goff's game names no scoring, so that an engine from before scorings reads it.
pub fn position_command(rules: Rules, actions: &[String]) -> String {
    let mut command = format!("position variant {}", rules.variant.code());
    if rules.scoring != Scoring::Goff {
        command.push_str(&format!(" scoring {}", rules.scoring.code()));
    }
    if !actions.is_empty() {
        command.push_str(&format!(" actions {}", actions.join(" ")));
    }
    command
}

/// The `go` command for the clock of a state (a `ClockView`, or null), each
/// player's time less `overhead_ms`, the bridge's own delay.
pub fn go_command(clock: &Value, overhead_ms: i64) -> String {
    if clock.is_null() {
        return "go".into();
    }
    let left = |player: &str| (clock["remaining_ms"][player].as_i64().unwrap_or(0) - overhead_ms).max(0);
    let increment = clock["increment_ms"].as_i64().unwrap_or(0);
    format!("go xtime {} otime {} xinc {increment} oinc {increment}", left("X"), left("O"))
}

/// The request the engine's `bestaction` asks for, after `actions`, in a game
/// of `variant`: the path's last part (`moves` or `collapse`) and its body.
///
/// # Errors
/// The answer, when it is no action that can follow `actions`.
pub fn request_of(variant: Variant, actions: &[String], best: &str) -> Result<(&'static str, Value), String> {
    let text = actions.iter().map(String::as_str).chain([best]).collect::<Vec<_>>().join("; ");
    let log = notation::parse(&text, variant).map_err(|error| format!("{best} is not an action: {error}"))?;
    let last = log.last().ok_or_else(|| format!("{best} is not an action"))?;
    Ok(match last.action {
        Action::Move { squares: [a, b] } => ("moves", serde_json::json!({"squares": [a.number(), b.number()]})),
        Action::Collapse { move_number, square } => {
            ("collapse", serde_json::json!({"move": move_number, "square": square.number()}))
        }
    })
}

/// Whether `request` (from [`request_of`]) is one of `legal` (a `LegalActions`' `actions`).
pub fn is_legal(request: &(&str, Value), legal: &Value) -> bool {
    let listed = |action: &Value| match (request.0, action["kind"].as_str()) {
        ("moves", Some("move")) => action["squares"] == request.1["squares"],
        ("collapse", Some("collapse")) => {
            action["move"] == request.1["move"] && action["square"] == request.1["square"]
        }
        _ => false,
    };
    legal.as_array().is_some_and(|actions| actions.iter().any(listed))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn filters() -> Filters {
        Filters {
            variants: vec![Variant::PlayerChoice],
            scorings: vec![Scoring::Goff, Scoring::CompleteWin],
            rated: true,
            casual: false,
            untimed: true,
            timed: false,
            max_games: 2,
        }
    }

    #[test]
    fn a_challenge_outside_the_filters_is_declined_with_its_reason() {
        let fits = json!({"variant": "player_choice", "rated": true, "clock": null});
        assert_eq!(filters().refusal(&fits, 1), None);
        let refusal = |challenge: Value, playing| filters().refusal(&challenge, playing).unwrap();
        assert_eq!(
            refusal(json!({"variant": "measurement", "rated": true, "clock": null}), 0),
            "this bot plays player_choice only"
        );
        assert_eq!(
            refusal(json!({"variant": "player_choice", "scoring": "narrow_win", "rated": true, "clock": null}), 0),
            "this bot plays goff and complete_win scoring only"
        );
        let complete = json!({"variant": "player_choice", "scoring": "complete_win", "rated": true, "clock": null});
        assert_eq!(filters().refusal(&complete, 0), None);
        assert_eq!(
            refusal(json!({"variant": "player_choice", "rated": false, "clock": null}), 0),
            "this bot plays rated games only"
        );
        let timed = json!({"variant": "player_choice", "rated": true, "clock": {"initial_ms": 60000}});
        assert_eq!(refusal(timed, 0), "this bot plays games without a clock only");
        assert_eq!(refusal(fits, 2), "this bot plays 2 games at once, the most it takes; try again later");
    }

    #[test]
    fn the_position_follows_the_transcript_and_each_entry_after_it() {
        let mut actions = transcript_actions("X1+(1,2); O2+(1,2)");
        assert_eq!(actions, ["X1+(1,2)", "O2+(1,2)"]);
        let collapse = json!({"kind": "collapse", "chooser": "X", "closing_move": 2, "square": 0});
        actions.extend(entry_action(&collapse, moves_in(&actions)));
        let next = json!({"kind": "move", "player": "X", "move": 3, "squares": [4, 8]});
        actions.extend(entry_action(&next, moves_in(&actions)));
        assert_eq!(entry_action(&json!({"kind": "resign", "player": "O"}), 3), None);
        assert_eq!(
            position_command(Variant::PlayerChoice.into(), &actions),
            "position variant player_choice actions X1+(1,2) O2+(1,2) X3!O2(1) X3+(5,9)"
        );
        assert_eq!(position_command(Variant::Measurement.into(), &[]), "position variant measurement");
        let narrow = Rules { variant: Variant::PlayerChoice, scoring: Scoring::NarrowWin };
        assert_eq!(
            position_command(narrow, &actions[..1]),
            "position variant player_choice scoring narrow_win actions X1+(1,2)"
        );
        assert_eq!(transcript_actions(""), [] as [String; 0]);
        assert_eq!(transcript_actions("X1+(1,2); O2+(3,4); X3+(5,6) {X0.0,O0.0}").len(), 3);
    }

    #[test]
    fn the_clocks_go_to_the_engine_less_the_overhead() {
        assert_eq!(go_command(&Value::Null, 100), "go");
        let clock = json!({"initial_ms": 60000, "increment_ms": 2000, "remaining_ms": {"X": 31000, "O": 50}});
        assert_eq!(go_command(&clock, 100), "go xtime 30900 otime 0 xinc 2000 oinc 2000");
    }

    #[test]
    fn the_engines_answer_becomes_a_request_that_is_checked_against_the_legal_actions() {
        let actions = transcript_actions("X1+(1,2); O2+(1,2)");
        let collapse = request_of(Variant::PlayerChoice, &actions, "X3!O2(1)").unwrap();
        assert_eq!(collapse, ("collapse", json!({"move": 2, "square": 0})));
        let legal = json!([{"kind": "collapse", "move": 2, "square": 0}, {"kind": "collapse", "move": 2, "square": 1}]);
        assert!(is_legal(&collapse, &legal));
        let moved = request_of(Variant::PlayerChoice, &[], "X1+(5,9)").unwrap();
        assert_eq!(moved, ("moves", json!({"squares": [4, 8]})));
        assert!(!is_legal(&moved, &legal), "a move while a collapse waits");
        assert!(request_of(Variant::PlayerChoice, &actions, "resign").is_err());
    }
}
