//! The opening book: the perfect solution of every position with at most
//! [`BOOK_MOVES`] moves placed, one per symmetry class, computed once by the
//! solver and compiled into the binary. The early positions are the slowest to
//! search and the fewest, so the book answers them at once and the search does
//! the rest.
//!
//! One book for each variant and scoring. Regenerate one with `qttt book
//! player_choice data/book-player_choice-goff.bin` (likewise for `measurement`, and
//! `--scoring complete_win` or `narrow_win` with the file named for it) after any
//! change to the rules or the solver.
//!
//! The file: the bytes `QTTTBOOK`, a version byte, the variant's byte (0 for
//! `player_choice`, 1 for `measurement`), the scoring's (0 `goff`, 1
//! `complete_win`, 2 `narrow_win`), the entry count as a little-endian u32, then
//! the entries sorted by key, 13 bytes each: the position's key (u64 LE), the
//! best action as it reads in the key's orientation (one byte: a move `9a + b`, a
//! collapse choice `81 + square`), and the value's points and haste in 1/1024ths
//! (two i16 LE).

use super::symmetry::canonical_key;
use super::value::{Solution, Value};
use crate::engine::{Action, Game, Rules, Square, Variant};

/// The book holds every position with at most this many moves placed.
pub const BOOK_MOVES: usize = 3;

pub(super) const MAGIC: &[u8; 8] = b"QTTTBOOK";
pub(super) const FORMAT: u8 = 2;
pub(super) const HEADER: usize = 8 + 1 + 1 + 1 + 4;
pub(super) const ENTRY: usize = 8 + 1 + 2 + 2;
/// Values are stored in 1/1024ths: exact for every value a game can have.
pub(super) const SCALE: f64 = 1024.0;

/// The books by variant (as [`header_bytes`] numbers them), then by scoring (as
/// `Scoring` numbers them).
static BOOKS: [[&[u8]; 3]; 2] = [
    [
        include_bytes!("../../data/book-player_choice-goff.bin"),
        include_bytes!("../../data/book-player_choice-complete_win.bin"),
        include_bytes!("../../data/book-player_choice-narrow_win.bin"),
    ],
    [
        include_bytes!("../../data/book-measurement-goff.bin"),
        include_bytes!("../../data/book-measurement-complete_win.bin"),
        include_bytes!("../../data/book-measurement-narrow_win.bin"),
    ],
];

/// The best action of `game` and its value, if the book holds its position.
pub fn lookup(game: &Game) -> Option<Solution> {
    if game.moves().len() > BOOK_MOVES {
        return None;
    }
    let entries = &book_of(game.rules())[HEADER..];
    let (key, symmetry) = canonical_key(game);
    let count = entries.len() / ENTRY;
    let key_at = |index: usize| u64::from_le_bytes(entries[index * ENTRY..][..8].try_into().expect("8 bytes"));
    // Binary search over the sorted keys.
    let (mut low, mut high) = (0, count);
    while low < high {
        let middle = (low + high) / 2;
        if key_at(middle) < key {
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    if low == count || key_at(low) != key {
        return None;
    }
    let entry = &entries[low * ENTRY + 8..][..ENTRY - 8];
    let number = |at: usize| f64::from(i16::from_le_bytes([entry[at], entry[at + 1]])) / SCALE;
    let action = decode(entry[0], game)?;
    Some(Solution { action: symmetry.undo(action), value: Value { points: number(1), haste: number(3) } })
}

/// What is wrong with a book compiled in.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BookError {
    /// Its header names another format, variant or scoring.
    #[error("the {} {} book is not a book of this format, variant and scoring", .0.variant.code(), .0.scoring.code())]
    Header(Rules),
    /// It holds more or fewer bytes than its header's count of entries takes.
    #[error("the {} {} book has {bytes} bytes for {entries} entries", .rules.variant.code(), .rules.scoring.code())]
    Length {
        /// The book's rules.
        rules: Rules,
        /// Its length.
        bytes: usize,
        /// Its header's count.
        entries: usize,
    },
}

/// Checks a book's header against the rules it is compiled in for, and answers
/// how many entries it holds.
///
/// # Errors
/// What is wrong with it.
pub fn check(rules: Rules) -> Result<usize, BookError> {
    let bytes = book_of(rules);
    if bytes.len() < HEADER || &bytes[..8] != MAGIC || bytes[8] != FORMAT || bytes[9..11] != header_bytes(rules) {
        return Err(BookError::Header(rules));
    }
    let entries = u32::from_le_bytes(bytes[11..15].try_into().expect("4 bytes")) as usize;
    if bytes.len() != HEADER + entries * ENTRY {
        return Err(BookError::Length { rules, bytes: bytes.len(), entries });
    }
    Ok(entries)
}

fn book_of(rules: Rules) -> &'static [u8] {
    let [variant, scoring] = header_bytes(rules);
    BOOKS[usize::from(variant)][usize::from(scoring)]
}

/// The header's bytes that name `rules`: the variant's, then the scoring's.
pub(super) fn header_bytes(rules: Rules) -> [u8; 2] {
    let variant = match rules.variant {
        Variant::PlayerChoice => 0,
        Variant::Measurement => 1,
    };
    [variant, rules.scoring as u8]
}

fn decode(code: u8, game: &Game) -> Option<Action> {
    let square = |index: u8| Square::ALL.get(usize::from(index)).copied();
    match code {
        0..=80 => Some(Action::Move { squares: [square(code / 9)?, square(code % 9)?] }),
        _ => Some(Action::Collapse { move_number: game.pending_collapse()?.closing_move, square: square(code - 81)? }),
    }
}
