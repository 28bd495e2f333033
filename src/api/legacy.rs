//! The original web app's three routes, so that its Next.js frontend runs on this
//! server unchanged: one shared game in the measurement variant, the original
//! shapes, and errors as `{"detail": "..."}`.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError, get, post, web};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::extract::JsonBody;
use super::limit::{ClientAddress, Limits};
use super::problem::ApiError;
use super::views::{MoveRequest, PlayerName};
use crate::engine::{GameResult, Player, Square};
use crate::service::{GameRecord, GameService};

/// A square as the original app shows it: `"X"` or `"O"` once classical, else the
/// list of its spooky marks (possibly empty).
#[derive(Debug, Serialize, ToSchema)]
#[serde(untagged)]
pub enum LegacyCell {
    /// The player of the classical mark.
    Classical(String),
    /// The spooky marks, such as `["X1", "O2"]`.
    Spooky(Vec<String>),
}

/// Against another player at the same screen, or against the computer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, ToSchema)]
pub enum LegacyMode {
    /// Player against player.
    #[serde(rename = "PvP")]
    PlayerVsPlayer,
    /// Player against the parasite bot (the default).
    #[default]
    #[serde(rename = "PvE")]
    PlayerVsBot,
}

/// The shared game as the original app reads it.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({"board": ["X", ["O2"], [], [], ["O2"], [], [], [], []], "current_player": "X",
    "status": "ongoing", "mode": "PvE", "player_mark": "X"}))]
pub struct LegacyState {
    /// The nine squares, 0-8 row-major.
    pub board: Vec<LegacyCell>,
    /// The player to move.
    pub current_player: PlayerName,
    /// `ongoing`, `Player X wins!`, `Player O wins!` or `Draw!`.
    pub status: String,
    /// `PvP` or `PvE`.
    pub mode: LegacyMode,
    /// The mark chosen at the last reset; in `PvE` the bot holds the other.
    pub player_mark: PlayerName,
}

/// `POST /reset`: both fields optional.
#[derive(Debug, Deserialize, ToSchema)]
pub struct LegacyResetRequest {
    /// Default `PvE`.
    #[serde(default)]
    pub mode: LegacyMode,
    /// Default `X`.
    #[serde(default)]
    pub player_mark: PlayerName,
}

/// `POST /move`: the two squares of the move, 0-8.
#[derive(Debug, Deserialize, ToSchema)]
pub struct LegacyMoveRequest {
    /// The first square.
    #[schema(minimum = 0, maximum = 8)]
    #[serde(deserialize_with = "super::extract::whole_number")]
    pub square_1: i64,
    /// The second square.
    #[schema(minimum = 0, maximum = 8)]
    #[serde(deserialize_with = "super::extract::whole_number")]
    pub square_2: i64,
}

/// An error as the original app reads it.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({"detail": "that square already holds a classical mark"}))]
pub struct LegacyProblem {
    /// What went wrong.
    pub detail: String,
}

/// An [`ApiError`] in the original app's shape: bad input is 400, a broken rule 422.
#[derive(Debug)]
pub struct LegacyError(ApiError);

impl std::fmt::Display for LegacyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl<E: Into<ApiError>> From<E> for LegacyError {
    fn from(error: E) -> LegacyError {
        LegacyError(error.into())
    }
}

impl ResponseError for LegacyError {
    fn status_code(&self) -> StatusCode {
        match &self.0 {
            // The original answers every unreadable body with 400.
            ApiError::InvalidBody { .. } => StatusCode::BAD_REQUEST,
            other => other.status_code(),
        }
    }

    fn error_response(&self) -> HttpResponse {
        self.0.log_if_internal();
        let mut response = HttpResponse::build(self.status_code());
        if let Some(seconds) = self.0.retry_after() {
            response.insert_header((actix_web::http::header::RETRY_AFTER, seconds.to_string()));
        }
        response.json(LegacyProblem { detail: self.0.detail() })
    }
}

fn state_of(record: &GameRecord, play_as: Player) -> LegacyState {
    let game = &record.game;
    LegacyState {
        board: Square::ALL
            .into_iter()
            .map(|square| match game.classical(square) {
                Some(mark) => LegacyCell::Classical(mark.player().to_string()),
                None => LegacyCell::Spooky(game.spooky(square).map(|mark| mark.to_string()).collect()),
            })
            .collect(),
        current_player: Player::of_move(game.next_move_number()).into(),
        status: match game.result() {
            GameResult::Ongoing => "ongoing",
            GameResult::XWins => "Player X wins!",
            GameResult::OWins => "Player O wins!",
            GameResult::Draw => "Draw!",
            GameResult::Aborted => "Aborted",
        }
        .to_string(),
        mode: if record.stored.opponent.is_some() { LegacyMode::PlayerVsBot } else { LegacyMode::PlayerVsPlayer },
        player_mark: play_as.into(),
    }
}

/// The original app's game state.
#[utoipa::path(
    tag = "original app",
    responses((status = 200, description = "The shared game.", body = LegacyState))
)]
#[get("/state")]
async fn state(service: web::Data<GameService>) -> Result<HttpResponse, LegacyError> {
    let (record, play_as) = service.shared_game().await?;
    Ok(HttpResponse::Ok().json(state_of(&record, play_as)))
}

/// Start a new shared game; in `PvE` the parasite bot holds the other mark and
/// opens when it is X.
#[utoipa::path(
    tag = "original app",
    request_body(content = Option<LegacyResetRequest>, description = "Optional."),
    responses(
        (status = 200, description = "The new game.", body = LegacyState),
        (status = 400, description = "The body is not the JSON this route takes.", body = LegacyProblem),
        (status = 429, description = "This address created too many games; `Retry-After` says how many seconds to wait.",
            body = LegacyProblem, headers(("Retry-After" = u64, description = "Seconds to wait before trying again."))),
    )
)]
#[post("/reset")]
async fn reset(
    service: web::Data<GameService>,
    body: Result<JsonBody<LegacyResetRequest>, ApiError>,
    limits: web::Data<Limits>,
    client: ClientAddress,
) -> Result<HttpResponse, LegacyError> {
    limits.admit_creation(client)?;
    let JsonBody(request) = body?;
    let against_bot = request.mode == LegacyMode::PlayerVsBot;
    let (record, play_as) = service.reset_shared_game(against_bot, request.player_mark.into()).await?;
    Ok(HttpResponse::Ok().json(state_of(&record, play_as)))
}

/// Play a move for the side to move, then the bot's answer in `PvE`. A move that
/// closes a cycle is measured at once. When move 8 leaves one square alone, the
/// server plays the last-square move (X's two marks there) in the same request, for
/// the person or the bot: the answer is the finished game.
#[utoipa::path(
    tag = "original app",
    request_body(content = LegacyMoveRequest),
    responses(
        (status = 200, description = "The game after the move.", body = LegacyState),
        (status = 400, description = "The body is not the JSON this route takes.", body = LegacyProblem),
        (status = 422, description = "The move breaks a rule.", body = LegacyProblem),
    )
)]
#[post("/move")]
async fn play_move(
    service: web::Data<GameService>,
    body: Result<JsonBody<LegacyMoveRequest>, ApiError>,
) -> Result<HttpResponse, LegacyError> {
    let JsonBody(request) = body?;
    let action = MoveRequest { squares: [request.square_1, request.square_2] }.action()?;
    let (record, play_as) = service.move_in_shared_game(action).await?;
    Ok(HttpResponse::Ok().json(state_of(&record, play_as)))
}

/// Registers the original app's routes.
pub fn routes(config: &mut utoipa_actix_web::service_config::ServiceConfig) {
    config.service(state).service(reset).service(play_move);
}
