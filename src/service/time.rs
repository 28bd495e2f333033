//! Where the service reads the time: one clock for every write's stamp, every
//! game clock and every deadline, so that a test can set it; and, on a
//! database that several instances share, its offset from the database's clock,
//! so that they all keep one time.

use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use jiff::{SignedDuration, Timestamp};

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

/// How far the database's clock is from this instance's, as measured last:
/// what the service adds to its own clock, so that every instance on one
/// database stamps its writes, runs its game clocks and sees deadlines pass by
/// the database's time; and whether that is further than the server allows.
#[derive(Debug, Default)]
pub(crate) struct Offset {
    micros: AtomicI64,
    strayed: AtomicBool,
}

impl Offset {
    /// The offset, the database's clock minus this instance's.
    pub fn get(&self) -> SignedDuration {
        SignedDuration::from_micros(self.micros.load(Ordering::Relaxed))
    }

    /// Takes `offset` as measured, which strays beyond `most` or not.
    pub fn set(&self, offset: SignedDuration, most: Duration) {
        let micros = i64::try_from(offset.as_micros()).unwrap_or(i64::MAX);
        self.micros.store(micros, Ordering::Relaxed);
        self.strayed.store(offset.unsigned_abs() > most, Ordering::Relaxed);
    }

    /// Whether the offset measured last strays beyond the most allowed.
    pub(crate) fn strayed(&self) -> bool {
        self.strayed.load(Ordering::Relaxed)
    }
}

/// The time `duration` after `at`, or the latest there is.
pub fn after(at: Timestamp, duration: Duration) -> Timestamp {
    at.saturating_add(duration).expect("only a span of calendar units fails")
}

/// The time `duration` before `at`, or the earliest there is.
pub fn before(at: Timestamp, duration: Duration) -> Timestamp {
    at.saturating_sub(duration).expect("only a span of calendar units fails")
}

/// The time `at_ms` milliseconds after the epoch, as the clocks count.
pub(crate) fn timestamp_of_millis(at_ms: i64) -> Timestamp {
    Timestamp::from_millisecond(at_ms).expect("a time within jiff's range")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_count_milliseconds() {
        let at = timestamp_of_millis(1_764_578_453_040);
        assert_eq!(crate::record::stamp(at), "2025-12-01T08:40:53.040Z");
        assert_eq!(at.as_millisecond(), 1_764_578_453_040);
        assert_eq!(
            before(after(at, Duration::from_secs(90)), Duration::from_secs(30)).as_millisecond(),
            1_764_578_513_040
        );
        assert_eq!(before(at, Duration::MAX), Timestamp::MIN);
        let clock = Time::manual(at);
        clock.advance(Duration::from_millis(1_500));
        assert_eq!(clock.now().as_millisecond(), 1_764_578_454_540);
    }
}
