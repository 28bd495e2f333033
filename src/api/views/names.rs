//! The enums a client sees, mirrored from the engine and the service with the
//! names the API uses: the engine knows nothing of JSON schemas.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::bot::Bot;
use crate::engine::{Actor, GameResult, Player, Scoring, Variant};
use crate::record::{EndReason, Status};

/// A player: X opens and makes the odd moves, O the even ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema, Default)]
pub enum PlayerName {
    /// X.
    #[default]
    X,
    /// O.
    O,
}

impl From<Player> for PlayerName {
    fn from(player: Player) -> PlayerName {
        match player {
            Player::X => PlayerName::X,
            Player::O => PlayerName::O,
        }
    }
}

impl From<PlayerName> for Player {
    fn from(name: PlayerName) -> Player {
        match name {
            PlayerName::X => Player::X,
            PlayerName::O => Player::O,
        }
    }
}

/// Who decides how a closed cycle collapses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema, Default)]
#[serde(rename_all = "snake_case")]
pub enum VariantName {
    /// A simulated quantum measurement, right after the closing move (the default).
    #[default]
    Measurement,
    /// Goff's rule: the player who did not close the cycle chooses.
    PlayerChoice,
}

impl From<Variant> for VariantName {
    fn from(variant: Variant) -> VariantName {
        match variant {
            Variant::Measurement => VariantName::Measurement,
            Variant::PlayerChoice => VariantName::PlayerChoice,
        }
    }
}

impl From<VariantName> for Variant {
    fn from(name: VariantName) -> Variant {
        match name {
            VariantName::Measurement => Variant::Measurement,
            VariantName::PlayerChoice => Variant::PlayerChoice,
        }
    }
}

/// How a game's completed lines score (docs/RULES.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema, Default)]
#[serde(rename_all = "snake_case")]
pub enum ScoringName {
    /// Goff's: the earliest line 1 point, every later line 1/2 (the default).
    #[default]
    Goff,
    /// Ishizeki and Matsuura's complete win: the first line wins 1 to 0; lines
    /// for both players in one collapse are a draw.
    CompleteWin,
    /// Ishizeki and Matsuura's narrow win: the line with the smaller largest
    /// subscript wins 1 to 0.
    NarrowWin,
}

impl From<Scoring> for ScoringName {
    fn from(scoring: Scoring) -> ScoringName {
        match scoring {
            Scoring::Goff => ScoringName::Goff,
            Scoring::CompleteWin => ScoringName::CompleteWin,
            Scoring::NarrowWin => ScoringName::NarrowWin,
        }
    }
}

impl From<ScoringName> for Scoring {
    fn from(name: ScoringName) -> Scoring {
        match name {
            ScoringName::Goff => Scoring::Goff,
            ScoringName::CompleteWin => Scoring::CompleteWin,
            ScoringName::NarrowWin => Scoring::NarrowWin,
        }
    }
}

/// Who acted or decides: a player, or the quantum measurement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
pub enum ActorName {
    /// Player X.
    X,
    /// Player O.
    O,
    /// The measurement of the `measurement` variant.
    #[serde(rename = "measurement")]
    Measurement,
}

impl From<Actor> for ActorName {
    fn from(actor: Actor) -> ActorName {
        match actor {
            Actor::Player(Player::X) => ActorName::X,
            Actor::Player(Player::O) => ActorName::O,
            Actor::Measurement => ActorName::Measurement,
        }
    }
}

/// The outcome of a game; its `status` says where it is in its life, its `end`
/// how it ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ResultName {
    /// Not decided yet: the game waits for a player or is being played.
    Ongoing,
    /// X ended with more points, or O resigned or ran out of time.
    XWins,
    /// O ended with more points, or X resigned or ran out of time.
    OWins,
    /// Equal points: a full board without a line.
    Draw,
    /// Called off before it got going, by a seat holder or because nobody took
    /// the free seat in time: nobody won.
    Aborted,
}

impl From<GameResult> for ResultName {
    fn from(result: GameResult) -> ResultName {
        match result {
            GameResult::Ongoing => ResultName::Ongoing,
            GameResult::XWins => ResultName::XWins,
            GameResult::OWins => ResultName::OWins,
            GameResult::Draw => ResultName::Draw,
            GameResult::Aborted => ResultName::Aborted,
        }
    }
}

/// Why a game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum EndReasonName {
    /// A collapse made a line.
    Lines,
    /// The board filled without a line.
    FullBoard,
    /// A player resigned.
    Resignation,
    /// A player's clock ran out.
    Timeout,
    /// Called off before it got going.
    Aborted,
    /// The player to act walked away, and the other claimed the game.
    Abandoned,
    /// One player offered a draw, and the other accepted it (`end.player`).
    Agreement,
    /// In a clocked game, a player (`end.player`) made no first move in time:
    /// the game is aborted, and unrated.
    NoFirstMove,
}

impl From<EndReason> for EndReasonName {
    fn from(reason: EndReason) -> EndReasonName {
        match reason {
            EndReason::Lines => EndReasonName::Lines,
            EndReason::FullBoard => EndReasonName::FullBoard,
            EndReason::Resignation => EndReasonName::Resignation,
            EndReason::Timeout => EndReasonName::Timeout,
            EndReason::Aborted => EndReasonName::Aborted,
            EndReason::Abandoned => EndReasonName::Abandoned,
            EndReason::Agreement => EndReasonName::Agreement,
            EndReason::NoFirstMove => EndReasonName::NoFirstMove,
        }
    }
}

/// Where a game is in its life; its `result` says who won.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum StatusName {
    /// A seat is free: the game can be joined.
    Waiting,
    /// Both seats are taken and the game goes on.
    Ongoing,
    /// The game is over.
    Finished,
}

impl From<Status> for StatusName {
    fn from(status: Status) -> StatusName {
        match status {
            Status::Waiting => StatusName::Waiting,
            Status::Ongoing => StatusName::Ongoing,
            Status::Finished => StatusName::Finished,
        }
    }
}

impl From<StatusName> for Status {
    fn from(name: StatusName) -> Status {
        match name {
            StatusName::Waiting => Status::Waiting,
            StatusName::Ongoing => Status::Ongoing,
            StatusName::Finished => Status::Finished,
        }
    }
}

impl From<Bot> for BotName {
    fn from(bot: Bot) -> BotName {
        match bot {
            Bot::Random => BotName::Random,
            Bot::Parasite { .. } => BotName::Parasite,
            Bot::Perfect => BotName::Perfect,
        }
    }
}

/// A computer player.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum BotName {
    /// Any legal action, at random.
    Random,
    /// The original app's heuristic, picking at random where it allows: two of its
    /// marked squares in a line, else a square of a line the opponent has two marks
    /// in, else a most entangled square; any two squares with `mistake_chance`.
    Parasite,
    /// Exact search: never ends worse than the game's value.
    Perfect,
}

/// The form of a game stream's events.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum StreamFormat {
    /// Each entry's event carries the whole game right after it.
    #[default]
    Game,
    /// The whole game once, in a first `game` event, then each entry's event
    /// small: the entry, whose turn it is, the clocks, the status and the legal
    /// actions.
    State,
}
