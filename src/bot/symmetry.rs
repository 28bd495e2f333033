//! The eight symmetries of the board, and a position's key up to them.

use crate::engine::{Action, Game, Square};

/// Where each square goes under each symmetry: the identity, the three rotations
/// and the four reflections.
const SYMMETRIES: [[usize; 9]; 8] = [
    [0, 1, 2, 3, 4, 5, 6, 7, 8],
    [2, 5, 8, 1, 4, 7, 0, 3, 6],
    [8, 7, 6, 5, 4, 3, 2, 1, 0],
    [6, 3, 0, 7, 4, 1, 8, 5, 2],
    [2, 1, 0, 5, 4, 3, 8, 7, 6],
    [6, 7, 8, 3, 4, 5, 0, 1, 2],
    [0, 3, 6, 1, 4, 7, 2, 5, 8],
    [8, 5, 2, 7, 4, 1, 6, 3, 0],
];

/// One of the eight symmetries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Symmetry(usize);

impl Symmetry {
    fn image(self, square: Square) -> Square {
        Square::ALL[SYMMETRIES[self.0][square.index()]]
    }

    fn preimage(self, square: Square) -> Square {
        let index = SYMMETRIES[self.0].iter().position(|&image| image == square.index());
        Square::ALL[index.expect("a symmetry is a permutation")]
    }

    /// `action` as it reads after the symmetry.
    pub fn apply(self, action: Action) -> Action {
        self.map(action, |square| self.image(square))
    }

    /// `action` as it read before the symmetry.
    pub(crate) fn undo(self, action: Action) -> Action {
        self.map(action, |square| self.preimage(square))
    }

    fn map(self, action: Action, move_square: impl Fn(Square) -> Square) -> Action {
        match action {
            Action::Move { squares: [a, b] } => {
                let (a, b) = (move_square(a), move_square(b));
                Action::Move { squares: [a.min(b), a.max(b)] }
            }
            Action::Collapse { move_number, square } => Action::Collapse { move_number, square: move_square(square) },
        }
    }
}

/// The key of `game`'s position, the same for all its symmetric images, and the
/// symmetry that takes the position to the image the key was read from.
///
/// The key spells every move in order, in base 91: an unresolved move by its two
/// squares (1-81), a landed one by its square (82-90). Every digit is non-zero, so
/// positions with different numbers of moves never share a key. A tenth digit
/// names the scoring, since the same position is worth another value under
/// another: Goff's is 0, so its keys are the bare positions'. Ten digits fit in
/// 64 bits.
pub(crate) fn canonical_key(game: &Game) -> (u64, Symmetry) {
    let scoring = u64::from(game.scoring() as u8);
    (0..SYMMETRIES.len())
        .map(|index| (key_under(game, Symmetry(index)), Symmetry(index)))
        .min_by_key(|&(key, _)| key)
        .map(|(key, symmetry)| (scoring * POSITIONS + key, symmetry))
        .expect("there are eight symmetries")
}

/// One more than the largest key of a position: nine base-91 digits.
const POSITIONS: u64 = 91u64.pow(9);

/// A symmetry that takes the position of `from` to that of `to`, if they are the
/// same position up to symmetry.
pub(crate) fn mapping(from: &Game, to: &Game) -> Option<Symmetry> {
    let target = key_under(to, Symmetry(0));
    (0..SYMMETRIES.len()).map(Symmetry).find(|&symmetry| key_under(from, symmetry) == target)
}

/// The key of `game`'s position as it reads after `symmetry`.
fn key_under(game: &Game, symmetry: Symmetry) -> u64 {
    game.moves().iter().fold(0u64, |key, m| {
        let digit = match m.landed {
            Some(square) => 82 + symmetry.image(square).index(),
            None => {
                let (a, b) = (symmetry.image(m.squares[0]).index(), symmetry.image(m.squares[1]).index());
                1 + a.min(b) * 9 + a.max(b)
            }
        };
        key * 91 + digit as u64
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Actor, Player, Rules, Scoring, Variant};

    fn square(index: usize) -> Square {
        Square::ALL[index]
    }

    #[test]
    fn every_symmetry_maps_lines_to_lines() {
        let lines: Vec<[usize; 3]> = crate::engine::LINES.iter().map(|l| l.map(Square::index)).collect();
        for symmetry in SYMMETRIES {
            for line in &lines {
                let mut image = line.map(|s| symmetry[s]);
                image.sort_unstable();
                assert!(lines.contains(&image), "{line:?} goes to {image:?}");
            }
        }
    }

    #[test]
    fn symmetric_positions_share_a_key_and_others_do_not() {
        let play = |squares: [usize; 2]| {
            let mut game = Game::new(Variant::PlayerChoice);
            let action = Action::Move { squares: squares.map(square) };
            game.play(Actor::Player(Player::X), action).unwrap();
            canonical_key(&game).0
        };
        // Corner and adjacent edge, in all eight orientations.
        let corner_edge = [[0, 1], [0, 3], [1, 2], [2, 5], [5, 8], [7, 8], [6, 7], [3, 6]];
        assert!(corner_edge.iter().all(|&squares| play(squares) == play([0, 1])));
        assert_ne!(play([0, 1]), play([0, 2]));
        assert_ne!(play([0, 1]), play([0, 5]));
    }

    #[test]
    fn the_same_position_under_another_scoring_has_another_key() {
        let keys: Vec<u64> = Scoring::ALL
            .into_iter()
            .map(|scoring| {
                let mut game = Game::new(Rules { variant: Variant::PlayerChoice, scoring });
                game.play(Actor::Player(Player::X), Action::Move { squares: [square(0), square(4)] }).unwrap();
                canonical_key(&game).0
            })
            .collect();
        assert_eq!(keys.len(), 3);
        assert!(keys[0] != keys[1] && keys[1] != keys[2] && keys[0] != keys[2], "{keys:?}");
    }

    #[test]
    fn undo_reverses_apply() {
        for index in 0..8 {
            let symmetry = Symmetry(index);
            let action = Action::Move { squares: [square(1), square(5)] };
            assert_eq!(symmetry.undo(symmetry.apply(action)), action);
            let collapse = Action::Collapse { move_number: 3, square: square(2) };
            assert_eq!(symmetry.undo(symmetry.apply(collapse)), collapse);
        }
    }
}
