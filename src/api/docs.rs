//! The OpenAPI document's frame: title, tags, the seat-token scheme and the
//! problem+json responses that operations share. Operations add themselves from
//! their handlers' `#[utoipa::path]` attributes.
#![expect(dead_code, reason = "the response newtypes only describe problem+json answers to utoipa; none is built")]

use utoipa::openapi::RefOr;
use utoipa::openapi::link::LinkBuilder;
use utoipa::openapi::security::{ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{IntoResponses, Modify, OpenApi, ToResponse};

use super::problem::Problem;
use super::views::GameView;

#[derive(OpenApi)]
#[openapi(
    info(
        title = "qttt",
        description = "A game server for Quantum Tic-Tac-Toe. A move places one mark in two squares at once; \
moves that share squares become entangled; when they close a cycle the board collapses, by the other \
player's choice (`player_choice`, Allan Goff's rule) or by a simulated quantum measurement (`measurement`).\n\n\
Create a game, share its id, let the second player join, then move with the seat token each of you got. \
Squares are numbered 0-8 row-major from the top-left. Every error is `application/problem+json` with a \
stable `code`.",
        license(name = "MIT")
    ),
    tags(
        (name = "games", description = "Create, join, watch and play games."),
        (name = "players", description = "An identity across games: your games, your events, challenges and \
quick pairing. Optional: games between anonymous seats need none."),
        (name = "arenas", description = "Tournaments of a fixed length in which whoever is free is paired again \
at once, scored as lichess's arenas: a win 2, a draw 1, and double on fire, after two wins in a row."),
        (name = "puzzles", description = "Positions with one winning action, found by the perfect player: \
try one, an action at a time, and be rated by the puzzles you solve."),
        (name = "health", description = "Probes for operators and orchestrators."),
        (name = "original app", description = "The three routes of the original web app, so that its frontend runs \
on this server unchanged: the original app's one game, in the measurement variant, errors as `{\"detail\": ...}`.")
    ),
    components(
        schemas(Problem, super::views::StreamFormat),
        responses(BadRequest, Unauthorized, Forbidden, NotFound, Conflict, RequestTimeout, PayloadTooLarge,
            UnsupportedMediaType,
            RuleBroken, TooManyRequests, Unavailable, Internal)
    ),
    modifiers(&SeatTokenScheme)
)]
pub(crate) struct ApiDoc;

/// Declares the bearer tokens: a seat's, which moves and collapse choices
/// need, and a player's, which acts for every seat the player holds too.
struct SeatTokenScheme;

impl Modify for SeatTokenScheme {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "seat_token",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .description(Some(
                        "The token of your seat, from creating or joining the game; or your player's token, \
                         when a player holds the seat.",
                    ))
                    .build(),
            ),
        );
        components.add_security_scheme(
            "player_token",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .description(Some("Your player's token (`qtp_...`), from POST /players."))
                    .build(),
            ),
        );
        components.add_security_scheme(
            "player_token_in_query",
            SecurityScheme::ApiKey(ApiKey::Query(ApiKeyValue::with_description(
                "token",
                "Your player's token as `?token=`, for an EventSource, which cannot send Authorization: on the \
                 event streams only.",
            ))),
        );
    }
}

/// The request is malformed: a body, path parameter, query parameter or header
/// that the operation does not take.
#[derive(ToResponse)]
#[response(content_type = "application/problem+json", examples(
    ("invalid_body" = (value = json!({"type": "urn:qttt:problem:invalid_body", "title": "Invalid request body",
        "status": 400, "detail": "the body is not valid: missing field `squares` at line 1 column 2",
        "code": "invalid_body"}))),
    ("invalid_path" = (value = json!({"type": "urn:qttt:problem:invalid_path", "title": "Invalid path parameter",
        "status": 400, "detail": "the game id must be a whole number, as in /api/v1/games/42", "code": "invalid_path"}))),
    ("invalid_header" = (value = json!({"type": "urn:qttt:problem:invalid_header", "title": "Invalid header",
        "status": 400, "detail": "If-Match must be a version tag such as \"7\", not \"seven\"", "code": "invalid_header"})))
))]
pub(crate) struct BadRequest(Problem);

/// No token was sent, or not as `Authorization: Bearer <token>`, or a player's
/// token that is nobody's (never given, or replaced by a new one).
#[derive(ToResponse)]
#[response(content_type = "application/problem+json", examples(
    ("no_token" = (value = json!({"type": "urn:qttt:problem:unauthorized", "title": "Token needed", "status": 401,
        "detail": "send the seat's token as Authorization: Bearer <token>", "code": "unauthorized"}))),
    ("unknown_player" = (value = json!({"type": "urn:qttt:problem:unauthorized", "title": "Token needed",
        "status": 401, "detail": "this token is no player's: it was never given, or a new one replaced it \
        (POST /api/v1/players/me/token)", "code": "unauthorized"})))
))]
pub(crate) struct Unauthorized(Problem);

/// The token holds no seat of this game, or (joining) the game is private and
/// the invite is missing or wrong.
#[derive(ToResponse)]
#[response(content_type = "application/problem+json", examples(
    ("not_a_seat" = (value = json!({"type": "urn:qttt:problem:forbidden", "title": "Forbidden", "status": 403,
        "detail": "this token holds no seat of this game", "code": "forbidden"}))),
    ("private" = (value = json!({"type": "urn:qttt:problem:forbidden", "title": "Forbidden", "status": 403,
        "detail": "this game is private: joining it needs the invite its creator was given, sent as {\"invite\": \"...\"}",
        "code": "forbidden"})))
))]
pub(crate) struct Forbidden(Problem);

/// No game has this id.
#[derive(ToResponse)]
#[response(content_type = "application/problem+json", example = json!({"type": "urn:qttt:problem:not_found",
    "title": "Not found", "status": 404, "detail": "there is no game 42", "code": "not_found"}))]
pub struct NotFound(Problem);

/// The game changed under the request, or no seat is free; a name that
/// another player has (`name_taken`); a challenge or seek that is no longer
/// open (`not_open`).
#[derive(ToResponse)]
#[response(content_type = "application/problem+json", examples(
    ("name_taken" = (value = json!({"type": "urn:qttt:problem:name_taken", "title": "Name taken", "status": 409,
        "detail": "another player has that name (names are unique regardless of case)", "code": "name_taken"}))),
    ("not_open" = (value = json!({"type": "urn:qttt:problem:not_open", "title": "Not open", "status": 409,
        "detail": "this challenge expired", "code": "not_open"}))),
    ("stale_version" = (value = json!({"type": "urn:qttt:problem:conflict", "title": "Conflict", "status": 409,
        "detail": "the game changed while this request was applied; reload it and try again",
        "code": "conflict", "current_version": 7}))),
    ("seats_taken" = (value = json!({"type": "urn:qttt:problem:conflict", "title": "Conflict", "status": 409,
        "detail": "both seats of this game are taken", "code": "conflict"})))
))]
pub(crate) struct Conflict(Problem);

/// The body is larger than the operation takes.
#[derive(ToResponse)]
#[response(content_type = "application/problem+json", example = json!({"type": "urn:qttt:problem:invalid_body",
    "title": "Invalid request body", "status": 413, "detail": "the body is larger than 4096 bytes",
    "code": "invalid_body"}))]
pub(crate) struct PayloadTooLarge(Problem);

/// The body did not arrive in time after the request's head; the connection is
/// closed.
#[derive(ToResponse)]
#[response(content_type = "application/problem+json", example = json!({"type": "urn:qttt:problem:invalid_body",
    "title": "Invalid request body", "status": 408, "detail": "the body did not arrive within 5 s",
    "code": "invalid_body"}))]
pub(crate) struct RequestTimeout(Problem);

/// The body is not sent as JSON.
#[derive(ToResponse)]
#[response(content_type = "application/problem+json", example = json!({"type": "urn:qttt:problem:invalid_body",
    "title": "Invalid request body", "status": 415,
    "detail": "send the body as JSON, with Content-Type: application/json", "code": "invalid_body"}))]
pub(crate) struct UnsupportedMediaType(Problem);

/// The action breaks a rule of the game; `code` names the rule: `same_square_twice`,
/// `square_out_of_range`, `square_is_classical`, `not_your_turn`, `collapse_pending`,
/// `no_collapse_pending`, `not_the_chooser`, `move_not_in_cycle`, `square_not_in_move`
/// or `game_over` (also for a clock that ran out); or of its life:
/// `waiting_for_opponent` (nobody acts before both seats are taken),
/// `abort_not_allowed`, `game_not_over` (a rematch follows a finished game),
/// `hints_disabled`, `too_early` and `claim_not_allowed` (a claim of a game
/// walked away from), `draw_not_allowed` (an offer of a draw against a bot, a
/// decline with no offer to decline); or of pairing: `self_challenge`, `too_many_open`. Nothing
/// is changed.
#[derive(ToResponse)]
#[response(content_type = "application/problem+json", examples(
    ("too_early" = (value = json!({"type": "urn:qttt:problem:too_early", "title": "Too early", "status": 422,
        "detail": "O is gone, not long enough; the game can be claimed from 2026-12-03T10:16:32.120Z",
        "code": "too_early"}))),
    ("too_many_open" = (value = json!({"type": "urn:qttt:problem:too_many_open", "title": "Too many open",
        "status": 422, "detail": "you have 3 seeks open, the most you may; cancel one first",
        "code": "too_many_open"}))),
    ("not_your_turn" = (value = json!({"type": "urn:qttt:problem:not_your_turn", "title": "Not your turn",
        "status": 422, "detail": "it is not your turn", "code": "not_your_turn"}))),
    ("square_is_classical" = (value = json!({"type": "urn:qttt:problem:square_is_classical",
        "title": "Square is classical", "status": 422, "detail": "that square already holds a classical mark",
        "code": "square_is_classical"}))),
    ("collapse_pending" = (value = json!({"type": "urn:qttt:problem:collapse_pending", "title": "Collapse pending",
        "status": 422, "detail": "a cycle must be collapsed before the next move", "code": "collapse_pending"})))
))]
pub(crate) struct RuleBroken(Problem);

/// This address created more games and seats this minute than the server
/// allows, or holds as many live streams as it may; the `Retry-After` header says
/// how many seconds to wait.
#[derive(ToResponse)]
#[response(content_type = "application/problem+json",
    headers(("Retry-After" = u64, description = "Seconds to wait before trying again.")),
    examples(
    ("rate_limited" = (value = json!({"type": "urn:qttt:problem:rate_limited", "title": "Too many requests",
        "status": 429, "detail": "this address created too many games and seats; try again in 42 s",
        "code": "rate_limited"}))),
    ("streams" = (value = json!({"type": "urn:qttt:problem:rate_limited", "title": "Too many requests",
        "status": 429, "detail": "this address has 32 live streams open, the most it may; close one first",
        "code": "rate_limited"}))),
    ("failed_authentications" = (value = json!({"type": "urn:qttt:problem:rate_limited", "title": "Too many requests",
        "status": 429, "detail": "this address presented too many tokens or invites that were wrong; try again in 3 s",
        "code": "rate_limited"})))
))]
pub(crate) struct TooManyRequests(Problem);

/// The database does not answer, or (`storage_full`) has no room left to write
/// (nothing was written; reads go on), or (`busy`) the server is searching as
/// much as it may, or (`clock_offset`, from `/readyz` alone) this instance's
/// clock strays from the database's; try again after the seconds `Retry-After` says.
#[derive(ToResponse)]
#[response(content_type = "application/problem+json",
    headers(("Retry-After" = u64, description = "Seconds to wait before trying again.")),
    examples(
    ("unavailable" = (value = json!({"type": "urn:qttt:problem:unavailable", "title": "Service unavailable",
        "status": 503, "detail": "the database does not answer: pool timed out", "code": "unavailable"}))),
    ("storage_full" = (value = json!({"type": "urn:qttt:problem:storage_full", "title": "Storage full",
        "status": 503, "detail": "the server's database has no room left to write, so nothing was written; try again \
        later (reads go on)", "code": "storage_full"}))),
    ("busy" = (value = json!({"type": "urn:qttt:problem:busy", "title": "Busy", "status": 503,
        "detail": "the server is searching as much as it can; try again in a moment", "code": "busy"}))),
    ("clock_offset" = (value = json!({"type": "urn:qttt:problem:clock_offset", "title": "Clock offset", "status": 503,
        "detail": "this instance's clock is -5002 ms from the database's, beyond the 250 ms allowed: its operator \
        must set it right", "code": "clock_offset"})))
))]
pub(crate) struct Unavailable(Problem);

/// A fault on the server, logged there; the body says no more.
#[derive(ToResponse)]
#[response(content_type = "application/problem+json", example = json!({"type": "urn:qttt:problem:internal",
    "title": "Internal error", "status": 500, "detail": "something went wrong on the server; it has been logged",
    "code": "internal"}))]
pub struct Internal(Problem);

/// The answers to an action in a game: a move, a collapse choice, a resignation,
/// an abort. (Those with a body can be refused for it too: see [`BodyRefusals`].)
#[derive(IntoResponses)]
#[expect(clippy::large_enum_variant, reason = "only documents the answers: never built")]
pub(crate) enum ActionAnswers {
    /// The game after the action.
    #[response(status = 201, headers(("ETag" = String, description = "The game's new version.")))]
    Created(GameView),
    #[response(status = 400)]
    BadRequest(#[ref_response] BadRequest),
    #[response(status = 401)]
    Unauthorized(#[ref_response] Unauthorized),
    #[response(status = 403)]
    Forbidden(#[ref_response] Forbidden),
    #[response(status = 404)]
    NotFound(#[ref_response] NotFound),
    #[response(status = 409)]
    Conflict(#[ref_response] Conflict),
    #[response(status = 422)]
    RuleBroken(#[ref_response] RuleBroken),
    #[response(status = 429)]
    TooManyRequests(#[ref_response] TooManyRequests),
    #[response(status = 500)]
    Internal(#[ref_response] Internal),
    #[response(status = 503)]
    Unavailable(#[ref_response] Unavailable),
}

/// The refusals every operation of a player's own can answer: no token, or one
/// that is nobody's; too many requests; the server's failures.
#[derive(IntoResponses)]
pub(crate) enum PlayerRefusals {
    #[response(status = 401)]
    Unauthorized(#[ref_response] Unauthorized),
    #[response(status = 429)]
    TooManyRequests(#[ref_response] TooManyRequests),
    #[response(status = 500)]
    Internal(#[ref_response] Internal),
    #[response(status = 503)]
    Unavailable(#[ref_response] Unavailable),
}

/// The refusals of an operation's body: too slow, too large, or not JSON.
#[derive(IntoResponses)]
pub(crate) enum BodyRefusals {
    #[response(status = 408)]
    RequestTimeout(#[ref_response] RequestTimeout),
    #[response(status = 413)]
    PayloadTooLarge(#[ref_response] PayloadTooLarge),
    #[response(status = 415)]
    UnsupportedMediaType(#[ref_response] UnsupportedMediaType),
}

/// Links from the answers that hand out a seat token to the operations that need
/// one: the game's id, and `Authorization: Bearer` the new seat's token. Clients
/// and stateful testers (schemathesis) can follow them from one call to the next.
pub(crate) fn link_seat_tokens(document: &mut utoipa::openapi::OpenApi) {
    for path in ["/api/v1/games", "/api/v1/games/{id}/join"] {
        let seated = document.paths.paths.get_mut(path).and_then(|item| item.post.as_mut());
        let Some(RefOr::T(seated)) = seated.and_then(|operation| operation.responses.responses.get_mut("201")) else {
            continue;
        };
        for operation_id in ["place_move", "choose_collapse"] {
            let link = LinkBuilder::new()
                .operation_id(operation_id)
                .parameter("path.id", "$response.body#/game/id")
                .parameter("header.Authorization", "Bearer {$response.body#/seat/token}")
                .description("Act in this game with the seat just taken.")
                .build();
            seated.links.insert(operation_id.into(), RefOr::T(link));
        }
    }
}

/// A link from the answer that starts an attempt at a puzzle to the operation
/// that plays its next action: the puzzle's and the attempt's ids.
pub(crate) fn link_attempts(document: &mut utoipa::openapi::OpenApi) {
    let started = document.paths.paths.get_mut("/api/v1/puzzles/{id}/attempts").and_then(|item| item.post.as_mut());
    let Some(RefOr::T(started)) = started.and_then(|operation| operation.responses.responses.get_mut("201")) else {
        return;
    };
    let link = LinkBuilder::new()
        .operation_id("continue_attempt")
        .parameter("path.id", "$response.body#/puzzle_id")
        .parameter("path.attempt", "$response.body#/id")
        .description("Play the attempt's next action.")
        .build();
    started.links.insert("continue_attempt".into(), RefOr::T(link));
}
