//! The opening book made: every book position solved by the search, written in
//! the format [`super::book`] reads. Above the search, which reads the book.

use std::collections::BTreeMap;

use super::book::{BOOK_MOVES, ENTRY, FORMAT, HEADER, MAGIC, SCALE, header_bytes};
use super::perfect::Solver;
use super::symmetry::canonical_key;
use super::value::action_code;
use crate::engine::{Actor, Game, Rules};

/// The most positions the book's solver remembers before it starts afresh.
const TABLE_LIMIT: usize = 30_000_000;

/// Every position under `rules` with at most [`BOOK_MOVES`] moves placed where a
/// player is to act, one per symmetry class, by key.
fn positions(rules: Rules) -> BTreeMap<u64, Game> {
    let mut found = BTreeMap::new();
    let mut unexplored = vec![Game::new(rules)];
    while let Some(game) = unexplored.pop() {
        let Some(actor) = game.actor_to_act() else { continue };
        let (key, _) = canonical_key(&game);
        if found.contains_key(&key) {
            continue;
        }
        for action in game.legal_actions() {
            let mut next = game;
            next.play(actor, action).expect("a legal action is accepted");
            if next.moves().len() <= BOOK_MOVES {
                unexplored.push(next);
            }
        }
        // The measurement decides at once: nobody ever asks for its action.
        if actor != Actor::Measurement {
            found.insert(key, game);
        }
    }
    found
}

/// Solves every book position under `rules` and returns the book's bytes. Calls
/// `progress(done, total)` as it goes; it takes minutes.
pub fn build(rules: Rules, mut progress: impl FnMut(usize, usize)) -> Vec<u8> {
    let positions = positions(rules);
    let mut bytes = Vec::with_capacity(HEADER + positions.len() * ENTRY);
    bytes.extend_from_slice(MAGIC);
    bytes.push(FORMAT);
    bytes.extend_from_slice(&header_bytes(rules));
    bytes
        .extend_from_slice(&u32::try_from(positions.len()).expect("a book of fewer than 2^32 positions").to_le_bytes());
    // One solver for many: the positions share most of their subtrees. It starts
    // afresh when its table would outgrow a few gigabytes.
    let mut solver = Solver::default();
    for (done, (key, game)) in positions.iter().enumerate() {
        if solver.remembered() > TABLE_LIMIT {
            solver = Solver::default();
        }
        let solution = solver.solve(game);
        let (_, symmetry) = canonical_key(game);
        bytes.extend_from_slice(&key.to_le_bytes());
        bytes.push(u8::try_from(action_code(symmetry.apply(solution.action))).expect("action codes are below 90"));
        for number in [solution.value.points, solution.value.haste] {
            let scaled = number * SCALE;
            assert!(scaled.fract() == 0.0 && scaled.abs() <= f64::from(i16::MAX), "{number} does not fit the book");
            #[expect(clippy::cast_possible_truncation, reason = "a whole number within i16's range, asserted above")]
            bytes.extend_from_slice(&(scaled as i16).to_le_bytes());
        }
        progress(done + 1, positions.len());
    }
    bytes
}

/// The positions of the book of `rules` whose solution the search finds within a
/// few milliseconds: those with exactly [`BOOK_MOVES`] moves placed.
pub fn deepest_positions(rules: Rules) -> impl Iterator<Item = Game> {
    positions(rules).into_values().filter(|game| game.moves().len() == BOOK_MOVES)
}
