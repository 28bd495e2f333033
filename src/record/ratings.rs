//! The words of ratings: a rated game's end as its write carries it, and a
//! player's ratings as the store keeps them. Pure, as the rest of the record.

use jiff::Timestamp;

use super::{GameId, PlayerId};
use crate::bot::Bot;
use crate::engine::{GameResult, Variant};
use crate::rating::{Rating, Standing};

/// Who a rated game rates on one side: a player, or a bot, which is a rated
/// player of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rater {
    /// A player who holds the seat.
    Player(PlayerId),
    /// The bot that holds it, by its level's name.
    Bot(&'static str),
}

impl Rater {
    /// The bot `bot` as a rater, if it plays rated games: the parasite bot at
    /// its default mistake chance alone, so that its rating is of one strength.
    pub fn bot(bot: Bot) -> Option<Rater> {
        bot.rated().map(|bot| Rater::Bot(bot.code()))
    }
}

/// The end of a rated game, which the write that ends it rates in the same
/// transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RatedEnd {
    /// The variant, whose ratings change.
    pub variant: Variant,
    /// Who holds X.
    pub x: Rater,
    /// Who holds O.
    pub o: Rater,
    /// How it ended: a win, a loss or a draw (an aborted game is not rated).
    pub result: GameResult,
    /// When it ended.
    pub ended_at: Timestamp,
}

/// A player's rating in one variant, as shown.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VariantRating {
    /// The variant.
    pub variant: Variant,
    /// The rating as of the player's last rated game, or the start's.
    pub standing: Standing,
}

/// A rated game's player's rating, as its view and a listing show it: before
/// the game (as stored when it was rated, or, while it goes on, as stored
/// now), and once it is rated, what it changed by.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SeatRating {
    /// The rating before the game.
    pub rating: f64,
    /// Its deviation.
    pub deviation: f64,
    /// The rating's change, once the game is rated.
    pub rating_diff: Option<f64>,
}

/// What a rated game did to one player's rating.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RatingChange {
    /// The game.
    pub game_id: GameId,
    /// The player's rating as stored before it.
    pub before: Rating,
    /// After it.
    pub after: Rating,
    /// When the game ended.
    pub rated_at: Timestamp,
}

/// The ratings a rated seek pairs with, both ends included: its partner's
/// rating in the variant must lie inside, as its player's must lie inside the
/// partner's own range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RatingRange {
    /// The lowest rating it pairs with.
    pub min: i64,
    /// The highest.
    pub max: i64,
}
