//! Settings from the environment, with defaults that run out of the box.

use std::env;
use std::time::Duration;

use ipnet::IpNet;

use crate::logging::LogFormat;
use crate::metrics::MetricsAt;
use crate::service::{DEFAULT_REMATCH_WINDOW, DEFAULT_WAITING_TIMEOUT, default_search_threads};
use crate::store::{Durability, PoolSettings, is_postgres};

/// Everything the server reads from the environment at start-up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// The address to listen on; `HOST`, default `127.0.0.1` (use `0.0.0.0` in a container).
    pub host: String,
    /// The port to listen on; `PORT`, default `8000`.
    pub port: u16,
    /// Where the games are kept; `DATABASE_URL`, default `sqlite:qttt.db` in the
    /// working directory, created on first start; `postgres://...` for PostgreSQL.
    pub database_url: String,
    /// How PostgreSQL is used: `DATABASE_POOL_SIZE` (default 10),
    /// `DATABASE_STATEMENT_TIMEOUT_MS` (default 5000) and
    /// `DATABASE_CONNECT_RETRY_SECONDS` (default 30).
    pub database_pool: PoolSettings,
    /// When SQLite waits for the disk; `SQLITE_SYNCHRONOUS`, `normal` (default: a
    /// commit survives the process crashing, the last ones may not survive a power
    /// failure) or `full` (every answered write is on disk).
    pub sqlite_synchronous: Durability,
    /// The browser origins allowed to call the API; `CORS_ALLOWED_ORIGINS`, a
    /// comma-separated list, default any origin (never with credentials: the API
    /// authenticates by bearer token, not cookies).
    pub cors_allowed_origins: CorsOrigins,
    /// The most rows one client address may create per minute: games created
    /// (new, and by the original app's `/reset`) and seats taken by joining;
    /// `CREATE_RATE_LIMIT`, default none (off). Beyond it, 429 with `Retry-After`.
    pub create_rate_limit: Option<u32>,
    /// The proxies whose word on a client's address is taken: a connection from
    /// one of them is the client its `X-Forwarded-For` names; `TRUSTED_PROXIES`,
    /// comma-separated addresses or CIDR ranges, default none (every client is
    /// the address it connects from).
    pub trusted_proxies: Vec<IpNet>,
    /// How long a request's body may take to arrive after its head;
    /// `REQUEST_BODY_TIMEOUT_SECONDS`, default 5. A slower one gets 408 and its
    /// connection is closed.
    pub request_body_timeout: Duration,
    /// The most connections each worker (one per core) serves at once;
    /// `MAX_CONNECTIONS_PER_WORKER`, default 10000. Beyond it, new connections
    /// wait to be accepted.
    pub max_connections_per_worker: usize,
    /// The most live event streams open at once; `MAX_LIVE_STREAMS`, default
    /// 4096. Beyond it, 429.
    pub max_live_streams: usize,
    /// The most live event streams one client address holds open at once;
    /// `MAX_LIVE_STREAMS_PER_ADDRESS`, default 32. Beyond it, 429.
    pub max_live_streams_per_address: usize,
    /// How long finished and aborted games are kept, with their logs and seats,
    /// before the server deletes them; `RETENTION_DAYS`, default none (for ever, as
    /// does 0).
    pub retention: Option<Duration>,
    /// How many perfect searches (hints, the perfect bot's answers) run at once;
    /// `SEARCH_THREADS`, default one per core. Four times as many wait; beyond
    /// them, 503 `busy`.
    pub search_threads: usize,
    /// Whether the original app's anonymous routes (`/state`, `/reset`, `/move`)
    /// are served; `ORIGINAL_APP_ROUTES`, `on` (the default: a drop-in for the
    /// original frontend) or `off`.
    pub original_app_routes: bool,
    /// Seeds the measurements and the bots' choices; `RANDOM_SEED`, default none
    /// (the operating system seeds every action). With a seed the same requests in
    /// the same order play the same games: for tests and for reproducing a game,
    /// never for play, whose outcomes it makes predictable. Seat tokens stay random.
    pub random_seed: Option<u64>,
    /// How long a game may wait for its second player before the server aborts
    /// it, so that the lobby stays fresh; `WAITING_GAME_TIMEOUT_SECONDS`, default
    /// 3600, 0 for never.
    pub waiting_game_timeout: Option<Duration>,
    /// How long after a game between two people ends its live streams wait for
    /// news of a rematch before they end; `REMATCH_WINDOW_SECONDS`, default 60.
    pub rematch_window: Duration,
    /// How the log's lines are written; `LOG_FORMAT`, `text` (the default) or
    /// `json` (one object per line).
    pub log_format: LogFormat,
    /// Where `GET /metrics` is served; `METRICS`, `on` (the default: on the
    /// server's port) or `off`, and `METRICS_ADDR`, an address and port of its own
    /// (such as `127.0.0.1:9100`), so that the metrics need not be public.
    pub metrics: MetricsAt,
}

/// How long a request's body may take to arrive, unless configured otherwise.
pub const DEFAULT_REQUEST_BODY_TIMEOUT: Duration = Duration::from_secs(5);

/// Which origins may call the API from a browser.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CorsOrigins {
    /// Any origin, the default: the API holds no cookies to steal.
    Any,
    /// Only these, exactly as a browser sends them (`https://example.com`).
    List(Vec<String>),
}

impl Config {
    /// Reads the settings from the process environment.
    ///
    /// # Errors
    /// One line saying which variable is wrong and why.
    pub fn from_env() -> Result<Config, String> {
        Config::from_lookup(|name| env::var(name).ok())
    }

    /// Reads the settings through `lookup`, which gives a variable's value if set.
    ///
    /// # Errors
    /// One line saying which variable is wrong and why.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Config, String> {
        let host = lookup("HOST").unwrap_or_else(|| "127.0.0.1".to_string());
        if host.trim().is_empty() {
            return Err("HOST is empty; set it to an address such as 127.0.0.1 or 0.0.0.0".into());
        }
        let port = match lookup("PORT") {
            None => 8000,
            Some(text) => text
                .trim()
                .parse::<u16>()
                .ok()
                .filter(|&port| port != 0)
                .ok_or(format!("PORT is {text:?}; it must be a number from 1 to 65535"))?,
        };
        let database_url = lookup("DATABASE_URL").unwrap_or_else(|| "sqlite:qttt.db".to_string());
        if !(database_url.starts_with("sqlite:") || is_postgres(&database_url)) {
            // Only the scheme: the rest may hold a password.
            let scheme = database_url.split(':').next().unwrap_or_default();
            return Err(format!(
                "DATABASE_URL starts with {scheme:?}; it must start with sqlite: (for example sqlite:qttt.db) \
                 or postgres:// (for example postgres://qttt@localhost/qttt)"
            ));
        }
        let defaults = PoolSettings::default();
        let database_pool = PoolSettings {
            pool_size: whole_number(&lookup, "DATABASE_POOL_SIZE", 1..=1000)?
                .map_or(defaults.pool_size, |size| u32::try_from(size).expect("at most 1000")),
            statement_timeout: whole_number(&lookup, "DATABASE_STATEMENT_TIMEOUT_MS", 1..=3_600_000)?
                .map_or(defaults.statement_timeout, Duration::from_millis),
            connect_retry: whole_number(&lookup, "DATABASE_CONNECT_RETRY_SECONDS", 0..=3600)?
                .map_or(defaults.connect_retry, Duration::from_secs),
        };
        let sqlite_synchronous =
            one_of(&lookup, "SQLITE_SYNCHRONOUS", [("normal", Durability::Normal), ("full", Durability::Full)])?;
        let cors_allowed_origins = match lookup("CORS_ALLOWED_ORIGINS") {
            None => CorsOrigins::Any,
            Some(text) if text.trim() == "*" => CorsOrigins::Any,
            Some(text) => {
                let origins: Vec<String> =
                    text.split(',').map(str::trim).filter(|o| !o.is_empty()).map(String::from).collect();
                if let Some(bad) = origins.iter().find(|o| !(o.starts_with("http://") || o.starts_with("https://"))) {
                    return Err(format!(
                        "CORS_ALLOWED_ORIGINS has {bad:?}; list origins such as https://example.com, or * for any"
                    ));
                }
                if origins.is_empty() {
                    return Err("CORS_ALLOWED_ORIGINS is empty; list origins, or * for any".into());
                }
                CorsOrigins::List(origins)
            }
        };
        let create_rate_limit = match lookup("CREATE_RATE_LIMIT") {
            None => None,
            Some(text) => match text.trim().parse::<u32>() {
                Ok(0) => None,
                Ok(limit) => Some(limit),
                Err(_) => {
                    return Err(format!(
                        "CREATE_RATE_LIMIT is {text:?}; it must be a whole number of games per minute (0 for no limit)"
                    ));
                }
            },
        };
        let trusted_proxies = match lookup("TRUSTED_PROXIES") {
            None => Vec::new(),
            Some(text) => text
                .split(',')
                .map(str::trim)
                .filter(|proxy| !proxy.is_empty())
                .map(|proxy| {
                    proxy.parse::<IpNet>().or_else(|_| proxy.parse::<std::net::IpAddr>().map(IpNet::from)).map_err(|_| {
                        format!(
                            "TRUSTED_PROXIES has {proxy:?}; list addresses or CIDR ranges, such as 10.0.0.5 or 10.0.0.0/8"
                        )
                    })
                })
                .collect::<Result<_, _>>()?,
        };
        let request_body_timeout = whole_number(&lookup, "REQUEST_BODY_TIMEOUT_SECONDS", 1..=600)?
            .map_or(DEFAULT_REQUEST_BODY_TIMEOUT, Duration::from_secs);
        let count = |name, default| -> Result<usize, String> {
            Ok(whole_number(&lookup, name, 1..=1_000_000)?
                .map_or(default, |count| usize::try_from(count).expect("at most a million")))
        };
        let max_connections_per_worker = count("MAX_CONNECTIONS_PER_WORKER", 10_000)?;
        let max_live_streams = count("MAX_LIVE_STREAMS", 4096)?;
        let max_live_streams_per_address = count("MAX_LIVE_STREAMS_PER_ADDRESS", 32)?;
        let search_threads = whole_number(&lookup, "SEARCH_THREADS", 1..=1024)?
            .map_or_else(default_search_threads, |threads| usize::try_from(threads).expect("at most 1024"));
        let retention = whole_number(&lookup, "RETENTION_DAYS", 0..=36_500)?
            .filter(|&days| days > 0)
            .map(|days| Duration::from_secs(days * 86_400));
        let original_app_routes = one_of(&lookup, "ORIGINAL_APP_ROUTES", ON_OR_OFF)?;
        let random_seed = whole_number(&lookup, "RANDOM_SEED", 0..=u64::MAX)?;
        let waiting_game_timeout = match whole_number(&lookup, "WAITING_GAME_TIMEOUT_SECONDS", 0..=31_536_000)? {
            None => Some(DEFAULT_WAITING_TIMEOUT),
            Some(0) => None,
            Some(seconds) => Some(Duration::from_secs(seconds)),
        };
        let rematch_window = whole_number(&lookup, "REMATCH_WINDOW_SECONDS", 0..=86_400)?
            .map_or(DEFAULT_REMATCH_WINDOW, Duration::from_secs);
        let log_format = one_of(&lookup, "LOG_FORMAT", [("text", LogFormat::Text), ("json", LogFormat::Json)])?;
        let metrics = match (one_of(&lookup, "METRICS", ON_OR_OFF)?, lookup("METRICS_ADDR")) {
            (false, Some(_)) => return Err("METRICS is off but METRICS_ADDR is set; unset one of them".into()),
            (false, None) => MetricsAt::Off,
            (true, None) => MetricsAt::ServerPort,
            (true, Some(text)) => MetricsAt::Address(text.trim().parse().map_err(|_| {
                format!("METRICS_ADDR is {text:?}; it must be an address and port, such as 127.0.0.1:9100")
            })?),
        };
        Ok(Config {
            host,
            port,
            database_url,
            database_pool,
            sqlite_synchronous,
            cors_allowed_origins,
            create_rate_limit,
            trusted_proxies,
            request_body_timeout,
            max_connections_per_worker,
            max_live_streams,
            max_live_streams_per_address,
            retention,
            search_threads,
            original_app_routes,
            random_seed,
            waiting_game_timeout,
            rematch_window,
            log_format,
            metrics,
        })
    }
}

/// The choices of a switch that is on unless turned off.
const ON_OR_OFF: [(&str, bool); 2] = [("on", true), ("off", false)];

/// The variable `name` as the value of the one of `choices` it names (in any
/// case); the first choice's when unset.
fn one_of<T: Copy, const N: usize>(
    lookup: impl Fn(&str) -> Option<String>,
    name: &str,
    choices: [(&str, T); N],
) -> Result<T, String> {
    let Some(text) = lookup(name) else { return Ok(choices[0].1) };
    match choices.iter().find(|(word, _)| text.trim().eq_ignore_ascii_case(word)) {
        Some(&(_, value)) => Ok(value),
        None => {
            let words: Vec<&str> = choices.iter().map(|(word, _)| *word).collect();
            Err(format!("{name} is {text:?}; it must be {}", words.join(" or ")))
        }
    }
}

/// The variable `name` as a whole number in `range`, if set.
fn whole_number(
    lookup: impl Fn(&str) -> Option<String>,
    name: &str,
    range: std::ops::RangeInclusive<u64>,
) -> Result<Option<u64>, String> {
    let Some(text) = lookup(name) else { return Ok(None) };
    match text.trim().parse::<u64>() {
        Ok(number) if range.contains(&number) => Ok(Some(number)),
        _ => Err(format!("{name} is {text:?}; it must be a whole number from {} to {}", range.start(), range.end())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(vars: &[(&str, &str)]) -> Result<Config, String> {
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
                sqlite_synchronous: Durability::Normal,
                cors_allowed_origins: CorsOrigins::Any,
                create_rate_limit: None,
                trusted_proxies: Vec::new(),
                request_body_timeout: Duration::from_secs(5),
                max_connections_per_worker: 10_000,
                max_live_streams: 4096,
                max_live_streams_per_address: 32,
                retention: None,
                search_threads: std::thread::available_parallelism().unwrap().get(),
                original_app_routes: true,
                random_seed: None,
                waiting_game_timeout: Some(Duration::from_secs(3600)),
                rematch_window: Duration::from_secs(60),
                log_format: LogFormat::Text,
                metrics: MetricsAt::ServerPort,
            })
        );
    }

    #[test]
    fn every_setting_is_read() {
        let read = config(&[
            ("HOST", "0.0.0.0"),
            ("PORT", "9000"),
            ("DATABASE_URL", "sqlite:/data/qttt.db"),
            ("CORS_ALLOWED_ORIGINS", "https://a.example, http://localhost:3000"),
            ("CREATE_RATE_LIMIT", "30"),
            ("SQLITE_SYNCHRONOUS", "FULL"),
            ("DATABASE_POOL_SIZE", "4"),
            ("DATABASE_STATEMENT_TIMEOUT_MS", "250"),
            ("DATABASE_CONNECT_RETRY_SECONDS", "0"),
            ("RANDOM_SEED", "18446744073709551615"),
            ("WAITING_GAME_TIMEOUT_SECONDS", "0"),
            ("REMATCH_WINDOW_SECONDS", "5"),
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
        ])
        .unwrap();
        assert_eq!(read.log_format, LogFormat::Json);
        assert_eq!(read.metrics, MetricsAt::Address("127.0.0.1:9100".parse().unwrap()));
        assert_eq!(config(&[("METRICS", "off")]).unwrap().metrics, MetricsAt::Off);
        let proxies: Vec<IpNet> =
            ["10.0.0.5/32", "192.168.0.0/16", "::1/128"].iter().map(|p| p.parse().unwrap()).collect();
        assert_eq!(read.trusted_proxies, proxies);
        assert_eq!((read.request_body_timeout, read.max_connections_per_worker), (Duration::from_secs(2), 300));
        assert_eq!((read.max_live_streams, read.max_live_streams_per_address), (100, 3));
        assert_eq!((read.retention, read.original_app_routes), (Some(Duration::from_secs(30 * 86_400)), false));
        assert_eq!(read.search_threads, 3);
        assert_eq!(
            read.database_pool,
            PoolSettings { pool_size: 4, statement_timeout: Duration::from_millis(250), connect_retry: Duration::ZERO }
        );
        let postgres = config(&[("DATABASE_URL", "postgres://qttt:secret@db/qttt")]).unwrap();
        assert_eq!(postgres.database_url, "postgres://qttt:secret@db/qttt");
        assert_eq!((read.host.as_str(), read.port), ("0.0.0.0", 9000));
        assert_eq!(read.database_url, "sqlite:/data/qttt.db");
        assert_eq!(read.create_rate_limit, Some(30));
        assert_eq!(read.random_seed, Some(u64::MAX));
        assert_eq!((read.waiting_game_timeout, read.rematch_window), (None, Duration::from_secs(5)));
        let waiting = config(&[("WAITING_GAME_TIMEOUT_SECONDS", "90")]).unwrap().waiting_game_timeout;
        assert_eq!(waiting, Some(Duration::from_secs(90)));
        assert_eq!(read.sqlite_synchronous, Durability::Full);
        assert_eq!(
            read.cors_allowed_origins,
            CorsOrigins::List(vec!["https://a.example".into(), "http://localhost:3000".into()])
        );
    }

    #[test]
    fn bad_settings_say_what_is_wrong_in_one_line() {
        let error = |vars| config(vars).unwrap_err();
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
        assert!(error(&[("RANDOM_SEED", "-3")]).starts_with("RANDOM_SEED is"));
        assert!(error(&[("WAITING_GAME_TIMEOUT_SECONDS", "an hour")]).starts_with("WAITING_GAME_TIMEOUT_SECONDS is"));
        assert!(error(&[("REMATCH_WINDOW_SECONDS", "-1")]).starts_with("REMATCH_WINDOW_SECONDS is"));
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
