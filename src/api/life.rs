//! The life of a game around its rules: resigning, aborting, a claim, a draw
//! by agreement, a rematch.

use actix_web::post;
use actix_web::web::Data;

use super::extract::SeatRequest;
use super::games::{Answer, changed, seated};
use super::limit::{ClientAddress, Limits};
use crate::service::GameService;

/// Resign: the other player wins, whatever the board's points.
///
/// Refused while a seat is free (`waiting_for_opponent`: abort instead) and once
/// the game is over (`game_over`).
#[utoipa::path(tag = "games", security(("seat_token" = [])), params(SeatRequest), responses(super::docs::ActionAnswers))]
#[post("/games/{id}/resign")]
async fn resign(service: Data<GameService>, seat: SeatRequest) -> Answer {
    changed(&service, &service.resign(seat.id, &seat.token, seat.expected_version).await?, &seat.token)
}

/// Abort: call the game off, `result` `aborted`, nobody wins.
///
/// Allowed while the game waits for its second player, or before both players
/// have made their first move; later `abort_not_allowed`. (A game nobody joins
/// is aborted by the server after `WAITING_GAME_TIMEOUT_SECONDS`.)
#[utoipa::path(tag = "games", security(("seat_token" = [])), params(SeatRequest), responses(super::docs::ActionAnswers))]
#[post("/games/{id}/abort")]
async fn abort(service: Data<GameService>, seat: SeatRequest) -> Answer {
    changed(&service, &service.abort(seat.id, &seat.token, seat.expected_version).await?, &seat.token)
}

/// Claim a game without a clock whose player to act walked away: you win,
/// `end.reason` `abandoned`.
///
/// The other player must be the one to act, and gone (no request with their
/// token, no live stream of theirs, for 30 s: `seats.X.present` false) for
/// `CLAIM_AFTER_SECONDS` (60 by default) more; before, 422 `too_early`, whose
/// detail says from when. A game with a clock is never claimed (its clock ends
/// it), nor one against a bot, nor on your own turn: 422 `claim_not_allowed`.
/// Your game's stream tells you when they go and come back (`opponent_gone`,
/// `opponent_back`).
#[utoipa::path(tag = "games", security(("seat_token" = [])), params(SeatRequest), responses(super::docs::ActionAnswers))]
#[post("/games/{id}/claim-victory")]
async fn claim_victory(service: Data<GameService>, seat: SeatRequest) -> Answer {
    changed(&service, &service.claim_victory(seat.id, &seat.token, seat.expected_version).await?, &seat.token)
}

/// Offer a draw, or accept the other player's offer: the game is then drawn,
/// `end.reason` `agreement`.
///
/// An offer stands, as the view's `draw_offer` shows, until the other player
/// accepts it (with this same call) or declines it, or until the next move or
/// collapse of either player; both players' streams hear it (`draw_offer`,
/// `draw_decline`, `agreement`). Offering again while your offer stands changes
/// nothing. A rated game drawn by agreement is rated as a draw. A bot takes no
/// draw: 422 `draw_not_allowed`.
#[utoipa::path(tag = "games", security(("seat_token" = [])), params(SeatRequest), responses(super::docs::ActionAnswers))]
#[post("/games/{id}/draw")]
async fn offer_draw(service: Data<GameService>, seat: SeatRequest) -> Answer {
    changed(&service, &service.offer_draw(seat.id, &seat.token, seat.expected_version).await?, &seat.token)
}

/// Decline the other player's offer of a draw: the game goes on.
///
/// With no offer of the other player's standing, 422 `draw_not_allowed`.
#[utoipa::path(tag = "games", security(("seat_token" = [])), params(SeatRequest), responses(super::docs::ActionAnswers))]
#[post("/games/{id}/draw/decline")]
async fn decline_draw(service: Data<GameService>, seat: SeatRequest) -> Answer {
    changed(&service, &service.decline_draw(seat.id, &seat.token, seat.expected_version).await?, &seat.token)
}

/// Ask for a rematch of a finished game: a new game with the same variant, clock,
/// opponent and hints, the colours swapped.
///
/// The first player to ask gets the new game and the seat of their new colour;
/// the finished game's view then shows `rematch`, and its watchers get a
/// `rematch` event. The other player's call takes the other seat of that same
/// game (it is kept for them: nobody else can join it). Against a bot, the bot
/// takes its seat at once. Refused while the game goes on (`game_not_over`),
/// and to a player who holds a seat of the rematch already (409
/// `already_rematched`, its `game_id` naming the rematch). Each call counts
/// against `CREATE_RATE_LIMIT`, as creating a game does (429 beyond).
#[utoipa::path(
    tag = "games",
    security(("seat_token" = [])),
    params(SeatRequest),
    responses(
        (status = 201, description = "The new game and your seat in it.", body = crate::api::views::SeatedGame,
            headers(("Location" = String, description = "The new game's path."), ("ETag" = String, description = "Its version."))),
        (status = 400, response = super::docs::BadRequest),
        (status = 401, response = super::docs::Unauthorized),
        (status = 403, response = super::docs::Forbidden),
        (status = 404, response = super::docs::NotFound),
        (status = 409, response = super::docs::Conflict),
        (status = 422, response = super::docs::RuleBroken),
        (status = 429, response = super::docs::TooManyRequests),
        (status = 500, response = super::docs::Internal),
        (status = 503, response = super::docs::Unavailable),
    )
)]
#[post("/games/{id}/rematch")]
async fn rematch(service: Data<GameService>, seat: SeatRequest, limits: Data<Limits>, client: ClientAddress) -> Answer {
    // A rematch creates a game, or takes its seat: it counts as a creation.
    limits.admit_creation(client, None)?;
    let (record, seat) = service.rematch(seat.id, &seat.token, seat.expected_version).await?;
    seated(&service, &record, seat)
}

/// Decline the rematch the other player asked for: the rematch, which waits
/// for you, is aborted in the name of the seat kept for you (`end.player`), and
/// its watchers (the player who asked) get an `abort` event.
///
/// Answers the rematch. With no rematch asked for by the other player, or one
/// already begun, 409 `not_open`; a rematch aborted already is answered as it is.
#[utoipa::path(tag = "games", security(("seat_token" = [])), params(SeatRequest), responses(super::docs::ActionAnswers))]
#[post("/games/{id}/rematch/decline")]
async fn decline_rematch(service: Data<GameService>, seat: SeatRequest) -> Answer {
    changed(&service, &service.decline_rematch(seat.id, &seat.token, seat.expected_version).await?, &seat.token)
}

/// Registers the operations of a game's life.
pub fn routes(config: &mut utoipa_actix_web::service_config::ServiceConfig) {
    config
        .service(resign)
        .service(abort)
        .service(claim_victory)
        .service(offer_draw)
        .service(decline_draw)
        .service(rematch)
        .service(decline_rematch);
}
