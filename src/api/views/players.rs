//! Players as a client sees them, and the bodies that create them.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::{ChallengeView, GameSummary, PlayerName, VariantName};
use crate::engine::{Player, Variant};
use crate::rating::Rating;
use crate::record::{GameId, PlayerEventKind, RatingChange, SeatRating, StoredPlayer, Username, stamp};
use crate::service::{About, ListedBot, PlayerEvent, Profile};

/// `POST /players`: a new player. The name is optional: without one the server
/// picks a readable one.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"name": "alice"}))]
pub(crate) struct CreatePlayerRequest {
    /// 3-20 letters, digits, `_` or `-`, unique regardless of case.
    #[serde(default)]
    #[schema(pattern = "^[A-Za-z0-9_-]{3,20}$")]
    pub name: Option<String>,
}

/// A player as anyone may see them.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({"name": "alice", "bot": false, "created_at": "2026-12-03T10:15:02.120Z",
    "games": {"played": 12, "won": 7, "lost": 3, "drawn": 2, "aborted": 1},
    "ratings": {"measurement": {"rating": 1612.4, "deviation": 84.1, "volatility": 0.0599, "provisional": false,
        "games": 11},
        "player_choice": {"rating": 1500.0, "deviation": 350.0, "volatility": 0.06, "provisional": true, "games": 0}},
    "puzzle_ratings": {"measurement": {"rating": 1500.0, "deviation": 350.0, "provisional": true, "attempts": 0},
        "player_choice": {"rating": 1607.2, "deviation": 296.6, "provisional": true, "attempts": 1}}}))]
pub(crate) struct PlayerView {
    /// The player's name.
    pub name: String,
    /// Whether a program plays for the player: one of the server's bots
    /// (`random`, `parasite`, `perfect`), or a bot account.
    pub bot: bool,
    /// When the player was created (RFC 3339, UTC).
    pub created_at: String,
    /// How their finished games ended for them.
    pub games: ResultsView,
    /// Their Glicko-2 rating in each variant, as it stands now.
    pub ratings: RatingsView,
    /// Their puzzle rating in each variant, as it stands now: solving a
    /// puzzle is a win against it, failing it a loss.
    pub puzzle_ratings: PuzzleRatingsView,
}

/// A player's puzzle rating in each variant.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct PuzzleRatingsView {
    /// In `measurement`.
    pub measurement: PuzzleRatingView,
    /// In `player_choice`.
    pub player_choice: PuzzleRatingView,
}

/// A puzzle rating (Glicko-2) as it stands now: it starts as a game rating
/// does, and only a player's first attempt at a puzzle changes it.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct PuzzleRatingView {
    /// The rating.
    pub rating: f64,
    /// Its deviation: how sure it is, lower being surer.
    pub deviation: f64,
    /// Whether it is provisional: a deviation of 110 or more.
    pub provisional: bool,
    /// How many rated attempts it counts.
    pub attempts: i64,
}

/// A player's rating in each variant.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct RatingsView {
    /// In `measurement`.
    pub measurement: RatingView,
    /// In `player_choice`.
    pub player_choice: RatingView,
}

/// A Glicko-2 rating as it stands now: it starts at 1500, deviation 350,
/// volatility 0.06, and its deviation grows again with every rating period
/// (`RATING_PERIOD_DAYS`) without a rated game.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct RatingView {
    /// The rating.
    pub rating: f64,
    /// Its deviation: how sure it is, lower being surer.
    pub deviation: f64,
    /// Its volatility: how much the player's strength is expected to vary.
    pub volatility: f64,
    /// Whether it is provisional: a deviation of 110 or more (shown with a "?").
    pub provisional: bool,
    /// How many rated games it counts.
    pub games: i64,
}

impl RatingView {
    /// The view of `rating`, which counts `games` rated games.
    pub fn new(rating: Rating, games: i64) -> RatingView {
        RatingView {
            rating: rating.rating,
            deviation: rating.deviation,
            volatility: rating.volatility,
            provisional: rating.is_provisional(),
            games,
        }
    }
}

/// A rated game's player's rating: before the game (as it stood when the game
/// was rated; until then, as it stands), and its change once rated, as
/// lichess shows them.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({"rating": 1612.4, "deviation": 84.1, "provisional": false, "rating_diff": -9.7}))]
pub struct SeatRatingView {
    /// The rating before the game.
    pub rating: f64,
    /// Its deviation.
    pub deviation: f64,
    /// Whether it was provisional: a deviation of 110 or more.
    pub provisional: bool,
    /// What the game changed it by, once it ended rated; null until then,
    /// and for an aborted game.
    #[schema(required = true)]
    pub rating_diff: Option<f64>,
}

impl SeatRatingView {
    /// The view of seat `player`'s rating among a game's `ratings` (X's, O's).
    pub fn of(ratings: &[Option<SeatRating>; 2], player: Player) -> Option<SeatRatingView> {
        let SeatRating { rating, deviation, rating_diff } = ratings[usize::from(player == Player::O)]?;
        let provisional = Rating { rating, deviation, volatility: Rating::START.volatility }.is_provisional();
        Some(SeatRatingView { rating, deviation, provisional, rating_diff })
    }
}

/// Counts of a player's finished games, by how they ended for them.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct ResultsView {
    /// Finished and not aborted: won, lost and drawn together.
    pub played: u64,
    /// Won: by the points, a resignation, a timeout or a claim of a game walked away from.
    pub won: u64,
    /// Lost.
    pub lost: u64,
    /// Drawn.
    pub drawn: u64,
    /// Called off: nobody won.
    pub aborted: u64,
}

/// A rating of `ratings` in `variant` and what it counts; the start's where there is none.
fn in_variant(ratings: &[(Variant, Rating, i64)], variant: Variant) -> (Rating, i64) {
    ratings.iter().find(|(of, ..)| *of == variant).map_or((Rating::START, 0), |&(_, rating, n)| (rating, n))
}

impl RatingsView {
    /// The view of `ratings`, each variant's with how many rated games it counts.
    fn new(ratings: &[(Variant, Rating, i64)]) -> RatingsView {
        let rating_in = |variant: Variant| {
            let (rating, games) = in_variant(ratings, variant);
            RatingView::new(rating, games)
        };
        RatingsView { measurement: rating_in(Variant::Measurement), player_choice: rating_in(Variant::PlayerChoice) }
    }
}

impl PlayerView {
    /// The view of `profile`.
    pub fn new(profile: &Profile) -> PlayerView {
        let Profile { player, results, ratings, puzzle_ratings } = profile;
        let puzzle_rating_in = |variant: Variant| {
            let (rating, attempts) = in_variant(puzzle_ratings, variant);
            PuzzleRatingView {
                rating: rating.rating,
                deviation: rating.deviation,
                provisional: rating.is_provisional(),
                attempts,
            }
        };
        PlayerView {
            name: player.name.to_string(),
            bot: player.bot,
            created_at: stamp(player.created_at),
            games: ResultsView {
                played: results.won + results.lost + results.drawn,
                won: results.won,
                lost: results.lost,
                drawn: results.drawn,
                aborted: results.aborted,
            },
            ratings: RatingsView::new(ratings),
            puzzle_ratings: PuzzleRatingsView {
                measurement: puzzle_rating_in(Variant::Measurement),
                player_choice: puzzle_rating_in(Variant::PlayerChoice),
            },
        }
    }
}

/// A new player, and their token.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct CreatedPlayer {
    /// The player.
    pub player: PlayerView,
    /// The player's token: send it as `Authorization: Bearer <token>`. It is
    /// shown only here (and by a new one, `POST /players/me/token`): the server
    /// keeps just a hash of it.
    pub token: String,
}

/// A player's new token.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct PlayerTokenView {
    /// The new token, shown only here; the old one no longer works.
    pub token: String,
}

/// The name in a request, checked.
///
/// # Errors
/// What is wrong with it.
pub(crate) fn name_of(text: &str) -> Result<Username, String> {
    Username::parse(text).map_err(|error| format!("the name {text:?} is not one: {error}"))
}

/// One event of a player's stream: what happened, and the game or challenge it
/// is about, as it stands when sent.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({"seq": 4, "kind": "game_start", "created_at": "2026-12-03T10:15:02.120Z",
    "game": {"id": 42, "variant": "measurement", "status": "ongoing", "result": "ongoing", "end": null,
        "version": 2, "created_at": "2026-12-03T10:15:02.120Z", "players": {"X": "alice", "O": "bob"}},
    "seat": "X", "challenge": null}))]
pub(crate) struct PlayerEventView {
    /// The event's number among the player's, from 1: its stream id; send it
    /// back as `Last-Event-ID` to resume after it.
    pub seq: i64,
    /// What happened: `game_start`, `game_finish`, `challenge` (one came for
    /// you), `challenge_accepted`, `challenge_declined` (yours was) or
    /// `challenge_cancelled` (one sent to you was).
    pub kind: PlayerEventKindName,
    /// When it happened (RFC 3339, UTC).
    pub created_at: String,
    /// The game, for `game_start` and `game_finish`; else null.
    #[schema(required = true)]
    pub game: Option<GameSummary>,
    /// Your seat in that game; else null.
    #[schema(required = true)]
    pub seat: Option<PlayerName>,
    /// The challenge, for the challenge events; else null.
    #[schema(required = true)]
    pub challenge: Option<ChallengeView>,
}

/// What happened to a player.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum PlayerEventKindName {
    /// A game of yours started: both seats are taken.
    GameStart,
    /// A game of yours finished.
    GameFinish,
    /// A challenge came for you.
    Challenge,
    /// A challenge you sent was accepted: its `game_id` is the game.
    ChallengeAccepted,
    /// A challenge you sent was declined.
    ChallengeDeclined,
    /// A challenge sent to you was cancelled.
    ChallengeCancelled,
}

impl From<PlayerEventKind> for PlayerEventKindName {
    fn from(kind: PlayerEventKind) -> PlayerEventKindName {
        match kind {
            PlayerEventKind::GameStart => PlayerEventKindName::GameStart,
            PlayerEventKind::GameFinish => PlayerEventKindName::GameFinish,
            PlayerEventKind::Challenge => PlayerEventKindName::Challenge,
            PlayerEventKind::ChallengeAccepted => PlayerEventKindName::ChallengeAccepted,
            PlayerEventKind::ChallengeDeclined => PlayerEventKindName::ChallengeDeclined,
            PlayerEventKind::ChallengeCancelled => PlayerEventKindName::ChallengeCancelled,
        }
    }
}

impl PlayerEventView {
    /// The view of `event`, one of `player`'s, at `now`.
    pub fn new(event: &PlayerEvent, about: &About, player: &Username, now: jiff::Timestamp) -> PlayerEventView {
        let (game, seat, challenge) = match about {
            About::Game(game) => {
                let seat = game.holders.iter().find(|(_, name)| name == player).map(|&(seat, _)| seat.into());
                (Some(GameSummary::from(game)), seat, None)
            }
            About::Challenge(challenge) => (None, None, Some(ChallengeView::new(challenge, now))),
        };
        PlayerEventView {
            seq: event.event.seq,
            kind: event.event.kind.into(),
            created_at: stamp(event.event.created_at),
            game,
            seat,
            challenge,
        }
    }
}

/// A player's rating history in a variant: one point for each rated game.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({"player": "alice", "variant": "measurement", "points": [
    {"game_id": 42, "rating": 1662.3, "deviation": 290.3, "volatility": 0.06, "rating_diff": 162.3,
        "rated_at": "2026-12-03T10:25:14.031Z"}], "next_cursor": null}))]
pub(crate) struct RatingHistory {
    /// The player's name.
    pub player: String,
    /// The variant.
    pub variant: VariantName,
    /// One point for each rated game of the page, in the order they were rated.
    pub points: Vec<RatingPointView>,
    /// The `cursor` of the page of the points before these; null on the page
    /// of the first.
    #[schema(required = true)]
    pub next_cursor: Option<String>,
}

/// A rated game's point of a rating history: the rating after it.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct RatingPointView {
    /// The game.
    #[schema(value_type = i64)]
    pub game_id: GameId,
    /// The rating after it.
    pub rating: f64,
    /// Its deviation.
    pub deviation: f64,
    /// Its volatility.
    pub volatility: f64,
    /// What the game changed the rating by.
    pub rating_diff: f64,
    /// When the game ended (RFC 3339, UTC).
    pub rated_at: String,
}

impl RatingHistory {
    /// The page of `player`'s history in `variant` of `changes`, each with its
    /// number, before the page of `next_cursor`.
    pub fn new(
        player: &Username,
        variant: Variant,
        changes: &[(i64, RatingChange)],
        next_cursor: Option<String>,
    ) -> RatingHistory {
        RatingHistory {
            next_cursor,
            player: player.to_string(),
            variant: variant.into(),
            points: changes
                .iter()
                .map(|(_, change)| RatingPointView {
                    game_id: change.game_id,
                    rating: change.after.rating,
                    deviation: change.after.deviation,
                    volatility: change.after.volatility,
                    rating_diff: change.after.rating - change.before.rating,
                    rated_at: stamp(change.rated_at),
                })
                .collect(),
        }
    }
}

/// A variant's leaderboard: the best players whose ratings are not
/// provisional, bots among them.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({"variant": "measurement", "players": [
    {"rank": 1, "name": "perfect", "bot": true, "rating": 2208.5, "deviation": 45.2, "games": 640},
    {"rank": 2, "name": "alice", "bot": false, "rating": 1712.0, "deviation": 71.9, "games": 38}]}))]
pub(crate) struct Leaderboard {
    /// The variant.
    pub variant: VariantName,
    /// At most 100, best first.
    pub players: Vec<LeaderView>,
}

/// A player on a leaderboard.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct LeaderView {
    /// Their place, from 1.
    pub rank: usize,
    /// Their name.
    pub name: String,
    /// Whether they are one of the server's bots.
    pub bot: bool,
    /// Their rating as it stands now.
    pub rating: f64,
    /// Its deviation, below 110.
    pub deviation: f64,
    /// How many rated games it counts.
    pub games: i64,
}

impl Leaderboard {
    /// The leaderboard of `variant`, of `leaders`, best first.
    pub fn new(variant: Variant, leaders: &[(StoredPlayer, Rating, i64)]) -> Leaderboard {
        Leaderboard {
            variant: variant.into(),
            players: leaders
                .iter()
                .zip(1..)
                .map(|((player, rating, games), rank)| LeaderView {
                    rank,
                    name: player.name.to_string(),
                    bot: player.bot,
                    rating: rating.rating,
                    deviation: rating.deviation,
                    games: *games,
                })
                .collect(),
        }
    }
}

/// A page of bots, by name.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct BotList {
    /// The bots, in the order of their names regardless of case.
    pub bots: Vec<BotView>,
    /// The `cursor` of the next page; null on the last.
    #[schema(required = true)]
    pub next_cursor: Option<String>,
}

/// A bot: one of the server's, or a bot account, which a program plays
/// through the API.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({"name": "perfect", "bot_account": false, "online": true,
    "ratings": {"measurement": {"rating": 1500.0, "deviation": 350.0, "volatility": 0.06, "provisional": true,
        "games": 0},
        "player_choice": {"rating": 1832.5, "deviation": 61.3, "volatility": 0.0598, "provisional": false,
        "games": 40}}}))]
pub(crate) struct BotView {
    /// Its name: challenge it by this name.
    pub name: String,
    /// Whether it is a bot account; else it is one of the server's own
    /// (`random`, `parasite`, `perfect`), which answer a challenge at once.
    pub bot_account: bool,
    /// Whether it is online: the server's are always; a bot account when seen
    /// within the last 30 s, which its event stream held open keeps it.
    pub online: bool,
    /// Its Glicko-2 rating in each variant, as it stands now.
    pub ratings: RatingsView,
}

impl BotView {
    /// The view of `bot`.
    pub fn new(bot: &ListedBot) -> BotView {
        BotView {
            name: bot.player.name.to_string(),
            bot_account: bot.player.bot_account(),
            online: bot.online,
            ratings: RatingsView::new(&bot.ratings),
        }
    }
}
