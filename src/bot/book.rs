//! The opening book: the perfect solution of every position with at most
//! [`BOOK_MOVES`] moves placed, one per symmetry class, computed once by the
//! solver and compiled into the binary. The early positions are the slowest to
//! search and the fewest, so the book answers them at once and the search does
//! the rest.
//!
//! Regenerate it with `qttt book player_choice data/book-player_choice.bin` (and
//! likewise for `measurement`) after any change to the rules or the solver.
//!
//! The file: the bytes `QTTTBOOK`, a version byte, the variant's byte (0 for
//! `player_choice`, 1 for `measurement`), the entry count as a little-endian u32,
//! then the entries sorted by key, 13 bytes each: the position's key (u64 LE), the
//! best action as it reads in the key's orientation (one byte: a move `9a + b`, a
//! collapse choice `81 + square`), and the value's points and haste in 1/1024ths
//! (two i16 LE).

use super::symmetry::canonical_key;
use super::value::{Solution, Value};
use crate::engine::{Action, Game, Square, Variant};

/// The book holds every position with at most this many moves placed.
pub const BOOK_MOVES: usize = 3;

pub(super) const MAGIC: &[u8; 8] = b"QTTTBOOK";
pub(super) const FORMAT: u8 = 1;
pub(super) const HEADER: usize = 8 + 1 + 1 + 4;
pub(super) const ENTRY: usize = 8 + 1 + 2 + 2;
/// Values are stored in 1/1024ths: exact for every value a game can have.
pub(super) const SCALE: f64 = 1024.0;

static PLAYER_CHOICE: &[u8] = include_bytes!("../../data/book-player_choice.bin");
static MEASUREMENT: &[u8] = include_bytes!("../../data/book-measurement.bin");

/// The best action of `game` and its value, if the book holds its position.
pub fn lookup(game: &Game) -> Option<Solution> {
    if game.moves().len() > BOOK_MOVES {
        return None;
    }
    let entries = &book_of(game.variant())[HEADER..];
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
    /// Its header names another format or variant.
    #[error("the {} book is not a book of this format and variant", .0.code())]
    Header(Variant),
    /// It holds more or fewer bytes than its header's count of entries takes.
    #[error("the {} book has {bytes} bytes for {entries} entries", .variant.code())]
    Length {
        /// The book's variant.
        variant: Variant,
        /// Its length.
        bytes: usize,
        /// Its header's count.
        entries: usize,
    },
}

/// Checks a book's header against the variant it is compiled in for, and
/// answers how many entries it holds.
///
/// # Errors
/// What is wrong with it.
pub fn check(variant: Variant) -> Result<usize, BookError> {
    let bytes = book_of(variant);
    if bytes.len() < HEADER || &bytes[..8] != MAGIC || bytes[8] != FORMAT || bytes[9] != variant_byte(variant) {
        return Err(BookError::Header(variant));
    }
    let entries = u32::from_le_bytes(bytes[10..14].try_into().expect("4 bytes")) as usize;
    if bytes.len() != HEADER + entries * ENTRY {
        return Err(BookError::Length { variant, bytes: bytes.len(), entries });
    }
    Ok(entries)
}

fn book_of(variant: Variant) -> &'static [u8] {
    match variant {
        Variant::PlayerChoice => PLAYER_CHOICE,
        Variant::Measurement => MEASUREMENT,
    }
}

pub(super) fn variant_byte(variant: Variant) -> u8 {
    match variant {
        Variant::PlayerChoice => 0,
        Variant::Measurement => 1,
    }
}

fn decode(code: u8, game: &Game) -> Option<Action> {
    let square = |index: u8| Square::ALL.get(usize::from(index)).copied();
    match code {
        0..=80 => Some(Action::Move { squares: [square(code / 9)?, square(code % 9)?] }),
        _ => Some(Action::Collapse { move_number: game.pending_collapse()?.closing_move, square: square(code - 81)? }),
    }
}
