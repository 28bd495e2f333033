//! The arena operations: creating one, listing them, reading one with its
//! standings, joining and withdrawing, and its results once it finished.

use actix_web::http::StatusCode;
use actix_web::web::Data;
use actix_web::{HttpResponse, get, post, web};
use serde::Deserialize;
use utoipa::IntoParams;

use super::extract::{JsonBody, PlayerToken, player};
use super::games::{Answer, cursor_id, cut_page, page_size};
use super::limit::{ClientAddress, Limits};
use super::problem::ApiError;
use super::views::{ArenaDetail, ArenaList, ArenaRequest, ArenaStatusName, ArenaView, name_of};
use crate::error::Error;
use crate::record::{ArenaId, ArenaStatus};
use crate::service::{GameService, new_arena};

/// Create an arena: a tournament of a fixed length in which whoever is free
/// is paired again at once.
///
/// Join it (you are not in it by creating it); it starts at `starts_at`.
/// A win scores 2, a draw 1, a loss 0; after two wins in a row a player is
/// on fire, and their results count double until one that is not a win. At
/// most 5 of yours may wait to start (422 `too_many_open`).
#[utoipa::path(
    tag = "arenas",
    security(("player_token" = [])),
    request_body = ArenaRequest,
    responses(
        (status = 201, description = "The arena.", body = ArenaView,
            headers(("Location" = String, description = "The arena's path."))),
        (status = 400, response = super::docs::BadRequest),
        (status = 422, response = super::docs::RuleBroken),
        super::docs::BodyRefusals,
        super::docs::PlayerRefusals,
    )
)]
#[post("/arenas")]
async fn create_arena(
    service: Data<GameService>,
    token: PlayerToken,
    body: JsonBody<ArenaRequest>,
    limits: Data<Limits>,
    client: ClientAddress,
) -> Answer {
    let invalid = |detail| ApiError::InvalidBody { status: StatusCode::BAD_REQUEST, detail };
    let settings = body.0.settings().map_err(invalid)?;
    let creator = player(&service, &token).await?;
    limits.admit_creation(client, Some(&creator))?;
    let new = new_arena(settings, creator.id, service.now()).map_err(invalid)?;
    let arena = service.create_arena(new).await?;
    Ok(HttpResponse::Created()
        .insert_header(("Location", format!("/api/v1/arenas/{}", arena.id)))
        .json(ArenaView::new(&arena, service.now())))
}

/// The query of the list of arenas.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct ArenasQuery {
    /// Which arenas: `upcoming`, `running` or `finished`; default `running`.
    status: Option<ArenaStatusName>,
    /// Arenas per page, 1-100; default 20.
    #[param(minimum = 1, maximum = 100)]
    limit: Option<u32>,
    /// The `next_cursor` of the previous page.
    #[param(pattern = r"^[0-9]{1,18}$")]
    cursor: Option<String>,
}

/// List the arenas that are upcoming, running or finished, newest first.
#[utoipa::path(
    tag = "arenas",
    params(ArenasQuery),
    responses(
        (status = 200, description = "A page of arenas.", body = ArenaList),
        (status = 400, response = super::docs::BadRequest),
        (status = 500, response = super::docs::Internal),
        (status = 503, response = super::docs::Unavailable),
    )
)]
#[get("/arenas")]
async fn arenas(service: Data<GameService>, query: web::Query<ArenasQuery>) -> Answer {
    let size = page_size(query.limit, 20)?;
    let before = cursor_id(query.cursor.as_deref())?;
    let status = query.status.map_or(ArenaStatus::Running, Into::into);
    // One beyond the page tells that another follows.
    let mut arenas = service.arenas(status, before, size + 1).await?;
    let next_cursor = cut_page(&mut arenas, size, |arena| arena.id.to_string());
    let now = service.now();
    Ok(HttpResponse::Ok()
        .json(ArenaList { arenas: arenas.iter().map(|a| ArenaView::new(a, now)).collect(), next_cursor }))
}

/// Get an arena: its settings, the time left, its standings (each player's
/// score, rank, fire and sheet) and the games being played.
#[utoipa::path(
    tag = "arenas",
    params(("id" = i64, Path, description = "The arena's id.")),
    responses(
        (status = 200, description = "The arena.", body = ArenaDetail),
        (status = 400, response = super::docs::BadRequest),
        (status = 404, response = super::docs::NotFound),
        (status = 500, response = super::docs::Internal),
        (status = 503, response = super::docs::Unavailable),
    )
)]
#[get("/arenas/{id}")]
async fn get_arena(service: Data<GameService>, id: web::Path<ArenaId>) -> Answer {
    let (state, standings) = service.arena_state(id.into_inner()).await?;
    Ok(HttpResponse::Ok().json(ArenaDetail::new(&state, &standings, service.now())))
}

/// Get an arena's results, once it finished: its standings as they end.
///
/// Games begun before the end are played out and count: until the last of
/// them ends, `playing` lists them and the standings may still move.
#[utoipa::path(
    tag = "arenas",
    params(("id" = i64, Path, description = "The arena's id.")),
    responses(
        (status = 200, description = "The arena, finished.", body = ArenaDetail),
        (status = 400, response = super::docs::BadRequest),
        (status = 404, response = super::docs::NotFound),
        (status = 409, response = super::docs::Conflict),
        (status = 500, response = super::docs::Internal),
        (status = 503, response = super::docs::Unavailable),
    )
)]
#[get("/arenas/{id}/results")]
async fn arena_results(service: Data<GameService>, id: web::Path<ArenaId>) -> Answer {
    let (state, standings) = service.arena_state(id.into_inner()).await?;
    let now = service.now();
    if state.arena.terms.status_at(now) != ArenaStatus::Finished {
        return Err(Error::NotOpen(format!(
            "this arena is {}: its results come at its end",
            state.arena.terms.status_at(now).code()
        ))
        .into());
    }
    Ok(HttpResponse::Ok().json(ArenaDetail::new(&state, &standings, now)))
}

/// Join an arena, or come back to it after withdrawing.
///
/// While it runs you are paired as soon as you are free and someone else is:
/// your event stream tells you `game_start`, and your player's token acts in
/// the game. You are paired only while you are present: your event stream
/// open, or a request with your token within the last 30 seconds.
#[utoipa::path(
    tag = "arenas",
    security(("player_token" = [])),
    params(("id" = i64, Path, description = "The arena's id.")),
    responses(
        (status = 200, description = "The arena, with you in it.", body = ArenaDetail),
        (status = 400, response = super::docs::BadRequest),
        (status = 403, response = super::docs::Forbidden),
        (status = 404, response = super::docs::NotFound),
        (status = 409, response = super::docs::Conflict),
        super::docs::PlayerRefusals,
    )
)]
#[post("/arenas/{id}/join")]
async fn join_arena(service: Data<GameService>, id: web::Path<ArenaId>, token: PlayerToken) -> Answer {
    let caller = player(&service, &token).await?;
    let id = id.into_inner();
    service.join_arena(&caller, id).await?;
    get_arena_view(&service, id).await
}

/// Add one of the server's bots (`random`, `parasite`, `perfect`) to an
/// arena you created that allows bots, or bring it back.
///
/// It is paired as a player is, never with another of the server's bots,
/// and plays many games outside the arena besides: an arena of the three
/// bots and a few people finds where those people stand on the bots' ladder.
#[utoipa::path(
    tag = "arenas",
    security(("player_token" = [])),
    params(
        ("id" = i64, Path, description = "The arena's id."),
        ("name" = String, Path, description = "The bot's name: random, parasite or perfect.", pattern = "^[A-Za-z0-9_-]{3,20}$"),
    ),
    responses(
        (status = 200, description = "The arena, with the bot in it.", body = ArenaDetail),
        (status = 400, response = super::docs::BadRequest),
        (status = 403, response = super::docs::Forbidden),
        (status = 404, response = super::docs::NotFound),
        (status = 409, response = super::docs::Conflict),
        super::docs::PlayerRefusals,
    )
)]
#[post("/arenas/{id}/bots/{name}")]
async fn add_arena_bot(service: Data<GameService>, path: web::Path<(ArenaId, String)>, token: PlayerToken) -> Answer {
    let (id, name) = path.into_inner();
    let bot = name_of(&name).map_err(ApiError::InvalidPath)?;
    let caller = player(&service, &token).await?;
    service.add_arena_bot(&caller, id, &bot).await?;
    get_arena_view(&service, id).await
}

/// Withdraw from an arena: you keep your points and are not paired again
/// until you join again. A game you play goes on.
#[utoipa::path(
    tag = "arenas",
    security(("player_token" = [])),
    params(("id" = i64, Path, description = "The arena's id.")),
    responses(
        (status = 200, description = "The arena, you withdrawn.", body = ArenaDetail),
        (status = 400, response = super::docs::BadRequest),
        (status = 404, response = super::docs::NotFound),
        (status = 409, response = super::docs::Conflict),
        super::docs::PlayerRefusals,
    )
)]
#[post("/arenas/{id}/withdraw")]
async fn withdraw_from_arena(service: Data<GameService>, id: web::Path<ArenaId>, token: PlayerToken) -> Answer {
    let caller = player(&service, &token).await?;
    let id = id.into_inner();
    service.withdraw_from_arena(&caller, id).await?;
    get_arena_view(&service, id).await
}

/// Arena `id` as [`get_arena`] answers it.
async fn get_arena_view(service: &GameService, id: ArenaId) -> Answer {
    let (state, standings) = service.arena_state(id).await?;
    Ok(HttpResponse::Ok().json(ArenaDetail::new(&state, &standings, service.now())))
}

/// Registers the arena operations.
pub fn routes(config: &mut utoipa_actix_web::service_config::ServiceConfig) {
    config
        .service(create_arena)
        .service(arenas)
        .service(get_arena)
        .service(arena_results)
        .service(join_arena)
        .service(add_arena_bot)
        .service(withdraw_from_arena);
}
