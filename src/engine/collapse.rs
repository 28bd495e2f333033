//! Collapse: a closed cycle, its two outcomes, and how a choice picks one.

use super::RuleError;
use super::board::{MAX_MOVES, MoveNumber, Square};
use super::graph;
use super::moves::{Actor, Move};
use super::stack::Stack;

/// Where every move of a collapsing component lands under one outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CollapseOption {
    /// The square the closing move ends in; it names the option.
    pub square: Square,
    /// The square each move of the component lands in, in move order.
    pub outcome: Stack<(MoveNumber, Square), 9>,
}

/// The collapse of a closed cycle: pending until it is decided, then kept as
/// history so that a client can show how every collapse went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Collapse {
    /// Who decides: the player who did not close the cycle, or the measurement.
    pub chooser: Actor,
    /// The move that closed the cycle.
    pub closing_move: MoveNumber,
    /// The moves on the cycle, ascending; any of them may be named in a choice.
    pub cycle_moves: Stack<MoveNumber, 9>,
    /// The only two consistent outcomes, by the closing move's squares ascending.
    pub options: [CollapseOption; 2],
    /// The square the closing move ended in, once decided; `None` while pending.
    pub square: Option<Square>,
}

impl Collapse {
    /// The collapse, still pending, of the cycle that `closing_move` (the last of `moves`)
    /// closed along `path`, the moves that already joined its two squares.
    pub(super) fn new(moves: &[Move], path: Stack<MoveNumber, 9>, chooser: Actor) -> Collapse {
        let closing = moves.last().expect("a cycle is closed by a move");
        let component = graph::component(moves, closing.squares[0]);
        let option =
            |square| CollapseOption { square, outcome: outcome(moves, &component, closing.move_number, square) };
        let mut cycle_moves = path;
        cycle_moves.push(closing.move_number);
        cycle_moves.sort_unstable();
        Collapse {
            chooser,
            closing_move: closing.move_number,
            cycle_moves,
            options: [option(closing.squares[0]), option(closing.squares[1])],
            square: None,
        }
    }

    /// The option in which move `move_number` ends in `square`.
    ///
    /// # Errors
    /// [`RuleError::MoveNotInCycle`] when the move is not on the cycle (a stem lands
    /// the same way in both options, so naming it decides nothing);
    /// [`RuleError::SquareNotInMove`] when the square is not one of the move's two.
    pub(crate) fn option_where(&self, move_number: MoveNumber, square: Square) -> Result<&CollapseOption, RuleError> {
        if !self.cycle_moves.contains(&move_number) {
            return Err(RuleError::MoveNotInCycle);
        }
        // On the cycle each move lands in a different square in each option, so
        // naming one of its squares picks exactly one option.
        self.options
            .iter()
            .find(|option| option.outcome.contains(&(move_number, square)))
            .ok_or(RuleError::SquareNotInMove)
    }
}

/// Where every move of `component` lands once `first` is put in `square`: each
/// square that fills pushes every other move touching it into that move's other
/// square, and so on through the cycle and every stem hanging off it.
fn outcome(
    moves: &[Move],
    component: &[MoveNumber],
    first: MoveNumber,
    square: Square,
) -> Stack<(MoveNumber, Square), 9> {
    // Indexed by move number; a search calls this for every cycle it meets.
    let mut landing: [Option<Square>; MAX_MOVES as usize + 1] = Default::default();
    landing[usize::from(first)] = Some(square);
    let mut filled = [square; MAX_MOVES as usize];
    let mut unfilled = 1;
    while unfilled > 0 {
        unfilled -= 1;
        let filled_square = filled[unfilled];
        for &number in component {
            if landing[usize::from(number)].is_some() {
                continue;
            }
            if let Some(other) = moves[usize::from(number) - 1].other_square(filled_square) {
                landing[usize::from(number)] = Some(other);
                filled[unfilled] = other;
                unfilled += 1;
            }
        }
    }
    let landed: Stack<(MoveNumber, Square), 9> =
        (1..=MAX_MOVES).filter_map(|number| landing[usize::from(number)].map(|square| (number, square))).collect();
    debug_assert_eq!(landed.len(), component.len(), "a cycle's component collapses whole");
    landed
}
