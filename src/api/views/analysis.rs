//! A game's analysis: every action of a player judged by the perfect player.

use serde::Serialize;
use utoipa::ToSchema;

use super::{ActionView, PlayerName, ValueKind, VariantName};
use crate::bot::{Analysis, JudgedAction, PlayerLoss};
use crate::engine::Player;
use crate::record::{Event, GameId};
use crate::service::GameRecord;

/// Every action of a player in a game, in log order, judged by perfect play.
/// Values are the final score difference X minus O that perfect play from both
/// sides reaches from a position: guaranteed in `player_choice`, expected over
/// the measurements in `measurement`.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({"game_id": 42, "variant": "player_choice", "version": 4, "value_kind": "guaranteed",
    "actions": [
        {"seq": 3, "player": "X", "action": {"kind": "move", "squares": [0, 1]}, "value_before": 0.5,
            "best": {"kind": "move", "squares": [0, 8]}, "value_after": 0.0, "loss": 0.5, "measurement": null},
        {"seq": 4, "player": "O", "action": {"kind": "move", "squares": [0, 1]}, "value_before": 0.0,
            "best": {"kind": "move", "squares": [0, 2]}, "value_after": 1.0, "loss": 1.0, "measurement": null}],
    "players": {"X": {"loss": 0.5, "actions": 1, "actions_with_loss": 1},
        "O": {"loss": 1.0, "actions": 1, "actions_with_loss": 1}}}))]
pub(crate) struct AnalysisView {
    /// The game's id.
    #[schema(value_type = i64)]
    pub game_id: GameId,
    /// How cycles collapse in the game.
    pub variant: VariantName,
    /// The game's version the analysis is of.
    pub version: i64,
    /// `guaranteed` in `player_choice`; `expected` in `measurement`.
    pub value_kind: ValueKind,
    /// Every move and collapse choice of a player, in log order. A measurement's
    /// outcome is not an action of its own: the move that closed its cycle
    /// carries it.
    pub actions: Vec<JudgedActionView>,
    /// What each player gave away over the game.
    pub players: PlayersLossView,
}

/// One action of a player, judged.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct JudgedActionView {
    /// The action's entry in the game's log.
    pub seq: i64,
    /// Who took it.
    pub player: PlayerName,
    /// The action as taken.
    pub action: ActionView,
    /// What the position before the action was worth.
    pub value_before: f64,
    /// An action that keeps `value_before`.
    pub best: ActionView,
    /// What the position after the action was worth; after a move that closed a
    /// cycle in `measurement`, the mean of its two outcomes' values.
    pub value_after: f64,
    /// How many points the action gave away, from its player's side: 0 for an
    /// action as good as `best`, never negative.
    pub loss: f64,
    /// In `measurement`, for the move that closed a cycle: its two outcomes;
    /// else null.
    #[schema(required = true)]
    pub measurement: Option<MeasurementView>,
}

/// The measurement of a closed cycle.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({"outcomes": [{"square": 0, "value": 0.25, "happened": false},
    {"square": 4, "value": 0.875, "happened": true}]}))]
pub(crate) struct MeasurementView {
    /// Both outcomes, each with probability 1/2, by the square ascending.
    #[schema(min_items = 2, max_items = 2)]
    pub outcomes: Vec<OutcomeView>,
}

/// One outcome of a measurement.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct OutcomeView {
    /// The square the closing move ends in.
    pub square: u8,
    /// What the position after this outcome is worth.
    pub value: f64,
    /// Whether this is the outcome that was measured.
    pub happened: bool,
}

/// What each player gave away.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct PlayersLossView {
    /// Player X.
    #[serde(rename = "X")]
    pub x: PlayerLossView,
    /// Player O.
    #[serde(rename = "O")]
    pub o: PlayerLossView,
}

/// What one player gave away over the game.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct PlayerLossView {
    /// The sum of the player's losses, in points.
    pub loss: f64,
    /// How many actions the player took.
    pub actions: usize,
    /// How many of them gave something away.
    pub actions_with_loss: usize,
}

impl AnalysisView {
    /// The view of `analysis`, of the game of `record`.
    pub fn new(record: &GameRecord, analysis: &Analysis) -> AnalysisView {
        // The engine's log is the stored log's actions, in order.
        let seqs: Vec<i64> =
            record.stored.log.iter().filter(|entry| matches!(entry.event, Event::Action(_))).map(|e| e.seq).collect();
        AnalysisView {
            game_id: record.stored.id,
            variant: analysis.variant.into(),
            version: record.version(),
            value_kind: ValueKind::of(analysis.variant),
            actions: analysis.actions.iter().map(|judged| JudgedActionView::new(judged, seqs[judged.entry])).collect(),
            players: PlayersLossView { x: analysis.loss_of(Player::X).into(), o: analysis.loss_of(Player::O).into() },
        }
    }
}

impl JudgedActionView {
    fn new(judged: &JudgedAction, seq: i64) -> JudgedActionView {
        JudgedActionView {
            seq,
            player: judged.player.into(),
            action: judged.action.into(),
            value_before: judged.value_before,
            best: judged.best.into(),
            value_after: judged.value_after,
            loss: judged.loss,
            measurement: judged.measurement.map(|measured| MeasurementView {
                outcomes: measured
                    .outcomes
                    .iter()
                    .map(|outcome| OutcomeView {
                        square: outcome.square.number(),
                        value: outcome.value,
                        happened: measured.happened == Some(outcome.square),
                    })
                    .collect(),
            }),
        }
    }
}

impl From<PlayerLoss> for PlayerLossView {
    fn from(lost: PlayerLoss) -> PlayerLossView {
        PlayerLossView { loss: lost.loss, actions: lost.actions, actions_with_loss: lost.actions_with_loss }
    }
}
