//! How the service runs, and its defaults where the configuration says nothing.

use std::time::Duration;

use super::{Randomness, Time};

/// How long a game may wait for its second player, unless configured otherwise.
pub const DEFAULT_WAITING_TIMEOUT: Duration = Duration::from_secs(3600);

/// How long a game nobody joined is kept after the server aborted it, unless
/// configured otherwise: a day, long enough to look at, short enough that a
/// flood of games does not fill the disk.
pub(crate) const DEFAULT_UNJOINED_RETENTION: Duration = Duration::from_secs(86_400);

/// How far an instance's clock may be from the database's, unless configured
/// otherwise: CockroachDB's default is twice as much; a game's clock counts
/// milliseconds, and a person notices a quarter of a second.
pub(crate) const DEFAULT_MAX_CLOCK_OFFSET: Duration = Duration::from_millis(250);

/// How long a finished game's streams wait for a rematch, unless configured otherwise.
pub(crate) const DEFAULT_REMATCH_WINDOW: Duration = Duration::from_secs(60);

/// How long a challenge waits for its answer, unless configured otherwise.
pub(crate) const DEFAULT_CHALLENGE_TIMEOUT: Duration = Duration::from_secs(300);

/// How long a seek waits to be paired, unless configured otherwise.
pub(crate) const DEFAULT_SEEK_TIMEOUT: Duration = Duration::from_secs(120);

/// How many seeks a player may have open at once, unless configured otherwise.
pub(crate) const DEFAULT_MOST_OPEN_SEEKS: u8 = 3;

/// How long the player to act in an untimed game must be gone before the
/// other may claim it, unless configured otherwise.
pub(crate) const DEFAULT_CLAIM_AFTER: Duration = Duration::from_secs(60);

/// How long a player in a clocked game has for their first move, once it is
/// theirs, unless configured otherwise.
pub(crate) const DEFAULT_FIRST_MOVE: Duration = Duration::from_secs(30);

/// The most rated games a bot account plays against bots in a day, unless
/// configured otherwise: lichess's cap.
pub(crate) const DEFAULT_BOT_GAMES_PER_DAY: u32 = 100;

/// How the service runs: where its randomness and its time come from, and how
/// long a game may wait for its second player.
#[derive(Debug, Clone)]
pub struct ServiceOptions {
    /// For the measurements and the bots' choices.
    pub randomness: Randomness,
    /// For every write's stamp, every clock and every deadline.
    pub time: Time,
    /// How long a game may wait for its second player before the server aborts
    /// it; `None` for ever.
    pub waiting_timeout: Option<Duration>,
    /// How long after a game between two people ends its live streams stay open
    /// for news of a rematch, before their `end`.
    pub rematch_window: Duration,
    /// How many perfect searches (hints, the perfect bot's answers) run at once.
    pub search_threads: usize,
    /// How long finished games are kept; `None` for ever.
    pub retention: Option<Duration>,
    /// How long the games the server aborted because nobody joined them are
    /// kept; `None` for ever.
    pub unjoined_retention: Option<Duration>,
    /// How far this instance's clock may be from the database's before it is
    /// not ready.
    pub max_clock_offset: Duration,
    /// How long a challenge waits for its answer.
    pub challenge_timeout: Duration,
    /// How long a seek waits to be paired.
    pub seek_timeout: Duration,
    /// How many seeks a player may have open at once.
    pub most_open_seeks: u32,
    /// How long the player to act in an untimed game must be gone before the
    /// other may claim it.
    pub claim_after: Duration,
    /// How long a player in a clocked game has for their first move, once it
    /// is theirs, before the game is aborted; the clocks start after both
    /// first moves.
    pub first_move: Duration,
    /// The most rated games a bot account starts against bots in a day.
    pub bot_games_per_day: u32,
}

impl Default for ServiceOptions {
    fn default() -> ServiceOptions {
        ServiceOptions {
            randomness: Randomness::System,
            time: Time::System,
            waiting_timeout: Some(DEFAULT_WAITING_TIMEOUT),
            rematch_window: DEFAULT_REMATCH_WINDOW,
            search_threads: default_search_threads(),
            retention: None,
            unjoined_retention: Some(DEFAULT_UNJOINED_RETENTION),
            max_clock_offset: DEFAULT_MAX_CLOCK_OFFSET,
            challenge_timeout: DEFAULT_CHALLENGE_TIMEOUT,
            seek_timeout: DEFAULT_SEEK_TIMEOUT,
            most_open_seeks: DEFAULT_MOST_OPEN_SEEKS.into(),
            claim_after: DEFAULT_CLAIM_AFTER,
            first_move: DEFAULT_FIRST_MOVE,
            bot_games_per_day: DEFAULT_BOT_GAMES_PER_DAY,
        }
    }
}

/// One search thread per core, unless configured otherwise.
pub(crate) fn default_search_threads() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
}
