//! One error type for the whole service, answered as RFC 9457 problem+json.

use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpResponse, ResponseError};
use serde::Serialize;
use utoipa::ToSchema;

use crate::engine::RuleError;

/// Everything that can go wrong in a request. Each variant's doc names its status.
#[derive(Debug)]
pub enum Error {
    /// 422: the action breaks a rule of the game; the code names the rule.
    Rule(RuleError),
    /// 404: no game has that id, or no route has that path.
    NotFound(String),
    /// 401: the request needs a seat token and brought none, or a malformed one.
    Unauthorized(String),
    /// 403: the token is not a seat of this game.
    Forbidden(String),
    /// 409: the game changed under the request (a concurrent write won), or both
    /// seats are taken.
    Conflict {
        /// What conflicted.
        detail: String,
        /// The game's version now, so that the client can reload and retry.
        current_version: Option<i64>,
    },
    /// 400, 413 or 415: the body is not the JSON the operation takes.
    InvalidBody {
        /// 400 for bad JSON or fields, 413 for too large, 415 for not JSON.
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
    /// 405: the path exists but not with this method.
    MethodNotAllowed {
        /// The methods the path takes, for the `Allow` header.
        allowed: Vec<String>,
    },
    /// 429: this client created more games than the configured limit allows.
    RateLimited {
        /// Seconds until it may create another.
        retry_after: u64,
    },
    /// 503: the database does not answer.
    Unavailable(String),
    /// Any 4xx or 5xx status: refused before it reached the API, such as a CORS
    /// preflight from an origin that is not allowed.
    Rejected {
        /// The status it was refused with.
        status: StatusCode,
        /// Why, as the refusing layer said it.
        detail: String,
    },
    /// 500: a bug or a corrupt log. Logged in full; the client sees only the code.
    Internal(String),
}

/// An RFC 9457 problem: every error the API returns has this body, as
/// `application/problem+json`.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({
    "type": "urn:qttt:problem:not_your_turn",
    "title": "Not your turn",
    "status": 422,
    "detail": "it is not your turn",
    "code": "not_your_turn"
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
    /// A stable code for programs: a rule code (`not_your_turn`, `square_is_classical`,
    /// ...) or one of `not_found`, `unauthorized`, `forbidden`, `conflict`,
    /// `invalid_body`, `invalid_path`, `invalid_query`, `invalid_header`, `method_not_allowed`,
    /// `rate_limited`, `unavailable`, `rejected` (refused before reaching the API), `internal`.
    pub code: String,
    /// With `conflict`: the game's version now.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub current_version: Option<i64>,
}

impl Error {
    /// The stable code clients match on.
    pub fn code(&self) -> &'static str {
        match self {
            Error::Rule(rule) => rule.code(),
            Error::NotFound(_) => "not_found",
            Error::Unauthorized(_) => "unauthorized",
            Error::Forbidden(_) => "forbidden",
            Error::Conflict { .. } => "conflict",
            Error::InvalidBody { .. } => "invalid_body",
            Error::InvalidPath(_) => "invalid_path",
            Error::InvalidQuery(_) => "invalid_query",
            Error::InvalidHeader(_) => "invalid_header",
            Error::MethodNotAllowed { .. } => "method_not_allowed",
            Error::RateLimited { .. } => "rate_limited",
            Error::Unavailable(_) => "unavailable",
            Error::Rejected { .. } => "rejected",
            Error::Internal(_) => "internal",
        }
    }

    fn title(&self) -> String {
        match self {
            Error::Rule(_) => {
                let words = self.code().replace('_', " ");
                let mut title = words[..1].to_uppercase();
                title.push_str(&words[1..]);
                title
            }
            Error::NotFound(_) => "Not found".into(),
            Error::Unauthorized(_) => "Seat token needed".into(),
            Error::Forbidden(_) => "Not a seat of this game".into(),
            Error::Conflict { .. } => "Conflict".into(),
            Error::InvalidBody { .. } => "Invalid request body".into(),
            Error::InvalidPath(_) => "Invalid path parameter".into(),
            Error::InvalidQuery(_) => "Invalid query parameter".into(),
            Error::InvalidHeader(_) => "Invalid header".into(),
            Error::MethodNotAllowed { .. } => "Method not allowed".into(),
            Error::RateLimited { .. } => "Too many games created".into(),
            Error::Unavailable(_) => "Service unavailable".into(),
            Error::Rejected { status, .. } => status.canonical_reason().unwrap_or("Rejected").into(),
            Error::Internal(_) => "Internal error".into(),
        }
    }

    fn detail(&self) -> String {
        match self {
            Error::Rule(rule) => rule.to_string(),
            Error::NotFound(detail)
            | Error::Unauthorized(detail)
            | Error::Forbidden(detail)
            | Error::InvalidPath(detail)
            | Error::InvalidQuery(detail)
            | Error::InvalidHeader(detail)
            | Error::Unavailable(detail) => detail.clone(),
            Error::Conflict { detail, .. } | Error::InvalidBody { detail, .. } | Error::Rejected { detail, .. } => {
                detail.clone()
            }
            Error::RateLimited { retry_after } => {
                format!("this address created too many games; try again in {retry_after} s")
            }
            Error::MethodNotAllowed { allowed } => {
                format!("this path takes {}", allowed.join(", "))
            }
            // The details of an internal error are for the log, not the client.
            Error::Internal(_) => "something went wrong on the server; it has been logged".into(),
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
                Error::Conflict { current_version, .. } => *current_version,
                _ => None,
            },
        }
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Internal(detail) => write!(f, "internal: {detail}"),
            _ => write!(f, "{}: {}", self.code(), self.detail()),
        }
    }
}

impl std::error::Error for Error {}

impl From<RuleError> for Error {
    fn from(rule: RuleError) -> Error {
        Error::Rule(rule)
    }
}

impl ResponseError for Error {
    fn status_code(&self) -> StatusCode {
        match self {
            Error::Rule(_) => StatusCode::UNPROCESSABLE_ENTITY,
            Error::NotFound(_) => StatusCode::NOT_FOUND,
            Error::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            Error::Forbidden(_) => StatusCode::FORBIDDEN,
            Error::Conflict { .. } => StatusCode::CONFLICT,
            Error::InvalidBody { status, .. } | Error::Rejected { status, .. } => *status,
            Error::InvalidPath(_) | Error::InvalidQuery(_) | Error::InvalidHeader(_) => StatusCode::BAD_REQUEST,
            Error::MethodNotAllowed { .. } => StatusCode::METHOD_NOT_ALLOWED,
            Error::RateLimited { .. } => StatusCode::TOO_MANY_REQUESTS,
            Error::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
            Error::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn error_response(&self) -> HttpResponse {
        if let Error::Internal(detail) = self {
            log::error!("{detail}");
        }
        let mut response = HttpResponse::build(self.status_code());
        response.content_type("application/problem+json");
        match self {
            Error::Unauthorized(_) => {
                response.insert_header((header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer")));
            }
            Error::MethodNotAllowed { allowed } => {
                response.insert_header((header::ALLOW, allowed.join(", ")));
            }
            Error::RateLimited { retry_after } => {
                response.insert_header((header::RETRY_AFTER, retry_after.to_string()));
            }
            _ => {}
        }
        response.body(serde_json::to_string(&self.problem()).expect("a problem serialises"))
    }
}
