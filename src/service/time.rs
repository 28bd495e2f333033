//! Where the service reads the time: one clock for every write's stamp, every
//! game clock and every deadline, so that a test can set it.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use jiff::Timestamp;

/// The service's clock.
#[derive(Debug, Clone, Default)]
pub enum Time {
    /// The system's clock: the default.
    #[default]
    System,
    /// A clock that stands until it is moved on, for tests.
    Manual(Arc<Mutex<Timestamp>>),
}

impl Time {
    /// A clock that stands at `start` until moved on with [`Time::advance`].
    pub fn manual(start: Timestamp) -> Time {
        Time::Manual(Arc::new(Mutex::new(start)))
    }

    /// The time now.
    pub fn now(&self) -> Timestamp {
        match self {
            Time::System => Timestamp::now(),
            Time::Manual(now) => *now.lock().expect("nothing panics under this lock"),
        }
    }

    /// Moves a manual clock on by `by`; the system's clock moves by itself.
    pub fn advance(&self, by: Duration) {
        if let Time::Manual(now) = self {
            let mut now = now.lock().expect("nothing panics under this lock");
            *now = now.checked_add(by).expect("a clock within jiff's range");
        }
    }
}

/// `at` as the log writes times: RFC 3339 in UTC, to the millisecond.
pub fn stamp(at: Timestamp) -> String {
    format!("{at:.3}")
}

/// `duration` in milliseconds, as the service's times count; the longest it
/// configures is years, far inside the range.
pub fn millis_of(duration: Duration) -> i64 {
    i64::try_from(duration.as_millis()).unwrap_or(i64::MAX)
}

/// A time in milliseconds since the epoch, as the log writes times.
pub fn stamp_of_millis(at_ms: i64) -> String {
    stamp(Timestamp::from_millisecond(at_ms).expect("a time within jiff's range"))
}

/// The milliseconds since the epoch of a time as the log writes it, or why it is
/// none (a corrupt log: the store writes no other).
///
/// # Errors
/// When `stamp` is not RFC 3339.
pub fn millis(stamp: &str) -> Result<i64, String> {
    stamp.parse::<Timestamp>().map(|at| at.as_millisecond()).map_err(|error| format!("a log time {stamp:?}: {error}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamps_read_back_to_the_millisecond() {
        let at = Timestamp::from_millisecond(1_764_578_453_040).unwrap();
        assert_eq!(stamp(at), "2025-12-01T08:40:53.040Z");
        assert_eq!(millis(&stamp(at)), Ok(1_764_578_453_040));
        assert!(millis("yesterday").is_err());
        assert_eq!(millis_of(Duration::from_secs(90)), 90_000);
        let clock = Time::manual(at);
        clock.advance(Duration::from_millis(1_500));
        assert_eq!(clock.now().as_millisecond(), 1_764_578_454_540);
    }
}
