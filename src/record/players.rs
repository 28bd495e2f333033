//! A player's record: the identity a person keeps across games (a name and a
//! token, kept only as its hash), the seats they hold, what happens to them (the
//! events of their stream), the challenges they send each other and the seeks
//! that pair them. Pure, as the rest of the record.

use jiff::Timestamp;

use super::{ChallengeId, ClockSettings, GameId, PlayerId, RatingRange, SeekId, StoredGame, VariantRating};
use crate::bot::Bot;
use crate::engine::{Player, Rules, Scoring, Variant};

/// A player's name: 3-20 letters, digits, `_` or `-`, unique regardless of case.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Username(String);

/// Why a text is no name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    /// Too short or too long.
    #[error("a name has 3 to 20 characters")]
    Length,
    /// A character that is none of `A-Z a-z 0-9 _ -`.
    #[error("a name has only letters A-Z and a-z, digits, `_` and `-`")]
    Characters,
}

impl Username {
    /// The fewest characters of a name.
    pub(crate) const MIN_CHARS: usize = 3;
    /// The most.
    pub(crate) const MAX_CHARS: usize = 20;

    /// The name `text` is, if it is one.
    ///
    /// # Errors
    /// [`NameError`] says what is wrong with it.
    pub fn parse(text: &str) -> Result<Username, NameError> {
        if !(Username::MIN_CHARS..=Username::MAX_CHARS).contains(&text.chars().count()) {
            return Err(NameError::Length);
        }
        if !text.bytes().all(|byte| byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'-') {
            return Err(NameError::Characters);
        }
        Ok(Username(text.to_string()))
    }

    /// The name as written.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The name as its uniqueness is judged: in lower case.
    pub fn key(&self) -> String {
        self.0.to_ascii_lowercase()
    }
}

impl std::fmt::Display for Username {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(&self.0)
    }
}

/// A player as stored, without their token's hash.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredPlayer {
    /// The database's id.
    pub id: PlayerId,
    /// Their name.
    pub name: Username,
    /// When they were created.
    pub created_at: Timestamp,
    /// Whether a program plays their games: one of the server's bots, or a
    /// bot account.
    pub bot: bool,
    /// The bot they are, when they are one of the server's bots: a player of
    /// its own, rated at the strength it plays rated games at.
    pub server_bot: Option<Bot>,
}

impl StoredPlayer {
    /// Whether they are a bot account: a program of somebody's plays for them.
    pub fn bot_account(&self) -> bool {
        self.bot && self.server_bot.is_none()
    }
}

/// A bot as the list of bots shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredBot {
    /// The bot's player.
    pub player: StoredPlayer,
    /// When it was last seen: a request with its token, its event stream held open.
    pub last_seen_at: Option<Timestamp>,
    /// Its ratings, in the variants it played rated games in.
    pub ratings: Vec<VariantRating>,
}

/// The player who holds a seat, as a game is read with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Holder {
    /// The player's id.
    pub id: PlayerId,
    /// Their name.
    pub name: Username,
    /// Their token's hash as it is now: it acts for the seat as the seat's own
    /// token does, and a new token replaces it at once.
    pub token_hash: Vec<u8>,
    /// When they were last seen anywhere: a request with their token, their
    /// event stream held open.
    pub last_seen_at: Option<Timestamp>,
    /// Whether they are a bot account.
    pub bot_account: bool,
}

/// A seat taken, as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredSeat {
    /// X or O.
    pub player: Player,
    /// The hash of the seat's own token.
    pub token_hash: Vec<u8>,
    /// The player who took it, if one did; an anonymous seat has none.
    pub holder: Option<Holder>,
    /// When its holder was last seen in this game: a read of it with a token
    /// of the seat, or its live stream held open.
    pub last_seen_at: Option<Timestamp>,
}

impl StoredSeat {
    /// Whether the token hashing to `token_hash` acts for this seat: the seat's
    /// own, or its holder's.
    pub(crate) fn is_held_by(&self, token_hash: &[u8]) -> bool {
        self.token_hash == token_hash || self.holder.as_ref().is_some_and(|holder| holder.token_hash == token_hash)
    }
}

/// What happened to a player, as their event stream tells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlayerEventKind {
    /// A game of theirs started: both seats are taken.
    GameStart,
    /// A game of theirs finished.
    GameFinish,
    /// A challenge came for them.
    Challenge,
    /// A challenge they sent was accepted.
    ChallengeAccepted,
    /// A challenge they sent was declined.
    ChallengeDeclined,
    /// A challenge sent to them was cancelled.
    ChallengeCancelled,
}

impl PlayerEventKind {
    /// Every kind.
    pub const ALL: [PlayerEventKind; 6] = [
        PlayerEventKind::GameStart,
        PlayerEventKind::GameFinish,
        PlayerEventKind::Challenge,
        PlayerEventKind::ChallengeAccepted,
        PlayerEventKind::ChallengeDeclined,
        PlayerEventKind::ChallengeCancelled,
    ];

    /// The name used in the database and the API.
    pub fn code(self) -> &'static str {
        match self {
            PlayerEventKind::GameStart => "game_start",
            PlayerEventKind::GameFinish => "game_finish",
            PlayerEventKind::Challenge => "challenge",
            PlayerEventKind::ChallengeAccepted => "challenge_accepted",
            PlayerEventKind::ChallengeDeclined => "challenge_declined",
            PlayerEventKind::ChallengeCancelled => "challenge_cancelled",
        }
    }
}

/// What a player's event is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Subject {
    /// One of their games.
    Game(GameId),
    /// A challenge they sent or were sent.
    Challenge(ChallengeId),
}

/// A player's event to write: who, what, and what about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct NewPlayerEvent {
    /// The player it happened to.
    pub player: PlayerId,
    /// What happened.
    pub kind: PlayerEventKind,
    /// What it happened to.
    pub subject: Subject,
}

/// A player's event as stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoredPlayerEvent {
    /// Its place among the player's events, from 1: the stream's event id.
    pub seq: i64,
    /// When it happened.
    pub created_at: Timestamp,
    /// What happened.
    pub kind: PlayerEventKind,
    /// What it happened to.
    pub subject: Subject,
}

/// The colour a challenger asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Colour {
    /// X, who opens.
    X,
    /// O.
    O,
    /// Drawn at random when the challenge is accepted.
    Random,
}

impl Colour {
    /// The name the database keeps: a seat's letter, as the API writes it.
    pub fn code(self) -> &'static str {
        match self {
            Colour::X => "X",
            Colour::O => "O",
            Colour::Random => "random",
        }
    }
}

/// Where a challenge stands. The database keeps the first four; an open one
/// past its expiry has expired, which nothing needs to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChallengeStatus {
    /// Waiting for an answer.
    Open,
    /// Accepted: its game started.
    Accepted,
    /// Declined by the challenged player.
    Declined,
    /// Cancelled by the challenger.
    Cancelled,
    /// Not answered in time.
    Expired,
}

impl ChallengeStatus {
    /// Every status the database keeps.
    pub(crate) const STORED: [ChallengeStatus; 4] =
        [ChallengeStatus::Open, ChallengeStatus::Accepted, ChallengeStatus::Declined, ChallengeStatus::Cancelled];

    /// The name used in the database and the API.
    pub fn code(self) -> &'static str {
        match self {
            ChallengeStatus::Open => "open",
            ChallengeStatus::Accepted => "accepted",
            ChallengeStatus::Declined => "declined",
            ChallengeStatus::Cancelled => "cancelled",
            ChallengeStatus::Expired => "expired",
        }
    }
}

/// A game's settings as a challenge or a seek asks for them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Terms {
    /// The collapse rule.
    pub variant: Variant,
    /// How lines score.
    pub scoring: Scoring,
    /// The clock, if the game is to be timed.
    pub clock: Option<ClockSettings>,
    /// Whether the game is rated.
    pub rated: bool,
}

impl Terms {
    /// The rules the game is played by.
    pub fn rules(&self) -> Rules {
        Rules { variant: self.variant, scoring: self.scoring }
    }
}

/// A challenge as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredChallenge {
    /// Its id.
    pub id: ChallengeId,
    /// Who sent it.
    pub challenger: StoredPlayer,
    /// Whom it was sent to.
    pub challenged: StoredPlayer,
    /// The game it asks for.
    pub terms: Terms,
    /// The challenger's colour.
    pub colour: Colour,
    /// Where it stands.
    pub status: ChallengeStatus,
    /// Why it was declined, when the challenged player said.
    pub decline_reason: Option<String>,
    /// The game it started, once accepted.
    pub game_id: Option<GameId>,
    /// When it was sent.
    pub created_at: Timestamp,
    /// When it expires, unless answered before.
    pub expires_at: Timestamp,
    /// When it was answered: accepted, declined or cancelled.
    pub answered_at: Option<Timestamp>,
}

impl StoredChallenge {
    /// Where it stands at `now`: as stored, or expired.
    pub(crate) fn status_at(&self, now: Timestamp) -> ChallengeStatus {
        match self.status {
            ChallengeStatus::Open if now >= self.expires_at => ChallengeStatus::Expired,
            status => status,
        }
    }
}

/// A new challenge, before the database gives it an id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NewChallenge {
    /// Who sends it.
    pub challenger: PlayerId,
    /// Whom to.
    pub challenged: PlayerId,
    /// The game it asks for.
    pub terms: Terms,
    /// The challenger's colour.
    pub colour: Colour,
    /// When it is sent.
    pub created_at: Timestamp,
    /// When it expires.
    pub expires_at: Timestamp,
}

/// Why a challenge was not made: its challenger, or the player it is for,
/// has as many open as they may.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TooMany {
    /// The challenger sent as many as they may.
    Sent,
    /// The player challenged was sent as many as they may be.
    Received,
}

/// How a challenge is closed without a game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Closing {
    /// Declined by the challenged player, perhaps saying why.
    Decline(Option<String>),
    /// Cancelled by the challenger.
    Cancel,
}

/// Where a seek stands. An open one past its expiry has expired, and the
/// server's timer soon writes it so.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeekStatus {
    /// Waiting for a match.
    Open,
    /// Paired into a game.
    Paired,
    /// Cancelled by its player.
    Cancelled,
    /// Not paired in time.
    Expired,
}

impl SeekStatus {
    /// Every status the database keeps.
    pub(crate) const STORED: [SeekStatus; 4] =
        [SeekStatus::Open, SeekStatus::Paired, SeekStatus::Cancelled, SeekStatus::Expired];

    /// The name used in the database and the API.
    pub fn code(self) -> &'static str {
        match self {
            SeekStatus::Open => "open",
            SeekStatus::Paired => "paired",
            SeekStatus::Cancelled => "cancelled",
            SeekStatus::Expired => "expired",
        }
    }
}

/// A seek as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredSeek {
    /// Its id.
    pub id: SeekId,
    /// Whose it is.
    pub player: PlayerId,
    /// The game it asks for.
    pub terms: Terms,
    /// Where it stands.
    pub status: SeekStatus,
    /// The ratings it pairs with, if it is rated and limits them.
    pub rating_range: Option<RatingRange>,
    /// The game it was paired into.
    pub game_id: Option<GameId>,
    /// When it was made.
    pub created_at: Timestamp,
    /// When it expires, unless paired before.
    pub expires_at: Timestamp,
}

impl StoredSeek {
    /// Where it stands at `now`: as stored, or expired.
    pub(crate) fn status_at(&self, now: Timestamp) -> SeekStatus {
        match self.status {
            SeekStatus::Open if now >= self.expires_at => SeekStatus::Expired,
            status => status,
        }
    }
}

/// How a player's finished games ended for them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Results {
    /// Won.
    pub won: u64,
    /// Lost.
    pub lost: u64,
    /// Drawn.
    pub drawn: u64,
    /// Aborted: nobody won.
    pub aborted: u64,
}

/// An open seek that a new seek may pair with: the seek, its player, and that
/// player's rating in the seek's variant (the start's before their first rated game).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct OpenSeek {
    /// The seek, of the same terms as the new one.
    pub seek: StoredSeek,
    /// Its player.
    pub holder: Holder,
    /// Its player's rating in the variant.
    pub rating: f64,
}

/// The seek that a new seek by `seeker`, rated `seeker_rating` in the variant,
/// limited to the ratings of `range`, pairs with among `open` (the open seeks
/// of its terms, oldest first): the oldest of another player's whose player's
/// rating lies in `range`, and whose own range holds the seeker's rating.
pub(crate) fn partner(
    seeker: PlayerId,
    seeker_rating: f64,
    range: Option<RatingRange>,
    open: &[OpenSeek],
) -> Option<&OpenSeek> {
    open.iter().find(|other| {
        other.seek.player != seeker
            && range.is_none_or(|range| range.holds(other.rating))
            && other.seek.rating_range.is_none_or(|range| range.holds(seeker_rating))
    })
}

/// A new seek, before the database gives it an id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NewSeek {
    /// Whose it is.
    pub player: PlayerId,
    /// The game it asks for.
    pub terms: Terms,
    /// The ratings it pairs with, if it limits them.
    pub rating_range: Option<RatingRange>,
    /// When it is made.
    pub created_at: Timestamp,
    /// When it expires.
    pub expires_at: Timestamp,
}

/// What became of a seek.
#[derive(Debug, Clone, PartialEq)]
pub enum Sought {
    /// Its player has as many open seeks as they may: nothing was written.
    TooMany,
    /// No open seek matched it: it waits.
    Waiting(SeekId),
    /// It was paired with the oldest open seek that matched it, into `game`.
    Paired {
        /// The seek.
        seek: SeekId,
        /// The game both seeks were paired into, as written.
        game: Box<StoredGame>,
    },
}

/// A game that a pairing or an accepted challenge starts, and what it tells
/// its players, decided by the caller on what the store found.
pub(crate) type Started = (StoredGame, Vec<(PlayerId, PlayerEventKind)>);

#[cfg(test)]
mod tests {
    use super::*;

    /// An open seek of player `player`, made `age` seconds before the others'
    /// first, whose player is rated `rating`, limited to `range`.
    fn open(id: i64, player: i64, rating: f64, range: Option<(i64, i64)>) -> OpenSeek {
        let at: Timestamp = "2026-12-05T09:00:00Z".parse().unwrap();
        let player = PlayerId::new(player);
        OpenSeek {
            seek: StoredSeek {
                id: SeekId::new(id),
                player,
                terms: Terms { variant: Variant::PlayerChoice, scoring: Scoring::Goff, clock: None, rated: true },
                status: SeekStatus::Open,
                rating_range: range.map(|(min, max)| RatingRange { min, max }),
                game_id: None,
                created_at: at,
                expires_at: at,
            },
            holder: Holder {
                id: player,
                name: Username::parse("someone").unwrap(),
                token_hash: vec![],
                last_seen_at: None,
                bot_account: false,
            },
            rating,
        }
    }

    #[test]
    fn a_challenge_is_open_until_it_is_answered_or_expires() {
        let at = |second: u8| format!("2026-12-05T09:00:{second:02}Z").parse::<Timestamp>().unwrap();
        let player = StoredPlayer {
            id: PlayerId::new(1),
            name: Username::parse("someone").unwrap(),
            created_at: at(0),
            bot: false,
            server_bot: None,
        };
        let challenge = |status| StoredChallenge {
            id: ChallengeId::new(1),
            challenger: player.clone(),
            challenged: player.clone(),
            terms: Terms { variant: Variant::Measurement, scoring: Scoring::Goff, clock: None, rated: false },
            colour: Colour::Random,
            status,
            decline_reason: None,
            game_id: None,
            created_at: at(0),
            expires_at: at(30),
            answered_at: None,
        };
        let open = challenge(ChallengeStatus::Open);
        assert_eq!(
            [at(0), at(29), at(30), at(31)].map(|now| open.status_at(now)),
            [ChallengeStatus::Open, ChallengeStatus::Open, ChallengeStatus::Expired, ChallengeStatus::Expired]
        );
        assert_eq!(challenge(ChallengeStatus::Declined).status_at(at(1)), ChallengeStatus::Declined);
        assert_eq!(challenge(ChallengeStatus::Accepted).status_at(at(31)), ChallengeStatus::Accepted);
    }

    #[test]
    fn a_seek_pairs_with_the_oldest_open_seek_of_another_player() {
        let seeks = [open(1, 7, 1500.0, None), open(2, 8, 1500.0, None), open(3, 9, 1500.0, None)];
        assert_eq!(partner(PlayerId::new(7), 1500.0, None, &seeks).map(|other| other.seek.id), Some(SeekId::new(2)));
        assert_eq!(partner(PlayerId::new(5), 1500.0, None, &seeks).map(|other| other.seek.id), Some(SeekId::new(1)));
        assert_eq!(partner(PlayerId::new(7), 1500.0, None, &seeks[..1]), None, "never with oneself");
    }

    #[test]
    fn each_side_of_a_pairing_lies_inside_the_others_range_bounds_included() {
        let seeks = [open(1, 1, 1200.0, None), open(2, 2, 1700.0, Some((1400, 1600))), open(3, 3, 1600.0, None)];
        let paired = |rating, range| partner(PlayerId::new(9), rating, range, &seeks).map(|other| other.seek.id.get());
        // The seeker's range leaves the first out; the second's range holds the seeker.
        assert_eq!(paired(1500.0, Some(RatingRange { min: 1500, max: 1700 })), Some(2));
        // The second's range does not hold a seeker rated 1650: the third pairs.
        assert_eq!(paired(1650.0, Some(RatingRange { min: 1500, max: 1700 })), Some(3));
        assert_eq!(paired(1600.0, Some(RatingRange { min: 1600, max: 1600 })), Some(3));
        assert_eq!(paired(1500.0, Some(RatingRange { min: 1800, max: 1900 })), None);
    }
}
