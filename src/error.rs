//! What can go wrong in the service's operations, in the service's own words. The
//! API answers each as problem+json ([`crate::api`] gives the status codes).

use std::fmt;

use crate::engine::RuleError;
use crate::store::StoreError;

/// A failed operation of the service.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// The action breaks a rule of the game; the rule's code names it.
    Rule(RuleError),
    /// A hint or an analysis was asked for while the game goes on, in a game
    /// without hints.
    HintsDisabled,
    /// A move, collapse or resignation while a seat is still free.
    WaitingForOpponent,
    /// An abort after both players have made their first move.
    AbortNotAllowed,
    /// A rematch of a game that is not over.
    GameNotOver,
    /// No game has that id.
    NotFound(String),
    /// The token is not a seat of this game.
    Forbidden(String),
    /// The game changed under the request (a concurrent write won, or it is not
    /// at the version asked for), or no seat is free.
    Conflict {
        /// What conflicted.
        detail: String,
        /// The game's version now, so that the client can reload and retry.
        current_version: Option<i64>,
    },
    /// The database does not answer.
    Unavailable(String),
    /// The database has no room to write: nothing was written. Reads go on.
    StorageFull,
    /// As many searches run and wait as the server allows.
    Busy,
    /// A bug or a corrupt log. Logged in full; a client sees only that it happened.
    Internal(String),
}

impl Error {
    /// The codes of the errors that are not a broken rule, as [`Error::code`] gives them.
    pub const CODES: [&'static str; 11] = [
        "hints_disabled",
        "waiting_for_opponent",
        "abort_not_allowed",
        "game_not_over",
        "not_found",
        "forbidden",
        "conflict",
        "unavailable",
        "storage_full",
        "busy",
        "internal",
    ];

    /// The stable code clients match on.
    pub fn code(&self) -> &'static str {
        match self {
            Error::Rule(rule) => rule.code(),
            Error::HintsDisabled => "hints_disabled",
            Error::WaitingForOpponent => "waiting_for_opponent",
            Error::AbortNotAllowed => "abort_not_allowed",
            Error::GameNotOver => "game_not_over",
            Error::NotFound(_) => "not_found",
            Error::Forbidden(_) => "forbidden",
            Error::Conflict { .. } => "conflict",
            Error::Unavailable(_) => "unavailable",
            Error::StorageFull => "storage_full",
            Error::Busy => "busy",
            Error::Internal(_) => "internal",
        }
    }

    /// What went wrong, for the client.
    pub fn detail(&self) -> String {
        match self {
            Error::Rule(rule) => rule.to_string(),
            Error::HintsDisabled => {
                "this game gives neither hints nor analysis while it goes on; its creator can ask for them with \"hints\": \
                 true"
                    .into()
            }
            Error::WaitingForOpponent => "nobody can act before both seats are taken".into(),
            Error::AbortNotAllowed => {
                "a game can be aborted only while it waits for its second player or before both have moved".into()
            }
            Error::GameNotOver => "a rematch follows a game that is over".into(),
            Error::StorageFull => {
                "the server's database has no room left to write, so nothing was written; try again later (reads go on)"
                    .into()
            }
            Error::Busy => "the server is searching as much as it can; try again in a moment".into(),
            Error::NotFound(detail) | Error::Forbidden(detail) | Error::Unavailable(detail) => detail.clone(),
            Error::Conflict { detail, .. } => detail.clone(),
            // The details of an internal error are for the log, not the client.
            Error::Internal(_) => "something went wrong on the server; it has been logged".into(),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
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

impl From<StoreError> for Error {
    fn from(error: StoreError) -> Error {
        match error {
            StoreError::Unavailable(_) => Error::Unavailable(error.to_string()),
            StoreError::Conflict { current_version } => Error::Conflict {
                detail: "the game changed while this request was applied; reload it and try again".into(),
                current_version: Some(current_version),
            },
            StoreError::Full(_) => Error::StorageFull,
            StoreError::NotFound { .. } => Error::NotFound(error.to_string()),
            StoreError::Corrupt(_) | StoreError::Other(_) => Error::Internal(error.to_string()),
        }
    }
}
