//! The original web app's three routes, so that its Next.js frontend runs on this
//! server unchanged: the original app's one game, in the measurement variant, its
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
pub(crate) enum OriginalAppCell {
    /// The player of the classical mark.
    Classical(String),
    /// The spooky marks, such as `["X1", "O2"]`.
    Spooky(Vec<String>),
}

/// Against another player at the same screen, or against the computer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, ToSchema)]
pub(crate) enum OriginalAppMode {
    /// Player against player.
    #[serde(rename = "PvP")]
    PlayerVsPlayer,
    /// Player against the parasite bot (the default).
    #[default]
    #[serde(rename = "PvE")]
    PlayerVsBot,
}

/// The original app's game, as the original app reads it.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({"board": ["X", ["O2"], [], [], ["O2"], [], [], [], []], "current_player": "X",
    "status": "ongoing", "mode": "PvE", "player_mark": "X"}))]
pub(crate) struct OriginalAppState {
    /// The nine squares, 0-8 row-major.
    pub board: Vec<OriginalAppCell>,
    /// The player to move.
    pub current_player: PlayerName,
    /// `ongoing`, `Player X wins!`, `Player O wins!` or `Draw!`.
    pub status: String,
    /// `PvP` or `PvE`.
    pub mode: OriginalAppMode,
    /// The mark chosen at the last reset; in `PvE` the bot holds the other.
    pub player_mark: PlayerName,
}

/// `POST /reset`: both fields optional.
#[derive(Debug, Deserialize, ToSchema)]
pub(crate) struct OriginalAppResetRequest {
    /// Default `PvE`.
    #[serde(default)]
    pub mode: OriginalAppMode,
    /// Default `X`.
    #[serde(default)]
    pub player_mark: PlayerName,
}

/// `POST /move`: the two squares of the move, 0-8.
#[derive(Debug, Deserialize, ToSchema)]
pub(crate) struct OriginalAppMoveRequest {
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
pub(crate) struct OriginalAppProblem {
    /// What went wrong.
    pub detail: String,
}

/// An [`ApiError`] in the original app's shape: bad input is 400, a broken rule 422.
#[derive(Debug)]
pub(crate) struct OriginalAppError(ApiError);

impl std::fmt::Display for OriginalAppError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl<E: Into<ApiError>> From<E> for OriginalAppError {
    fn from(error: E) -> OriginalAppError {
        OriginalAppError(error.into())
    }
}

impl ResponseError for OriginalAppError {
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
        response.json(OriginalAppProblem { detail: self.0.detail() })
    }
}

fn state_of(record: &GameRecord, play_as: Player) -> OriginalAppState {
    let game = &record.game;
    OriginalAppState {
        board: Square::ALL
            .into_iter()
            .map(|square| match game.classical(square) {
                Some(mark) => OriginalAppCell::Classical(mark.player().to_string()),
                None => OriginalAppCell::Spooky(game.spooky(square).map(|mark| mark.to_string()).collect()),
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
        mode: if record.stored.opponent.is_some() {
            OriginalAppMode::PlayerVsBot
        } else {
            OriginalAppMode::PlayerVsPlayer
        },
        player_mark: play_as.into(),
    }
}

/// The original app's game state.
#[utoipa::path(
    tag = "original app",
    responses((status = 200, description = "The original app's game.", body = OriginalAppState))
)]
#[get("/state")]
async fn state(service: web::Data<GameService>) -> Result<HttpResponse, OriginalAppError> {
    let (record, play_as) = service.original_app_game().await?;
    Ok(HttpResponse::Ok().json(state_of(&record, play_as)))
}

/// Start a new game for the original app; in `PvE` the parasite bot holds the other mark and
/// opens when it is X.
#[utoipa::path(
    tag = "original app",
    request_body(content = Option<OriginalAppResetRequest>, description = "Optional."),
    responses(
        (status = 200, description = "The new game.", body = OriginalAppState),
        (status = 400, description = "The body is not the JSON this route takes.", body = OriginalAppProblem),
        (status = 429, description = "This address created too many games; `Retry-After` says how many seconds to wait.",
            body = OriginalAppProblem, headers(("Retry-After" = u64, description = "Seconds to wait before trying again."))),
    )
)]
#[post("/reset")]
async fn reset(
    service: web::Data<GameService>,
    body: Result<JsonBody<OriginalAppResetRequest>, ApiError>,
    limits: web::Data<Limits>,
    client: ClientAddress,
) -> Result<HttpResponse, OriginalAppError> {
    limits.admit_creation(client, None)?;
    let JsonBody(request) = body?;
    let against_bot = request.mode == OriginalAppMode::PlayerVsBot;
    let (record, play_as) = service.reset_original_app_game(against_bot, request.player_mark.into()).await?;
    Ok(HttpResponse::Ok().json(state_of(&record, play_as)))
}

/// Play a move for the side to move, then the bot's answer in `PvE`. A move that
/// closes a cycle is measured at once. When move 8 leaves one square alone, the
/// server plays the last-square move (X's two marks there) in the same request, for
/// the person or the bot: the answer is the finished game.
#[utoipa::path(
    tag = "original app",
    request_body(content = OriginalAppMoveRequest),
    responses(
        (status = 200, description = "The game after the move.", body = OriginalAppState),
        (status = 400, description = "The body is not the JSON this route takes.", body = OriginalAppProblem),
        (status = 422, description = "The move breaks a rule.", body = OriginalAppProblem),
    )
)]
#[post("/move")]
async fn play_move(
    service: web::Data<GameService>,
    body: Result<JsonBody<OriginalAppMoveRequest>, ApiError>,
) -> Result<HttpResponse, OriginalAppError> {
    let JsonBody(request) = body?;
    let action = MoveRequest { squares: [request.square_1, request.square_2] }.action()?;
    let (record, play_as) = service.move_in_original_app_game(action).await?;
    Ok(HttpResponse::Ok().json(state_of(&record, play_as)))
}

/// Registers the original app's routes.
pub fn routes(config: &mut utoipa_actix_web::service_config::ServiceConfig) {
    config.service(state).service(reset).service(play_move);
}
