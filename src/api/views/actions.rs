//! Actions as the API shows them: the legal ones, and the best by perfect play.

use serde::Serialize;
use utoipa::ToSchema;

use super::{PlayerName, squares_of};
use crate::engine::{Action, Variant};
use crate::service::{GameRecord, Hint};

/// The best action for the side to act, by exact search.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({"player": "O", "action": {"kind": "collapse", "move": 3, "square": 4}, "value": 0.5,
    "value_kind": "guaranteed"}))]
pub(crate) struct HintView {
    /// The player to act.
    pub player: PlayerName,
    /// The best action: post it to `moves` or `collapse`.
    pub action: ActionView,
    /// The final score difference X minus O that the action leads to with perfect
    /// play from both sides.
    pub value: f64,
    /// `guaranteed` in `player_choice`; in `measurement`, where chance decides
    /// collapses, `expected`: the mean over the measurements' outcomes.
    pub value_kind: ValueKind,
}

/// How sure a hint's or an analysis's values are.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum ValueKind {
    /// Perfect play reaches it whatever the opponent does.
    Guaranteed,
    /// The mean over the measurements' equally likely outcomes.
    Expected,
}

/// An action, as `moves` and `collapse` take it.
#[derive(Debug, Serialize, ToSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ActionView {
    /// A move: post `{"squares": squares}` to `moves`.
    Move {
        /// Its two squares.
        #[schema(min_items = 2, max_items = 2)]
        squares: Vec<u8>,
    },
    /// A collapse choice: post `{"move": move, "square": square}` to `collapse`.
    Collapse {
        /// The move named.
        #[serde(rename = "move")]
        move_number: u8,
        /// The square it ends in.
        square: u8,
    },
}

/// Every action the side to act may take.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({"version": 5, "player": "O",
    "actions": [{"kind": "collapse", "move": 3, "square": 0}, {"kind": "collapse", "move": 3, "square": 4}]}))]
pub(crate) struct LegalActions {
    /// The version of the game they are the legal actions of: send it as
    /// `If-Match` with one of them.
    pub version: i64,
    /// The side to act, whose actions they are; null when nobody acts.
    #[schema(required = true)]
    pub player: Option<PlayerName>,
    /// Every move (36 on the empty board), or the two options of a pending
    /// collapse named by the closing move, or the forced last-square move alone;
    /// none while a seat is free or once the game is over.
    #[schema(max_items = 36)]
    pub actions: Vec<ActionView>,
}

impl From<Action> for ActionView {
    fn from(action: Action) -> ActionView {
        match action {
            Action::Move { squares } => ActionView::Move { squares: squares_of(squares) },
            Action::Collapse { move_number, square } => ActionView::Collapse { move_number, square: square.number() },
        }
    }
}

impl From<&GameRecord> for LegalActions {
    fn from(record: &GameRecord) -> LegalActions {
        // Nobody acts while a seat is free, nor once the game has ended.
        let to_act = record.to_act();
        let actions = to_act.map(|_| record.game.legal_actions()).unwrap_or_default();
        LegalActions {
            version: record.version(),
            player: to_act.map(PlayerName::from),
            actions: actions.into_iter().map(ActionView::from).collect(),
        }
    }
}

impl From<&Hint> for HintView {
    fn from(hint: &Hint) -> HintView {
        HintView {
            player: hint.player.into(),
            action: hint.solution.action.into(),
            value: hint.solution.value.points,
            value_kind: ValueKind::of(hint.variant),
        }
    }
}

impl ValueKind {
    /// How sure the values of a game of `variant` are.
    pub fn of(variant: Variant) -> ValueKind {
        match variant {
            Variant::PlayerChoice => ValueKind::Guaranteed,
            Variant::Measurement => ValueKind::Expected,
        }
    }
}
