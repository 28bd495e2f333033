//! Settings: each a flag of `qttt serve`, or else its environment variable, or
//! else a default that runs out of the box. clap reads them, so that
//! `qttt serve --help` lists every one with its variable and default; a value
//! refused is said in one line that names its variable.

use std::net::SocketAddr;
use std::time::Duration;

use clap::error::{ContextKind, ContextValue};
use clap::{ArgAction, Args, FromArgMatches};
use ipnet::IpNet;

use crate::logging::LogFormat;
use crate::metrics::MetricsAt;
use crate::service::{
    DEFAULT_BOT_GAMES_PER_DAY, DEFAULT_CHALLENGE_TIMEOUT, DEFAULT_CLAIM_AFTER, DEFAULT_FIRST_MOVE,
    DEFAULT_MAX_CLOCK_OFFSET, DEFAULT_MOST_OPEN_SEEKS, DEFAULT_REMATCH_WINDOW, DEFAULT_SEEK_TIMEOUT,
    DEFAULT_UNJOINED_RETENTION, DEFAULT_WAITING_TIMEOUT, default_search_threads,
};
use crate::store::{Durability, PoolSettings, SqliteSettings};

mod values;

use values::Proxies;
pub use values::{CorsOrigins, Problem};
use values::{
    address, burst, database_url, durability, host, log_format, on_or_off, origins, port, proxies, rate_limit,
    whole_number,
};

/// The settings as the command line and the environment give them, one field
/// for each variable; [`Config`] is what the server makes of them.
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Settings (each a flag or its environment variable)")]
pub struct Settings {
    /// The address to listen on (0.0.0.0 in a container).
    #[arg(long, env = "HOST", default_value = "127.0.0.1", value_parser = host)]
    host: String,
    /// The port to listen on.
    #[arg(long, env = "PORT", default_value_t = 8000, value_parser = port)]
    port: u16,
    /// Where the games are kept: sqlite:FILE (created on first start, relative to
    /// the working directory) or postgres://... for PostgreSQL.
    #[arg(long, env = "DATABASE_URL", default_value = "sqlite:qttt.db", hide_env_values = true,
        value_parser = database_url)]
    database_url: String,
    /// How many connections to PostgreSQL an instance holds.
    #[arg(long, env = "DATABASE_POOL_SIZE", default_value_t = PoolSettings::default().pool_size.into(),
        value_parser = whole_number::<1, 1000>)]
    database_pool_size: u64,
    /// How long one PostgreSQL statement may run before it is cancelled, in milliseconds.
    #[arg(long, env = "DATABASE_STATEMENT_TIMEOUT_MS", value_name = "MS",
        default_value_t = millis(PoolSettings::default().statement_timeout), value_parser = whole_number::<1, 3_600_000>)]
    database_statement_timeout_ms: u64,
    /// How long to go on trying to reach PostgreSQL at start-up, in seconds.
    #[arg(long, env = "DATABASE_CONNECT_RETRY_SECONDS", value_name = "SECONDS",
        default_value_t = PoolSettings::default().connect_retry.as_secs(), value_parser = whole_number::<0, 3600>)]
    database_connect_retry_seconds: u64,
    /// When SQLite waits for the disk: normal (a commit survives the process
    /// crashing, the last ones may not survive a power failure) or full (every
    /// answered write is on disk).
    #[arg(long, env = "SQLITE_SYNCHRONOUS", default_value = "normal", value_parser = durability)]
    sqlite_synchronous: Durability,
    /// How much of the SQLite file, from its start, the server keeps in memory,
    /// in MiB (0: none): its pages stay mapped into the server, so that the
    /// operating system does not drop them while others it caches go unused.
    #[arg(long, env = "SQLITE_RESIDENT_MIB", value_name = "MIB", default_value_t = DEFAULT_SQLITE_RESIDENT_MIB,
        value_parser = whole_number::<0, 1_048_576>)]
    sqlite_resident_mib: u64,
    /// The browser origins allowed to call the API, comma-separated, or * for
    /// any (never with credentials: the API authenticates by bearer token, not
    /// cookies).
    #[arg(long, env = "CORS_ALLOWED_ORIGINS", default_value = "*", value_parser = origins)]
    cors_allowed_origins: CorsOrigins,
    /// The rate at which one client address, or one player, may create rows,
    /// per minute: games (new, rematches, the original app's /reset), seats
    /// taken by joining, players, challenges and seeks; 0 for no limit. A
    /// request with a player's token counts for the player, one without for its
    /// address. With the burst, at most the burst at once and the burst plus
    /// this rate in any minute; beyond, 429 with Retry-After.
    #[arg(long, env = "CREATE_RATE_LIMIT", default_value_t = DEFAULT_CREATE_RATE.per_minute, value_parser = rate_limit)]
    create_rate_limit: u32,
    /// How many rows one client address or player may create at once: a bucket of this
    /// many, refilled at CREATE_RATE_LIMIT a minute.
    #[arg(long, env = "CREATE_RATE_BURST", default_value_t = DEFAULT_CREATE_RATE.burst, value_parser = burst)]
    create_rate_burst: u32,
    /// The rate at which one client address may fail to authenticate, per
    /// minute (a seat token that holds no seat of the game, a wrong invite); 0
    /// for no limit. With the burst, at most the burst at once and the burst
    /// plus this rate in any minute; beyond, every request with a token or an
    /// invite gets 429 with Retry-After.
    #[arg(long, env = "FAILED_AUTH_RATE_LIMIT", default_value_t = DEFAULT_FAILED_AUTH_RATE.per_minute,
        value_parser = rate_limit)]
    failed_auth_rate_limit: u32,
    /// How many failed authentications one client address may make at once: a
    /// bucket of this many, refilled at FAILED_AUTH_RATE_LIMIT a minute.
    #[arg(long, env = "FAILED_AUTH_BURST", default_value_t = DEFAULT_FAILED_AUTH_RATE.burst, value_parser = burst)]
    failed_auth_burst: u32,
    /// The proxies whose word on a client's address is taken (a connection from
    /// one of them is the client its X-Forwarded-For names): comma-separated
    /// addresses or CIDR ranges. Unset, every client is the address it connects
    /// from.
    #[arg(long, env = "TRUSTED_PROXIES", value_parser = proxies)]
    trusted_proxies: Option<Proxies>,
    /// How long a request's body may take to arrive after its head, in seconds.
    /// A slower one gets 408 and its connection is closed.
    #[arg(long, env = "REQUEST_BODY_TIMEOUT_SECONDS", value_name = "SECONDS", default_value_t = 5,
        value_parser = whole_number::<1, 600>)]
    request_body_timeout_seconds: u64,
    /// The most connections each worker (one per core) serves at once. Beyond it,
    /// new connections wait to be accepted.
    #[arg(long, env = "MAX_CONNECTIONS_PER_WORKER", default_value_t = 10_000, value_parser = whole_number::<1, 1_000_000>)]
    max_connections_per_worker: u64,
    /// The most live event streams open at once. Beyond it, 429.
    #[arg(long, env = "MAX_LIVE_STREAMS", default_value_t = 4096, value_parser = whole_number::<1, 1_000_000>)]
    max_live_streams: u64,
    /// The most live event streams one client address holds open at once. Beyond it, 429.
    #[arg(long, env = "MAX_LIVE_STREAMS_PER_ADDRESS", default_value_t = 32, value_parser = whole_number::<1, 1_000_000>)]
    max_live_streams_per_address: u64,
    /// How many days finished and aborted games are kept, with their logs and
    /// seats, before the server deletes them; 0 for ever.
    #[arg(long, env = "RETENTION_DAYS", value_name = "DAYS", default_value_t = 0, value_parser = whole_number::<0, 36_500>)]
    retention_days: u64,
    /// How many hours the games the server aborted because nobody took their
    /// free seat are kept before it deletes them (nothing was played in them);
    /// 0 for ever.
    #[arg(long, env = "UNJOINED_GAME_RETENTION_HOURS", value_name = "HOURS",
        default_value_t = DEFAULT_UNJOINED_RETENTION.as_secs() / 3600, value_parser = whole_number::<0, 876_000>)]
    unjoined_game_retention_hours: u64,
    /// How many perfect searches (hints, the perfect bot's answers) run at once;
    /// by default one per core. Four times as many wait; beyond them, 503 busy.
    #[arg(long, env = "SEARCH_THREADS", default_value_t = default_search_threads() as u64,
        value_parser = whole_number::<1, 1024>)]
    search_threads: u64,
    /// Whether the original app's anonymous routes (/state, /reset, /move) are
    /// served: on (a drop-in for the original frontend) or off.
    #[arg(long, env = "ORIGINAL_APP_ROUTES", value_name = "ON_OR_OFF", default_value = "on", action = ArgAction::Set,
        value_parser = on_or_off)]
    original_app_routes: bool,
    /// Seeds the measurements and the bots' choices: the same requests in the
    /// same order then play the same games. For tests and for reproducing a
    /// game, never for play, whose outcomes it makes predictable. Unset, the
    /// operating system seeds every action. Seat tokens stay random.
    #[arg(long, env = "RANDOM_SEED", value_name = "N", value_parser = whole_number::<0, { u64::MAX }>)]
    random_seed: Option<u64>,
    /// How long a game may wait for its second player before the server aborts
    /// it, in seconds, so that the lobby stays fresh; 0 for never.
    #[arg(long, env = "WAITING_GAME_TIMEOUT_SECONDS", value_name = "SECONDS",
        default_value_t = DEFAULT_WAITING_TIMEOUT.as_secs(), value_parser = whole_number::<0, 31_536_000>)]
    waiting_game_timeout_seconds: u64,
    /// How far this instance's clock may be from the database's, in
    /// milliseconds, with PostgreSQL: the instance keeps the database's time
    /// whatever its own clock says, and beyond this it logs an error and
    /// /readyz answers 503 clock_offset.
    #[arg(long, env = "MAX_CLOCK_OFFSET_MS", value_name = "MS", default_value_t = millis(DEFAULT_MAX_CLOCK_OFFSET),
        value_parser = whole_number::<1, 3_600_000>)]
    max_clock_offset_ms: u64,
    /// How long after a game between two people ends its live streams wait for
    /// news of a rematch before they end, in seconds.
    #[arg(long, env = "REMATCH_WINDOW_SECONDS", value_name = "SECONDS",
        default_value_t = DEFAULT_REMATCH_WINDOW.as_secs(), value_parser = whole_number::<0, 86_400>)]
    rematch_window_seconds: u64,
    /// How long a challenge waits for its answer before it expires, in seconds.
    #[arg(long, env = "CHALLENGE_TIMEOUT_SECONDS", value_name = "SECONDS",
        default_value_t = DEFAULT_CHALLENGE_TIMEOUT.as_secs(), value_parser = whole_number::<1, 604_800>)]
    challenge_timeout_seconds: u64,
    /// How long a seek waits to be paired before it expires, in seconds.
    #[arg(long, env = "SEEK_TIMEOUT_SECONDS", value_name = "SECONDS",
        default_value_t = DEFAULT_SEEK_TIMEOUT.as_secs(), value_parser = whole_number::<1, 86_400>)]
    seek_timeout_seconds: u64,
    /// The most seeks one player has open at once. Beyond it, 422 too_many_open.
    #[arg(long, env = "MAX_OPEN_SEEKS_PER_PLAYER", value_name = "N",
        default_value_t = DEFAULT_MOST_OPEN_SEEKS.into(), value_parser = whole_number::<1, 100>)]
    max_open_seeks_per_player: u64,
    /// How long the player to act in a game without a clock must have been gone
    /// (no request, no live stream, for 30 s) before the other may claim the
    /// game, in seconds.
    #[arg(long, env = "CLAIM_AFTER_SECONDS", value_name = "SECONDS",
        default_value_t = DEFAULT_CLAIM_AFTER.as_secs(), value_parser = whole_number::<0, 604_800>)]
    claim_after_seconds: u64,
    /// How long a player in a clocked game has for their first move, once it is
    /// theirs, in seconds: the clocks start after both first moves, and a
    /// player who makes none in time aborts the game (no_first_move).
    #[arg(long, env = "FIRST_MOVE_SECONDS", value_name = "SECONDS",
        default_value_t = DEFAULT_FIRST_MOVE.as_secs(), value_parser = whole_number::<1, 86_400>)]
    first_move_seconds: u64,
    /// The most rated games a bot account starts against bots (the server's
    /// or other accounts) in a day, the last 24 hours: more are refused.
    #[arg(long, env = "BOT_GAMES_PER_DAY", value_name = "GAMES",
        default_value_t = DEFAULT_BOT_GAMES_PER_DAY.into(), value_parser = whole_number::<0, 100_000>)]
    bot_games_per_day: u64,
    /// How long a rating period lasts, in days: a player's rating deviation
    /// grows once for every whole period since their last rated game, as
    /// Glicko-2 has it grow over a period without games.
    #[arg(long, env = "RATING_PERIOD_DAYS", value_name = "DAYS", default_value_t = 7,
        value_parser = whole_number::<1, 365>)]
    rating_period_days: u64,
    /// How the log's lines are written: text, or json (one object per line).
    #[arg(long, env = "LOG_FORMAT", default_value = "text", value_parser = log_format)]
    log_format: LogFormat,
    /// Whether GET /metrics is served: on or off.
    #[arg(long, env = "METRICS", value_name = "ON_OR_OFF", default_value = "on", action = ArgAction::Set,
        value_parser = on_or_off)]
    metrics: bool,
    /// An address and port of the metrics' own (such as 127.0.0.1:9100), so that
    /// they need not be public. Unset, they are on the server's port.
    #[arg(long, env = "METRICS_ADDR", value_name = "ADDRESS", value_parser = address)]
    metrics_addr: Option<SocketAddr>,
}

/// What the server makes of its [`Settings`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// The address to listen on: `HOST`.
    pub host: String,
    /// The port to listen on: `PORT`.
    pub port: u16,
    /// Where the games are kept: `DATABASE_URL`.
    pub database_url: String,
    /// How PostgreSQL is used: `DATABASE_POOL_SIZE`, `DATABASE_STATEMENT_TIMEOUT_MS`
    /// and `DATABASE_CONNECT_RETRY_SECONDS`.
    pub database_pool: PoolSettings,
    /// How the SQLite file is used: `SQLITE_SYNCHRONOUS` and `SQLITE_RESIDENT_MIB`.
    pub sqlite: SqliteSettings,
    /// The browser origins allowed to call the API: `CORS_ALLOWED_ORIGINS`.
    pub cors_allowed_origins: CorsOrigins,
    /// The rows one client address or player may create, if limited:
    /// `CREATE_RATE_LIMIT` and `CREATE_RATE_BURST`.
    pub create_rate_limit: Option<RateLimit>,
    /// The failed authentications one client address may make, if limited:
    /// `FAILED_AUTH_RATE_LIMIT` and `FAILED_AUTH_BURST`.
    pub failed_auth_rate_limit: Option<RateLimit>,
    /// The proxies whose word on a client's address is taken: `TRUSTED_PROXIES`.
    pub trusted_proxies: Vec<IpNet>,
    /// How long a request's body may take to arrive after its head:
    /// `REQUEST_BODY_TIMEOUT_SECONDS`.
    pub request_body_timeout: Duration,
    /// The most connections each worker serves at once: `MAX_CONNECTIONS_PER_WORKER`.
    pub max_connections_per_worker: usize,
    /// The most live event streams open at once: `MAX_LIVE_STREAMS`.
    pub max_live_streams: usize,
    /// The most live event streams one client address holds open at once:
    /// `MAX_LIVE_STREAMS_PER_ADDRESS`.
    pub max_live_streams_per_address: usize,
    /// How long ended games are kept, if not for ever: `RETENTION_DAYS`.
    pub retention: Option<Duration>,
    /// How long the games the server aborted for want of a second player are
    /// kept, if not for ever: `UNJOINED_GAME_RETENTION_HOURS`.
    pub unjoined_game_retention: Option<Duration>,
    /// How many perfect searches run at once: `SEARCH_THREADS`.
    pub search_threads: usize,
    /// Whether the original app's anonymous routes are served: `ORIGINAL_APP_ROUTES`.
    pub original_app_routes: bool,
    /// Seeds the measurements and the bots' choices, if set: `RANDOM_SEED`.
    pub random_seed: Option<u64>,
    /// How long a game may wait for its second player, if not for ever:
    /// `WAITING_GAME_TIMEOUT_SECONDS`.
    pub waiting_game_timeout: Option<Duration>,
    /// How far this instance's clock may be from the database's: `MAX_CLOCK_OFFSET_MS`.
    pub max_clock_offset: Duration,
    /// How long the live streams of an ended game wait for news of a rematch:
    /// `REMATCH_WINDOW_SECONDS`.
    pub rematch_window: Duration,
    /// How long a challenge waits for its answer: `CHALLENGE_TIMEOUT_SECONDS`.
    pub challenge_timeout: Duration,
    /// How long a seek waits to be paired: `SEEK_TIMEOUT_SECONDS`.
    pub seek_timeout: Duration,
    /// The most seeks a player has open at once: `MAX_OPEN_SEEKS_PER_PLAYER`.
    pub max_open_seeks_per_player: u32,
    /// How long the player to act must be gone before the other may claim an
    /// untimed game: `CLAIM_AFTER_SECONDS`.
    pub claim_after: Duration,
    /// How long a player in a clocked game has for their first move:
    /// `FIRST_MOVE_SECONDS`.
    pub first_move: Duration,
    /// The most rated games a bot account starts against bots in a day:
    /// `BOT_GAMES_PER_DAY`.
    pub bot_games_per_day: u32,
    /// How long a rating period lasts: `RATING_PERIOD_DAYS`.
    pub rating_period: jiff::SignedDuration,
    /// How the log's lines are written: `LOG_FORMAT`.
    pub log_format: LogFormat,
    /// Where `GET /metrics` is served: `METRICS` and `METRICS_ADDR`.
    pub metrics: MetricsAt,
}

/// What one client address may do so often: `burst` at once, and `per_minute`
/// on average, as a bucket of `burst` tokens that refills at `per_minute`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimit {
    /// How many a minute, on average.
    pub per_minute: u32,
    /// How many at once.
    pub burst: u32,
}

/// Games and seats: a person creates a game or two a minute; a flood of them
/// meets the limit within seconds.
pub(crate) const DEFAULT_CREATE_RATE: RateLimit = RateLimit { per_minute: 30, burst: 10 };

/// Failed authentications: a client that mistypes never fails twenty times a
/// minute; one that guesses tokens is stopped after ten.
pub(crate) const DEFAULT_FAILED_AUTH_RATE: RateLimit = RateLimit { per_minute: 20, burst: 10 };

/// The SQLite file kept in memory: 2 GiB, about 2.6 million games at 809 bytes
/// each (docs/PERFORMANCE.md). Mapped pages are still the operating system's to
/// take back under memory pressure, so a bound larger than memory costs reads
/// of the file at start, not memory.
const DEFAULT_SQLITE_RESIDENT_MIB: u64 = 2048;

/// A setting refused, said in one line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// One variable's value is wrong.
    #[error("{variable} {problem}")]
    Setting {
        /// The environment variable, as the documentation names the setting.
        variable: String,
        /// What is wrong with its value.
        problem: Problem,
    },
    /// Two settings contradict each other.
    #[error("METRICS is off but METRICS_ADDR is set; unset one of them")]
    MetricsOffWithAddress,
    /// A variable set under the name it had before, which nothing reads now.
    #[error("{old} is now called {new}: set {new} instead")]
    Renamed {
        /// The name it had.
        old: &'static str,
        /// The name it has.
        new: &'static str,
    },
}

/// The settings that were renamed: each old name with its new one. A variable
/// still set under its old name would go unread, so the server refuses to start.
const RENAMED: [(&str, &str); 1] = [("ABANDONED_GAME_RETENTION_HOURS", "UNJOINED_GAME_RETENTION_HOURS")];

/// Refuses a variable that `lookup` finds set under a name it no longer has.
///
/// # Errors
/// [`ConfigError::Renamed`] for the first one.
pub fn check_renamed(lookup: impl Fn(&str) -> Option<String>) -> Result<(), ConfigError> {
    match RENAMED.iter().find(|(old, _)| lookup(old).is_some()) {
        Some(&(old, new)) => Err(ConfigError::Renamed { old, new }),
        None => Ok(()),
    }
}

impl TryFrom<Settings> for Config {
    type Error = ConfigError;

    fn try_from(settings: Settings) -> Result<Config, ConfigError> {
        let metrics = match (settings.metrics, settings.metrics_addr) {
            (false, Some(_)) => return Err(ConfigError::MetricsOffWithAddress),
            (false, None) => MetricsAt::Off,
            (true, None) => MetricsAt::ServerPort,
            (true, Some(address)) => MetricsAt::Address(address),
        };
        let count = |count: u64| usize::try_from(count).expect("at most a million");
        let seconds = |seconds: u64| Some(Duration::from_secs(seconds)).filter(|duration| !duration.is_zero());
        let rate = |per_minute: u32, burst: u32| (per_minute > 0).then_some(RateLimit { per_minute, burst });
        Ok(Config {
            host: settings.host,
            port: settings.port,
            database_url: settings.database_url,
            database_pool: PoolSettings {
                pool_size: u32::try_from(settings.database_pool_size).expect("at most 1000"),
                statement_timeout: Duration::from_millis(settings.database_statement_timeout_ms),
                connect_retry: Duration::from_secs(settings.database_connect_retry_seconds),
            },
            sqlite: SqliteSettings {
                durability: settings.sqlite_synchronous,
                resident_bytes: usize::try_from(settings.sqlite_resident_mib << 20).expect("at most a TiB"),
            },
            cors_allowed_origins: settings.cors_allowed_origins,
            create_rate_limit: rate(settings.create_rate_limit, settings.create_rate_burst),
            failed_auth_rate_limit: rate(settings.failed_auth_rate_limit, settings.failed_auth_burst),
            trusted_proxies: settings.trusted_proxies.map_or_else(Vec::new, |proxies| proxies.0),
            request_body_timeout: Duration::from_secs(settings.request_body_timeout_seconds),
            max_connections_per_worker: count(settings.max_connections_per_worker),
            max_live_streams: count(settings.max_live_streams),
            max_live_streams_per_address: count(settings.max_live_streams_per_address),
            retention: seconds(settings.retention_days * 86_400),
            unjoined_game_retention: seconds(settings.unjoined_game_retention_hours * 3600),
            search_threads: count(settings.search_threads),
            original_app_routes: settings.original_app_routes,
            random_seed: settings.random_seed,
            waiting_game_timeout: seconds(settings.waiting_game_timeout_seconds),
            max_clock_offset: Duration::from_millis(settings.max_clock_offset_ms),
            rematch_window: Duration::from_secs(settings.rematch_window_seconds),
            challenge_timeout: Duration::from_secs(settings.challenge_timeout_seconds),
            seek_timeout: Duration::from_secs(settings.seek_timeout_seconds),
            max_open_seeks_per_player: u32::try_from(settings.max_open_seeks_per_player).expect("at most 100"),
            claim_after: Duration::from_secs(settings.claim_after_seconds),
            first_move: Duration::from_secs(settings.first_move_seconds),
            bot_games_per_day: u32::try_from(settings.bot_games_per_day).expect("at most 100,000"),
            rating_period: jiff::SignedDuration::from_hours(
                i64::try_from(settings.rating_period_days * 24).expect("at most 365 days"),
            ),
            log_format: settings.log_format,
            metrics,
        })
    }
}

impl Settings {
    /// The settings as a command of their own, each with its flag, variable,
    /// default and parser.
    #[must_use]
    pub fn command() -> clap::Command {
        Settings::augment_args(clap::Command::new("qttt"))
    }
}

impl Config {
    /// The settings as if the environment held just the variables `lookup`
    /// gives, and the command line nothing: for tests, which must not read the
    /// environment they run in.
    ///
    /// # Errors
    /// The first variable refused.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Config, ConfigError> {
        check_renamed(&lookup)?;
        let command = Settings::command();
        // Each variable set becomes its flag, as clap itself reads a variable:
        // through the same parser, after the flags.
        let flags: Vec<String> = command
            .get_arguments()
            .filter_map(|arg| {
                let value = lookup(arg.get_env()?.to_str()?)?;
                Some(format!("--{}={value}", arg.get_long()?))
            })
            .collect();
        let command = command.mut_args(|arg| arg.env(None::<&str>));
        let settings = command
            .try_get_matches_from(std::iter::once("qttt".to_string()).chain(flags))
            .and_then(|matches| Settings::from_arg_matches(&matches))
            .map_err(|error| ConfigError::of(&error).expect("every flag is a setting's value"))?;
        Config::try_from(settings)
    }
}

impl ConfigError {
    /// The refusal in clap's `error`, if it is a setting's value refused; any
    /// other (an unknown flag, a request for help) is clap's to say.
    #[must_use]
    pub fn of(error: &clap::Error) -> Option<ConfigError> {
        let problem = std::error::Error::source(error)?.downcast_ref::<Problem>()?.clone();
        let Some(ContextValue::String(refused)) = error.get(ContextKind::InvalidArg) else { return None };
        let mut command = Settings::command();
        command.build();
        let arg = command.get_arguments().find(|arg| arg.to_string() == *refused)?;
        let variable = arg.get_env()?.to_string_lossy().into_owned();
        Some(ConfigError::Setting { variable, problem })
    }
}

/// Milliseconds of `duration`, as the settings count them.
fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).expect("a setting's default fits")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(vars: &[(&str, &str)]) -> Result<Config, ConfigError> {
        Config::from_lookup(|name| vars.iter().find(|(k, _)| *k == name).map(|(_, v)| v.to_string()))
    }

    #[test]
    fn defaults_run_out_of_the_box() {
        assert_eq!(
            config(&[]),
            Ok(Config {
                host: "127.0.0.1".into(),
                port: 8000,
                database_url: "sqlite:qttt.db".into(),
                database_pool: PoolSettings {
                    pool_size: 10,
                    statement_timeout: Duration::from_secs(5),
                    connect_retry: Duration::from_secs(30),
                },
                sqlite: SqliteSettings { durability: Durability::Normal, resident_bytes: 2 << 30 },
                cors_allowed_origins: CorsOrigins::Any,
                create_rate_limit: Some(RateLimit { per_minute: 30, burst: 10 }),
                failed_auth_rate_limit: Some(RateLimit { per_minute: 20, burst: 10 }),
                trusted_proxies: Vec::new(),
                request_body_timeout: Duration::from_secs(5),
                max_connections_per_worker: 10_000,
                max_live_streams: 4096,
                max_live_streams_per_address: 32,
                retention: None,
                unjoined_game_retention: Some(Duration::from_secs(86_400)),
                search_threads: std::thread::available_parallelism().unwrap().get(),
                original_app_routes: true,
                random_seed: None,
                waiting_game_timeout: Some(Duration::from_secs(3600)),
                max_clock_offset: Duration::from_millis(250),
                rematch_window: Duration::from_secs(60),
                challenge_timeout: Duration::from_secs(300),
                seek_timeout: Duration::from_secs(120),
                max_open_seeks_per_player: 3,
                claim_after: Duration::from_secs(60),
                first_move: Duration::from_secs(30),
                bot_games_per_day: 100,
                rating_period: jiff::SignedDuration::from_hours(7 * 24),
                log_format: LogFormat::Text,
                metrics: MetricsAt::ServerPort,
            })
        );
    }

    #[test]
    fn a_setting_set_under_its_old_name_is_refused_with_its_new_one() {
        assert_eq!(
            config(&[("ABANDONED_GAME_RETENTION_HOURS", "0")]).unwrap_err().to_string(),
            "ABANDONED_GAME_RETENTION_HOURS is now called UNJOINED_GAME_RETENTION_HOURS: \
             set UNJOINED_GAME_RETENTION_HOURS instead"
        );
    }

    #[test]
    fn every_setting_is_read() {
        let read = config(&[
            ("HOST", "0.0.0.0"),
            ("PORT", "9000"),
            ("DATABASE_URL", "sqlite:/data/qttt.db"),
            ("CORS_ALLOWED_ORIGINS", "https://a.example, http://localhost:3000"),
            ("CREATE_RATE_LIMIT", "60"),
            ("CREATE_RATE_BURST", "5"),
            ("FAILED_AUTH_RATE_LIMIT", "0"),
            ("UNJOINED_GAME_RETENTION_HOURS", "0"),
            ("SQLITE_SYNCHRONOUS", "FULL"),
            ("DATABASE_POOL_SIZE", "4"),
            ("DATABASE_STATEMENT_TIMEOUT_MS", "250"),
            ("DATABASE_CONNECT_RETRY_SECONDS", "0"),
            ("RANDOM_SEED", "18446744073709551615"),
            ("WAITING_GAME_TIMEOUT_SECONDS", "0"),
            ("REMATCH_WINDOW_SECONDS", "5"),
            ("MAX_CLOCK_OFFSET_MS", "1000"),
            ("TRUSTED_PROXIES", "10.0.0.5, 192.168.0.0/16,::1"),
            ("REQUEST_BODY_TIMEOUT_SECONDS", "2"),
            ("MAX_CONNECTIONS_PER_WORKER", "300"),
            ("MAX_LIVE_STREAMS", "100"),
            ("MAX_LIVE_STREAMS_PER_ADDRESS", "3"),
            ("RETENTION_DAYS", "30"),
            ("ORIGINAL_APP_ROUTES", "OFF"),
            ("SEARCH_THREADS", "3"),
            ("LOG_FORMAT", "JSON"),
            ("METRICS_ADDR", "127.0.0.1:9100"),
            ("CHALLENGE_TIMEOUT_SECONDS", "30"),
            ("SEEK_TIMEOUT_SECONDS", "20"),
            ("MAX_OPEN_SEEKS_PER_PLAYER", "1"),
            ("CLAIM_AFTER_SECONDS", "0"),
            ("FIRST_MOVE_SECONDS", "5"),
            ("BOT_GAMES_PER_DAY", "7"),
            ("SQLITE_RESIDENT_MIB", "64"),
        ])
        .unwrap();
        assert_eq!((read.challenge_timeout, read.seek_timeout), (Duration::from_secs(30), Duration::from_secs(20)));
        assert_eq!((read.max_open_seeks_per_player, read.claim_after), (1, Duration::ZERO));
        assert_eq!((read.first_move, read.bot_games_per_day), (Duration::from_secs(5), 7));
        assert_eq!(read.log_format, LogFormat::Json);
        assert_eq!(read.metrics, MetricsAt::Address("127.0.0.1:9100".parse().unwrap()));
        assert_eq!(config(&[("METRICS", "off")]).unwrap().metrics, MetricsAt::Off);
        let proxies: Vec<IpNet> =
            ["10.0.0.5/32", "192.168.0.0/16", "::1/128"].iter().map(|p| p.parse().unwrap()).collect();
        assert_eq!(read.trusted_proxies, proxies);
        assert_eq!((read.request_body_timeout, read.max_connections_per_worker), (Duration::from_secs(2), 300));
        assert_eq!((read.max_live_streams, read.max_live_streams_per_address), (100, 3));
        assert_eq!((read.retention, read.original_app_routes), (Some(Duration::from_secs(30 * 86_400)), false));
        assert_eq!((read.search_threads, read.max_clock_offset), (3, Duration::from_secs(1)));
        assert_eq!(
            read.database_pool,
            PoolSettings { pool_size: 4, statement_timeout: Duration::from_millis(250), connect_retry: Duration::ZERO }
        );
        let postgres = config(&[("DATABASE_URL", "postgres://qttt:secret@db/qttt")]).unwrap();
        assert_eq!(postgres.database_url, "postgres://qttt:secret@db/qttt");
        assert_eq!((read.host.as_str(), read.port), ("0.0.0.0", 9000));
        assert_eq!(read.database_url, "sqlite:/data/qttt.db");
        assert_eq!(read.create_rate_limit, Some(RateLimit { per_minute: 60, burst: 5 }));
        assert_eq!((read.failed_auth_rate_limit, read.unjoined_game_retention), (None, None));
        assert_eq!(read.random_seed, Some(u64::MAX));
        assert_eq!((read.waiting_game_timeout, read.rematch_window), (None, Duration::from_secs(5)));
        let waiting = config(&[("WAITING_GAME_TIMEOUT_SECONDS", "90")]).unwrap().waiting_game_timeout;
        assert_eq!(waiting, Some(Duration::from_secs(90)));
        assert_eq!(read.sqlite, SqliteSettings { durability: Durability::Full, resident_bytes: 64 << 20 });
        assert_eq!(
            read.cors_allowed_origins,
            CorsOrigins::List(vec!["https://a.example".into(), "http://localhost:3000".into()])
        );
    }

    #[test]
    fn bad_settings_say_what_is_wrong_in_one_line() {
        let error = |vars| config(vars).unwrap_err().to_string();
        assert_eq!(error(&[("PORT", "http")]), r#"PORT is "http"; it must be a number from 1 to 65535"#);
        assert_eq!(error(&[("PORT", "0")]), r#"PORT is "0"; it must be a number from 1 to 65535"#);
        let mysql = error(&[("DATABASE_URL", "mysql://root:secret@db/qttt")]);
        assert!(mysql.starts_with(r#"DATABASE_URL starts with "mysql"; it must start with sqlite:"#), "{mysql}");
        assert!(!mysql.contains("secret"), "a password is never repeated: {mysql}");
        assert_eq!(
            error(&[("DATABASE_POOL_SIZE", "0")]),
            r#"DATABASE_POOL_SIZE is "0"; it must be a whole number from 1 to 1000"#
        );
        assert!(error(&[("DATABASE_STATEMENT_TIMEOUT_MS", "5s")]).starts_with("DATABASE_STATEMENT_TIMEOUT_MS is"));
        assert!(error(&[("DATABASE_CONNECT_RETRY_SECONDS", "-1")]).starts_with("DATABASE_CONNECT_RETRY_SECONDS is"));
        assert!(error(&[("CORS_ALLOWED_ORIGINS", "example.com")]).starts_with("CORS_ALLOWED_ORIGINS has"));
        assert!(error(&[("HOST", " ")]).starts_with("HOST is empty"));
        assert!(error(&[("CREATE_RATE_LIMIT", "lots")]).starts_with("CREATE_RATE_LIMIT is"));
        assert!(error(&[("CREATE_RATE_BURST", "0")]).starts_with("CREATE_RATE_BURST is"));
        assert!(error(&[("FAILED_AUTH_RATE_LIMIT", "-1")]).starts_with("FAILED_AUTH_RATE_LIMIT is"));
        assert!(error(&[("UNJOINED_GAME_RETENTION_HOURS", "a day")]).starts_with("UNJOINED_GAME_RETENTION_HOURS is"));
        assert!(error(&[("RANDOM_SEED", "-3")]).starts_with("RANDOM_SEED is"));
        assert!(error(&[("WAITING_GAME_TIMEOUT_SECONDS", "an hour")]).starts_with("WAITING_GAME_TIMEOUT_SECONDS is"));
        assert!(error(&[("REMATCH_WINDOW_SECONDS", "-1")]).starts_with("REMATCH_WINDOW_SECONDS is"));
        assert!(error(&[("MAX_CLOCK_OFFSET_MS", "0")]).starts_with("MAX_CLOCK_OFFSET_MS is"));
        assert!(error(&[("TRUSTED_PROXIES", "10.0.0.0/33")]).starts_with(r#"TRUSTED_PROXIES has "10.0.0.0/33""#));
        assert!(error(&[("TRUSTED_PROXIES", "proxy.local")]).starts_with("TRUSTED_PROXIES has"));
        assert!(error(&[("REQUEST_BODY_TIMEOUT_SECONDS", "0")]).starts_with("REQUEST_BODY_TIMEOUT_SECONDS is"));
        assert!(error(&[("MAX_CONNECTIONS_PER_WORKER", "0")]).starts_with("MAX_CONNECTIONS_PER_WORKER is"));
        assert!(error(&[("MAX_LIVE_STREAMS", "many")]).starts_with("MAX_LIVE_STREAMS is"));
        assert!(error(&[("MAX_LIVE_STREAMS_PER_ADDRESS", "-2")]).starts_with("MAX_LIVE_STREAMS_PER_ADDRESS is"));
        assert!(error(&[("RETENTION_DAYS", "-1")]).starts_with("RETENTION_DAYS is"));
        assert!(error(&[("SEARCH_THREADS", "0")]).starts_with("SEARCH_THREADS is"));
        assert_eq!(config(&[("RETENTION_DAYS", "0")]).unwrap().retention, None);
        assert_eq!(error(&[("ORIGINAL_APP_ROUTES", "no")]), r#"ORIGINAL_APP_ROUTES is "no"; it must be on or off"#);
        assert_eq!(error(&[("LOG_FORMAT", "xml")]), r#"LOG_FORMAT is "xml"; it must be text or json"#);
        assert_eq!(error(&[("METRICS", "yes")]), r#"METRICS is "yes"; it must be on or off"#);
        assert!(error(&[("METRICS_ADDR", "9100")]).starts_with(r#"METRICS_ADDR is "9100"; it must be an address"#));
        assert!(error(&[("METRICS", "off"), ("METRICS_ADDR", "127.0.0.1:9100")]).starts_with("METRICS is off but"));
        assert_eq!(
            error(&[("SQLITE_SYNCHRONOUS", "OFF")]),
            r#"SQLITE_SYNCHRONOUS is "OFF"; it must be normal or full"#
        );
    }
}
