//! The game operations: extract, check, call the service, answer with a view.

use actix_web::http::header::ContentType;
use actix_web::http::{StatusCode, header};
use actix_web::web::Data;
use actix_web::{HttpRequest, HttpResponse, HttpResponseBuilder, get, post, web};
use serde::{Deserialize, Serialize};
use utoipa::IntoParams;

use super::extract::{Bearer, JsonBody, Reader, SeatRequest, caller, etag, is_unchanged};
use super::limit::{ClientAddress, Limits};
use super::problem::ApiError;
use super::views::{
    AnalysisView, CollapseRequest, CreateGameRequest, GameList, GameLog, GameSummary, GameView, HintView, JoinRequest,
    LegalActions, LogEntryView, MoveRequest, SeatedGame, StatusName,
};
use crate::engine::{Action, notation};
use crate::error::{Error, Fault};
use crate::record::{GameId, ListedGame, Page};
use crate::service::{GameRecord, GameService};

/// What a game operation answers: a response, or a problem.
pub(super) type Answer = Result<HttpResponse, ApiError>;

/// The path of a game, for `Location` headers.
fn game_path(id: GameId) -> String {
    format!("/api/v1/games/{id}")
}

/// 201 with the game and the caller's new seat.
pub(super) fn seated(service: &GameService, record: &GameRecord, seat: crate::service::Seat) -> Answer {
    with_game(
        HttpResponse::Created()
            .insert_header((header::LOCATION, game_path(record.stored.id)))
            .insert_header(etag(record.version()))
            .take(),
        &SeatedGame::new(record, seat, service.claim_after()),
    )
}

/// How many bytes of JSON a game answer's buffer starts with: room for a whole
/// game (1.1-2.3 KB in the load test's games). actix's `json` starts from 128
/// bytes and doubles, copying a game's answer four or five times on the way.
const GAME_JSON_CAPACITY: usize = 4096;

/// `response` with `view`, a game, as its JSON body.
pub(super) fn with_game(mut response: HttpResponseBuilder, view: &impl Serialize) -> Answer {
    let mut body = Vec::with_capacity(GAME_JSON_CAPACITY);
    serde_json::to_writer(&mut body, view).map_err(|error| Error::Internal(Fault::caused_by("a game view", error)))?;
    Ok(response.content_type(ContentType::json()).body(body))
}

/// Create a game and take one of its seats.
///
/// The body is optional: `{}` or no body at all makes a `measurement` game with
/// you as X. Keep the seat token: it is shown only here. Share the game's id so
/// the other player can join, or name an `opponent` bot: it takes the other seat,
/// opens when it is X, and answers each of your actions in the same request.
/// With `"private": true` the game is not listed, and the answer's `invite`,
/// shown only here, is what the other player needs to join. With a player's
/// token, the seat is that player's: their token acts in the game as the
/// seat's does, and the game is among their games.
#[utoipa::path(
    tag = "games",
    security((), ("player_token" = [])),
    request_body(content = Option<CreateGameRequest>, description = "Optional; every field has a default."),
    responses(
        (status = 201, description = "The game and your seat.", body = SeatedGame,
            headers(("Location" = String, description = "The game's path."), ("ETag" = String, description = "The game's version."))),
        (status = 400, response = super::docs::BadRequest),
        (status = 401, response = super::docs::Unauthorized),
        (status = 429, response = super::docs::TooManyRequests),
        (status = 500, response = super::docs::Internal),
        (status = 503, response = super::docs::Unavailable),
        super::docs::BodyRefusals,
    )
)]
#[post("/games")]
async fn create_game(
    service: web::Data<GameService>,
    body: JsonBody<CreateGameRequest>,
    bearer: Bearer,
    limits: web::Data<Limits>,
    client: ClientAddress,
) -> Answer {
    let settings =
        body.0.settings().map_err(|detail| ApiError::InvalidBody { status: StatusCode::BAD_REQUEST, detail })?;
    let creator = caller(&service, bearer).await?;
    limits.admit_creation(client, creator.as_ref())?;
    let (record, seat) = service.create_game_by(settings, creator).await?;
    seated(&service, &record, seat)
}

/// Take the free seat of a game.
///
/// Answers with the seat that was free (O when the creator is X) and its token,
/// shown only here. A private game takes the `invite` its creator was given
/// (else 403); a public one needs no body. With a player's token, the seat is
/// that player's (409 when they hold the other seat already).
#[utoipa::path(
    tag = "games",
    security((), ("player_token" = [])),
    params(("id" = i64, Path, description = "The game's id.")),
    request_body(content = Option<JoinRequest>, description = "A private game's invite; optional for a public one."),
    responses(
        (status = 201, description = "The game and your seat.", body = SeatedGame,
            headers(("Location" = String, description = "The game's path."), ("ETag" = String, description = "The game's version."))),
        (status = 400, response = super::docs::BadRequest),
        (status = 401, response = super::docs::Unauthorized),
        (status = 403, response = super::docs::Forbidden),
        (status = 404, response = super::docs::NotFound),
        (status = 409, response = super::docs::Conflict),
        (status = 429, response = super::docs::TooManyRequests),
        (status = 500, response = super::docs::Internal),
        (status = 503, response = super::docs::Unavailable),
        super::docs::BodyRefusals,
    )
)]
#[post("/games/{id}/join")]
async fn join_game(
    service: web::Data<GameService>,
    id: web::Path<GameId>,
    body: JsonBody<JoinRequest>,
    bearer: Bearer,
    limits: web::Data<Limits>,
    client: ClientAddress,
) -> Answer {
    if body.0.invite.is_some() {
        limits.admit_authentication(client)?;
    }
    let joiner = caller(&service, bearer).await?;
    limits.admit_creation(client, joiner.as_ref())?;
    let (record, seat) = service.join_by(id.into_inner(), body.0.invite.as_deref(), joiner).await?;
    seated(&service, &record, seat)
}

/// Get a game: its board, whose turn it is, any pending collapse, the score.
///
/// The `ETag` is the game's version: send it as `If-None-Match` to get a bodiless
/// 304 while nothing changed. A private game is read with a seat's token or its
/// invite; to anyone else it answers 404, as a game that does not exist.
#[utoipa::path(
    tag = "games",
    security((), ("seat_token" = [])),
    params(
        ("id" = i64, Path, description = "The game's id."),
        ("If-None-Match" = Option<String>, Header, description = "An ETag from an earlier answer."),
        Reader,
    ),
    responses(
        (status = 200, description = "The game.", body = GameView,
            headers(("ETag" = String, description = "The game's version."))),
        (status = 304, description = "The game is still at the version named in If-None-Match.",
            headers(("ETag" = String, description = "The game's version."))),
        (status = 400, response = super::docs::BadRequest),
        (status = 404, response = super::docs::NotFound),
        (status = 429, response = super::docs::TooManyRequests),
        (status = 500, response = super::docs::Internal),
        (status = 503, response = super::docs::Unavailable),
    )
)]
#[get("/games/{id}")]
async fn get_game(service: Data<GameService>, id: web::Path<GameId>, reader: Reader, request: HttpRequest) -> Answer {
    let record = service.game(id.into_inner(), &reader.0).await?;
    if is_unchanged(&request, record.version()) {
        return Ok(HttpResponse::NotModified().insert_header(etag(record.version())).finish());
    }
    let view = GameView::new(&record, service.claim_after()).seen_from(reader.0.seat(&record.stored));
    with_game(HttpResponse::Ok().insert_header(etag(record.version())).take(), &view)
}

/// Lets the seat of `seat` take `action`, answering 201 with the new game.
async fn act(service: &GameService, seat: SeatRequest, action: Result<Action, crate::engine::RuleError>) -> Answer {
    changed(service, &service.act(seat.id, &seat.token, action?, seat.expected_version).await?, &seat.token)
}

/// 201 with `record`, the game as the action of the seat of `token` left it.
pub(super) fn changed(service: &GameService, record: &GameRecord, token: &str) -> Answer {
    let seat = record.stored.seat_of(&crate::token::hash(token));
    let view = GameView::new(record, service.claim_after()).seen_from(seat);
    with_game(HttpResponse::Created().insert_header(etag(record.version())).take(), &view)
}

/// Place your next move: two spooky marks in two squares.
///
/// In the `measurement` variant a move that closes a cycle is measured at once and
/// the answer shows the collapsed board. In `player_choice` the answer shows the
/// `pending_collapse` for the other player to decide.
#[utoipa::path(tag = "games", security(("seat_token" = [])), params(SeatRequest), request_body = MoveRequest,
    responses(super::docs::ActionAnswers, super::docs::BodyRefusals))]
#[post("/games/{id}/moves")]
async fn place_move(service: Data<GameService>, seat: SeatRequest, body: JsonBody<MoveRequest>) -> Answer {
    act(&service, seat, body.0.action()).await
}

/// Decide a pending collapse (`player_choice` only): "move `move` ends in square `square`".
///
/// Only the player who did not close the cycle decides. Any move of the cycle may be
/// named; each option of `pending_collapse` gives the closing move's square and
/// where every move lands.
#[utoipa::path(tag = "games", security(("seat_token" = [])), params(SeatRequest), request_body = CollapseRequest,
    responses(super::docs::ActionAnswers, super::docs::BodyRefusals))]
#[post("/games/{id}/collapse")]
async fn choose_collapse(service: Data<GameService>, seat: SeatRequest, body: JsonBody<CollapseRequest>) -> Answer {
    act(&service, seat, body.0.action()).await
}

/// Ask for your best action, by perfect play, when it is your turn.
///
/// The value is the final score difference X minus O that the action leads to
/// when both sides play perfectly: guaranteed in `player_choice`, expected in
/// `measurement`. Early positions take the longest to search. Hints are advice
/// to a player: only a seat's token gets one (403 otherwise), and only on its
/// own turn (422 `not_your_turn`).
#[utoipa::path(
    tag = "games",
    security(("seat_token" = [])),
    params(("id" = i64, Path, description = "The game's id.")),
    responses(
        (status = 200, description = "The best action and its value.", body = HintView),
        (status = 400, response = super::docs::BadRequest),
        (status = 401, response = super::docs::Unauthorized),
        (status = 403, response = super::docs::Forbidden),
        (status = 404, response = super::docs::NotFound),
        (status = 429, response = super::docs::TooManyRequests),
        (status = 422, response = super::docs::RuleBroken),
        (status = 500, response = super::docs::Internal),
        (status = 503, response = super::docs::Unavailable),
    )
)]
#[get("/games/{id}/hint")]
async fn hint(service: web::Data<GameService>, seat: SeatRequest) -> Answer {
    let (_, hint) = service.hint(seat.id, &seat.token).await?;
    Ok(HttpResponse::Ok().json(HintView::from(&hint)))
}

/// Judge every action of the game so far by perfect play.
///
/// For each move and collapse choice of a player, in log order: what the
/// position was worth before it (`value_before`) and a best action there
/// (`best`), what it was worth after it (`value_after`), and how many points it
/// gave away from its player's side (`loss`, 0 for a best action). Values are the
/// final score difference X minus O with perfect play from both sides:
/// guaranteed in `player_choice`, expected in `measurement`, where the move that
/// closed a cycle also carries both outcomes of its measurement and the one that
/// happened. `players` sums each player's losses.
///
/// A game that goes on is analysed only when it gives hints (else 422
/// `hints_disabled`), and only for its players, with a seat's token (else 403):
/// analysis is advice to them. A finished game always is, for whoever may read it.
#[utoipa::path(
    tag = "games",
    security((), ("seat_token" = [])),
    params(("id" = i64, Path, description = "The game's id."), Reader),
    responses(
        (status = 200, description = "The analysis.", body = AnalysisView),
        (status = 400, response = super::docs::BadRequest),
        (status = 401, response = super::docs::Unauthorized),
        (status = 403, response = super::docs::Forbidden),
        (status = 404, response = super::docs::NotFound),
        (status = 429, response = super::docs::TooManyRequests),
        (status = 422, response = super::docs::RuleBroken),
        (status = 500, response = super::docs::Internal),
        (status = 503, response = super::docs::Unavailable),
    )
)]
#[get("/games/{id}/analysis")]
async fn game_analysis(service: web::Data<GameService>, id: web::Path<GameId>, reader: Reader) -> Answer {
    let (record, analysis) = service.analysis(id.into_inner(), &reader.0).await?;
    Ok(HttpResponse::Ok().json(AnalysisView::new(&record, &analysis)))
}

/// List every legal action of the side to act, in the shape the hint gives its
/// action: a UI can grey out what cannot be played.
///
/// Every move (36 on the empty board), the two options of a pending collapse, or
/// the forced last-square move alone; none once the game is over.
#[utoipa::path(
    tag = "games",
    security((), ("seat_token" = [])),
    params(("id" = i64, Path, description = "The game's id."), Reader),
    responses(
        (status = 200, description = "The legal actions.", body = LegalActions),
        (status = 400, response = super::docs::BadRequest),
        (status = 404, response = super::docs::NotFound),
        (status = 429, response = super::docs::TooManyRequests),
        (status = 500, response = super::docs::Internal),
        (status = 503, response = super::docs::Unavailable),
    )
)]
#[get("/games/{id}/legal")]
async fn legal_actions(service: Data<GameService>, id: web::Path<GameId>, reader: Reader) -> Answer {
    let record = service.game(id.into_inner(), &reader.0).await?;
    Ok(HttpResponse::Ok().json(LegalActions::from(&record)))
}

/// The query of a game listing.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub(super) struct ListQuery {
    /// Only games with this status; `waiting` lists games you can join.
    status: Option<StatusName>,
    /// Games per page, 1-100; default 20.
    #[param(minimum = 1, maximum = 100)]
    limit: Option<u32>,
    /// The `next_cursor` of the previous page.
    #[param(pattern = r"^[0-9]{1,18}$")]
    cursor: Option<String>,
}

/// The most items a page holds.
const MAX_PAGE: u32 = 100;

/// The number of items a page shows: `limit`, or `default`.
///
/// # Errors
/// [`ApiError::InvalidQuery`] for a limit out of 1 to [`MAX_PAGE`].
pub(super) fn page_size(limit: Option<u32>, default: u32) -> Result<u32, ApiError> {
    let limit = limit.unwrap_or(default);
    if !(1..=MAX_PAGE).contains(&limit) {
        return Err(ApiError::InvalidQuery(format!("limit must be from 1 to {MAX_PAGE}, not {limit}")));
    }
    Ok(limit)
}

/// The id a page's `cursor` names: the page is of those below it.
///
/// # Errors
/// [`ApiError::InvalidQuery`] for a cursor this server did not give.
pub(super) fn cursor_id<T: std::str::FromStr>(cursor: Option<&str>) -> Result<Option<T>, ApiError> {
    cursor
        .map(|cursor| {
            cursor
                .parse()
                .map_err(|_| ApiError::InvalidQuery(format!("cursor {cursor:?} is not a cursor this server gave")))
        })
        .transpose()
}

/// Cuts `items`, read one beyond a page of `size`, to the page; answers the
/// cursor of the next page, `cursor` of the page's last item, when that one
/// beyond was there.
pub(super) fn cut_page<T>(items: &mut Vec<T>, size: u32, cursor: impl Fn(&T) -> String) -> Option<String> {
    let size = size as usize;
    if items.len() <= size {
        return None;
    }
    items.truncate(size);
    items.last().map(cursor)
}

impl ListQuery {
    /// The page it asks for, with one game more than it shows: that one tells
    /// whether another page follows.
    ///
    /// # Errors
    /// [`ApiError::InvalidQuery`] for a limit out of range or a cursor this
    /// server did not give.
    pub(super) fn page(&self) -> Result<Page, ApiError> {
        let limit = page_size(self.limit, 20)?;
        let before = cursor_id(self.cursor.as_deref())?;
        Ok(Page { status: self.status.map(Into::into), before, limit: limit + 1 })
    }
}

/// The page of `games`, read for `page`: all but the one beyond it, and the
/// cursor of the next page when that one was there.
pub(super) fn game_list(mut games: Vec<ListedGame>, page: Page) -> GameList {
    let next_cursor = cut_page(&mut games, page.limit - 1, |game| game.id.to_string());
    GameList { games: games.iter().map(GameSummary::from).collect(), next_cursor }
}

/// List games, newest first, a page at a time.
///
/// Private games are not listed: only those given their invite can join them.
#[utoipa::path(
    tag = "games",
    params(ListQuery),
    responses(
        (status = 200, description = "A page of games.", body = GameList),
        (status = 400, response = super::docs::BadRequest),
        (status = 500, response = super::docs::Internal),
        (status = 503, response = super::docs::Unavailable),
    )
)]
#[get("/games")]
async fn list_games(service: web::Data<GameService>, query: web::Query<ListQuery>) -> Answer {
    let page = query.page()?;
    Ok(HttpResponse::Ok().json(game_list(service.list(page).await?, page)))
}

/// Get a game's whole log: seats taken, moves and collapse outcomes, in order.
///
/// The log is the game's truth: the game is rebuilt from it on every request.
#[utoipa::path(
    tag = "games",
    security((), ("seat_token" = [])),
    params(("id" = i64, Path, description = "The game's id."), Reader),
    responses(
        (status = 200, description = "The log.", body = GameLog),
        (status = 400, response = super::docs::BadRequest),
        (status = 404, response = super::docs::NotFound),
        (status = 429, response = super::docs::TooManyRequests),
        (status = 500, response = super::docs::Internal),
        (status = 503, response = super::docs::Unavailable),
    )
)]
#[get("/games/{id}/log")]
async fn game_log(service: web::Data<GameService>, id: web::Path<GameId>, reader: Reader) -> Answer {
    let record = service.game(id.into_inner(), &reader.0).await?;
    Ok(HttpResponse::Ok().json(GameLog {
        game_id: record.stored.id,
        variant: record.game.variant().into(),
        scoring: record.game.scoring().into(),
        version: record.version(),
        entries: record.numbered_log().map(|(entry, move_number)| LogEntryView::new(entry, move_number)).collect(),
    }))
}

/// Get a game as a transcript in Goff's notation (squares 1-9 there), under a
/// first line that names its rules: `[Variant "player_choice"] [Scoring "goff"]`.
///
/// `X1+(1,2)` places move 1 in squares 1 and 2; `O4!X3(5)` is O, about to make
/// move 4, collapsing the cycle so that X3 ends in square 5; a finished game ends
/// with its score, `{X1.0,O0.0}`.
#[utoipa::path(
    tag = "games",
    security((), ("seat_token" = [])),
    params(("id" = i64, Path, description = "The game's id."), Reader),
    responses(
        (status = 200, description = "The transcript.", body = String, content_type = "text/plain",
            example = "[Variant \"player_choice\"] [Scoring \"goff\"]\nX1+(1,2); O2+(2,5); X3+(1,5); O4!X3(5); O4+(6,9)"),
        (status = 400, response = super::docs::BadRequest),
        (status = 404, response = super::docs::NotFound),
        (status = 429, response = super::docs::TooManyRequests),
        (status = 500, response = super::docs::Internal),
        (status = 503, response = super::docs::Unavailable),
    )
)]
#[get("/games/{id}/transcript")]
async fn game_transcript(service: web::Data<GameService>, id: web::Path<GameId>, reader: Reader) -> Answer {
    let record = service.game(id.into_inner(), &reader.0).await?;
    let transcript = format!("{}\n{}", notation::header(record.game.rules()), notation::write(&record.game));
    Ok(HttpResponse::Ok().content_type("text/plain; charset=utf-8").body(transcript))
}

/// Registers the game operations.
pub fn routes(config: &mut utoipa_actix_web::service_config::ServiceConfig) {
    config
        .service(create_game)
        .service(list_games)
        .service(get_game)
        .service(join_game)
        .service(place_move)
        .service(choose_collapse)
        .service(hint)
        .service(game_analysis)
        .service(legal_actions)
        .service(game_log)
        .service(game_transcript);
}
