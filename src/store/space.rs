//! Whether the database has room to write, as its last writes found: a full disk
//! fails every write until an operator makes room, and the server must say so
//! (to its clients, its readiness probe and its log) without a line per request.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use super::StoreError;

/// Full from the first write that failed for lack of room until a write succeeds.
#[derive(Debug, Default)]
pub(super) struct Space {
    full: AtomicBool,
    /// Held over a change and its log line, so that the lines come in the order
    /// of the changes even when two threads' writes change it at once.
    changing: Mutex<()>,
}

impl Space {
    /// Notes what a write's outcome says of the room left.
    pub(super) fn note<T>(&self, written: Result<T, StoreError>) -> Result<T, StoreError> {
        match &written {
            Ok(_) => self.written(),
            Err(failure) => self.failed(failure),
        }
        written
    }

    /// A write succeeded: there is room again.
    pub(super) fn written(&self) {
        // Read first: a write that finds nothing to change touches no shared line.
        if self.full.load(Ordering::Relaxed) {
            let _changing = self.changing.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            if self.full.swap(false, Ordering::Relaxed) {
                log::warn!("the database has room again: writes succeed, and /readyz answers 200");
            }
        }
    }

    /// A write failed with `failure`: full, if it says so.
    pub(super) fn failed(&self, failure: &StoreError) {
        if let StoreError::Full(detail) = failure {
            let _changing = self.changing.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            if !self.full.swap(true, Ordering::Relaxed) {
                log::error!(
                    "the database is full ({detail}): writes are answered 503 storage_full and /readyz 503 until a \
                     write succeeds again; reads go on"
                );
            }
        }
    }

    /// Whether the database has no room to write, as the last writes found.
    pub(super) fn is_full(&self) -> bool {
        self.full.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_database_is_full_from_a_failed_write_until_a_write_succeeds() {
        let space = Space::default();
        let constraint = StoreError::Other("constraint".into());
        assert_eq!(space.note(Err::<(), _>(constraint.clone())), Err(constraint));
        assert!(!space.is_full(), "only a lack of room makes it full");
        let _ = space.note(Err::<(), _>(StoreError::Full("database or disk is full".into())));
        let _ = space.note(Err::<(), _>(StoreError::Unavailable("busy".into())));
        assert!(space.is_full(), "until a write succeeds");
        assert_eq!(space.note(Ok(7)), Ok(7));
        assert!(!space.is_full());
    }
}
