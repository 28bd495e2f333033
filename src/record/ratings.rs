//! The words of ratings: a rated game's end as its write carries it, and a
//! player's ratings as the store keeps them. Pure, as the rest of the record.

use jiff::{SignedDuration, Timestamp};

use super::{GameId, PlayerId};
use crate::bot::Bot;
use crate::engine::{GameResult, Player, Variant};
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

impl RatingRange {
    /// Whether `rating` lies inside the range, its bounds included.
    #[expect(clippy::cast_precision_loss, reason = "a rating's bounds are far below 2^53")]
    pub fn holds(self, rating: f64) -> bool {
        (self.min as f64..=self.max as f64).contains(&rating)
    }
}

/// A rated game with a result, as the ratings check replays it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RatedGame {
    /// The game.
    pub id: GameId,
    /// Its variant.
    pub variant: Variant,
    /// Who held X and O: a player, or a bot's own player; none when the seat
    /// has no holder, which a rated game cannot lack.
    pub players: [Option<PlayerId>; 2],
    /// A win, a loss or a draw.
    pub result: GameResult,
    /// When it ended.
    pub ended_at: Timestamp,
    /// Whether X's and O's holders are the server's bots.
    pub server_bots: [bool; 2],
    /// The numbers of X's and O's changes it made, as stored: where it comes
    /// among each player's rated games.
    pub numbers: [Option<i64>; 2],
}

/// A change of a player's rating, numbered among theirs in its variant.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NumberedChange {
    /// The player.
    pub player: PlayerId,
    /// The variant.
    pub variant: Variant,
    /// Its place among the player's changes in the variant, from 1.
    pub number: i64,
    /// The player's seat in its game.
    pub seat: Player,
    /// The change.
    pub change: RatingChange,
}

/// A player's rating in a variant as the ratings table holds it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlayerStanding {
    /// The player.
    pub player: PlayerId,
    /// The variant.
    pub variant: Variant,
    /// The rating as of their last rated game.
    pub standing: Standing,
}

/// Everything the ratings are: the rated games they are derived from, and
/// the changes and ratings written as the games ended.
#[derive(Debug, Clone, PartialEq)]
pub struct RatingsAsStored {
    /// Every rated game with a result, by id.
    pub games: Vec<RatedGame>,
    /// Every change, by player, variant and number.
    pub changes: Vec<NumberedChange>,
    /// Every player's rating in each variant they played rated games in.
    pub ratings: Vec<PlayerStanding>,
}

/// What the ratings are, derived from the rated games as stored, with rating
/// periods of a length: the changes, and the ratings.
pub type Replay = fn(&RatingsAsStored, SignedDuration) -> (Vec<NumberedChange>, Vec<PlayerStanding>);
