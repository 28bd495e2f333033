//! The puzzle operations: a puzzle to try (the next for you, today's, or by
//! id) and an attempt at it, an action at a time.

use actix_web::web::Data;
use actix_web::{HttpResponse, get, post, web};
use serde::Deserialize;
use utoipa::IntoParams;

use super::extract::{Bearer, JsonBody, caller};
use super::games::Answer;
use super::limit::{ClientAddress, Limits};
use super::views::{AttemptRequest, AttemptView, PuzzleView, VariantName};
use crate::record::{AttemptId, PuzzleId};
use crate::service::GameService;

/// The query that names a variant.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct VariantQuery {
    /// The variant; default `measurement`.
    #[serde(default)]
    variant: VariantName,
}

/// Get a puzzle to try next.
///
/// With a player's token, one you have not tried, rated nearest your puzzle
/// rating (1500 before your first); without, one of the 50 easiest, at random.
/// 404 once you have tried every puzzle of the variant.
#[utoipa::path(
    tag = "puzzles",
    security((), ("player_token" = [])),
    params(VariantQuery),
    responses(
        (status = 200, description = "The puzzle.", body = PuzzleView),
        (status = 400, response = super::docs::BadRequest),
        (status = 401, response = super::docs::Unauthorized),
        (status = 404, response = super::docs::NotFound),
        (status = 429, response = super::docs::TooManyRequests),
        (status = 500, response = super::docs::Internal),
        (status = 503, response = super::docs::Unavailable),
    )
)]
#[get("/puzzles/next")]
async fn next_puzzle(service: Data<GameService>, query: web::Query<VariantQuery>, bearer: Bearer) -> Answer {
    let player = caller(&service, bearer).await?;
    let puzzle = service.next_puzzle(query.variant.into(), player.as_ref()).await?;
    Ok(HttpResponse::Ok().json(PuzzleView::from(&puzzle)))
}

/// Get today's puzzle: one a day (UTC), the same on every instance.
#[utoipa::path(
    tag = "puzzles",
    params(VariantQuery),
    responses(
        (status = 200, description = "Today's puzzle.", body = PuzzleView),
        (status = 400, response = super::docs::BadRequest),
        (status = 404, response = super::docs::NotFound),
        (status = 500, response = super::docs::Internal),
        (status = 503, response = super::docs::Unavailable),
    )
)]
#[get("/puzzles/daily")]
async fn daily_puzzle(service: Data<GameService>, query: web::Query<VariantQuery>) -> Answer {
    Ok(HttpResponse::Ok().json(PuzzleView::from(&service.daily_puzzle(query.variant.into()).await?)))
}

/// Get a puzzle: its position, drawn as a game's, with the side to act and
/// its legal actions. The solution is not shown: an attempt shows it once it
/// is over.
#[utoipa::path(
    tag = "puzzles",
    params(("id" = i64, Path, description = "The puzzle's id.")),
    responses(
        (status = 200, description = "The puzzle.", body = PuzzleView),
        (status = 400, response = super::docs::BadRequest),
        (status = 404, response = super::docs::NotFound),
        (status = 500, response = super::docs::Internal),
        (status = 503, response = super::docs::Unavailable),
    )
)]
#[get("/puzzles/{id}")]
async fn get_puzzle(service: Data<GameService>, id: web::Path<PuzzleId>) -> Answer {
    Ok(HttpResponse::Ok().json(PuzzleView::from(&service.puzzle(id.into_inner()).await?)))
}

/// Start an attempt at a puzzle with its first action.
///
/// A right action (the solution's, or its mirror image in a symmetric
/// position) is answered with the other side's best defence, and the attempt
/// waits for your next action at `/puzzles/{id}/attempts/{attempt}`; the last
/// right action solves it. A wrong one fails it. Once it is over the answer
/// shows the solution. With a player's token, your first attempt at a puzzle
/// is rated: solving it is a win against the puzzle, failing a loss. Your
/// other attempts at it show no solution while the rated one is open, and a
/// rated attempt left open counts as failed once you start an attempt at
/// another puzzle. An
/// action the rules refuse is 422 with the rule's code, and changes nothing.
#[utoipa::path(
    tag = "puzzles",
    security((), ("player_token" = [])),
    params(("id" = i64, Path, description = "The puzzle's id.")),
    request_body = AttemptRequest,
    responses(
        (status = 201, description = "The attempt after its first action.", body = AttemptView,
            headers(("Location" = String, description = "The attempt's path, for its next action."))),
        (status = 400, response = super::docs::BadRequest),
        (status = 401, response = super::docs::Unauthorized),
        (status = 404, response = super::docs::NotFound),
        (status = 422, response = super::docs::RuleBroken),
        (status = 429, response = super::docs::TooManyRequests),
        (status = 500, response = super::docs::Internal),
        (status = 503, response = super::docs::Unavailable),
        super::docs::BodyRefusals,
    )
)]
#[post("/puzzles/{id}/attempts")]
async fn attempt_puzzle(
    service: Data<GameService>,
    id: web::Path<PuzzleId>,
    body: JsonBody<AttemptRequest>,
    bearer: Bearer,
    limits: Data<Limits>,
    client: ClientAddress,
) -> Answer {
    let player = caller(&service, bearer).await?;
    limits.admit_creation(client, player.as_ref())?;
    let attempted = service.attempt_puzzle(id.into_inner(), player.as_ref(), body.0.action.action()?).await?;
    Ok(HttpResponse::Created()
        .insert_header(("Location", format!("/api/v1/puzzles/{}/attempts/{}", attempted.puzzle.id, attempted.id)))
        .json(AttemptView::from(&attempted)))
}

/// Play the next action of an attempt.
///
/// As the first: a right action is answered with the defence, or solves the
/// puzzle; a wrong one fails it. A player's attempt takes only their token
/// (403 otherwise); one made without a token takes any. 409 `not_open` once
/// the attempt is over.
#[utoipa::path(
    tag = "puzzles",
    security((), ("player_token" = [])),
    params(
        ("id" = i64, Path, description = "The puzzle's id."),
        ("attempt" = i64, Path, description = "The attempt's id."),
    ),
    request_body = AttemptRequest,
    responses(
        (status = 200, description = "The attempt after the action.", body = AttemptView),
        (status = 400, response = super::docs::BadRequest),
        (status = 401, response = super::docs::Unauthorized),
        (status = 403, response = super::docs::Forbidden),
        (status = 404, response = super::docs::NotFound),
        (status = 409, response = super::docs::Conflict),
        (status = 422, response = super::docs::RuleBroken),
        (status = 429, response = super::docs::TooManyRequests),
        (status = 500, response = super::docs::Internal),
        (status = 503, response = super::docs::Unavailable),
        super::docs::BodyRefusals,
    )
)]
#[post("/puzzles/{id}/attempts/{attempt}")]
async fn continue_attempt(
    service: Data<GameService>,
    path: web::Path<(PuzzleId, AttemptId)>,
    body: JsonBody<AttemptRequest>,
    bearer: Bearer,
) -> Answer {
    let (id, attempt) = path.into_inner();
    let player = caller(&service, bearer).await?;
    let attempted = service.continue_attempt(id, attempt, player.as_ref(), body.0.action.action()?).await?;
    Ok(HttpResponse::Ok().json(AttemptView::from(&attempted)))
}

/// Registers the puzzle operations, `next` and `daily` before `{id}`.
pub fn routes(config: &mut utoipa_actix_web::service_config::ServiceConfig) {
    config
        .service(next_puzzle)
        .service(daily_puzzle)
        .service(get_puzzle)
        .service(attempt_puzzle)
        .service(continue_attempt);
}
