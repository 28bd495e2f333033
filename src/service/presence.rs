//! When a seat's holder counts as present, and when a sighting is written
//! again: the words of presence that the records, the players and the
//! service's reads share.

use std::time::Duration;

use jiff::Timestamp;

use super::time::after;

/// How often a sighting of the same player, or of the same seat's holder, is
/// written: often enough that a player seen within [`PRESENT_FOR`] always has
/// one that recent, rarely enough to cost nothing beside the requests.
pub const SEEN_EVERY: Duration = Duration::from_secs(10);

/// How long a seat's holder counts as present after they were last seen.
pub const PRESENT_FOR: Duration = Duration::from_secs(30);

/// How long the player to act in a rated game without a clock may leave their
/// turn before the other may claim the game, even while they stay present: a
/// rated game is never stalled for ever.
pub const STALLED_AFTER: Duration = Duration::from_secs(24 * 3600);

/// Whether a player last seen at `last_seen_at` is present at `now`.
pub(super) fn is_present(last_seen_at: Option<Timestamp>, now: Timestamp) -> bool {
    last_seen_at.is_some_and(|seen| after(seen, PRESENT_FOR) > now)
}

/// Whether a sighting at `last_seen_at` is to be written again at `now`.
pub(super) fn is_stale(last_seen_at: Option<Timestamp>, now: Timestamp) -> bool {
    last_seen_at.is_none_or(|seen| after(seen, SEEN_EVERY) <= now)
}
