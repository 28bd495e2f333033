//! The player operations: create a player, see yourself and others, a new
//! token, your games.

use actix_web::http::StatusCode;
use actix_web::web::Data;
use actix_web::{HttpResponse, get, post, web};
use serde::Deserialize;
use utoipa::IntoParams;

use super::extract::{JsonBody, PlayerToken, player};
use super::games::{Answer, ListQuery, cursor_id, cut_page, game_list, page_size};
use super::limit::{ClientAddress, Limits};
use super::problem::ApiError;
use super::views::{
    BotList, BotView, CreatePlayerRequest, CreatedPlayer, GameList, Leaderboard, PlayerTokenView, PlayerView,
    RatingHistory, VariantName, name_of,
};
use crate::engine::Variant;
use crate::service::{GameService, Profile};

/// The name in a path, checked.
fn path_name(name: &str) -> Result<crate::record::Username, ApiError> {
    name_of(name).map_err(ApiError::InvalidPath)
}

/// The variant in a path, checked.
fn path_variant(variant: &str) -> Result<Variant, ApiError> {
    Variant::named(variant).ok_or_else(|| {
        ApiError::InvalidPath(format!("there is no variant {variant:?}: it is measurement or player_choice"))
    })
}

/// Create a player: an identity that keeps its games, challenges and events
/// across games and devices.
///
/// The name is optional: without one the server picks a readable one. Keep the
/// token: it is shown only here, and it is the player's only credential (no
/// passwords). Send it as `Authorization: Bearer <token>` to create, join and
/// play games as this player, and to everything under `/players/me`. To move
/// to another device, show it there once (a QR code, a copy button).
#[utoipa::path(
    tag = "players",
    request_body(content = Option<CreatePlayerRequest>, description = "Optional: the name."),
    responses(
        (status = 201, description = "The player and their token.", body = CreatedPlayer,
            headers(("Location" = String, description = "The player's public profile."))),
        (status = 400, response = super::docs::BadRequest),
        (status = 409, response = super::docs::Conflict),
        (status = 429, response = super::docs::TooManyRequests),
        (status = 500, response = super::docs::Internal),
        (status = 503, response = super::docs::Unavailable),
        super::docs::BodyRefusals,
    )
)]
#[post("/players")]
async fn create_player(
    service: Data<GameService>,
    body: JsonBody<CreatePlayerRequest>,
    limits: Data<Limits>,
    client: ClientAddress,
) -> Answer {
    let name = body.0.name.as_deref().map(name_of).transpose();
    let name = name.map_err(|detail| ApiError::InvalidBody { status: StatusCode::BAD_REQUEST, detail })?;
    limits.admit_creation(client, None)?;
    let (player, token) = service.create_player(name).await?;
    Ok(HttpResponse::Created()
        .insert_header(("Location", format!("/api/v1/players/{}", player.name)))
        .json(CreatedPlayer { player: PlayerView::new(&Profile::of_new(player)), token }))
}

/// Get your own player.
#[utoipa::path(
    tag = "players",
    security(("player_token" = [])),
    responses(
        (status = 200, description = "You.", body = PlayerView),
        super::docs::PlayerRefusals,
    )
)]
#[get("/players/me")]
async fn own_player(service: Data<GameService>, token: PlayerToken) -> Answer {
    let caller = player(&service, &token).await?;
    Ok(HttpResponse::Ok().json(PlayerView::new(&service.profile(&caller.name).await?)))
}

/// Get a player's public profile: their name, when they came, and how their
/// finished games ended.
#[utoipa::path(
    tag = "players",
    params(("name" = String, Path, description = "The player's name, in any case.", pattern = "^[A-Za-z0-9_-]{3,20}$")),
    responses(
        (status = 200, description = "The player.", body = PlayerView),
        (status = 400, response = super::docs::BadRequest),
        (status = 404, response = super::docs::NotFound),
        (status = 500, response = super::docs::Internal),
        (status = 503, response = super::docs::Unavailable),
    )
)]
#[get("/players/{name}")]
async fn profile(service: Data<GameService>, name: web::Path<String>) -> Answer {
    Ok(HttpResponse::Ok().json(PlayerView::new(&service.profile(&path_name(&name)?).await?)))
}

/// Make yourself a bot: a program plays your games from now on, for good.
///
/// Only a player who holds no seat of any game may, before their first: 409
/// `conflict` afterwards, and for a bot. A bot's profile, and the seats it
/// holds, say `bot: true`; docs/ENGINE.md tells how a program plays.
#[utoipa::path(
    tag = "players",
    security(("player_token" = [])),
    responses(
        (status = 200, description = "You, a bot.", body = PlayerView),
        (status = 409, response = super::docs::Conflict),
        super::docs::PlayerRefusals,
    )
)]
#[post("/players/me/bot")]
async fn make_bot(service: Data<GameService>, token: PlayerToken) -> Answer {
    let caller = player(&service, &token).await?;
    service.make_bot(&caller).await?;
    Ok(HttpResponse::Ok().json(PlayerView::new(&service.profile(&caller.name).await?)))
}

/// Get a new token: the old one stops working at once, on every instance.
///
/// For a token that may have leaked. Every seat the player holds follows the
/// new token; the seats' own tokens are unchanged.
#[utoipa::path(
    tag = "players",
    security(("player_token" = [])),
    responses(
        (status = 201, description = "The new token.", body = PlayerTokenView),
        super::docs::PlayerRefusals,
    )
)]
#[post("/players/me/token")]
async fn new_token(service: Data<GameService>, token: PlayerToken) -> Answer {
    let caller = player(&service, &token).await?;
    let token = service.new_player_token(&caller).await?;
    Ok(HttpResponse::Created().json(PlayerTokenView { token }))
}

/// List your games, newest first, a page at a time: those you hold a seat in,
/// private ones too.
///
/// With only your token, on a new device, this finds every game you are in,
/// and your token acts in each as its seat's does.
#[utoipa::path(
    tag = "players",
    security(("player_token" = [])),
    params(ListQuery),
    responses(
        (status = 200, description = "A page of your games.", body = GameList),
        (status = 400, response = super::docs::BadRequest),
        super::docs::PlayerRefusals,
    )
)]
#[get("/players/me/games")]
async fn my_games(service: Data<GameService>, token: PlayerToken, query: web::Query<ListQuery>) -> Answer {
    let page = query.page()?;
    let caller = player(&service, &token).await?;
    Ok(HttpResponse::Ok().json(game_list(service.player_games(caller.id, page).await?, page)))
}

/// List a player's public games, newest first, a page at a time: those they
/// hold a seat in that are not private.
///
/// A profile's recent games: each with both players' names, and in a rated
/// game each seat's rating and its change.
#[utoipa::path(
    tag = "players",
    params(
        ("name" = String, Path, description = "The player's name, in any case.", pattern = "^[A-Za-z0-9_-]{3,20}$"),
        ListQuery,
    ),
    responses(
        (status = 200, description = "A page of their public games.", body = GameList),
        (status = 400, response = super::docs::BadRequest),
        (status = 404, response = super::docs::NotFound),
        (status = 500, response = super::docs::Internal),
        (status = 503, response = super::docs::Unavailable),
    )
)]
#[get("/players/{name}/games")]
async fn player_games(service: Data<GameService>, name: web::Path<String>, query: web::Query<ListQuery>) -> Answer {
    let (name, page) = (path_name(&name)?, query.page()?);
    Ok(HttpResponse::Ok().json(game_list(service.public_games_of(&name, page).await?, page)))
}

/// Get a player's rating history in a variant, a page at a time: one point
/// for each rated game, the rating after it and its change, in the order they
/// were rated. The first page holds the latest points; `next_cursor` pages
/// back to earlier ones.
#[utoipa::path(
    tag = "players",
    params(
        ("name" = String, Path, description = "The player's name, in any case.", pattern = "^[A-Za-z0-9_-]{3,20}$"),
        ("variant" = VariantName, Path, description = "The variant."),
        HistoryQuery,
    ),
    responses(
        (status = 200, description = "The history.", body = RatingHistory),
        (status = 400, response = super::docs::BadRequest),
        (status = 404, response = super::docs::NotFound),
        (status = 500, response = super::docs::Internal),
        (status = 503, response = super::docs::Unavailable),
    )
)]
#[get("/players/{name}/ratings/{variant}")]
async fn rating_history(
    service: Data<GameService>,
    path: web::Path<(String, String)>,
    query: web::Query<HistoryQuery>,
) -> Answer {
    let (name, variant) = (path_name(&path.0)?, path_variant(&path.1)?);
    let (size, before) = (page_size(query.limit, 100)?, cursor_id(query.cursor.as_deref())?);
    // One beyond the page, the latest first, tells that another precedes it.
    let mut changes = service.rating_history(&name, variant, before, size + 1).await?;
    let next_cursor = cut_page(&mut changes, size, |(number, _)| number.to_string());
    changes.reverse();
    Ok(HttpResponse::Ok().json(RatingHistory::new(&name, variant, &changes, next_cursor)))
}

/// A page of a rating history.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct HistoryQuery {
    /// Points per page, 1-100; default 100.
    #[param(minimum = 1, maximum = 100)]
    limit: Option<u32>,
    /// The `next_cursor` of the previous page: its points come before it.
    #[param(pattern = r"^[0-9]{1,18}$")]
    cursor: Option<String>,
}

/// Get a variant's leaderboard: the 100 best players whose ratings are not
/// provisional (a deviation under 110, as it stands now), bots among them,
/// marked.
#[utoipa::path(
    tag = "players",
    params(("variant" = VariantName, Path, description = "The variant.")),
    responses(
        (status = 200, description = "The leaderboard.", body = Leaderboard),
        (status = 400, response = super::docs::BadRequest),
        (status = 500, response = super::docs::Internal),
        (status = 503, response = super::docs::Unavailable),
    )
)]
#[get("/leaderboards/{variant}")]
async fn leaderboard(service: Data<GameService>, variant: web::Path<String>) -> Answer {
    let variant = path_variant(&variant)?;
    Ok(HttpResponse::Ok().json(Leaderboard::new(variant, &service.leaderboard(variant).await?)))
}

/// The query of the list of bots.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct BotsQuery {
    /// Bots per page, 1-100; default 50.
    #[param(minimum = 1, maximum = 100)]
    limit: Option<u32>,
    /// The `next_cursor` of the previous page: the last name it showed.
    #[param(pattern = "^[A-Za-z0-9_-]{3,20}$")]
    cursor: Option<String>,
}

/// List the bots, by name, a page at a time: the server's own (`random`,
/// `parasite`, `perfect`), which accept a challenge at once, and the bot
/// accounts, which programs play through the API; each with its ratings and
/// whether it is online.
#[utoipa::path(
    tag = "players",
    params(BotsQuery),
    responses(
        (status = 200, description = "A page of bots.", body = BotList),
        (status = 400, response = super::docs::BadRequest),
        (status = 500, response = super::docs::Internal),
        (status = 503, response = super::docs::Unavailable),
    )
)]
#[get("/bots")]
async fn bots(service: Data<GameService>, query: web::Query<BotsQuery>) -> Answer {
    let size = page_size(query.limit, 50)?;
    let after = query.cursor.as_deref().map(name_of).transpose().map_err(ApiError::InvalidQuery)?;
    // One beyond the page tells that another follows.
    let mut bots = service.bots(after.as_ref(), size + 1).await?;
    let next_cursor = cut_page(&mut bots, size, |bot| bot.player.name.to_string());
    Ok(HttpResponse::Ok().json(BotList { bots: bots.iter().map(BotView::new).collect(), next_cursor }))
}

/// Registers the player operations, `/players/me` before `/players/{name}`
/// (no name is two letters long, but the order says so anyway).
pub fn routes(config: &mut utoipa_actix_web::service_config::ServiceConfig) {
    config
        .service(create_player)
        .service(own_player)
        .service(make_bot)
        .service(new_token)
        .service(my_games)
        .service(profile)
        .service(player_games)
        .service(rating_history)
        .service(leaderboard)
        .service(bots);
}
