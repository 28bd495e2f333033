//! The bodies the API takes.

use serde::Deserialize;
use utoipa::ToSchema;
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{
    AdditionalProperties, Array, ArrayBuilder, ObjectBuilder, OneOfBuilder, Schema, SchemaType, Type,
};

use super::{BotName, PlayerName, ScoringName, VariantName};
use crate::bot::Bot;
use crate::engine::{Action, Square};
use crate::record::{ClockSettings, GameSettings};

/// `POST /games`: a new game. Every field is optional; an empty body is fine.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"variant": "player_choice", "play_as": "X"}))]
pub(crate) struct CreateGameRequest {
    /// How cycles collapse; default `measurement`.
    #[serde(default)]
    pub variant: VariantName,
    /// How completed lines score; default `goff`. A rated game is Goff's.
    #[serde(default)]
    pub scoring: ScoringName,
    /// The seat the creator takes; default `X`, who moves first.
    #[serde(default)]
    pub play_as: PlayerName,
    /// A bot to play against; it takes the other seat and answers every action in
    /// the same request. Without it, a second player joins.
    #[serde(default)]
    pub opponent: Option<OpponentRequest>,
    /// Whether `GET /games/{id}/hint` gives the best action while the game goes
    /// on; default `false` between two people (a hint would be an advisor at the
    /// table), `true` against a bot.
    #[serde(default)]
    pub hints: Option<bool>,
    /// A Fischer clock, for a timed game: each player's time at the start and what
    /// each of their actions adds. Without it, the game is untimed.
    #[serde(default)]
    pub clock: Option<ClockRequest>,
    /// Whether the game is private: it is not listed, and joining it needs the
    /// `invite` the creator gets in the answer; default `false`.
    #[serde(default)]
    pub private: bool,
    /// Whether the game is rated: its end changes the ratings of its players
    /// in its variant. A rated game is created with a player token, and is
    /// played against a bot or joined with a player token; it gives no hints,
    /// and no analysis until it has ended. Default `false`.
    #[serde(default)]
    pub rated: bool,
}

/// `POST /games/{id}/join`: the invite of a private game. Optional for a public one.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"invite": "mV3q2kX9T0bE8cJ1a7Lf4g"}))]
pub(crate) struct JoinRequest {
    /// A private game's invite, as its creator got it.
    #[serde(default)]
    pub invite: Option<String>,
}

/// A Fischer clock for a timed game. It starts when both seats are taken; the
/// clock of whoever must act runs (the chooser's during a pending collapse), and
/// the player to act whose time runs out loses.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"initial_ms": 300000, "increment_ms": 2000}))]
pub(crate) struct ClockRequest {
    /// Each player's time at the start, in milliseconds: from 1000 (a second) to
    /// 604800000 (seven days).
    #[serde(deserialize_with = "crate::api::extract::whole_number")]
    #[schema(minimum = 1000, maximum = 604800000)]
    pub initial_ms: i64,
    /// What each action of a player adds to their time, in milliseconds: from 0
    /// to 3600000 (an hour).
    #[serde(deserialize_with = "crate::api::extract::whole_number")]
    #[schema(minimum = 0, maximum = 3600000)]
    pub increment_ms: i64,
}

impl ClockRequest {
    /// The clock, checked.
    ///
    /// # Errors
    /// A reason when a time is out of its range.
    pub fn clock(&self) -> Result<ClockSettings, String> {
        let initial = ClockSettings::MIN_INITIAL_MS..=ClockSettings::MAX_INITIAL_MS;
        if !initial.contains(&self.initial_ms) {
            return Err(format!(
                "clock.initial_ms must be from {} to {}, not {}",
                initial.start(),
                initial.end(),
                self.initial_ms
            ));
        }
        if !(0..=ClockSettings::MAX_INCREMENT_MS).contains(&self.increment_ms) {
            return Err(format!(
                "clock.increment_ms must be from 0 to {}, not {}",
                ClockSettings::MAX_INCREMENT_MS,
                self.increment_ms
            ));
        }
        Ok(ClockSettings { initial_ms: self.initial_ms, increment_ms: self.increment_ms })
    }
}

impl CreateGameRequest {
    /// The game's settings.
    ///
    /// # Errors
    /// A reason when the opponent is not one the API takes.
    pub fn settings(&self) -> Result<GameSettings, String> {
        let opponent = self.opponent.as_ref().map(OpponentRequest::bot).transpose()?;
        Ok(GameSettings {
            variant: self.variant.into(),
            scoring: self.scoring.into(),
            play_as: self.play_as.into(),
            opponent,
            hints: self.hints,
            clock: self.clock.as_ref().map(ClockRequest::clock).transpose()?,
            private: self.private,
            rated: self.rated,
        })
    }
}

/// The bot to play against.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct OpponentRequest {
    /// Which bot.
    pub bot: BotName,
    /// `parasite` only: the probability of a random move, 0-1; default 0.1.
    pub mistake_chance: Option<f64>,
}

impl OpponentRequest {
    /// The bot, checked.
    ///
    /// # Errors
    /// A reason when `mistake_chance` is out of range or given to a bot without it.
    pub fn bot(&self) -> Result<Bot, String> {
        match (self.bot, self.mistake_chance) {
            (BotName::Random, None) => Ok(Bot::Random),
            (BotName::Perfect, None) => Ok(Bot::Perfect),
            (BotName::Parasite, None) => Ok(Bot::Parasite { mistake_chance: Bot::DEFAULT_MISTAKE_CHANCE }),
            (BotName::Parasite, Some(chance)) if (0.0..=1.0).contains(&chance) => {
                Ok(Bot::Parasite { mistake_chance: chance })
            }
            (BotName::Parasite, Some(chance)) => Err(format!("mistake_chance must be from 0 to 1, not {chance}")),
            (_, Some(_)) => Err("only the parasite bot takes a mistake_chance".into()),
        }
    }
}

/// Documented by hand: only the parasite bot takes a `mistake_chance`, which one
/// struct cannot say to the schema generator.
impl utoipa::PartialSchema for OpponentRequest {
    fn schema() -> RefOr<Schema> {
        let bot = |names: &[&str]| {
            ObjectBuilder::new()
                .schema_type(Type::String)
                .enum_values(Some(names.iter().copied()))
                .description(Some("Which bot."))
        };
        let parasite = ObjectBuilder::new()
            .property("bot", bot(&["parasite"]))
            .property(
                "mistake_chance",
                ObjectBuilder::new()
                    .schema_type(SchemaType::from_iter([Type::Number, Type::Null]))
                    .minimum(Some(0.0))
                    .maximum(Some(1.0))
                    .description(Some(
                        "The probability of a random move instead of its own, 0-1; default (or null) 0.1.",
                    )),
            )
            .required("bot")
            .additional_properties(Some(AdditionalProperties::FreeForm(false)));
        let others = ObjectBuilder::new()
            .property("bot", bot(&["random", "perfect"]))
            .required("bot")
            .additional_properties(Some(AdditionalProperties::FreeForm(false)));
        OneOfBuilder::new()
            .item(parasite)
            .item(others)
            .description(Some("The bot to play against; only `parasite` takes a `mistake_chance`."))
            .into()
    }
}

impl ToSchema for OpponentRequest {}

/// `POST /games/{id}/moves`: the next move's two squares.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"squares": [0, 4]}))]
pub(crate) struct MoveRequest {
    /// Two different squares 0-8 without a classical mark; the same square twice
    /// only for the last open square (X's move 9).
    #[schema(schema_with = two_squares)]
    #[serde(deserialize_with = "crate::api::extract::two_whole_numbers")]
    pub squares: [i64; 2],
}

/// `POST /games/{id}/collapse`: "move `move` ends in square `square`".
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"move": 3, "square": 0}))]
pub(crate) struct CollapseRequest {
    /// Any move of the cycle; usually the closing move.
    #[serde(rename = "move", deserialize_with = "crate::api::extract::whole_number")]
    #[schema(minimum = 1, maximum = 9)]
    pub move_number: i64,
    /// One of that move's two squares.
    #[serde(deserialize_with = "crate::api::extract::whole_number")]
    #[schema(minimum = 0, maximum = 8)]
    pub square: i64,
}

/// The schema of a move's squares: two squares 0-8.
fn two_squares() -> Array {
    ArrayBuilder::new()
        .items(ObjectBuilder::new().schema_type(Type::Integer).minimum(Some(0)).maximum(Some(8)))
        .min_items(Some(2))
        .max_items(Some(2))
        .description(Some(
            "Two different squares 0-8 without a classical mark; the same square twice only for the last open square (X's move 9).",
        ))
        .build()
}

impl MoveRequest {
    /// The engine action, with each square checked.
    pub fn action(&self) -> Result<Action, crate::engine::RuleError> {
        let [a, b] = self.squares;
        Ok(Action::Move { squares: [Square::try_from(a)?, Square::try_from(b)?] })
    }
}

impl CollapseRequest {
    /// The engine action. A move number beyond any game's is clamped to one that
    /// is still no move, so that the engine judges it by its own rules.
    pub fn action(&self) -> Result<Action, crate::engine::RuleError> {
        let move_number = u8::try_from(self.move_number.clamp(0, i64::from(u8::MAX))).expect("clamped to a u8");
        Ok(Action::Collapse { move_number, square: Square::try_from(self.square)? })
    }
}

/// An action as a puzzle's attempt takes it: a move or a collapse choice, with
/// the fields `moves` and `collapse` take, named by `kind`, as hints and legal
/// actions write them (so that one of those can be sent back as it is; any
/// other field is ignored).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(crate) enum ActionRequest {
    /// A move: `{"kind": "move", "squares": [a, b]}`.
    Move {
        /// As `moves` takes them.
        #[schema(schema_with = two_squares)]
        #[serde(deserialize_with = "crate::api::extract::two_whole_numbers")]
        squares: [i64; 2],
    },
    /// A collapse choice: `{"kind": "collapse", "move": m, "square": s}`.
    Collapse {
        /// Any move of the cycle, as `collapse` takes it.
        #[serde(rename = "move", deserialize_with = "crate::api::extract::whole_number")]
        #[schema(minimum = 1, maximum = 9)]
        move_number: i64,
        /// One of that move's two squares.
        #[serde(deserialize_with = "crate::api::extract::whole_number")]
        #[schema(minimum = 0, maximum = 8)]
        square: i64,
    },
}

impl ActionRequest {
    /// The engine action, checked as `moves` and `collapse` check theirs.
    pub fn action(&self) -> Result<Action, crate::engine::RuleError> {
        match *self {
            ActionRequest::Move { squares } => MoveRequest { squares }.action(),
            ActionRequest::Collapse { move_number, square } => CollapseRequest { move_number, square }.action(),
        }
    }
}

/// `POST /puzzles/{id}/attempts` and `POST /puzzles/{id}/attempts/{attempt}`:
/// the next action of the puzzle's side.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"action": {"kind": "move", "squares": [2, 8]}}))]
pub(crate) struct AttemptRequest {
    /// The action.
    pub action: ActionRequest,
}
