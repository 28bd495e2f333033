//! What the API reads and writes: request bodies and views, with their schemas.
//!
//! The engine knows nothing of JSON schemas, so the few enums a client sees are
//! mirrored here with the names the API uses.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{
    AdditionalProperties, Array, ArrayBuilder, ObjectBuilder, OneOfBuilder, Schema, SchemaType, Type,
};

use crate::bot::Level;
use crate::engine::{
    Action, Actor, Collapse, GameResult, Line, LogEntry, Mark, Move, Player, Square, SquareProbabilities, Variant,
};
use crate::service::{Event, GameRecord, Hint, ListedGame, Seat, Status, StoredEntry};

/// A player: X opens and makes the odd moves, O the even ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema, Default)]
pub enum PlayerName {
    /// X.
    #[default]
    X,
    /// O.
    O,
}

impl From<Player> for PlayerName {
    fn from(player: Player) -> PlayerName {
        match player {
            Player::X => PlayerName::X,
            Player::O => PlayerName::O,
        }
    }
}

impl From<PlayerName> for Player {
    fn from(name: PlayerName) -> Player {
        match name {
            PlayerName::X => Player::X,
            PlayerName::O => Player::O,
        }
    }
}

/// Who decides how a closed cycle collapses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema, Default)]
#[serde(rename_all = "snake_case")]
pub enum VariantName {
    /// A simulated quantum measurement, right after the closing move (the default).
    #[default]
    Measurement,
    /// Goff's rule: the player who did not close the cycle chooses.
    PlayerChoice,
}

impl From<Variant> for VariantName {
    fn from(variant: Variant) -> VariantName {
        match variant {
            Variant::Measurement => VariantName::Measurement,
            Variant::PlayerChoice => VariantName::PlayerChoice,
        }
    }
}

impl From<VariantName> for Variant {
    fn from(name: VariantName) -> Variant {
        match name {
            VariantName::Measurement => Variant::Measurement,
            VariantName::PlayerChoice => Variant::PlayerChoice,
        }
    }
}

/// Who acted or decides: a player, or the quantum measurement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
pub enum ActorName {
    /// Player X.
    X,
    /// Player O.
    O,
    /// The measurement of the `measurement` variant.
    #[serde(rename = "measurement")]
    Measurement,
}

impl From<Actor> for ActorName {
    fn from(actor: Actor) -> ActorName {
        match actor {
            Actor::Player(Player::X) => ActorName::X,
            Actor::Player(Player::O) => ActorName::O,
            Actor::Measurement => ActorName::Measurement,
        }
    }
}

/// How the game stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ResultName {
    /// Still being played.
    Ongoing,
    /// X ended with more points.
    XWins,
    /// O ended with more points.
    OWins,
    /// Equal points: a full board without a line.
    Draw,
}

impl From<GameResult> for ResultName {
    fn from(result: GameResult) -> ResultName {
        match result {
            GameResult::Ongoing => ResultName::Ongoing,
            GameResult::XWins => ResultName::XWins,
            GameResult::OWins => ResultName::OWins,
            GameResult::Draw => ResultName::Draw,
        }
    }
}

/// Where a game stands in a listing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum StatusName {
    /// A seat is free: the game can be joined.
    Waiting,
    /// Both seats are taken and the game goes on.
    Ongoing,
    /// The game is over.
    Finished,
}

impl From<Status> for StatusName {
    fn from(status: Status) -> StatusName {
        match status {
            Status::Waiting => StatusName::Waiting,
            Status::Ongoing => StatusName::Ongoing,
            Status::Finished => StatusName::Finished,
        }
    }
}

impl From<StatusName> for Status {
    fn from(name: StatusName) -> Status {
        match name {
            StatusName::Waiting => Status::Waiting,
            StatusName::Ongoing => Status::Ongoing,
            StatusName::Finished => Status::Finished,
        }
    }
}

/// `POST /games`: a new game. Every field is optional; an empty body is fine.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"variant": "player_choice", "play_as": "X", "opponent": {"bot": "parasite", "mistake_chance": 0.1}}))]
pub struct CreateGameRequest {
    /// How cycles collapse; default `measurement`.
    #[serde(default)]
    pub variant: VariantName,
    /// The seat the creator takes; default `X`, who moves first.
    #[serde(default)]
    pub play_as: PlayerName,
    /// A bot to play against; it takes the other seat and answers every action in
    /// the same request. Without it, a second player joins.
    #[serde(default)]
    pub opponent: Option<OpponentRequest>,
}

/// A computer player.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum BotName {
    /// Any legal action, at random.
    Random,
    /// The original app's heuristic, picking at random where it allows: two of its
    /// marked squares in a line, else a square of a line the opponent has two marks
    /// in, else a most entangled square; any two squares with `mistake_chance`.
    Parasite,
    /// Exact search: never ends worse than the game's value.
    Perfect,
}

/// The bot to play against.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OpponentRequest {
    /// Its level.
    pub bot: BotName,
    /// `parasite` only: the probability of a random move, 0-1; default 0.1.
    pub mistake_chance: Option<f64>,
}

impl OpponentRequest {
    /// The bot's level.
    ///
    /// # Errors
    /// A reason when `mistake_chance` is out of range or given to a level without it.
    pub fn level(&self) -> Result<Level, String> {
        match (self.bot, self.mistake_chance) {
            (BotName::Random, None) => Ok(Level::Random),
            (BotName::Perfect, None) => Ok(Level::Perfect),
            (BotName::Parasite, None) => Ok(Level::Parasite { mistake_chance: Level::DEFAULT_MISTAKE_CHANCE }),
            (BotName::Parasite, Some(chance)) if (0.0..=1.0).contains(&chance) => {
                Ok(Level::Parasite { mistake_chance: chance })
            }
            (BotName::Parasite, Some(chance)) => Err(format!("mistake_chance must be from 0 to 1, not {chance}")),
            (_, Some(_)) => Err("only the parasite bot takes a mistake_chance".into()),
        }
    }
}

/// Documented by hand: only the parasite bot takes a `mistake_chance`, which one
/// struct cannot say to the schema generator.
impl utoipa::PartialSchema for OpponentRequest {
    fn schema() -> RefOr<Schema> {
        let bot = |names: &[&str]| {
            ObjectBuilder::new()
                .schema_type(Type::String)
                .enum_values(Some(names.iter().copied()))
                .description(Some("Its level."))
        };
        let parasite = ObjectBuilder::new()
            .property("bot", bot(&["parasite"]))
            .property(
                "mistake_chance",
                ObjectBuilder::new()
                    .schema_type(SchemaType::from_iter([Type::Number, Type::Null]))
                    .minimum(Some(0.0))
                    .maximum(Some(1.0))
                    .description(Some(
                        "The probability of a random move instead of its own, 0-1; default (or null) 0.1.",
                    )),
            )
            .required("bot")
            .additional_properties(Some(AdditionalProperties::FreeForm(false)));
        let others = ObjectBuilder::new()
            .property("bot", bot(&["random", "perfect"]))
            .required("bot")
            .additional_properties(Some(AdditionalProperties::FreeForm(false)));
        OneOfBuilder::new()
            .item(parasite)
            .item(others)
            .description(Some("The bot to play against; only `parasite` takes a `mistake_chance`."))
            .into()
    }
}

impl ToSchema for OpponentRequest {}

/// The bot a game is played against.
#[derive(Debug, Serialize, ToSchema)]
pub struct OpponentView {
    /// Its level.
    pub bot: BotName,
    /// The seat it holds.
    pub player: PlayerName,
    /// `parasite` only: its probability of a random move.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mistake_chance: Option<f64>,
}

/// `POST /games/{id}/moves`: the next move's two squares.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"squares": [0, 4]}))]
pub struct MoveRequest {
    /// Two different squares 0-8 without a classical mark; the same square twice
    /// only for the last open square (X's move 9).
    #[schema(schema_with = two_squares)]
    #[serde(deserialize_with = "super::extract::two_whole_numbers")]
    pub squares: [i64; 2],
}

/// `POST /games/{id}/collapse`: "move `move` ends in square `square`".
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"move": 3, "square": 0}))]
pub struct CollapseRequest {
    /// Any move of the cycle; usually the closing move.
    #[serde(rename = "move", deserialize_with = "super::extract::whole_number")]
    #[schema(minimum = 1, maximum = 9)]
    pub move_number: i64,
    /// One of that move's two squares.
    #[serde(deserialize_with = "super::extract::whole_number")]
    #[schema(minimum = 0, maximum = 8)]
    pub square: i64,
}

/// The schema of a move's squares: two squares 0-8.
fn two_squares() -> Array {
    ArrayBuilder::new()
        .items(ObjectBuilder::new().schema_type(Type::Integer).minimum(Some(0)).maximum(Some(8)))
        .min_items(Some(2))
        .max_items(Some(2))
        .description(Some(
            "Two different squares 0-8 without a classical mark; the same square twice only for the last open square (X's move 9).",
        ))
        .build()
}

impl MoveRequest {
    /// The engine action, with each square checked.
    pub fn action(&self) -> Result<Action, crate::engine::RuleError> {
        let [a, b] = self.squares;
        Ok(Action::Move { squares: [Square::try_from(a)?, Square::try_from(b)?] })
    }
}

impl CollapseRequest {
    /// The engine action. A move number beyond any game's is clamped to one that
    /// is still no move, so that the engine judges it by its own rules.
    pub fn action(&self) -> Result<Action, crate::engine::RuleError> {
        let move_number = self.move_number.clamp(0, i64::from(u8::MAX)) as u8;
        Ok(Action::Collapse { move_number, square: Square::try_from(self.square)? })
    }
}

/// A game as a client sees it, rebuilt from its log on every request.
#[derive(Debug, Serialize, ToSchema)]
pub struct GameView {
    /// The game's id.
    pub id: i64,
    /// How cycles collapse in this game.
    pub variant: VariantName,
    /// Moves on with every change (seat, move, collapse); also the `ETag`. Send it
    /// back in `If-Match` to act only on the game as you saw it.
    pub version: i64,
    /// Waiting for a second player, ongoing, or finished.
    pub status: StatusName,
    /// When the game was created (RFC 3339, UTC).
    pub created_at: String,
    /// The seats nobody has taken yet.
    pub open_seats: Vec<PlayerName>,
    /// The bot in a game against the computer, else null.
    pub opponent: Option<OpponentView>,
    /// The nine squares, 0-8 row-major from the top-left.
    pub board: Vec<CellView>,
    /// Who places the next move and its number; null while a collapse is pending and
    /// after the end.
    pub next_to_move: Option<NextToMove>,
    /// The closed cycle waiting for the chooser's decision, or null.
    pub pending_collapse: Option<CollapseView>,
    /// Every collapse so far, in order, with how it was decided.
    pub collapses: Vec<CollapseView>,
    /// `ongoing` until the game ends.
    pub result: ResultName,
    /// Each player's points: 1 for the earliest line, 1/2 for any later one.
    pub score: ScoreView,
    /// Every completed line.
    pub lines: Vec<LineView>,
    /// Every move placed, in order.
    pub moves: Vec<MoveView>,
}

/// One square of the board.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({"square": 4, "classical": null, "spooky": ["O2", "X3"],
    "probabilities": {"X": 0.5, "O": 0.5, "empty": 0.0}}))]
pub struct CellView {
    /// The square, 0-8.
    pub square: u8,
    /// The classical mark, such as `X3`, or null.
    #[schema(value_type = Option<String>)]
    pub classical: Option<MarkName>,
    /// The spooky marks of unresolved moves, in move order.
    #[schema(value_type = Vec<String>)]
    pub spooky: Vec<MarkName>,
    /// The odds of what the square would hold if every unresolved move were
    /// measured now; a UI can shade the square with them.
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
    pub cycle_moves: Vec<u8>,
    /// The two possible outcomes, by the closing move's squares ascending.
    pub options: Vec<CollapseOptionView>,
    /// The square the closing move ended in; null while pending.
    pub decided_square: Option<u8>,
}

/// One outcome of a collapse.
#[derive(Debug, Serialize, ToSchema)]
pub struct CollapseOptionView {
    /// The square the closing move ends in; choose it with `{"move": closing_move, "square": square}`.
    pub square: u8,
    /// Where every move of the collapsing component lands, in move order.
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
    pub number: u8,
    /// Who made it.
    pub player: PlayerName,
    /// Its two squares, ascending.
    pub squares: Vec<u8>,
    /// The square its classical mark landed in, or null while it is spooky.
    pub landed: Option<u8>,
}

/// A seat and the token that acts for it.
#[derive(Debug, Serialize, ToSchema)]
pub struct SeatView {
    /// The seat's player.
    pub player: PlayerName,
    /// Send it as `Authorization: Bearer <token>` to move and collapse. It is shown
    /// only once: the server keeps just a hash of it.
    pub token: String,
}

/// A game and the caller's new seat.
#[derive(Debug, Serialize, ToSchema)]
pub struct SeatedGame {
    /// The game.
    pub game: GameView,
    /// The caller's seat.
    pub seat: SeatView,
}

/// A page of games, newest first.
#[derive(Debug, Serialize, ToSchema)]
pub struct GameList {
    /// The games of this page.
    pub games: Vec<GameSummary>,
    /// Pass as `cursor` for the next page; null on the last page.
    pub next_cursor: Option<String>,
}

/// A game in a listing.
#[derive(Debug, Serialize, ToSchema)]
pub struct GameSummary {
    /// The game's id.
    pub id: i64,
    /// How cycles collapse.
    pub variant: VariantName,
    /// Waiting, ongoing or finished.
    pub status: StatusName,
    /// `ongoing` until the end.
    pub result: ResultName,
    /// The game's version.
    pub version: i64,
    /// When it was created.
    pub created_at: String,
}

/// A game's whole log.
#[derive(Debug, Serialize, ToSchema)]
pub struct GameLog {
    /// The game's id.
    pub game_id: i64,
    /// How cycles collapse.
    pub variant: VariantName,
    /// The sequence number of the last entry.
    pub version: i64,
    /// Every entry, in order.
    pub entries: Vec<LogEntryView>,
}

/// One entry of a game's log.
#[derive(Debug, Serialize, ToSchema)]
pub struct LogEntryView {
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
pub enum EventView {
    /// A player took a seat.
    Seat {
        /// The seat taken.
        player: PlayerName,
    },
    /// A move was placed.
    Move {
        /// Who placed it.
        player: PlayerName,
        /// The move's two squares, ascending.
        squares: Vec<u8>,
    },
    /// A collapse was decided.
    Collapse {
        /// Who decided it: a player or the measurement.
        decided_by: ActorName,
        /// The move that closed the cycle.
        closing_move: u8,
        /// The square the closing move ended in.
        square: u8,
    },
}

/// The process answers.
#[derive(Debug, Serialize, ToSchema)]
pub struct Health {
    /// `ok`, or `ready` once the database answers too.
    #[schema(example = "ok")]
    pub status: String,
}

fn squares_of<const N: usize>(squares: [Square; N]) -> Vec<u8> {
    squares.iter().map(|s| s.index() as u8).collect()
}

impl From<&GameRecord> for GameView {
    fn from(record: &GameRecord) -> GameView {
        let game = &record.game;
        let odds = game.square_probabilities();
        GameView {
            id: record.stored.id,
            variant: game.variant().into(),
            version: record.version(),
            status: record.status().into(),
            created_at: record.stored.created_at.clone(),
            open_seats: record.open_seats().into_iter().map(PlayerName::from).collect(),
            opponent: record.stored.opponent.zip(record.bot_player()).map(|(level, player)| OpponentView {
                bot: match level {
                    Level::Random => BotName::Random,
                    Level::Parasite { .. } => BotName::Parasite,
                    Level::Perfect => BotName::Perfect,
                },
                player: player.into(),
                mistake_chance: match level {
                    Level::Parasite { mistake_chance } => Some(mistake_chance),
                    Level::Random | Level::Perfect => None,
                },
            }),
            board: Square::ALL
                .into_iter()
                .zip(odds)
                .map(|(square, odds)| CellView {
                    square: square.index() as u8,
                    classical: game.classical(square).map(MarkName),
                    spooky: game.spooky(square).map(MarkName).collect(),
                    probabilities: ProbabilitiesView::from(odds),
                })
                .collect(),
            next_to_move: game.next_to_move().map(|(player, move_number)| NextToMove {
                player: player.into(),
                move_number,
                forced_squares: game.forced_squares().map(|squares| squares.map(|s| s.index() as u8)),
            }),
            pending_collapse: game.pending_collapse().map(CollapseView::from),
            collapses: game.collapses().iter().map(CollapseView::from).collect(),
            result: game.result().into(),
            score: ScoreView { x: game.score().x.as_f64(), o: game.score().o.as_f64() },
            lines: game.lines().iter().map(LineView::from).collect(),
            moves: game.moves().iter().map(MoveView::from).collect(),
        }
    }
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
                    square: option.square.index() as u8,
                    outcome: option
                        .outcome
                        .iter()
                        .map(|&(move_number, square)| LandingView { move_number, square: square.index() as u8 })
                        .collect(),
                })
                .collect(),
            decided_square: collapse.decided_square.map(|square| square.index() as u8),
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
            number: m.number,
            player: m.player().into(),
            squares: squares_of(m.squares),
            landed: m.landed.map(|square| square.index() as u8),
        }
    }
}

impl SeatedGame {
    /// The view of `record` with the caller's new `seat`.
    pub fn new(record: &GameRecord, seat: Seat) -> SeatedGame {
        SeatedGame { game: GameView::from(record), seat: SeatView { player: seat.player.into(), token: seat.token } }
    }
}

impl From<&ListedGame> for GameSummary {
    fn from(listed: &ListedGame) -> GameSummary {
        GameSummary {
            id: listed.id,
            variant: listed.variant.into(),
            status: listed.status.into(),
            result: listed.result.into(),
            version: listed.version,
            created_at: listed.created_at.clone(),
        }
    }
}

impl From<&StoredEntry> for LogEntryView {
    fn from(entry: &StoredEntry) -> LogEntryView {
        let event = match entry.event {
            Event::SeatTaken(player) => EventView::Seat { player: player.into() },
            Event::Action(LogEntry { actor, action: Action::Move { squares } }) => EventView::Move {
                player: match actor {
                    Actor::Player(player) => player.into(),
                    Actor::Measurement => {
                        unreachable!("the store reads a move's actor as a player")
                    }
                },
                squares: squares_of(squares),
            },
            Event::Action(LogEntry { actor, action: Action::Collapse { move_number, square } }) => {
                EventView::Collapse {
                    decided_by: actor.into(),
                    closing_move: move_number,
                    square: square.index() as u8,
                }
            }
        };
        LogEntryView { seq: entry.seq, created_at: entry.created_at.clone(), by_bot: entry.by_bot, event }
    }
}

/// The best action for the side to act, by exact search.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({"actor": "O", "action": {"kind": "collapse", "move": 3, "square": 4}, "value": 0.5,
    "value_kind": "guaranteed"}))]
pub struct HintView {
    /// Who is to act.
    pub actor: ActorName,
    /// The best action: post it to `moves` or `collapse`.
    pub action: ActionView,
    /// The final score difference X minus O that the action leads to with perfect
    /// play from both sides.
    pub value: f64,
    /// `guaranteed` in `player_choice`; in `measurement`, where chance decides
    /// collapses, `expected`: the mean over the measurements' outcomes.
    pub value_kind: ValueKind,
}

/// How sure a hint's value is.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ValueKind {
    /// Perfect play reaches it whatever the opponent does.
    Guaranteed,
    /// The mean over the measurements' equally likely outcomes.
    Expected,
}

/// An action, as `moves` and `collapse` take it.
#[derive(Debug, Serialize, ToSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ActionView {
    /// A move: post `{"squares": squares}` to `moves`.
    Move {
        /// Its two squares.
        squares: Vec<u8>,
    },
    /// A collapse choice: post `{"move": move, "square": square}` to `collapse`.
    Collapse {
        /// The move named.
        #[serde(rename = "move")]
        move_number: u8,
        /// The square it ends in.
        square: u8,
    },
}

impl From<&Hint> for HintView {
    fn from(hint: &Hint) -> HintView {
        HintView {
            actor: hint.actor.into(),
            action: match hint.solution.action {
                Action::Move { squares } => ActionView::Move { squares: squares_of(squares) },
                Action::Collapse { move_number, square } => {
                    ActionView::Collapse { move_number, square: square.index() as u8 }
                }
            },
            value: hint.solution.value.points,
            value_kind: match hint.variant {
                Variant::PlayerChoice => ValueKind::Guaranteed,
                Variant::Measurement => ValueKind::Expected,
            },
        }
    }
}
