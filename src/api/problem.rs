//! Every error the API answers, as RFC 9457 problem+json with a stable code.

use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpResponse, ResponseError};
use serde::Serialize;
use utoipa::ToSchema;
use utoipa::openapi::schema::{Object, ObjectBuilder, Type};

use crate::engine::RuleError;
use crate::error::Error;

/// Everything a request can fail with: what the service refused or failed at,
/// and what the HTTP layer refuses before asking it. Each variant's doc names its
/// status.
#[derive(Debug)]
pub enum ApiError {
    /// 422, 404, 403, 409, 503 or 500: the service's answer (a broken rule, no
    /// such game, no seat of it, a conflict, no database, a fault).
    Service(Error),
    /// 400, 408, 413 or 415: the body is not the JSON the operation takes.
    InvalidBody {
        /// 400 for bad JSON or fields, 408 for too slow, 413 for too large, 415
        /// for not JSON.
        status: StatusCode,
        /// What is wrong with it.
        detail: String,
    },
    /// 400: a path parameter is malformed, such as a game id that is not a number.
    InvalidPath(String),
    /// 400: a query parameter is malformed or out of range.
    InvalidQuery(String),
    /// 400: a header is malformed, such as an `If-Match` that is no version tag.
    InvalidHeader(String),
    /// 401: the request needs a seat's or a player's token and brought none, a
    /// malformed one, or a player's token that is nobody's (any more).
    Unauthorized(String),
    /// 404: no route has that path.
    NoRoute(String),
    /// 405: the path exists but not with this method.
    MethodNotAllowed {
        /// The methods the path takes, for the `Allow` header.
        allowed: Vec<String>,
    },
    /// 429: this client created more games and seats than the configured limit
    /// allows, or holds as many live streams as it may.
    RateLimited {
        /// Seconds until it may try again.
        retry_after: u64,
        /// Which limit, and what to do.
        detail: String,
    },
    /// Any 4xx or 5xx status: refused before it reached the API, such as a CORS
    /// preflight from an origin that is not allowed.
    Rejected {
        /// The status it was refused with.
        status: StatusCode,
        /// Why, as the refusing layer said it.
        detail: String,
    },
}

/// The seconds a client waits after a 503 before trying again: long enough for a
/// restarting database, short enough to go on soon after.
const UNAVAILABLE_RETRY_AFTER: u64 = 2;

/// The seconds a client waits after a 503 `storage_full`: room is made by an
/// operator, not in a moment.
const STORAGE_FULL_RETRY_AFTER: u64 = 10;

/// The seconds a client waits after a 503 `clock_offset`: the clock is measured
/// again every minute.
const CLOCK_OFFSET_RETRY_AFTER: u64 = 60;

/// The seconds a client waits after a 503 `busy`: the searches' queue drains in
/// a fraction of that.
const BUSY_RETRY_AFTER: u64 = 1;

/// An RFC 9457 problem: every error the API returns has this body, as
/// `application/problem+json`.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({
    "type": "urn:qttt:problem:not_your_turn",
    "title": "Not your turn",
    "status": 422,
    "detail": "it is not your turn",
    "code": "not_your_turn",
    "instance": "4f9c1a2be03d4d6a8c55e1f0b7a93d21"
}))]
pub struct Problem {
    /// A URI naming the kind of problem: `urn:qttt:problem:` followed by the code.
    #[serde(rename = "type")]
    pub problem_type: String,
    /// A short summary of the kind of problem.
    pub title: String,
    /// The HTTP status code.
    pub status: u16,
    /// What went wrong in this request.
    pub detail: String,
    /// A stable code for programs: one of the enum, a broken rule's or another.
    #[schema(schema_with = codes_schema)]
    pub code: String,
    /// With `conflict`: the game's version now.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub current_version: Option<i64>,
    /// With `already_rematched`: the rematch's id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub game_id: Option<i64>,
    /// The id of the request, as its `X-Request-Id` header says: the one the
    /// client sent, if it is a token of at most 128 letters, digits and `-._~`,
    /// else one the server made. The server's log names the request by it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instance: Option<String>,
}

/// The codes of the refusals of the HTTP layer, as [`ApiError::code`] gives them
/// (a missing token is `unauthorized`, as the service names a player's token
/// that is nobody's).
const HTTP_CODES: [&str; 7] = [
    "invalid_body",
    "invalid_path",
    "invalid_query",
    "invalid_header",
    "method_not_allowed",
    "rate_limited",
    "rejected",
];

/// The schema of a problem's code: every code a problem can carry, so that a
/// client can handle each.
fn codes_schema() -> Object {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .enum_values(Some(ApiError::codes()))
        .description(Some(
            "A stable code for programs: the broken rule (`not_your_turn`, `square_is_classical`, ...), or \
             `hints_disabled`, `rated_game`, `waiting_for_opponent`, `abort_not_allowed`, `game_not_over`, `already_rematched`, `name_taken`, \
             `self_challenge`, `already_joined`, `too_many_open`, `not_open`, `too_early`, `claim_not_allowed`, `draw_not_allowed`, `not_found`, `forbidden`, \
             `conflict`, `unavailable`, `busy`, `internal`, or a refusal of \
             the HTTP layer (`invalid_body`, `invalid_path`, `invalid_query`, `invalid_header`, `unauthorized`, \
             `method_not_allowed`, `rate_limited`, `rejected`: refused before reaching the API).",
        ))
        .build()
}

impl ApiError {
    /// Every code a problem can carry.
    pub fn codes() -> Vec<&'static str> {
        RuleError::ALL.iter().map(|rule| rule.code()).chain(Error::CODES).chain(HTTP_CODES).collect()
    }

    /// The stable code clients match on.
    pub fn code(&self) -> &'static str {
        match self {
            ApiError::Service(error) => error.code(),
            ApiError::InvalidBody { .. } => "invalid_body",
            ApiError::InvalidPath(_) => "invalid_path",
            ApiError::InvalidQuery(_) => "invalid_query",
            ApiError::InvalidHeader(_) => "invalid_header",
            ApiError::Unauthorized(_) => "unauthorized",
            ApiError::NoRoute(_) => "not_found",
            ApiError::MethodNotAllowed { .. } => "method_not_allowed",
            ApiError::RateLimited { .. } => "rate_limited",
            ApiError::Rejected { .. } => "rejected",
        }
    }

    fn title(&self) -> String {
        match self {
            ApiError::Service(Error::Rule(_)) => {
                let words = self.code().replace('_', " ");
                let mut title = words[..1].to_uppercase();
                title.push_str(&words[1..]);
                title
            }
            ApiError::Service(Error::HintsDisabled(_)) => "Hints disabled".into(),
            ApiError::Service(Error::RatedGame(_)) => "Rated game".into(),
            ApiError::Service(Error::WaitingForOpponent) => "Waiting for opponent".into(),
            ApiError::Service(Error::AbortNotAllowed) => "Abort not allowed".into(),
            ApiError::Service(Error::GameNotOver) => "Game not over".into(),
            ApiError::Service(Error::NameTaken) => "Name taken".into(),
            ApiError::Service(Error::AlreadyRematched(_)) => "Already rematched".into(),
            ApiError::Service(Error::SelfChallenge) => "Self challenge".into(),
            ApiError::Service(Error::AlreadyJoined(_)) => "Already joined".into(),
            ApiError::Service(Error::TooManyOpen(_)) => "Too many open".into(),
            ApiError::Service(Error::NotOpen(_)) => "Not open".into(),
            ApiError::Service(Error::TooEarly(_)) => "Too early".into(),
            ApiError::Service(Error::ClaimNotAllowed(_)) => "Claim not allowed".into(),
            ApiError::Service(Error::DrawNotAllowed(_)) => "Draw not allowed".into(),
            ApiError::Service(Error::Unauthenticated(_)) | ApiError::Unauthorized(_) => "Token needed".into(),
            ApiError::Service(Error::NotFound(_)) | ApiError::NoRoute(_) => "Not found".into(),
            ApiError::Service(Error::Forbidden(_)) => "Forbidden".into(),
            ApiError::Service(Error::Conflict { .. }) => "Conflict".into(),
            ApiError::Service(Error::Unavailable(_)) => "Service unavailable".into(),
            ApiError::Service(Error::StorageFull) => "Storage full".into(),
            ApiError::Service(Error::Busy) => "Busy".into(),
            ApiError::Service(Error::ClockOffset { .. }) => "Clock offset".into(),
            ApiError::Service(Error::Internal(_)) => "Internal error".into(),
            ApiError::InvalidBody { .. } => "Invalid request body".into(),
            ApiError::InvalidPath(_) => "Invalid path parameter".into(),
            ApiError::InvalidQuery(_) => "Invalid query parameter".into(),
            ApiError::InvalidHeader(_) => "Invalid header".into(),
            ApiError::MethodNotAllowed { .. } => "Method not allowed".into(),
            ApiError::RateLimited { .. } => "Too many requests".into(),
            ApiError::Rejected { status, .. } => status.canonical_reason().unwrap_or("Rejected").into(),
        }
    }

    /// What went wrong, for the client.
    pub fn detail(&self) -> String {
        match self {
            ApiError::Service(error) => error.detail(),
            ApiError::InvalidPath(detail)
            | ApiError::InvalidQuery(detail)
            | ApiError::InvalidHeader(detail)
            | ApiError::Unauthorized(detail)
            | ApiError::NoRoute(detail) => detail.clone(),
            ApiError::InvalidBody { detail, .. }
            | ApiError::Rejected { detail, .. }
            | ApiError::RateLimited { detail, .. } => detail.clone(),
            ApiError::MethodNotAllowed { allowed } => format!("this path takes {}", allowed.join(", ")),
        }
    }

    /// The problem+json body of this error.
    pub fn problem(&self) -> Problem {
        Problem {
            problem_type: format!("urn:qttt:problem:{}", self.code()),
            title: self.title(),
            status: self.status_code().as_u16(),
            detail: self.detail(),
            code: self.code().to_string(),
            current_version: match self {
                ApiError::Service(Error::Conflict { current_version, .. }) => *current_version,
                _ => None,
            },
            game_id: match self {
                ApiError::Service(Error::AlreadyRematched(id)) => Some(id.get()),
                _ => None,
            },
            instance: crate::logging::request_id().map(|id| id.to_string()),
        }
    }

    /// The seconds a client waits before trying again, for the errors that are
    /// worth trying again: `Retry-After`.
    pub(crate) fn retry_after(&self) -> Option<u64> {
        match self {
            ApiError::RateLimited { retry_after, .. } => Some(*retry_after),
            ApiError::Service(Error::Unavailable(_)) => Some(UNAVAILABLE_RETRY_AFTER),
            ApiError::Service(Error::StorageFull) => Some(STORAGE_FULL_RETRY_AFTER),
            ApiError::Service(Error::Busy) => Some(BUSY_RETRY_AFTER),
            ApiError::Service(Error::ClockOffset { .. }) => Some(CLOCK_OFFSET_RETRY_AFTER),
            _ => None,
        }
    }

    /// Logs what a client is not shown: the details of a fault.
    pub(crate) fn log_if_internal(&self) {
        if let ApiError::Service(Error::Internal(fault)) = self {
            log::error!("{}", fault.chain());
        }
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ApiError::Service(error) => error.fmt(f),
            _ => write!(f, "{}: {}", self.code(), self.detail()),
        }
    }
}

impl From<Error> for ApiError {
    fn from(error: Error) -> ApiError {
        ApiError::Service(error)
    }
}

impl From<RuleError> for ApiError {
    fn from(rule: RuleError) -> ApiError {
        ApiError::Service(Error::Rule(rule))
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        match self {
            ApiError::Service(error) => match error {
                Error::Rule(_)
                | Error::HintsDisabled(_)
                | Error::RatedGame(_)
                | Error::WaitingForOpponent
                | Error::AbortNotAllowed
                | Error::GameNotOver
                | Error::SelfChallenge
                | Error::TooManyOpen(_)
                | Error::TooEarly(_)
                | Error::ClaimNotAllowed(_)
                | Error::DrawNotAllowed(_) => StatusCode::UNPROCESSABLE_ENTITY,
                Error::AlreadyRematched(_) | Error::AlreadyJoined(_) => StatusCode::CONFLICT,
                Error::NotFound(_) => StatusCode::NOT_FOUND,
                Error::Unauthenticated(_) => StatusCode::UNAUTHORIZED,
                Error::Forbidden(_) => StatusCode::FORBIDDEN,
                Error::Conflict { .. } | Error::NameTaken | Error::NotOpen(_) => StatusCode::CONFLICT,
                Error::Unavailable(_) | Error::StorageFull | Error::Busy | Error::ClockOffset { .. } => {
                    StatusCode::SERVICE_UNAVAILABLE
                }
                Error::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
            },
            ApiError::InvalidBody { status, .. } | ApiError::Rejected { status, .. } => *status,
            ApiError::InvalidPath(_) | ApiError::InvalidQuery(_) | ApiError::InvalidHeader(_) => {
                StatusCode::BAD_REQUEST
            }
            ApiError::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            ApiError::NoRoute(_) => StatusCode::NOT_FOUND,
            ApiError::MethodNotAllowed { .. } => StatusCode::METHOD_NOT_ALLOWED,
            ApiError::RateLimited { .. } => StatusCode::TOO_MANY_REQUESTS,
        }
    }

    fn error_response(&self) -> HttpResponse {
        self.log_if_internal();
        let mut response = HttpResponse::build(self.status_code());
        response.content_type("application/problem+json");
        match self {
            ApiError::Unauthorized(_) | ApiError::Service(Error::Unauthenticated(_)) => {
                response.insert_header((header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer")));
            }
            ApiError::MethodNotAllowed { allowed } => {
                response.insert_header((header::ALLOW, allowed.join(", ")));
            }
            _ => {}
        }
        if let Some(seconds) = self.retry_after() {
            response.insert_header((header::RETRY_AFTER, seconds.to_string()));
        }
        response.body(serde_json::to_string(&self.problem()).expect("a problem serialises"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One error of each kind. The match below has no catch-all, so that a new kind
    /// of error cannot be added without one here.
    fn one_of_each() -> Vec<ApiError> {
        let every_kind = RuleError::ALL.into_iter().map(|rule| ApiError::Service(Error::Rule(rule))).chain([
            ApiError::Service(Error::HintsDisabled(String::new())),
            ApiError::Service(Error::RatedGame(String::new())),
            ApiError::Service(Error::WaitingForOpponent),
            ApiError::Service(Error::AbortNotAllowed),
            ApiError::Service(Error::GameNotOver),
            ApiError::Service(Error::AlreadyRematched(crate::record::GameId::new(1))),
            ApiError::Service(Error::NameTaken),
            ApiError::Service(Error::SelfChallenge),
            ApiError::Service(Error::AlreadyJoined(String::new())),
            ApiError::Service(Error::TooManyOpen(String::new())),
            ApiError::Service(Error::NotOpen(String::new())),
            ApiError::Service(Error::TooEarly(String::new())),
            ApiError::Service(Error::ClaimNotAllowed(String::new())),
            ApiError::Service(Error::DrawNotAllowed(String::new())),
            ApiError::Service(Error::Unauthenticated(String::new())),
            ApiError::Service(Error::NotFound(String::new())),
            ApiError::Service(Error::Forbidden(String::new())),
            ApiError::Service(Error::Conflict { detail: String::new(), current_version: None }),
            ApiError::Service(Error::Unavailable(String::new())),
            ApiError::Service(Error::StorageFull),
            ApiError::Service(Error::Busy),
            ApiError::Service(Error::ClockOffset { ahead_ms: 0, most_ms: 0 }),
            ApiError::Service(Error::Internal(crate::error::Fault::new(String::new()))),
            ApiError::InvalidBody { status: StatusCode::BAD_REQUEST, detail: String::new() },
            ApiError::InvalidPath(String::new()),
            ApiError::InvalidQuery(String::new()),
            ApiError::InvalidHeader(String::new()),
            ApiError::Unauthorized(String::new()),
            ApiError::NoRoute(String::new()),
            ApiError::MethodNotAllowed { allowed: Vec::new() },
            ApiError::RateLimited { retry_after: 1, detail: String::new() },
            ApiError::Rejected { status: StatusCode::FORBIDDEN, detail: String::new() },
        ]);
        every_kind
            .inspect(|error| match error {
                ApiError::Service(
                    Error::Rule(_)
                    | Error::HintsDisabled(_)
                    | Error::RatedGame(_)
                    | Error::WaitingForOpponent
                    | Error::AbortNotAllowed
                    | Error::GameNotOver
                    | Error::AlreadyRematched(_)
                    | Error::NameTaken
                    | Error::SelfChallenge
                    | Error::AlreadyJoined(_)
                    | Error::TooManyOpen(_)
                    | Error::NotOpen(_)
                    | Error::TooEarly(_)
                    | Error::ClaimNotAllowed(_)
                    | Error::DrawNotAllowed(_)
                    | Error::Unauthenticated(_)
                    | Error::NotFound(_)
                    | Error::Forbidden(_)
                    | Error::Conflict { .. }
                    | Error::Unavailable(_)
                    | Error::StorageFull
                    | Error::Busy
                    | Error::ClockOffset { .. }
                    | Error::Internal(_),
                )
                | ApiError::InvalidBody { .. }
                | ApiError::InvalidPath(_)
                | ApiError::InvalidQuery(_)
                | ApiError::InvalidHeader(_)
                | ApiError::Unauthorized(_)
                | ApiError::NoRoute(_)
                | ApiError::MethodNotAllowed { .. }
                | ApiError::RateLimited { .. }
                | ApiError::Rejected { .. } => {}
            })
            .collect()
    }

    #[test]
    fn the_documented_codes_are_exactly_those_errors_carry() {
        let carried: std::collections::BTreeSet<&str> = one_of_each().iter().map(ApiError::code).collect();
        let documented: std::collections::BTreeSet<&str> = ApiError::codes().into_iter().collect();
        assert_eq!(carried, documented);
        assert_eq!(ApiError::codes().len(), documented.len(), "no code is listed twice");
    }
}
