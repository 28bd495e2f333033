//! Where the service's randomness comes from.

use std::sync::{Arc, Mutex};

use rand::SeedableRng;
use rand::rngs::StdRng;

/// Where the service's randomness comes from: the measurements of the
/// `measurement` variant and the bots' choices. (Seat tokens always come from the
/// operating system's generator.)
#[derive(Debug, Clone, Default)]
pub enum Randomness {
    /// A generator seeded by the operating system for every action: the default.
    #[default]
    System,
    /// One seeded sequence: the same requests in the same order measure and play
    /// alike, for tests and for reproducing a game.
    Seeded(Arc<Mutex<StdRng>>),
}

impl Randomness {
    /// One sequence from `seed`.
    pub fn seeded(seed: u64) -> Randomness {
        Randomness::Seeded(Arc::new(Mutex::new(StdRng::seed_from_u64(seed))))
    }

    /// A generator for one action and what follows it. A seeded sequence is
    /// locked only to seed it, not while the bot thinks.
    pub(super) fn rng(&self) -> StdRng {
        match self {
            Randomness::System => StdRng::from_rng(&mut rand::rng()),
            Randomness::Seeded(sequence) => {
                StdRng::from_rng(&mut *sequence.lock().expect("nothing panics under this lock"))
            }
        }
    }
}
