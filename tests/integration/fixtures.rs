//! The rule scenarios of tests/data/scenarios.json, and the state they describe.

use std::collections::BTreeMap;

use qttt::engine::{Action, Actor, Game, MoveNumber, Player, Square, Variant};
use serde::Deserialize;

#[derive(Debug, Deserialize)]
pub struct Scenarios {
    pub scenarios: Vec<Scenario>,
}

#[derive(Debug, Deserialize)]
pub struct Scenario {
    pub name: String,
    pub variant: String,
    pub steps: Vec<Step>,
    /// The state after the last step (player-choice scenarios).
    pub r#final: Option<State>,
    /// Both outcomes the measurement can give after the last step.
    #[serde(default)]
    pub measurements: Vec<Measurement>,
    /// How the game ends under each scoring other than Goff's, by its code.
    #[serde(default)]
    pub other_scorings: BTreeMap<String, Ending>,
}

/// The part of a final state that the scoring decides.
#[derive(Debug, Deserialize, PartialEq)]
pub struct Ending {
    pub result: String,
    pub score: ScoreState,
    pub lines: Vec<LineState>,
}

#[derive(Debug, Deserialize)]
pub struct Step {
    pub actor: String,
    #[serde(rename = "move")]
    pub squares: Option<[i64; 2]>,
    pub collapse: Option<CollapseChoice>,
    /// The acceptable rule codes when the step must be rejected.
    pub rejected: Option<Vec<String>>,
    pub expect: Option<State>,
}

#[derive(Debug, Deserialize)]
pub struct CollapseChoice {
    #[serde(rename = "move")]
    pub move_number: MoveNumber,
    pub square: i64,
}

#[derive(Debug, Deserialize)]
pub struct Measurement {
    pub collapse: CollapseChoice,
    pub r#final: State,
}

/// What a scenario says of a position.
#[derive(Debug, Deserialize, PartialEq)]
pub struct State {
    pub classical: Vec<Option<String>>,
    pub spooky: Vec<Vec<String>>,
    pub pending_collapse: Option<PendingState>,
    pub next_to_move: Option<NextToMove>,
    pub game_over: bool,
    pub result: String,
    pub score: ScoreState,
    pub lines: Vec<LineState>,
}

#[derive(Debug, Deserialize, PartialEq)]
pub struct PendingState {
    pub chooser: String,
    pub closing_move: MoveNumber,
    pub cycle_moves: Vec<MoveNumber>,
    pub options: Vec<usize>,
}

#[derive(Debug, Deserialize, PartialEq)]
pub struct NextToMove {
    pub player: String,
    #[serde(rename = "move")]
    pub move_number: MoveNumber,
}

#[derive(Debug, Deserialize, PartialEq)]
pub struct ScoreState {
    #[serde(rename = "X")]
    pub x: f64,
    #[serde(rename = "O")]
    pub o: f64,
}

#[derive(Debug, Deserialize, PartialEq)]
pub struct LineState {
    pub player: String,
    pub squares: Vec<usize>,
    pub max_move: MoveNumber,
    pub points: f64,
}

pub fn scenarios() -> Vec<Scenario> {
    let text = include_str!("../data/scenarios.json");
    serde_json::from_str::<Scenarios>(text).expect("tests/data/scenarios.json parses").scenarios
}

pub fn square(index: i64) -> Square {
    Square::try_from(index).expect("a square on the board")
}

impl Scenario {
    pub fn variant(&self) -> Variant {
        match self.variant.as_str() {
            "player_choice" => Variant::PlayerChoice,
            "measurement" => Variant::Measurement,
            other => panic!("unknown variant {other}"),
        }
    }
}

impl Step {
    pub fn actor(&self) -> Actor {
        match self.actor.as_str() {
            "X" => Actor::Player(Player::X),
            "O" => Actor::Player(Player::O),
            "measurement" => Actor::Measurement,
            other => panic!("unknown actor {other}"),
        }
    }

    /// The step's action; `Err` carries the rule code of a square off the board,
    /// which no `Square` can hold.
    pub fn action(&self) -> Result<Action, &'static str> {
        let checked = |index: i64| Square::try_from(index).map_err(|error| error.code());
        match (&self.squares, &self.collapse) {
            (Some([a, b]), None) => Ok(Action::Move { squares: [checked(*a)?, checked(*b)?] }),
            (None, Some(choice)) => Ok(choice.action()),
            _ => panic!("a step is either a move or a collapse"),
        }
    }
}

impl CollapseChoice {
    pub fn action(&self) -> Action {
        Action::Collapse { move_number: self.move_number, square: square(self.square) }
    }
}

/// The state of `game` in the scenarios' terms.
pub fn state_of(game: &Game) -> State {
    let actor_name = |actor: Actor| match actor {
        Actor::Player(player) => player.to_string(),
        Actor::Measurement => "measurement".to_string(),
    };
    State {
        classical: Square::ALL.iter().map(|&s| game.classical(s).map(|mark| mark.to_string())).collect(),
        spooky: Square::ALL.iter().map(|&s| game.spooky(s).map(|mark| mark.to_string()).collect()).collect(),
        pending_collapse: game.pending_collapse().map(|pending| PendingState {
            chooser: actor_name(pending.chooser),
            closing_move: pending.closing_move,
            cycle_moves: pending.cycle_moves.to_vec(),
            options: pending.options.iter().map(|option| option.square.index()).collect(),
        }),
        next_to_move: game
            .next_to_move()
            .map(|(player, move_number)| NextToMove { player: player.to_string(), move_number }),
        game_over: game.is_over(),
        result: game.result().code().to_string(),
        score: ScoreState { x: game.score().x.as_f64(), o: game.score().o.as_f64() },
        lines: game
            .lines()
            .iter()
            .map(|line| LineState {
                player: line.player.to_string(),
                squares: line.squares.iter().map(|s| s.index()).collect(),
                max_move: line.max_move,
                points: line.points.as_f64(),
            })
            .collect(),
    }
}
