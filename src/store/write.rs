//! What a write to a game carries, as the service decides it and each backend
//! writes it.

use crate::engine::Player;
use crate::record::{GameId, PlayerEventKind, PlayerId, RatedEnd, StoredEntry, StoredGame, StoredSeat, Summary};

/// A write to one game's log, decided on the version it was read at: its
/// entries follow that version, and the first of them cannot land if another
/// write took its sequence number first.
#[derive(Debug, Clone, PartialEq)]
pub struct Write {
    /// A seat taken, with the hash of its token and its holder.
    pub seat: Option<StoredSeat>,
    /// The entries to append, numbered and stamped.
    pub entries: Vec<StoredEntry>,
    /// The game's new summary, when the entries change it.
    pub summary: Option<Summary>,
    /// What the write tells the players who hold its seats: their game started
    /// or finished. Written with it, each the next of its player's events.
    pub player_events: Vec<(PlayerId, PlayerEventKind)>,
    /// A rated game's end, which changes its players' ratings in the same
    /// transaction.
    pub rated: Option<RatedEnd>,
}

impl Write {
    /// The version of the game once this write lands.
    pub fn version(&self) -> i64 {
        self.entries.last().map_or(0, |entry| entry.seq)
    }

    /// `game` as it is once this write lands on it.
    pub(super) fn applied_to(&self, mut game: StoredGame) -> StoredGame {
        game.seats.extend(self.seat.clone());
        game.log.extend(self.entries.iter().cloned());
        if let Some(summary) = &self.summary {
            game.summary = summary.clone();
        }
        game
    }
}

/// The entry a new game's creation writes in the game it is the rematch of: by
/// `player`, at sequence number `seq` of game `game_id`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RematchOf {
    /// The finished game.
    pub game_id: GameId,
    /// The entry's place in that game's log: a rematch asked for by both players
    /// at once lands once.
    pub seq: i64,
    /// Who asked for it.
    pub player: Player,
}
