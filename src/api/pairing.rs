//! The pairing operations: challenges from one player to another, and seeks
//! that the server pairs.

use actix_web::http::StatusCode;
use actix_web::web::Data;
use actix_web::{HttpResponse, delete, get, post, web};
use serde::Deserialize;
use utoipa::IntoParams;

use super::extract::{JsonBody, PlayerToken, player};
use super::games::{Answer, cursor_id, cut_page, page_size, seated};
use super::limit::{ClientAddress, Limits};
use super::problem::ApiError;
use super::views::{ChallengeList, ChallengeRequest, ChallengeView, DeclineRequest, SeekRequest, SeekView, name_of};
use crate::record::{ChallengeId, SeekId, StoredChallenge};
use crate::service::GameService;

/// A body's field that is not as the operation takes it.
fn invalid_body(detail: String) -> ApiError {
    ApiError::InvalidBody { status: StatusCode::BAD_REQUEST, detail }
}

/// Challenge a player to a game.
///
/// The challenged player hears of it on their event stream (`challenge`), and
/// accepts or declines it; you may cancel it. It expires after
/// `CHALLENGE_TIMEOUT_SECONDS` (300 by default) unanswered. At most 20 of
/// yours wait at once (422 `too_many_open`). The server's bots (`random`,
/// `parasite`, `perfect`) accept at once: the answer is the challenge,
/// `accepted`, with its `game_id`, and you hear `challenge_accepted` and
/// `game_start`; your player's token acts in that game.
#[utoipa::path(
    tag = "players",
    security(("player_token" = [])),
    params(("name" = String, Path, description = "The name of the player to challenge.", pattern = "^[A-Za-z0-9_-]{3,20}$")),
    request_body(content = Option<ChallengeRequest>, description = "Optional: every field has a default."),
    responses(
        (status = 201, description = "The challenge.", body = ChallengeView),
        (status = 400, response = super::docs::BadRequest),
        (status = 403, response = super::docs::Forbidden),
        (status = 404, response = super::docs::NotFound),
        (status = 422, response = super::docs::RuleBroken),
        super::docs::BodyRefusals,
        super::docs::PlayerRefusals,
    )
)]
#[post("/players/{name}/challenges")]
async fn send_challenge(
    service: Data<GameService>,
    name: web::Path<String>,
    token: PlayerToken,
    body: JsonBody<ChallengeRequest>,
    limits: Data<Limits>,
    client: ClientAddress,
) -> Answer {
    let challenged = name_of(&name).map_err(ApiError::InvalidPath)?;
    let terms = body.0.terms().map_err(invalid_body)?;
    let challenger = player(&service, &token).await?;
    limits.admit_creation(client, Some(&challenger))?;
    let challenge = service.challenge(&challenger, &challenged, terms, body.0.colour.into()).await?;
    Ok(HttpResponse::Created().json(ChallengeView::new(&challenge, service.now())))
}

/// List the challenges you sent and those sent to you that wait for an
/// answer, newest first, a page at a time.
#[utoipa::path(
    tag = "players",
    security(("player_token" = [])),
    params(ChallengesQuery),
    responses(
        (status = 200, description = "Your open challenges.", body = ChallengeList),
        (status = 400, response = super::docs::BadRequest),
        super::docs::PlayerRefusals,
    )
)]
#[get("/players/me/challenges")]
async fn my_challenges(service: Data<GameService>, token: PlayerToken, query: web::Query<ChallengesQuery>) -> Answer {
    let caller = player(&service, &token).await?;
    let (size, before) = (page_size(query.limit, 100)?, cursor_id(query.cursor.as_deref())?);
    // One beyond the page tells that another follows.
    let mut challenges = service.open_challenges(&caller, before, size + 1).await?;
    let next_cursor = cut_page(&mut challenges, size, |challenge| challenge.id.to_string());
    let now = service.now();
    let (sent, received) = challenges.into_iter().partition::<Vec<_>, _>(|c| c.challenger.id == caller.id);
    let views = |challenges: Vec<StoredChallenge>| challenges.iter().map(|c| ChallengeView::new(c, now)).collect();
    Ok(HttpResponse::Ok().json(ChallengeList { sent: views(sent), received: views(received), next_cursor }))
}

/// A page of open challenges.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct ChallengesQuery {
    /// Challenges per page, sent and received together, 1-100; default 100.
    #[param(minimum = 1, maximum = 100)]
    limit: Option<u32>,
    /// The `next_cursor` of the previous page.
    #[param(pattern = r"^[0-9]{1,18}$")]
    cursor: Option<String>,
}

/// Get a challenge you sent or were sent.
#[utoipa::path(
    tag = "players",
    security(("player_token" = [])),
    params(("id" = i64, Path, description = "The challenge's id.")),
    responses(
        (status = 200, description = "The challenge.", body = ChallengeView),
        (status = 400, response = super::docs::BadRequest),
        (status = 403, response = super::docs::Forbidden),
        (status = 404, response = super::docs::NotFound),
        super::docs::PlayerRefusals,
    )
)]
#[get("/challenges/{id}")]
async fn get_challenge(service: Data<GameService>, id: web::Path<ChallengeId>, token: PlayerToken) -> Answer {
    let caller = player(&service, &token).await?;
    let challenge = service.challenge_for(&caller, id.into_inner()).await?;
    Ok(HttpResponse::Ok().json(ChallengeView::new(&challenge, service.now())))
}

/// Accept a challenge sent to you: its game starts, both seats taken, and
/// both players hear `game_start` on their event streams.
///
/// Answers the game and your seat in it, as joining does; your player's token
/// acts there too.
#[utoipa::path(
    tag = "players",
    security(("player_token" = [])),
    params(("id" = i64, Path, description = "The challenge's id.")),
    responses(
        (status = 201, description = "The game and your seat.", body = crate::api::views::SeatedGame,
            headers(("Location" = String, description = "The game's path."), ("ETag" = String, description = "The game's version."))),
        (status = 400, response = super::docs::BadRequest),
        (status = 403, response = super::docs::Forbidden),
        (status = 404, response = super::docs::NotFound),
        (status = 409, response = super::docs::Conflict),
        super::docs::PlayerRefusals,
    )
)]
#[post("/challenges/{id}/accept")]
async fn accept_challenge(
    service: Data<GameService>,
    id: web::Path<ChallengeId>,
    token: PlayerToken,
    limits: Data<Limits>,
    client: ClientAddress,
) -> Answer {
    let caller = player(&service, &token).await?;
    // Its game is a creation, counted as the acceptor's.
    limits.admit_creation(client, Some(&caller))?;
    let (record, seat) = service.accept_challenge(&caller, id.into_inner()).await?;
    seated(&service, &record, seat)
}

/// Decline a challenge sent to you, perhaps saying why.
#[utoipa::path(
    tag = "players",
    security(("player_token" = [])),
    params(("id" = i64, Path, description = "The challenge's id.")),
    request_body(content = Option<DeclineRequest>, description = "Optional: why."),
    responses(
        (status = 200, description = "The challenge, declined.", body = ChallengeView),
        (status = 400, response = super::docs::BadRequest),
        (status = 403, response = super::docs::Forbidden),
        (status = 404, response = super::docs::NotFound),
        (status = 409, response = super::docs::Conflict),
        super::docs::BodyRefusals,
        super::docs::PlayerRefusals,
    )
)]
#[post("/challenges/{id}/decline")]
async fn decline_challenge(
    service: Data<GameService>,
    id: web::Path<ChallengeId>,
    token: PlayerToken,
    body: JsonBody<DeclineRequest>,
) -> Answer {
    let reason = body.0.reason().map_err(invalid_body)?;
    let caller = player(&service, &token).await?;
    let challenge = service.decline_challenge(&caller, id.into_inner(), reason).await?;
    Ok(HttpResponse::Ok().json(ChallengeView::new(&challenge, service.now())))
}

/// Cancel a challenge you sent.
#[utoipa::path(
    tag = "players",
    security(("player_token" = [])),
    params(("id" = i64, Path, description = "The challenge's id.")),
    responses(
        (status = 200, description = "The challenge, cancelled.", body = ChallengeView),
        (status = 400, response = super::docs::BadRequest),
        (status = 403, response = super::docs::Forbidden),
        (status = 404, response = super::docs::NotFound),
        (status = 409, response = super::docs::Conflict),
        super::docs::PlayerRefusals,
    )
)]
#[post("/challenges/{id}/cancel")]
async fn cancel_challenge(service: Data<GameService>, id: web::Path<ChallengeId>, token: PlayerToken) -> Answer {
    let caller = player(&service, &token).await?;
    let challenge = service.cancel_challenge(&caller, id.into_inner()).await?;
    Ok(HttpResponse::Ok().json(ChallengeView::new(&challenge, service.now())))
}

/// Seek a game: the server pairs you with the oldest open seek of the same
/// variant, clock and ratedness (not yours), colours at random; a rated seek
/// with a `rating_range` pairs only with a player rated inside it, whose own
/// range holds you.
///
/// When one waits, the answer is the seek `paired` with its `game_id`, and
/// both players hear `game_start` on their event streams; else it is `open`,
/// and waits for the next seeker: follow `GET /seeks/{id}` or your event
/// stream. It expires after `SEEK_TIMEOUT_SECONDS` (120 by default). At most
/// `MAX_OPEN_SEEKS_PER_PLAYER` (3) of yours are open at once (422 `too_many_open`).
#[utoipa::path(
    tag = "players",
    security(("player_token" = [])),
    request_body(content = Option<SeekRequest>, description = "Optional: every field has a default."),
    responses(
        (status = 201, description = "The seek, paired or open.", body = SeekView),
        (status = 400, response = super::docs::BadRequest),
        (status = 422, response = super::docs::RuleBroken),
        super::docs::BodyRefusals,
        super::docs::PlayerRefusals,
    )
)]
#[post("/seeks")]
async fn create_seek(
    service: Data<GameService>,
    token: PlayerToken,
    body: JsonBody<SeekRequest>,
    limits: Data<Limits>,
    client: ClientAddress,
) -> Answer {
    let (terms, rating_range) = body.0.sought().map_err(invalid_body)?;
    let seeker = player(&service, &token).await?;
    limits.admit_creation(client, Some(&seeker))?;
    let seek = service.seek(&seeker, terms, rating_range).await?;
    Ok(HttpResponse::Created().json(SeekView::new(&seek, service.now())))
}

/// Get one of your seeks: `paired`, with its `game_id`, once the server paired it.
#[utoipa::path(
    tag = "players",
    security(("player_token" = [])),
    params(("id" = i64, Path, description = "The seek's id.")),
    responses(
        (status = 200, description = "The seek.", body = SeekView),
        (status = 400, response = super::docs::BadRequest),
        (status = 403, response = super::docs::Forbidden),
        (status = 404, response = super::docs::NotFound),
        super::docs::PlayerRefusals,
    )
)]
#[get("/seeks/{id}")]
async fn get_seek(service: Data<GameService>, id: web::Path<SeekId>, token: PlayerToken) -> Answer {
    let caller = player(&service, &token).await?;
    let seek = service.seek_for(&caller, id.into_inner()).await?;
    Ok(HttpResponse::Ok().json(SeekView::new(&seek, service.now())))
}

/// Cancel one of your seeks while it is open.
#[utoipa::path(
    tag = "players",
    security(("player_token" = [])),
    params(("id" = i64, Path, description = "The seek's id.")),
    responses(
        (status = 200, description = "The seek, cancelled.", body = SeekView),
        (status = 400, response = super::docs::BadRequest),
        (status = 403, response = super::docs::Forbidden),
        (status = 404, response = super::docs::NotFound),
        (status = 409, response = super::docs::Conflict),
        super::docs::PlayerRefusals,
    )
)]
#[delete("/seeks/{id}")]
async fn cancel_seek(service: Data<GameService>, id: web::Path<SeekId>, token: PlayerToken) -> Answer {
    let caller = player(&service, &token).await?;
    let seek = service.cancel_seek(&caller, id.into_inner()).await?;
    Ok(HttpResponse::Ok().json(SeekView::new(&seek, service.now())))
}

/// Registers the pairing operations.
pub fn routes(config: &mut utoipa_actix_web::service_config::ServiceConfig) {
    config
        .service(my_challenges)
        .service(send_challenge)
        .service(get_challenge)
        .service(accept_challenge)
        .service(decline_challenge)
        .service(cancel_challenge)
        .service(create_seek)
        .service(get_seek)
        .service(cancel_seek);
}
