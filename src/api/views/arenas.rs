//! Arenas as a client sees them, and the body that creates one.

use jiff::Timestamp;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::{ClockRequest, ClockSettingsView, ScoringName, VariantName};
use crate::record::{ArenaGame, ArenaId, ArenaSettings, ArenaState, ArenaStatus, GameId, StoredArena, stamp};
use crate::service::{ArenaStanding, Outcome, Scored};

/// `POST /arenas`: the arena to create.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"name": "Friday blitz", "variant": "player_choice", "scoring": "goff",
    "clock": {"initial_ms": 60000, "increment_ms": 1000}, "minutes": 30, "starts_at": "2026-12-04T18:00:00Z",
    "rated": true, "bots": true}))]
pub(crate) struct ArenaRequest {
    /// Its name: 1 to 60 characters, no control characters.
    #[schema(min_length = 1, max_length = 60)]
    pub name: String,
    /// How cycles collapse in its games; default `measurement`.
    #[serde(default)]
    pub variant: VariantName,
    /// How completed lines score in its games; default `goff`. A rated
    /// arena is Goff's (422 `rated_game`).
    #[serde(default)]
    pub scoring: ScoringName,
    /// The clock of every game: arenas are timed.
    pub clock: ClockRequest,
    /// How long it runs, from 1 to 720 minutes.
    #[serde(deserialize_with = "crate::api::extract::whole_number")]
    #[schema(minimum = 1, maximum = 720)]
    pub minutes: i64,
    /// When it starts (RFC 3339), within 30 days; default five minutes from now.
    #[serde(default)]
    #[schema(format = DateTime)]
    pub starts_at: Option<String>,
    /// Whether its games are rated. Default `false`.
    #[serde(default)]
    pub rated: bool,
    /// Whether bot accounts may join. Default `false`.
    #[serde(default)]
    pub bots: bool,
}

impl ArenaRequest {
    /// The settings it asks for.
    ///
    /// # Errors
    /// What is wrong with a field.
    pub fn settings(self) -> Result<ArenaSettings, String> {
        let starts_at = match &self.starts_at {
            None => None,
            Some(text) => {
                Some(text.parse::<Timestamp>().map_err(|_| format!("starts_at {text:?} is not an RFC 3339 time"))?)
            }
        };
        Ok(ArenaSettings {
            name: self.name,
            variant: self.variant.into(),
            scoring: self.scoring.into(),
            clock: self.clock.clock()?,
            minutes: u32::try_from(self.minutes).map_err(|_| "minutes must be from 1 to 720".to_owned())?,
            starts_at,
            rated: self.rated,
            bots: self.bots,
        })
    }
}

/// Where an arena stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum ArenaStatusName {
    /// Players may join; nobody is paired yet.
    Upcoming,
    /// Whoever is free is paired.
    Running,
    /// Nobody is paired any more; games begun before the end are played out and count.
    Finished,
}

impl From<ArenaStatus> for ArenaStatusName {
    fn from(status: ArenaStatus) -> ArenaStatusName {
        match status {
            ArenaStatus::Upcoming => ArenaStatusName::Upcoming,
            ArenaStatus::Running => ArenaStatusName::Running,
            ArenaStatus::Finished => ArenaStatusName::Finished,
        }
    }
}

impl From<ArenaStatusName> for ArenaStatus {
    fn from(status: ArenaStatusName) -> ArenaStatus {
        match status {
            ArenaStatusName::Upcoming => ArenaStatus::Upcoming,
            ArenaStatusName::Running => ArenaStatus::Running,
            ArenaStatusName::Finished => ArenaStatus::Finished,
        }
    }
}

/// An arena's settings and where it stands.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({"id": 3, "name": "Friday blitz", "variant": "player_choice", "scoring": "goff",
    "clock": {"initial_ms": 60000, "increment_ms": 1000}, "minutes": 30, "rated": true, "bots": true,
    "status": "running", "starts_at": "2026-12-04T18:00:00.000Z", "ends_at": "2026-12-04T18:30:00.000Z",
    "remaining_ms": 754000, "created_by": "alice"}))]
pub(crate) struct ArenaView {
    /// Its id.
    #[schema(value_type = i64)]
    pub id: ArenaId,
    /// Its name.
    pub name: String,
    /// How cycles collapse in its games.
    pub variant: VariantName,
    /// How completed lines score in its games.
    pub scoring: ScoringName,
    /// The clock of its games.
    pub clock: ClockSettingsView,
    /// How long it runs, in minutes.
    pub minutes: i64,
    /// Whether its games are rated.
    pub rated: bool,
    /// Whether bot accounts may join.
    pub bots: bool,
    /// Where it stands.
    pub status: ArenaStatusName,
    /// When it starts (RFC 3339, UTC).
    pub starts_at: String,
    /// When it ends: nobody is paired from then on.
    pub ends_at: String,
    /// Until the end, in milliseconds; 0 once it finished.
    pub remaining_ms: i64,
    /// Who created it.
    pub created_by: String,
}

impl ArenaView {
    /// The view of `arena` at `now`.
    pub fn new(arena: &StoredArena, now: Timestamp) -> ArenaView {
        let millis = |from: Timestamp, to: Timestamp| to.duration_since(from).as_millis();
        let terms = &arena.terms;
        ArenaView {
            id: arena.id,
            name: terms.name.clone(),
            variant: terms.variant.into(),
            scoring: terms.scoring.into(),
            clock: terms.clock.into(),
            minutes: i64::try_from(millis(terms.starts_at, terms.ends_at) / 60_000).unwrap_or(i64::MAX),
            rated: terms.rated,
            bots: terms.bots,
            status: terms.status_at(now).into(),
            starts_at: stamp(terms.starts_at),
            ends_at: stamp(terms.ends_at),
            remaining_ms: i64::try_from(millis(now, terms.ends_at).max(0)).unwrap_or(i64::MAX),
            created_by: arena.created_by.to_string(),
        }
    }
}

/// A page of arenas.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct ArenaList {
    /// The arenas, newest first.
    pub arenas: Vec<ArenaView>,
    /// The `cursor` of the next page; null on the last.
    #[schema(required = true)]
    pub next_cursor: Option<String>,
}

/// How a game ended for a player.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum OutcomeName {
    /// A win: 2 points, 4 on fire.
    Win,
    /// A draw: 1 point, 2 on fire.
    Draw,
    /// A loss: nothing.
    Loss,
}

impl From<Outcome> for OutcomeName {
    fn from(outcome: Outcome) -> OutcomeName {
        match outcome {
            Outcome::Win => OutcomeName::Win,
            Outcome::Draw => OutcomeName::Draw,
            Outcome::Loss => OutcomeName::Loss,
        }
    }
}

/// One game on a player's sheet.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct SheetEntry {
    /// The game.
    #[schema(value_type = i64)]
    pub game_id: GameId,
    /// How it ended for the player.
    pub outcome: OutcomeName,
    /// Whether the player was on fire: it counted double.
    pub on_fire: bool,
    /// What it scored.
    pub points: u32,
}

impl From<&Scored> for SheetEntry {
    fn from(scored: &Scored) -> SheetEntry {
        SheetEntry {
            game_id: scored.game_id,
            outcome: scored.outcome.into(),
            on_fire: scored.on_fire,
            points: scored.points,
        }
    }
}

/// A player's place in an arena.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct StandingView {
    /// Their rank, from 1.
    pub rank: usize,
    /// Their name.
    pub name: String,
    /// Whether they are a bot: one of the server's, or a bot account.
    pub bot: bool,
    /// Their points.
    pub score: u32,
    /// Whether their next game counts double: their last two were wins.
    pub on_fire: bool,
    /// Whether they withdrew: they keep their points and are not paired.
    pub withdrawn: bool,
    /// Their rating in the arena's variant when it was read.
    pub rating: f64,
    /// Their games that count, in the order they ended.
    pub sheet: Vec<SheetEntry>,
}

impl From<&ArenaStanding> for StandingView {
    fn from(standing: &ArenaStanding) -> StandingView {
        StandingView {
            rank: standing.rank,
            name: standing.player.holder.name.to_string(),
            bot: standing.player.holder.bot_account || standing.player.server_bot.is_some(),
            score: standing.sheet.score,
            on_fire: standing.sheet.on_fire,
            withdrawn: standing.player.withdrawn,
            rating: (standing.player.rating * 10.0).round() / 10.0,
            sheet: standing.sheet.games.iter().map(SheetEntry::from).collect(),
        }
    }
}

/// A game of the arena: one being played, or a pairing as the stream tells it.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct ArenaGameView {
    /// The game.
    #[schema(value_type = i64)]
    pub game_id: GameId,
    /// X's player's name.
    pub x: String,
    /// O's.
    pub o: String,
}

/// An arena with its standings and the games being played.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct ArenaDetail {
    /// Its settings and where it stands.
    #[serde(flatten)]
    pub arena: ArenaView,
    /// Everyone who joined, best first.
    pub standings: Vec<StandingView>,
    /// Its games that go on.
    pub playing: Vec<ArenaGameView>,
}

impl ArenaGameView {
    /// The view of `game`, one of `state`'s.
    pub fn new(state: &ArenaState, game: &ArenaGame) -> ArenaGameView {
        let name = |id| {
            let player = state.players.iter().find(|player| player.holder.id == id);
            player.map_or_else(String::new, |player| player.holder.name.to_string())
        };
        ArenaGameView { game_id: game.id, x: name(game.players[0]), o: name(game.players[1]) }
    }
}

impl ArenaDetail {
    /// The view of `state` at `now`, with its `standings`.
    pub fn new(state: &ArenaState, standings: &[ArenaStanding], now: Timestamp) -> ArenaDetail {
        ArenaDetail {
            arena: ArenaView::new(&state.arena, now),
            standings: standings.iter().map(StandingView::from).collect(),
            playing: state
                .games
                .iter()
                .filter(|game| game.ongoing)
                .map(|game| ArenaGameView::new(state, game))
                .collect(),
        }
    }
}
