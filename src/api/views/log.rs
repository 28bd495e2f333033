//! A game's log, and listings of games.

use serde::Serialize;
use utoipa::ToSchema;

use super::{
    ActorName, BotName, ClockSettingsView, EndView, PlayerName, ResultName, ScoringName, SeatRatingView, StatusName,
    VariantName, squares_of,
};
use crate::engine::{Action, Actor, LogEntry, MoveNumber, Player};
use crate::record::{ArenaId, Ending, Event, GameId, ListedGame, StoredEntry, stamp};

/// A page of games, newest first.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct GameList {
    /// The games of this page.
    pub games: Vec<GameSummary>,
    /// Pass as `cursor` for the next page; null on the last page.
    #[schema(required = true)]
    pub next_cursor: Option<String>,
}

/// A game in a listing.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct GameSummary {
    /// The game's id.
    #[schema(value_type = i64)]
    pub id: GameId,
    /// How cycles collapse.
    pub variant: VariantName,
    /// How completed lines score.
    pub scoring: ScoringName,
    /// Where the game is in its life: `waiting` while a seat is free, `ongoing`
    /// once both are taken, `finished` at the end. (`result` says who won.)
    pub status: StatusName,
    /// The outcome: `ongoing` until the game is finished (a waiting game too), then
    /// `x_wins`, `o_wins`, `draw` or `aborted`. (`status` says where the game is in
    /// its life.)
    pub result: ResultName,
    /// How it ended, or null while it goes on.
    #[schema(required = true)]
    pub end: Option<EndView>,
    /// The game's version.
    pub version: i64,
    /// When it was created.
    pub created_at: String,
    /// The names of the players who hold its seats: null for a free seat, a
    /// bot's, or one taken without a player's token.
    pub players: SeatNames,
    /// The bot that holds a seat, in a game against one; else null.
    #[schema(required = true)]
    pub bot: Option<BotName>,
    /// Whether its end changes its players' ratings.
    pub rated: bool,
    /// Its clock, or null for an untimed game.
    #[schema(required = true)]
    pub clock: Option<ClockSettingsView>,
    /// In a rated game, each seat's holder's rating before it, and its change
    /// once rated; nulls in a casual game.
    pub ratings: SeatRatings,
    /// The arena that paired it, or null.
    #[schema(required = true, value_type = Option<i64>)]
    pub arena: Option<ArenaId>,
}

/// Each seat's holder's rating, or null.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct SeatRatings {
    /// X's.
    #[serde(rename = "X")]
    #[schema(required = true)]
    pub x: Option<SeatRatingView>,
    /// O's.
    #[serde(rename = "O")]
    #[schema(required = true)]
    pub o: Option<SeatRatingView>,
}

/// Each seat's player, by name, or null.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct SeatNames {
    /// X's.
    #[serde(rename = "X")]
    #[schema(required = true)]
    pub x: Option<String>,
    /// O's.
    #[serde(rename = "O")]
    #[schema(required = true)]
    pub o: Option<String>,
}

/// A game's whole log.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct GameLog {
    /// The game's id.
    #[schema(value_type = i64)]
    pub game_id: GameId,
    /// How cycles collapse.
    pub variant: VariantName,
    /// How completed lines score.
    pub scoring: ScoringName,
    /// The sequence number of the last entry.
    pub version: i64,
    /// Every entry, in order.
    pub entries: Vec<LogEntryView>,
}

/// One entry of a game's log.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct LogEntryView {
    /// The entry's place in the log, from 1.
    pub seq: i64,
    /// When it was written (RFC 3339, UTC).
    pub created_at: String,
    /// Whether the game's bot did it.
    pub by_bot: bool,
    /// What happened.
    #[serde(flatten)]
    pub event: EventView,
}

/// What happened, by kind.
#[derive(Debug, Serialize, ToSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(crate) enum EventView {
    /// A player took a seat.
    Seat {
        /// The seat taken.
        player: PlayerName,
    },
    /// A move was placed.
    Move {
        /// Who placed it.
        player: PlayerName,
        /// The move's number, from 1.
        #[serde(rename = "move")]
        move_number: u8,
        /// The move's two squares, ascending.
        #[schema(min_items = 2, max_items = 2)]
        squares: Vec<u8>,
    },
    /// A collapse was decided.
    Collapse {
        /// Who decided it: a player or the measurement.
        chooser: ActorName,
        /// The move that closed the cycle.
        closing_move: u8,
        /// The square the closing move ended in.
        square: u8,
    },
    /// A player resigned: the other won.
    Resign {
        /// Who resigned.
        player: PlayerName,
    },
    /// A player's clock ran out: the other won. The server writes it.
    Timeout {
        /// Whose clock.
        player: PlayerName,
    },
    /// The game was called off.
    Abort {
        /// Who aborted it, or null when the server did: nobody took its free seat
        /// in time.
        #[schema(required = true)]
        player: Option<PlayerName>,
    },
    /// The player to act walked away, and the other claimed the game: the
    /// other won.
    Abandon {
        /// Who walked away.
        player: PlayerName,
    },
    /// One player accepted the other's offer of a draw: the game is drawn.
    Agreement {
        /// Who accepted it.
        player: PlayerName,
    },
    /// In a clocked game, the player made no first move in time: the server
    /// aborted the game.
    NoFirstMove {
        /// Who made no first move.
        player: PlayerName,
    },
    /// A player offered a draw. It stands until the other accepts or declines
    /// it, or until the next move or collapse of either.
    DrawOffer {
        /// Who offered it.
        player: PlayerName,
    },
    /// A player declined the other's offer of a draw.
    DrawDecline {
        /// Who declined it.
        player: PlayerName,
    },
    /// A player asked for a rematch, which is played in a new game.
    Rematch {
        /// Who asked first.
        player: PlayerName,
        /// The new game.
        #[schema(value_type = i64)]
        game_id: GameId,
    },
}

impl EventView {
    /// The kind of the entry, as the log and the live events name it.
    pub fn kind(&self) -> &'static str {
        match self {
            EventView::Seat { .. } => "seat",
            EventView::Move { .. } => "move",
            EventView::Collapse { .. } => "collapse",
            EventView::Resign { .. } => "resign",
            EventView::Timeout { .. } => "timeout",
            EventView::Abort { .. } => "abort",
            EventView::Abandon { .. } => "abandon",
            EventView::Agreement { .. } => "agreement",
            EventView::NoFirstMove { .. } => "no_first_move",
            EventView::DrawOffer { .. } => "draw_offer",
            EventView::DrawDecline { .. } => "draw_decline",
            EventView::Rematch { .. } => "rematch",
        }
    }

    /// Every kind, for the live events' documentation.
    pub const KINDS: [&'static str; 12] = [
        "seat",
        "move",
        "collapse",
        "resign",
        "timeout",
        "abort",
        "abandon",
        "agreement",
        "no_first_move",
        "draw_offer",
        "draw_decline",
        "rematch",
    ];
}

impl From<&ListedGame> for GameSummary {
    fn from(listed: &ListedGame) -> GameSummary {
        GameSummary {
            id: listed.id,
            variant: listed.variant.into(),
            scoring: listed.scoring.into(),
            status: listed.status.into(),
            result: listed.result.into(),
            end: listed.end.map(EndView::from),
            version: listed.version,
            created_at: stamp(listed.created_at),
            players: SeatNames { x: listed.holder(Player::X), o: listed.holder(Player::O) },
            bot: listed.opponent.map(BotName::from),
            rated: listed.rated,
            clock: listed.clock.map(ClockSettingsView::from),
            ratings: SeatRatings {
                x: SeatRatingView::of(&listed.ratings, Player::X),
                o: SeatRatingView::of(&listed.ratings, Player::O),
            },
            arena: listed.arena,
        }
    }
}

impl LogEntryView {
    /// The view of `entry`, the move `move_number` when it is a move.
    pub fn new(entry: &StoredEntry, move_number: Option<MoveNumber>) -> LogEntryView {
        let event = match entry.event {
            Event::SeatTaken(player) => EventView::Seat { player: player.into() },
            Event::Action(LogEntry { actor, action: Action::Move { squares } }) => EventView::Move {
                player: match actor {
                    Actor::Player(player) => player.into(),
                    Actor::Measurement => {
                        unreachable!("the store reads a move's actor as a player")
                    }
                },
                move_number: move_number.expect("a move entry has its number"),
                squares: squares_of(squares),
            },
            Event::Action(LogEntry { actor, action: Action::Collapse { move_number, square } }) => {
                EventView::Collapse { chooser: actor.into(), closing_move: move_number, square: square.number() }
            }
            Event::Ended(Ending::Resign(player)) => EventView::Resign { player: player.into() },
            Event::Ended(Ending::Timeout(player)) => EventView::Timeout { player: player.into() },
            Event::Ended(Ending::Abort(player)) => EventView::Abort { player: player.map(PlayerName::from) },
            Event::Ended(Ending::Abandon(player)) => EventView::Abandon { player: player.into() },
            Event::Ended(Ending::Agreement(player)) => EventView::Agreement { player: player.into() },
            Event::Ended(Ending::NoFirstMove(player)) => EventView::NoFirstMove { player: player.into() },
            Event::DrawOffer(player) => EventView::DrawOffer { player: player.into() },
            Event::DrawDecline(player) => EventView::DrawDecline { player: player.into() },
            Event::Rematch { player, game_id } => EventView::Rematch { player: player.into(), game_id },
        };
        LogEntryView { seq: entry.seq, created_at: stamp(entry.created_at), by_bot: entry.by_bot, event }
    }
}
