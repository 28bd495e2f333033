//! What can go wrong in the store, in the store's own terms: the layer above
//! decides what each means to a client.

use std::fmt;

/// A failed operation of the store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreError {
    /// The database does not answer, is busy beyond its timeout, or is closed.
    Unavailable(String),
    /// Another write took the next sequence number or the seat first: the game is
    /// at `current_version` now.
    Conflict {
        /// The version of the game after the write that won.
        current_version: i64,
    },
    /// The database has no room to write: its disk (or its quota) is full.
    Full(String),
    /// No game has this id.
    NotFound {
        /// The id asked for.
        id: i64,
    },
    /// A stored value the code cannot read: the database is corrupt.
    Corrupt(String),
    /// Any other failure of the database or of the store's own threads.
    Other(String),
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::Unavailable(detail) => write!(f, "the database does not answer: {detail}"),
            StoreError::Conflict { current_version } => {
                write!(f, "another write came first; the game is at version {current_version}")
            }
            StoreError::Full(detail) => write!(f, "the database's disk is full: {detail}"),
            StoreError::NotFound { id } => write!(f, "there is no game {id}"),
            StoreError::Corrupt(detail) => write!(f, "corrupt database: {detail}"),
            StoreError::Other(detail) => write!(f, "database error: {detail}"),
        }
    }
}

impl std::error::Error for StoreError {}
