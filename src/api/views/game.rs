//! A game as a client sees it, and a seat just taken.

use std::time::Duration;

use serde::Serialize;
use utoipa::ToSchema;

use super::{
    ActorName, BotName, EndReasonName, PlayerName, ResultName, ScoringName, SeatRatingView, StatusName, VariantName,
    squares_of,
};
use crate::bot::Bot;
use crate::engine::{Collapse, Game, Line, Mark, Move, Player, Square, SquareProbabilities};
use crate::record::{ArenaId, End, GameId, stamp};
use crate::service::{ClockState, GameRecord, Seat};

/// The bot a game is played against.
#[derive(Debug, Serialize, ToSchema)]
pub struct OpponentView {
    /// Which bot.
    pub bot: BotName,
    /// The seat it holds.
    pub player: PlayerName,
    /// `parasite`: its probability of a random move; null for the others.
    #[schema(required = true)]
    pub mistake_chance: Option<f64>,
}

/// A game as a client sees it, rebuilt from its log on every request.
#[derive(Debug, Serialize, ToSchema)]
pub struct GameView {
    /// The game's id.
    #[schema(value_type = i64)]
    pub id: GameId,
    /// How cycles collapse in this game.
    pub variant: VariantName,
    /// How its completed lines score: `goff`, `complete_win` or `narrow_win`.
    pub scoring: ScoringName,
    /// Moves on with every change (seat, move, collapse); also the `ETag`. Send it
    /// back in `If-Match` to act only on the game as you saw it.
    pub version: i64,
    /// Where the game is in its life: `waiting` while a seat is free, `ongoing`
    /// once both are taken, `finished` at the end. (`result` says who won.)
    pub status: StatusName,
    /// When the game was created (RFC 3339, UTC).
    pub created_at: String,
    /// The seats nobody has taken yet.
    #[schema(max_items = 2)]
    pub open_seats: Vec<PlayerName>,
    /// Who holds each seat, and whether they are here: null for a free seat.
    pub seats: SeatsView,
    /// The seat the caller holds, by the seat's or the player's token the
    /// request presented: null for anyone else, and in a game stream's `data`
    /// (every watcher gets the same), but for its `game` event.
    #[schema(required = true)]
    pub your_seat: Option<PlayerName>,
    /// The bot in a game against the computer, else null.
    #[schema(required = true)]
    pub opponent: Option<OpponentView>,
    /// Whether `GET /games/{id}/hint` gives the best action while the game goes on
    /// (else 422 `hints_disabled`): by default off between two people, on against a bot.
    pub hints: bool,
    /// Whether the game is rated: its end changes its players' ratings.
    pub rated: bool,
    /// Whether the game is private: not listed, and joined only with its invite.
    pub private: bool,
    /// The nine squares, 0-8 row-major from the top-left.
    #[schema(min_items = 9, max_items = 9)]
    pub board: Vec<CellView>,
    /// Who acts now and how: a move, or the choice of a pending collapse; null
    /// while a seat is free and once the game is over. The one field a client
    /// needs to know whose turn it is.
    #[schema(required = true)]
    pub to_act: Option<ToAct>,
    /// Who places the next move and its number; null while a seat is free (nobody
    /// may move yet), while a collapse is pending and after the end.
    #[schema(required = true)]
    pub next_to_move: Option<NextToMove>,
    /// The closed cycle waiting for the chooser's decision, or null.
    #[schema(required = true)]
    pub pending_collapse: Option<CollapseView>,
    /// Every collapse so far, in order, with how it was decided.
    pub collapses: Vec<CollapseView>,
    /// The outcome: `ongoing` until the game is finished (a waiting game too), then
    /// `x_wins`, `o_wins` or `draw` (a resignation or a timeout is a win for the
    /// other player whatever the points), or `aborted`. (`status` says where the
    /// game is in its life, `end` how it ended.)
    pub result: ResultName,
    /// How the game ended: null while it goes on.
    #[schema(required = true)]
    pub end: Option<EndView>,
    /// The players' clocks in a timed game, as of this answer; null in an untimed one.
    #[schema(required = true)]
    pub clock: Option<ClockView>,
    /// In a game without a clock that goes on, whose player to act is a person:
    /// from when the other player may claim it (`POST
    /// /games/{id}/claim-victory`), unless the player to act is seen again
    /// first, which moves it later. Null in any other game. It is not part of
    /// the version: an answer of 304 to `If-None-Match` may keep an older one.
    #[schema(required = true)]
    pub claim_from: Option<String>,
    /// The seat whose offer of a draw stands (`POST /games/{id}/draw`): the
    /// other player may accept it or decline it. Null when none does.
    #[schema(required = true)]
    pub draw_offer: Option<PlayerName>,
    /// The rematch of this game, once a player asked for it: the other player
    /// joins it with `POST /games/{id}/rematch` too. Null before.
    #[schema(required = true)]
    pub rematch: Option<RematchView>,
    /// The game this one is the rematch of, or null.
    #[schema(required = true)]
    #[schema(value_type = Option<i64>)]
    pub rematch_of: Option<GameId>,
    /// The arena that paired this game, or null.
    #[schema(required = true, value_type = Option<i64>)]
    pub arena: Option<ArenaId>,
    /// Each player's points: 1 for the earliest line, 1/2 for any later one.
    pub score: ScoreView,
    /// Every completed line.
    pub lines: Vec<LineView>,
    /// Every move placed, in order.
    pub moves: Vec<MoveView>,
}

/// Each seat's holder, or null while it is free.
#[derive(Debug, Serialize, ToSchema)]
pub struct SeatsView {
    /// X's.
    #[serde(rename = "X")]
    #[schema(required = true)]
    pub x: Option<SeatHolderView>,
    /// O's.
    #[serde(rename = "O")]
    #[schema(required = true)]
    pub o: Option<SeatHolderView>,
}

/// Who holds a seat: a player, a bot, or someone with the seat's token alone.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({"name": "alice", "bot": null, "bot_account": false, "present": true,
    "rating": {"rating": 1612.4, "deviation": 84.1, "provisional": false, "rating_diff": -9.7}}))]
pub struct SeatHolderView {
    /// The name of the player who holds it; null for a bot and for a seat taken
    /// without a player's token (anonymous).
    #[schema(required = true)]
    pub name: Option<String>,
    /// The server's bot that holds it, or null.
    #[schema(required = true)]
    pub bot: Option<BotName>,
    /// Whether the player who holds it is a bot account: a program plays for
    /// them (`POST /players/me/bot`, docs/ENGINE.md).
    pub bot_account: bool,
    /// Whether its holder is here: seen within the last 30 s (an action, a read
    /// of the game with their token, its live stream held open with it, or,
    /// for a player, their own event stream); a bot always is.
    pub present: bool,
    /// In a rated game, its holder's rating before it, and once it ended its
    /// change; null in a casual game.
    #[schema(required = true)]
    pub rating: Option<SeatRatingView>,
}

/// One square of the board.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({"square": 4, "classical": null, "spooky": ["O2", "X3"],
    "probabilities": {"X": 0.5, "O": 0.5, "empty": 0.0}}))]
pub struct CellView {
    /// The square, 0-8.
    pub square: u8,
    /// The classical mark, such as `X3`, or null.
    #[schema(value_type = Option<String>, required = true)]
    pub classical: Option<MarkName>,
    /// The spooky marks of unresolved moves, in move order.
    #[schema(value_type = Vec<String>)]
    pub spooky: Vec<MarkName>,
    /// The odds of what the square would hold if every unresolved move were
    /// measured now; a UI can shade the square with them. While a collapse waits
    /// for a player's choice they are a measurement's odds (the chooser decides:
    /// `pending_collapse.options` give each outcome); once the game is over a
    /// square without a classical mark is empty for certain.
    pub probabilities: ProbabilitiesView,
}

/// A mark as text: its player and the move that wrote it, such as `X3`. It is
/// written straight into the answer, not first into a string of its own: a board
/// holds up to 17 marks.
#[derive(Debug)]
pub struct MarkName(Mark);

impl Serialize for MarkName {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(&self.0)
    }
}

/// Odds that sum to 1.
#[derive(Debug, Serialize, ToSchema)]
pub struct ProbabilitiesView {
    /// An X mark.
    #[serde(rename = "X")]
    pub x: f64,
    /// An O mark.
    #[serde(rename = "O")]
    pub o: f64,
    /// No mark.
    pub empty: f64,
}

/// How a game ended.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({"reason": "resignation", "player": "O"}))]
pub struct EndView {
    /// Why: see the values of EndReasonName.
    pub reason: EndReasonName,
    /// The seat that resigned, ran out of time, made no first move, aborted,
    /// walked away or accepted a draw; null for `lines`, `full_board`, and a
    /// game the server aborted because nobody took its seat.
    #[schema(required = true)]
    pub player: Option<PlayerName>,
}

/// The players' clocks, as of the answer they came with.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({"initial_ms": 300000, "increment_ms": 2000, "remaining_ms": {"X": 291532, "O": 300000},
    "running": "O", "deadline": "2026-12-01T10:15:02.120Z"}))]
pub struct ClockView {
    /// Each player's time at the start, in milliseconds.
    pub initial_ms: i64,
    /// What each action of a player adds to their time, in milliseconds.
    pub increment_ms: i64,
    /// Each player's time left as of this answer, in milliseconds.
    pub remaining_ms: RemainingView,
    /// The player whose clock runs (the one to act, once both players made
    /// their first move; never a bot), or null.
    #[schema(required = true)]
    pub running: Option<PlayerName>,
    /// When the game ends if the player to act does not act (RFC 3339, UTC), or
    /// null: a frontend counts down to it. With a clock `running`, its player
    /// loses then (`timeout`). Before both first moves, no clock runs, and the
    /// player to act has `FIRST_MOVE_SECONDS` (30) for their first move: the
    /// game is aborted then (`no_first_move`).
    #[schema(required = true)]
    pub deadline: Option<String>,
}

/// Time left per player, in milliseconds.
#[derive(Debug, Serialize, ToSchema)]
pub struct RemainingView {
    /// X's.
    #[serde(rename = "X")]
    pub x: i64,
    /// O's.
    #[serde(rename = "O")]
    pub o: i64,
}

/// A rematch.
#[derive(Debug, Serialize, ToSchema)]
pub struct RematchView {
    /// The game it is played in.
    #[schema(value_type = i64)]
    pub game_id: GameId,
}

impl From<End> for EndView {
    fn from(end: End) -> EndView {
        EndView { reason: end.reason.into(), player: end.player.map(PlayerName::from) }
    }
}

impl From<ClockState> for ClockView {
    fn from(clock: ClockState) -> ClockView {
        ClockView {
            initial_ms: clock.settings.initial_ms,
            increment_ms: clock.settings.increment_ms,
            remaining_ms: RemainingView { x: clock.remaining(Player::X), o: clock.remaining(Player::O) },
            running: clock.running.map(PlayerName::from),
            deadline: clock.deadline.map(stamp),
        }
    }
}

/// Who acts now, and how.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({"player": "X", "kind": "move", "forced_squares": null}))]
pub struct ToAct {
    /// The player to act.
    pub player: PlayerName,
    /// `move`: place the next move (`POST /moves`); `collapse`: choose how the
    /// pending cycle collapses (`POST /collapse`).
    pub kind: ActionKind,
    /// As in `next_to_move`: the squares of a forced last-square move, else null.
    #[schema(required = true, min_items = 2, max_items = 2, value_type = Option<Vec<u8>>)]
    pub forced_squares: Option<[u8; 2]>,
}

/// The kind of an action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ActionKind {
    /// Place a move.
    Move,
    /// Choose a collapse's outcome.
    Collapse,
}

/// The next move to place.
#[derive(Debug, Serialize, ToSchema)]
pub struct NextToMove {
    /// Whose move it is.
    pub player: PlayerName,
    /// The move's number, from 1.
    #[serde(rename = "move")]
    pub move_number: u8,
    /// The move's squares when they are forced: after move 8 one square alone is
    /// open, and X's move 9 puts both marks there (send them as they are); null
    /// when the player chooses.
    #[schema(required = true, min_items = 2, max_items = 2, value_type = Option<Vec<u8>>)]
    pub forced_squares: Option<[u8; 2]>,
}

/// The collapse of a closed cycle.
#[derive(Debug, Serialize, ToSchema)]
pub struct CollapseView {
    /// Who decides: the player who did not close the cycle, or the measurement.
    pub chooser: ActorName,
    /// The move that closed the cycle.
    pub closing_move: u8,
    /// The moves of the cycle, ascending; a choice may name any of them.
    #[schema(min_items = 2, max_items = 9)]
    pub cycle_moves: Vec<u8>,
    /// The two possible outcomes, by the closing move's squares ascending.
    #[schema(min_items = 2, max_items = 2)]
    pub options: Vec<CollapseOptionView>,
    /// The square the closing move ended in; null while pending.
    #[schema(required = true)]
    pub square: Option<u8>,
}

/// One outcome of a collapse.
#[derive(Debug, Serialize, ToSchema)]
pub struct CollapseOptionView {
    /// The square the closing move ends in; choose it with `{"move": closing_move, "square": square}`.
    pub square: u8,
    /// Where every move of the collapsing component lands, in move order.
    #[schema(min_items = 2, max_items = 9)]
    pub outcome: Vec<LandingView>,
}

/// A move and the square it lands in.
#[derive(Debug, Serialize, ToSchema)]
pub struct LandingView {
    /// The move's number.
    #[serde(rename = "move")]
    pub move_number: u8,
    /// The square it lands in.
    pub square: u8,
}

/// Points per player.
#[derive(Debug, Serialize, ToSchema)]
pub struct ScoreView {
    /// X's points.
    #[serde(rename = "X")]
    pub x: f64,
    /// O's points.
    #[serde(rename = "O")]
    pub o: f64,
}

/// A line of three classical marks of one player.
#[derive(Debug, Serialize, ToSchema)]
pub struct LineView {
    /// Whose line.
    pub player: PlayerName,
    /// Its three squares, ascending.
    #[schema(min_items = 3, max_items = 3)]
    pub squares: Vec<u8>,
    /// Its highest subscript: the move that finished it.
    pub max_move: u8,
    /// 1 for the earliest line(s), 0.5 for a later one.
    pub points: f64,
}

/// A move that has been placed.
#[derive(Debug, Serialize, ToSchema)]
pub struct MoveView {
    /// The move's number, from 1.
    #[serde(rename = "move")]
    pub move_number: u8,
    /// Who made it.
    pub player: PlayerName,
    /// Its two squares, ascending.
    #[schema(min_items = 2, max_items = 2)]
    pub squares: Vec<u8>,
    /// The square its classical mark landed in, or null while it is spooky.
    #[schema(required = true)]
    pub landed: Option<u8>,
}

/// A seat and the token that acts for it.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct SeatView {
    /// The seat's player.
    pub player: PlayerName,
    /// Send it as `Authorization: Bearer <token>` to move and collapse. It is shown
    /// only once: the server keeps just a hash of it.
    pub token: String,
}

/// A game and the caller's new seat.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct SeatedGame {
    /// The game.
    pub game: GameView,
    /// The caller's seat.
    pub seat: SeatView,
    /// A new private game's invite, for its creator to pass on: joining the game
    /// needs it. Shown only here.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub invite: Option<String>,
}

impl GameView {
    /// The view of `record`, in which the player to act may be claimed against
    /// once gone for `claim_after`.
    pub fn new(record: &GameRecord, claim_after: Duration) -> GameView {
        let game = &record.game;
        let end = record.end();
        GameView {
            id: record.stored.id,
            variant: game.variant().into(),
            scoring: game.scoring().into(),
            version: record.version(),
            status: record.status().into(),
            created_at: stamp(record.stored.created_at),
            open_seats: record.open_seats().into_iter().map(PlayerName::from).collect(),
            seats: SeatsView { x: seat_holder(record, Player::X), o: seat_holder(record, Player::O) },
            your_seat: None,
            hints: record.stored.hints,
            rated: record.stored.rated,
            private: record.stored.invite_hash.is_some(),
            opponent: record.stored.opponent.zip(record.bot_seat()).map(|(bot, seat)| OpponentView {
                bot: bot.into(),
                player: seat.into(),
                mistake_chance: match bot {
                    Bot::Parasite { mistake_chance } => Some(mistake_chance),
                    Bot::Random | Bot::Perfect => None,
                },
            }),
            board: board_of(game, end.is_some()),
            to_act: record.to_act().map(|player| ToAct::of(game, player)),
            next_to_move: game.next_to_move().filter(|_| end.is_none() && record.open_seats().is_empty()).map(
                |(player, move_number)| NextToMove {
                    player: player.into(),
                    move_number,
                    forced_squares: forced_squares(game),
                },
            ),
            pending_collapse: game.pending_collapse().filter(|_| end.is_none()).map(CollapseView::from),
            collapses: game.collapses().iter().map(CollapseView::from).collect(),
            result: record.result().into(),
            end: end.map(EndView::from),
            clock: record.clock().map(ClockView::from),
            claim_from: record.claimable(claim_after).map(|(_, from)| stamp(from)),
            draw_offer: record.draw_offer().map(PlayerName::from),
            rematch: record.rematch().map(|game_id| RematchView { game_id }),
            rematch_of: record.stored.rematch_of,
            arena: record.stored.arena,
            score: ScoreView { x: game.score().x.as_f64(), o: game.score().o.as_f64() },
            lines: game.lines().iter().map(LineView::from).collect(),
            moves: game.moves().iter().map(MoveView::from).collect(),
        }
    }
}

impl GameView {
    /// This view as the holder of `seat` sees it, if they hold one.
    pub fn seen_from(self, seat: Option<Player>) -> GameView {
        GameView { your_seat: seat.map(PlayerName::from), ..self }
    }
}

/// The squares of `game`, which has ended (`over`) or not.
pub(crate) fn board_of(game: &Game, over: bool) -> Vec<CellView> {
    // Once a game has ended, by the rules or beside them, nothing more is
    // measured, and nothing waits for a choice.
    let odds = if over { game.settled_square_probabilities() } else { game.square_probabilities() };
    Square::ALL
        .into_iter()
        .zip(odds)
        .map(|(square, odds)| CellView {
            square: square.number(),
            classical: game.classical(square).map(MarkName),
            spooky: game.spooky(square).map(MarkName).collect(),
            probabilities: ProbabilitiesView::from(odds),
        })
        .collect()
}

impl ToAct {
    /// How `player` acts now in `game`.
    pub fn of(game: &Game, player: Player) -> ToAct {
        ToAct {
            player: player.into(),
            kind: if game.pending_collapse().is_some() { ActionKind::Collapse } else { ActionKind::Move },
            forced_squares: forced_squares(game),
        }
    }
}

/// Who holds seat `player` of `record`'s game, if anyone does.
fn seat_holder(record: &GameRecord, player: Player) -> Option<SeatHolderView> {
    let present = record.is_present(player);
    let rating = SeatRatingView::of(&record.stored.ratings, player);
    if let Some(bot) = record.stored.opponent.filter(|_| record.bot_seat() == Some(player)) {
        return Some(SeatHolderView { name: None, bot: Some(bot.into()), bot_account: false, present, rating });
    }
    let seat = record.stored.seat(player)?;
    let name = seat.holder.as_ref().map(|holder| holder.name.to_string());
    let bot_account = seat.holder.as_ref().is_some_and(|holder| holder.bot_account);
    Some(SeatHolderView { name, bot: None, bot_account, present, rating })
}

fn forced_squares(game: &Game) -> Option<[u8; 2]> {
    game.forced_squares().map(|squares| squares.map(Square::number))
}

impl From<SquareProbabilities> for ProbabilitiesView {
    fn from(odds: SquareProbabilities) -> ProbabilitiesView {
        // Nine decimals hide the simulator's rounding (0.5000000000000001) from clients.
        let round = |p: f64| (p * 1e9).round() / 1e9;
        ProbabilitiesView { x: round(odds.x), o: round(odds.o), empty: round(odds.empty) }
    }
}

impl From<&Collapse> for CollapseView {
    fn from(collapse: &Collapse) -> CollapseView {
        CollapseView {
            chooser: collapse.chooser.into(),
            closing_move: collapse.closing_move,
            cycle_moves: collapse.cycle_moves.to_vec(),
            options: collapse
                .options
                .iter()
                .map(|option| CollapseOptionView {
                    square: option.square.number(),
                    outcome: option
                        .outcome
                        .iter()
                        .map(|&(move_number, square)| LandingView { move_number, square: square.number() })
                        .collect(),
                })
                .collect(),
            square: collapse.square.map(|square| square.number()),
        }
    }
}

impl From<&Line> for LineView {
    fn from(line: &Line) -> LineView {
        LineView {
            player: line.player.into(),
            squares: squares_of(line.squares),
            max_move: line.max_move,
            points: line.points.as_f64(),
        }
    }
}

impl From<&Move> for MoveView {
    fn from(m: &Move) -> MoveView {
        MoveView {
            move_number: m.move_number,
            player: m.player().into(),
            squares: squares_of(m.squares),
            landed: m.landed.map(|square| square.number()),
        }
    }
}

impl SeatedGame {
    /// The view of `record` with the caller's new `seat`, as [`GameView::new`] with `claim_after`.
    pub fn new(record: &GameRecord, seat: Seat, claim_after: Duration) -> SeatedGame {
        SeatedGame {
            game: GameView::new(record, claim_after).seen_from(Some(seat.player)),
            seat: SeatView { player: seat.player.into(), token: seat.token },
            invite: seat.invite,
        }
    }
}
