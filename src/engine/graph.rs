//! The entanglement graph: squares are vertices, unresolved moves are edges.
//!
//! Two moves on the same two squares are two edges (a multigraph), so a 2-cycle is
//! a cycle like any other. Before a move the graph is always a forest: every cycle is
//! collapsed as soon as it closes.

use super::board::{MoveNumber, Square};
use super::moves::Move;
use super::stack::Stack;

/// The moves on the path from `from` to `to` through the unresolved moves, in path
/// order, or `None` when the two squares are not connected.
///
/// In a forest the path is unique, so a move between `from` and `to` closes the
/// cycle made of this path and itself.
pub(crate) fn path_between(moves: &[Move], from: Square, to: Square) -> Option<Stack<MoveNumber, 9>> {
    // Search from `from`, remembering the move that reached each square, then walk
    // those moves back from `to`. The order of the search does not matter in a forest.
    let mut reached_by: [Option<&Move>; 9] = [None; 9];
    let mut visited = [false; 9];
    visited[from.index()] = true;
    let mut queue: Stack<Square, 9> = Stack::default();
    queue.push(from);
    while let Some(square) = queue.pop() {
        for unresolved in moves.iter().filter(|m| m.landed.is_none()) {
            if let Some(next) = unresolved.other_square(square)
                && !visited[next.index()]
            {
                visited[next.index()] = true;
                reached_by[next.index()] = Some(unresolved);
                queue.push(next);
            }
        }
    }
    if !visited[to.index()] {
        return None;
    }
    let mut path: Stack<MoveNumber, 9> = Stack::default();
    let mut square = to;
    while let Some(step) = reached_by[square.index()] {
        path.push(step.move_number);
        square = step.other_square(square).expect("the move that reached a square touches it");
    }
    path.reverse();
    Some(path)
}

/// Every unresolved move connected to `square`, in move order.
pub(crate) fn component(moves: &[Move], square: Square) -> Stack<MoveNumber, 9> {
    let mut in_component = [false; 9];
    in_component[square.index()] = true;
    // Grow until no unresolved move joins a new square: at most nine rounds.
    loop {
        let mut grew = false;
        for unresolved in moves.iter().filter(|m| m.landed.is_none()) {
            let [a, b] = unresolved.squares;
            if in_component[a.index()] != in_component[b.index()] {
                in_component[a.index()] = true;
                in_component[b.index()] = true;
                grew = true;
            }
        }
        if !grew {
            break;
        }
    }
    moves.iter().filter(|m| m.landed.is_none() && in_component[m.squares[0].index()]).map(|m| m.move_number).collect()
}
