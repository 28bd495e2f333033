//! What can go wrong in the service's operations, in the service's own words. The
//! API answers each as problem+json ([`crate::api`] gives the status codes).

use std::fmt;
use std::sync::Arc;

use crate::engine::RuleError;
use crate::record::GameId;
use crate::store::StoreError;

/// A failed operation of the service.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// The action breaks a rule of the game; the rule's code names it.
    Rule(RuleError),
    /// A hint or an analysis was asked for while the game goes on, in a game
    /// without hints, or a hint by a bot account.
    HintsDisabled(String),
    /// What a rated game does not allow: a hint or an analysis while it goes
    /// on, hints asked for at its creation, a bot below its rated level, a
    /// rating range for a casual seek.
    RatedGame(String),
    /// A move, collapse or resignation while a seat is still free.
    WaitingForOpponent,
    /// An abort after both players have made their first move.
    AbortNotAllowed,
    /// A rematch of a game that is not over.
    GameNotOver,
    /// A rematch asked for by a player who holds a seat of it already: the game.
    AlreadyRematched(GameId),
    /// Another player has the name asked for, in any case.
    NameTaken,
    /// A challenge to oneself.
    SelfChallenge,
    /// A player joining an arena they are in already.
    AlreadyJoined(String),
    /// A player has as many challenges or seeks open as they may.
    TooManyOpen(String),
    /// A challenge or a seek that is no longer open (answered, paired,
    /// cancelled or expired), an attempt at a puzzle that is over, or a
    /// rematch to decline that the other player did not ask for or that began.
    NotOpen(String),
    /// A claim of a game whose player to act has not been gone long enough.
    TooEarly(String),
    /// A claim of a game that cannot be claimed: a clocked one (its clock ends
    /// it), or one in which the claimant is the one to act.
    ClaimNotAllowed(String),
    /// An offer of a draw, or its decline, that the game does not allow: against
    /// a bot, or a decline with no offer of the other player's standing.
    DrawNotAllowed(String),
    /// A player's token that is nobody's: never given, or replaced by a new one.
    Unauthenticated(String),
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
    /// This instance's clock is further from the database's than the server
    /// allows (`MAX_CLOCK_OFFSET_MS`): readiness says so, for a load balancer
    /// to send the requests elsewhere.
    ClockOffset {
        /// How far this instance's clock ran ahead of the database's when measured
        /// last, in milliseconds (negative: behind).
        ahead_ms: i64,
        /// The most allowed.
        most_ms: u64,
    },
    /// A bug or a corrupt log. Logged in full; a client sees only that it happened.
    Internal(Fault),
}

/// What went wrong inside the server, and the error it came from, if any, so
/// that the log tells the whole chain.
#[derive(Debug, Clone)]
pub struct Fault {
    what: String,
    /// Shared, so that an error can be cloned as the service's errors are.
    source: Option<Arc<dyn std::error::Error + Send + Sync>>,
}

impl Fault {
    /// A fault that `what` says all of.
    pub fn new(what: impl Into<String>) -> Fault {
        Fault { what: what.into(), source: None }
    }

    /// A fault that `what` says, which `source` caused.
    pub(crate) fn caused_by(what: impl Into<String>, source: impl std::error::Error + Send + Sync + 'static) -> Fault {
        Fault { what: what.into(), source: Some(Arc::new(source)) }
    }

    /// What went wrong and each cause after it, in one line, for the log.
    pub fn chain(&self) -> String {
        let mut said = self.what.clone();
        let mut cause = std::error::Error::source(self);
        while let Some(error) = cause {
            said = format!("{said}: {error}");
            cause = error.source();
        }
        said
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.what)
    }
}

impl std::error::Error for Fault {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source.as_deref().map(|source| source as &(dyn std::error::Error + 'static))
    }
}

/// Two faults are the same when they say the same: a source has no equality.
impl PartialEq for Fault {
    fn eq(&self, other: &Fault) -> bool {
        self.what == other.what
    }
}

impl Eq for Fault {}

impl Error {
    /// The codes of the errors that are not a broken rule, as [`Error::code`] gives them.
    pub(crate) const CODES: [&'static str; 23] = [
        "hints_disabled",
        "rated_game",
        "waiting_for_opponent",
        "abort_not_allowed",
        "game_not_over",
        "already_rematched",
        "name_taken",
        "self_challenge",
        "already_joined",
        "too_many_open",
        "not_open",
        "too_early",
        "claim_not_allowed",
        "draw_not_allowed",
        "unauthorized",
        "not_found",
        "forbidden",
        "conflict",
        "unavailable",
        "storage_full",
        "busy",
        "clock_offset",
        "internal",
    ];

    /// The stable code clients match on.
    pub fn code(&self) -> &'static str {
        match self {
            Error::Rule(rule) => rule.code(),
            Error::HintsDisabled(_) => "hints_disabled",
            Error::RatedGame(_) => "rated_game",
            Error::WaitingForOpponent => "waiting_for_opponent",
            Error::AbortNotAllowed => "abort_not_allowed",
            Error::GameNotOver => "game_not_over",
            Error::AlreadyRematched(_) => "already_rematched",
            Error::NameTaken => "name_taken",
            Error::SelfChallenge => "self_challenge",
            Error::AlreadyJoined(_) => "already_joined",
            Error::TooManyOpen(_) => "too_many_open",
            Error::NotOpen(_) => "not_open",
            Error::TooEarly(_) => "too_early",
            Error::ClaimNotAllowed(_) => "claim_not_allowed",
            Error::DrawNotAllowed(_) => "draw_not_allowed",
            Error::Unauthenticated(_) => "unauthorized",
            Error::NotFound(_) => "not_found",
            Error::Forbidden(_) => "forbidden",
            Error::Conflict { .. } => "conflict",
            Error::Unavailable(_) => "unavailable",
            Error::StorageFull => "storage_full",
            Error::Busy => "busy",
            Error::ClockOffset { .. } => "clock_offset",
            Error::Internal(_) => "internal",
        }
    }

    /// What went wrong, for the client.
    pub fn detail(&self) -> String {
        match self {
            Error::Rule(rule) => rule.to_string(),
            Error::WaitingForOpponent => "nobody can act before both seats are taken".into(),
            Error::AbortNotAllowed => {
                "a game can be aborted only while it waits for its second player or before both have moved".into()
            }
            Error::GameNotOver => "a rematch follows a game that is over".into(),
            Error::AlreadyRematched(id) => format!("you hold a seat of this game's rematch already: game {id}"),
            Error::NameTaken => "another player has that name (names are unique regardless of case)".into(),
            Error::SelfChallenge => "a player cannot challenge themselves".into(),
            Error::StorageFull => {
                "the server's database has no room left to write, so nothing was written; try again later (reads go on)"
                    .into()
            }
            Error::Busy => "the server is searching as much as it can; try again in a moment".into(),
            Error::ClockOffset { ahead_ms, most_ms } => format!(
                "this instance's clock is {} ms {} the database's, beyond the {most_ms} ms allowed: \
                 its operator must set it right",
                ahead_ms.unsigned_abs(),
                if *ahead_ms > 0 { "ahead of" } else { "behind" }
            ),
            Error::NotFound(detail)
            | Error::Unauthenticated(detail)
            | Error::Forbidden(detail)
            | Error::Unavailable(detail)
            | Error::TooManyOpen(detail)
            | Error::NotOpen(detail)
            | Error::AlreadyJoined(detail)
            | Error::TooEarly(detail)
            | Error::ClaimNotAllowed(detail)
            | Error::DrawNotAllowed(detail)
            | Error::HintsDisabled(detail)
            | Error::RatedGame(detail) => detail.clone(),
            Error::Conflict { detail, .. } => detail.clone(),
            // The details of an internal error are for the log, not the client.
            Error::Internal(_) => "something went wrong on the server; it has been logged".into(),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Internal(fault) => write!(f, "internal: {fault}"),
            _ => write!(f, "{}: {}", self.code(), self.detail()),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Rule(rule) => Some(rule),
            Error::Internal(fault) => std::error::Error::source(fault),
            _ => None,
        }
    }
}

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
            StoreError::NameTaken => Error::NameTaken,
            StoreError::Corrupt(_) | StoreError::Other(_) => Error::Internal(Fault::caused_by("the store", error)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_internal_error_keeps_its_cause_for_the_log_and_tells_the_client_nothing() {
        let error = Error::from(StoreError::Corrupt("status \"lost\"".into()));
        let Error::Internal(fault) = &error else { panic!("{error:?}") };
        assert_eq!(fault.chain(), "the store: corrupt database: status \"lost\"");
        let cause = std::error::Error::source(&error).expect("a cause");
        assert_eq!(cause.downcast_ref::<StoreError>(), Some(&StoreError::Corrupt("status \"lost\"".into())));
        assert_eq!(error.detail(), "something went wrong on the server; it has been logged");
        assert_eq!(Fault::new("a bug").chain(), "a bug");
    }
}
