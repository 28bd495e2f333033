//! Challenges and seeks as a client sees them, and the bodies that make them.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::{ClockRequest, ScoringName, VariantName};
use crate::record::{
    ChallengeId, ChallengeStatus, ClockSettings, Colour, GameId, RatingRange, SeekId, SeekStatus, StoredChallenge,
    StoredSeek, Terms, stamp,
};

/// The game a seek asks for: its rules, and its clock if timed.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"variant": "player_choice", "scoring": "goff", "clock": {"initial_ms": 300000, "increment_ms": 2000}, "rated": true,
    "rating_range": [1300, 1700]}))]
pub(crate) struct SeekRequest {
    /// How cycles collapse; default `measurement`.
    #[serde(default)]
    pub variant: VariantName,
    /// How completed lines score; default `goff`. A rated game is Goff's
    /// (422 `rated_game`).
    #[serde(default)]
    pub scoring: ScoringName,
    /// A Fischer clock, for a timed game; without it, the game is untimed (and
    /// a player who walks away can be claimed against).
    #[serde(default)]
    pub clock: Option<ClockRequest>,
    /// Whether the game is rated; a rated seek pairs with rated seeks alone.
    /// Default `false`.
    #[serde(default)]
    pub rated: bool,
    /// For a rated seek, the ratings it pairs with, `[min, max]` (in either
    /// order), both ends included: the partner's rating in the variant must
    /// lie inside, and yours inside the partner's range, if they gave one. A
    /// player with no rated game in the variant counts as 1500. Default: any
    /// rating; a casual seek takes none (422 `rated_game`).
    #[serde(default, deserialize_with = "crate::api::extract::optional_two_whole_numbers")]
    #[schema(min_items = 2, max_items = 2, value_type = Option<Vec<i64>>, example = json!([1300, 1700]))]
    pub rating_range: Option<[i64; 2]>,
}

/// `POST /players/{name}/challenges`: the game to play, and your colour.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"variant": "player_choice", "scoring": "goff", "clock": null, "colour": "random", "rated": true}))]
pub(crate) struct ChallengeRequest {
    /// How cycles collapse; default `measurement`.
    #[serde(default)]
    pub variant: VariantName,
    /// How completed lines score; default `goff`. A rated game is Goff's
    /// (422 `rated_game`).
    #[serde(default)]
    pub scoring: ScoringName,
    /// A Fischer clock, for a timed game; without it, the game is untimed.
    #[serde(default)]
    pub clock: Option<ClockRequest>,
    /// The colour you play: `x`, `o`, or `random` (the default), drawn when
    /// the challenge is accepted.
    #[serde(default)]
    pub colour: ColourName,
    /// Whether the game is rated. Default `false`.
    #[serde(default)]
    pub rated: bool,
}

/// `POST /challenges/{id}/decline`: why, if you wish to say.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"reason": "later, please"}))]
pub(crate) struct DeclineRequest {
    /// Up to 200 characters, shown to the challenger: none of them a control
    /// character (NUL, a line break) or an invisible one that reorders or
    /// hides text (a right-to-left override, a zero-width space).
    #[serde(default)]
    #[schema(
        max_length = 200,
        pattern = r"^[^\u0000-\u001F\u007F-\u009F\u00AD\u061C\u180E\u200B-\u200F\u202A-\u202E\u2060-\u206F\uFEFF]*$"
    )]
    pub reason: Option<String>,
}

/// The longest reason for declining a challenge, in characters.
const MOST_REASON_CHARS: usize = 200;

impl DeclineRequest {
    /// The reason to show the challenger, none for a blank one.
    ///
    /// # Errors
    /// What is wrong with it: too long, or a character that is no text to show.
    pub fn reason(self) -> Result<Option<String>, String> {
        let Some(reason) = self.reason.filter(|reason| !reason.trim().is_empty()) else { return Ok(None) };
        if reason.chars().count() > MOST_REASON_CHARS {
            return Err(format!("a reason has at most {MOST_REASON_CHARS} characters"));
        }
        match reason.chars().find(|&character| hides_or_controls(character)) {
            Some(character) => Err(format!("a reason is text to show: U+{:04X} is not", u32::from(character))),
            None => Ok(Some(reason)),
        }
    }
}

/// Whether `character` is a control character, or an invisible one that
/// reorders or hides the text around it (Unicode's format characters a
/// reason could carry: bidirectional controls, zero-width ones, the byte order
/// mark, the soft hyphen).
fn hides_or_controls(character: char) -> bool {
    character.is_control()
        || matches!(
            character,
            '\u{00AD}' | '\u{061C}' | '\u{180E}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{206F}' | '\u{FEFF}'
        )
}

/// A challenger's colour: the seat they take, `X` or `O` as seats are written
/// (`x` and `o`, the names before, are still read), or `random`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum ColourName {
    /// X, who opens.
    #[serde(rename = "X", alias = "x")]
    X,
    /// O.
    #[serde(rename = "O", alias = "o")]
    O,
    /// Drawn when the challenge is accepted.
    #[default]
    Random,
}

impl From<ColourName> for Colour {
    fn from(colour: ColourName) -> Colour {
        match colour {
            ColourName::X => Colour::X,
            ColourName::O => Colour::O,
            ColourName::Random => Colour::Random,
        }
    }
}

impl From<Colour> for ColourName {
    fn from(colour: Colour) -> ColourName {
        match colour {
            Colour::X => ColourName::X,
            Colour::O => ColourName::O,
            Colour::Random => ColourName::Random,
        }
    }
}

/// A clock as a challenge or seek asks for it.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct ClockSettingsView {
    /// Each player's time at the start, in milliseconds.
    pub initial_ms: i64,
    /// What each action of a player adds, in milliseconds.
    pub increment_ms: i64,
}

impl From<ClockSettings> for ClockSettingsView {
    fn from(clock: ClockSettings) -> ClockSettingsView {
        ClockSettingsView { initial_ms: clock.initial_ms, increment_ms: clock.increment_ms }
    }
}

/// Where a challenge stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum ChallengeStatusName {
    /// Waiting for an answer.
    Open,
    /// Accepted: `game_id` is its game.
    Accepted,
    /// Declined by the challenged player.
    Declined,
    /// Cancelled by the challenger.
    Cancelled,
    /// Not answered in time.
    Expired,
}

/// A challenge from one player to another.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({"id": 7, "challenger": "alice", "challenged": "bob", "variant": "player_choice",
    "scoring": "goff", "clock": null, "colour": "random", "rated": true, "status": "open", "decline_reason": null, "game_id": null,
    "created_at": "2026-12-03T10:15:02.120Z", "expires_at": "2026-12-03T10:20:02.120Z"}))]
pub(crate) struct ChallengeView {
    /// The challenge's id.
    #[schema(value_type = i64)]
    pub id: ChallengeId,
    /// Who sent it.
    pub challenger: String,
    /// Whom it was sent to.
    pub challenged: String,
    /// How cycles collapse in its game.
    pub variant: VariantName,
    /// How completed lines score in its game.
    pub scoring: ScoringName,
    /// Its game's clock, or null for an untimed one.
    #[schema(required = true)]
    pub clock: Option<ClockSettingsView>,
    /// The challenger's colour.
    pub colour: ColourName,
    /// Whether its game is rated.
    pub rated: bool,
    /// Where it stands.
    pub status: ChallengeStatusName,
    /// Why it was declined, when the challenged player said.
    #[schema(required = true)]
    pub decline_reason: Option<String>,
    /// The game it started, once accepted.
    #[schema(required = true, value_type = Option<i64>)]
    pub game_id: Option<GameId>,
    /// When it was sent (RFC 3339, UTC).
    pub created_at: String,
    /// When it expires unless answered.
    pub expires_at: String,
}

/// The challenges you sent and those sent to you, that wait for an answer.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct ChallengeList {
    /// Sent by you, newest first.
    pub sent: Vec<ChallengeView>,
    /// Sent to you, newest first.
    pub received: Vec<ChallengeView>,
    /// The `cursor` of the next page, older challenges of either kind; null on the last.
    #[schema(required = true)]
    pub next_cursor: Option<String>,
}

/// Where a seek stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum SeekStatusName {
    /// Waiting for a match.
    Open,
    /// Paired: `game_id` is its game.
    Paired,
    /// Cancelled.
    Cancelled,
    /// Not paired in time.
    Expired,
}

/// A seek: a wish to play a game on some terms with whoever asks for the same.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({"id": 3, "variant": "measurement", "scoring": "goff", "clock": null, "rated": true, "rating_range": [1300, 1700],
    "status": "paired", "game_id": 42,
    "created_at": "2026-12-03T10:15:02.120Z", "expires_at": "2026-12-03T10:17:02.120Z"}))]
pub(crate) struct SeekView {
    /// The seek's id.
    #[schema(value_type = i64)]
    pub id: SeekId,
    /// How cycles collapse in its game.
    pub variant: VariantName,
    /// How completed lines score in its game.
    pub scoring: ScoringName,
    /// Its game's clock, or null for an untimed one.
    #[schema(required = true)]
    pub clock: Option<ClockSettingsView>,
    /// Whether its game is rated.
    pub rated: bool,
    /// The ratings it pairs with, `[min, max]`, or null for any.
    #[schema(required = true, value_type = Option<Vec<i64>>)]
    pub rating_range: Option<[i64; 2]>,
    /// Where it stands.
    pub status: SeekStatusName,
    /// The game it was paired into, once paired.
    #[schema(required = true, value_type = Option<i64>)]
    pub game_id: Option<GameId>,
    /// When it was made (RFC 3339, UTC).
    pub created_at: String,
    /// When it expires unless paired.
    pub expires_at: String,
}

impl SeekRequest {
    /// The terms, checked, and the ratings the seek pairs with, its two ends
    /// in either order.
    ///
    /// # Errors
    /// A reason when the clock is out of range.
    pub fn sought(&self) -> Result<(Terms, Option<RatingRange>), String> {
        let terms = terms(self.variant, self.scoring, self.clock.as_ref(), self.rated)?;
        let range = self.rating_range.map(|[one, other]| RatingRange { min: one.min(other), max: one.max(other) });
        Ok((terms, range))
    }
}

impl ChallengeRequest {
    /// The terms, checked.
    ///
    /// # Errors
    /// A reason when the clock is out of range.
    pub fn terms(&self) -> Result<Terms, String> {
        terms(self.variant, self.scoring, self.clock.as_ref(), self.rated)
    }
}

fn terms(
    variant: VariantName,
    scoring: ScoringName,
    clock: Option<&ClockRequest>,
    rated: bool,
) -> Result<Terms, String> {
    Ok(Terms {
        variant: variant.into(),
        scoring: scoring.into(),
        clock: clock.map(ClockRequest::clock).transpose()?,
        rated,
    })
}

impl ChallengeView {
    /// The view of `challenge` as it stands at `now`.
    pub fn new(challenge: &StoredChallenge, now: jiff::Timestamp) -> ChallengeView {
        ChallengeView {
            id: challenge.id,
            challenger: challenge.challenger.name.to_string(),
            challenged: challenge.challenged.name.to_string(),
            variant: challenge.terms.variant.into(),
            scoring: challenge.terms.scoring.into(),
            clock: challenge.terms.clock.map(ClockSettingsView::from),
            colour: challenge.colour.into(),
            rated: challenge.terms.rated,
            status: match challenge.status_at(now) {
                ChallengeStatus::Open => ChallengeStatusName::Open,
                ChallengeStatus::Accepted => ChallengeStatusName::Accepted,
                ChallengeStatus::Declined => ChallengeStatusName::Declined,
                ChallengeStatus::Cancelled => ChallengeStatusName::Cancelled,
                ChallengeStatus::Expired => ChallengeStatusName::Expired,
            },
            decline_reason: challenge.decline_reason.clone(),
            game_id: challenge.game_id,
            created_at: stamp(challenge.created_at),
            expires_at: stamp(challenge.expires_at),
        }
    }
}

impl SeekView {
    /// The view of `seek` as it stands at `now`.
    pub fn new(seek: &StoredSeek, now: jiff::Timestamp) -> SeekView {
        SeekView {
            id: seek.id,
            variant: seek.terms.variant.into(),
            scoring: seek.terms.scoring.into(),
            clock: seek.terms.clock.map(ClockSettingsView::from),
            rated: seek.terms.rated,
            rating_range: seek.rating_range.map(|range| [range.min, range.max]),
            status: match seek.status_at(now) {
                SeekStatus::Open => SeekStatusName::Open,
                SeekStatus::Paired => SeekStatusName::Paired,
                SeekStatus::Cancelled => SeekStatusName::Cancelled,
                SeekStatus::Expired => SeekStatusName::Expired,
            },
            game_id: seek.game_id,
            created_at: stamp(seek.created_at),
            expires_at: stamp(seek.expires_at),
        }
    }
}
