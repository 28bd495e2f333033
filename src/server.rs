//! Start-up: open the store, bind the listener, run until a stop signal.

use std::net::{SocketAddr, ToSocketAddrs};
use std::time::Duration;

use actix_http::HttpService;
use actix_service::{ServiceFactoryExt, map_config};
use actix_web::HttpServer;
use actix_web::dev::{AppConfig, Server, ServerHandle, fn_service};
use actix_web::rt::net::TcpStream;
use socket2::{Domain, Protocol, Socket, Type};
use tokio::task::JoinHandle;

use crate::api::{self, CappedHead};
use crate::config::Config;
use crate::error::Error;
use crate::metrics::MetricsAt;
use crate::service::{
    GameService, RETENTION_BATCH, Randomness, ServiceOptions, TIMER_BATCH, TIMER_EVERY, Time, add_shipped_puzzles,
};
use crate::store::{OpenError, Store, database_name};

/// Why the server did not start, in one line, with the error it came from.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The database would not open or migrate.
    #[error("cannot open the {database}: {source}")]
    Database {
        /// Which database, as [`database_name`] says it.
        database: String,
        /// Why.
        source: OpenError,
    },
    /// The API's address was taken or not this machine's.
    #[error("cannot listen on {address}: {source}")]
    Listen {
        /// The address, as `HOST` and `PORT` give it.
        address: String,
        /// Why.
        source: std::io::Error,
    },
    /// The puzzles that ship with the server could not be added to the database.
    #[error("cannot add the puzzles that ship with the server: {0}")]
    Puzzles(crate::error::Error),
    /// So was the address of `METRICS_ADDR`.
    #[error("cannot listen for METRICS_ADDR on {address}: {source}")]
    ListenForMetrics {
        /// The address.
        address: SocketAddr,
        /// Why.
        source: std::io::Error,
    },
}

/// How often the instance measures its clock against the database's.
const CLOCK_EVERY: Duration = Duration::from_secs(60);

/// How often the server looks for games to delete, with a retention period.
const RETENTION_EVERY: Duration = Duration::from_secs(60);

/// The pause between two batches of deletions.
const RETENTION_PAUSE: Duration = Duration::from_millis(100);

/// How long requests in flight may take to finish after a stop signal.
const SHUTDOWN_SECONDS: u64 = 10;

/// A server that is listening.
pub struct Running {
    server: Server,
    store: Store,
    /// The server's timer, which writes the ends of overdue games.
    timer: JoinHandle<()>,
    /// What sets the instance's clock by the database's, every minute.
    clock: JoinHandle<()>,
    /// What deletes the games that ended before the retention period.
    retention: JoinHandle<()>,
    /// The server of `/metrics` on an address of its own, with `METRICS_ADDR`.
    metrics: Option<JoinHandle<std::io::Result<()>>>,
    stopper: Stopper,
    /// Where it listens (the actual port when the configured one was 0).
    pub addresses: Vec<SocketAddr>,
}

/// Stops a server gracefully: live event streams end, requests in flight finish.
#[derive(Clone)]
pub struct Stopper {
    handle: ServerHandle,
    metrics: Option<ServerHandle>,
    service: GameService,
}

impl Stopper {
    /// Stops the server and waits until it has.
    pub async fn stop(&self) {
        self.service.close_live_streams();
        self.handle.stop(true).await;
        if let Some(metrics) = &self.metrics {
            metrics.stop(true).await;
        }
    }
}

/// The store that `config` names, with its rating period.
///
/// # Errors
/// [`StartError::Database`] when it does not open.
pub async fn open_store(config: &Config) -> Result<Store, StartError> {
    let store = Store::connect(&config.database_url, config.sqlite, config.database_pool)
        .await
        .map_err(|source| StartError::Database { database: database_name(&config.database_url), source })?;
    Ok(store.with_rating_period(config.rating_period))
}

/// The service's options as `config` sets them.
pub fn service_options(config: &Config) -> ServiceOptions {
    ServiceOptions {
        randomness: config.random_seed.map_or(Randomness::System, Randomness::seeded),
        time: Time::System,
        waiting_timeout: config.waiting_game_timeout,
        rematch_window: config.rematch_window,
        search_threads: config.search_threads,
        retention: config.retention,
        unjoined_retention: config.unjoined_game_retention,
        max_clock_offset: config.max_clock_offset,
        challenge_timeout: config.challenge_timeout,
        seek_timeout: config.seek_timeout,
        most_open_seeks: config.max_open_seeks_per_player,
        claim_after: config.claim_after,
        first_move: config.first_move,
        bot_games_per_day: config.bot_games_per_day,
    }
}

impl Running {
    /// Opens the database of `config` (creating and migrating it if needed) and
    /// starts listening on its host and port.
    ///
    /// # Errors
    /// What failed: the database or a listener.
    pub async fn start(config: &Config) -> Result<Running, StartError> {
        // Before the store, whose metrics' handles are registered with it.
        if config.metrics != MetricsAt::Off {
            crate::metrics::recorder();
        }
        let store = open_store(config).await?;
        add_shipped_puzzles(&store).await.map_err(StartError::Puzzles)?;
        let service = GameService::new(store.clone(), service_options(config));
        // Set by the database's clock before the first request, and every minute after.
        measure_clock(&service).await;
        let clock = actix_web::rt::spawn(run_clock(service.clone()));
        let timer = actix_web::rt::spawn(run_timer(service.clone()));
        let retention = actix_web::rt::spawn(run_retention(service.clone()));
        let (listening, hearing) = (store.clone(), service.clone());
        actix_web::rt::spawn(async move { listening.listen(|notice| hearing.hear(notice)).await });
        let (server, addresses) = serve_api(config, service.clone())?;
        let metrics_server = match config.metrics {
            MetricsAt::Address(address) => Some(serve_metrics(address)?),
            MetricsAt::Off | MetricsAt::ServerPort => None,
        };
        let stopper =
            Stopper { handle: server.handle(), metrics: metrics_server.as_ref().map(Server::handle), service };
        let metrics = metrics_server.map(actix_web::rt::spawn);
        let on_signal = stopper.clone();
        actix_web::rt::spawn(async move {
            stop_signal().await;
            log::info!("stopping: requests in flight finish, live streams end");
            on_signal.stop().await;
        });
        Ok(Running { server, store, timer, clock, retention, metrics, stopper, addresses })
    }

    /// The service it serves, to look at from elsewhere (as tests do).
    pub fn service(&self) -> GameService {
        self.stopper.service.clone()
    }

    /// What stops the server from elsewhere.
    pub fn stopper(&self) -> Stopper {
        self.stopper.clone()
    }

    /// Serves until SIGTERM, SIGINT or [`Stopper::stop`]: requests in flight
    /// finish, then the database is closed, which checkpoints its write-ahead log.
    ///
    /// # Errors
    /// When the server fails.
    pub async fn finish(self) -> std::io::Result<()> {
        self.server.await?;
        if let Some(metrics) = self.metrics {
            metrics.await.map_err(std::io::Error::other)??;
        }
        self.timer.abort();
        self.clock.abort();
        self.retention.abort();
        self.store.close().await;
        Ok(())
    }
}

/// Serves the API on the host and port of `config`, on each of their addresses
/// that can be bound, each connection's heads capped by [`CappedHead`]: actix's
/// `HttpServer` serves sockets alone, so its parts are put together here.
fn serve_api(config: &Config, service: GameService) -> Result<(Server, Vec<SocketAddr>), StartError> {
    let listen_error = |source| StartError::Listen { address: format!("{}:{}", config.host, config.port), source };
    let mut builder = Server::build()
        .max_concurrent_connections(config.max_connections_per_worker)
        .shutdown_timeout(SHUTDOWN_SECONDS)
        // Signals are handled in start, to end the live streams first.
        .disable_signals();
    let closing = builder.graceful_shutdown_signal();
    // One count of each limit for all workers.
    let options = api::ApiOptions::of(config);
    let (mut addresses, mut refusal) = (Vec::new(), None);
    for address in (config.host.as_str(), config.port).to_socket_addrs().map_err(listen_error)? {
        let listener = match bind(address) {
            Ok(listener) => listener,
            Err(error) => {
                refusal = Some(error);
                continue;
            }
        };
        let address = listener.local_addr().map_err(listen_error)?;
        addresses.push(address);
        let (service, options, closing) = (service.clone(), options.clone(), closing.clone());
        let factory = move || {
            let closing = closing.clone();
            let http = HttpService::build()
                // A client that closes its connection has gone: what it asked for is
                // dropped at once (a search stops, a stream gives its place back)
                // instead of when the answer is written. No HTTP client half-closes a
                // connection to wait for an answer.
                .h1_allow_half_closed(false)
                .local_addr(address)
                // Idle connections close at a stop, as they would under HttpServer.
                .graceful_shutdown_signal(move || {
                    let closing = closing.clone();
                    async move { closing.notified().await }
                })
                // The application reads neither the host nor the address of its config.
                .h1(map_config(api::app(service.clone(), options.clone()), |_| AppConfig::default()));
            fn_service(|connection: TcpStream| async move {
                let peer = connection.peer_addr().ok();
                Ok((CappedHead::new(connection), peer))
            })
            .and_then(http)
        };
        builder = builder.listen("qttt", listener, factory).map_err(listen_error)?;
    }
    match refusal {
        Some(error) if addresses.is_empty() => Err(listen_error(error)),
        _ => Ok((builder.run(), addresses)),
    }
}

/// A listening socket on `address`, as actix's `HttpServer` makes one: the
/// address reusable at once after a restart, and a queue of 1,024 connections.
fn bind(address: SocketAddr) -> std::io::Result<std::net::TcpListener> {
    let socket = Socket::new(Domain::for_address(address), Type::STREAM, Some(Protocol::TCP))?;
    socket.set_reuse_address(true)?;
    socket.bind(&address.into())?;
    socket.listen(1024)?;
    Ok(socket.into())
}

/// Serves `/metrics` alone on `address`, on one worker: a scrape is rare.
fn serve_metrics(address: SocketAddr) -> Result<Server, StartError> {
    let recorder = actix_web::web::Data::new(crate::metrics::recorder());
    let server = HttpServer::new(move || api::metrics_app(recorder.clone()))
        .workers(1)
        .bind(address)
        .map_err(|source| StartError::ListenForMetrics { address, source })?
        .disable_signals()
        .run();
    Ok(server)
}

/// The server's timer, until the server stops: every [`TIMER_EVERY`] it writes
/// down the clocks that ran out, and beside that, in a loop of its own, it
/// aborts the games that waited too long for their second player, batch after
/// batch while a backlog lasts, so that a backlog never delays a timeout; and
/// in a third, every [`TIMER_EVERY`], it pairs the free players of each
/// running arena; in a fourth, as often, it writes the seeks that expired
/// unpaired expired.
async fn run_timer(service: GameService) {
    let aborts = async {
        loop {
            match service.abort_unjoined_games().await {
                Ok(aborted) if aborted == TIMER_BATCH as usize => tokio::task::yield_now().await,
                Ok(_) => tokio::time::sleep(TIMER_EVERY).await,
                Err(error) => {
                    log::debug!("the timer will look again: {error}");
                    tokio::time::sleep(TIMER_EVERY).await;
                }
            }
        }
    };
    tokio::join!(
        each_turn("look", || service.end_timed_out_games()),
        aborts,
        each_turn("pair", || service.pair_arenas()),
        each_turn("sweep the seeks", || service.expire_seeks()),
    );
}

/// Runs `turn` every [`TIMER_EVERY`], for ever. A turn that fails is logged
/// (an outage is answered elsewhere), and the next turn `does` it again.
async fn each_turn<T, F: Future<Output = Result<T, Error>>>(does: &str, turn: impl Fn() -> F) {
    let mut every = tokio::time::interval(TIMER_EVERY);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        every.tick().await;
        if let Err(error) = turn().await {
            log::debug!("the timer will {does} again: {error}");
        }
    }
}

/// Every [`RETENTION_EVERY`], deletes the games that ended before their
/// retention period, a batch at a time with a pause between batches, so that the writes of
/// play go on in between. Without a retention period, nothing.
async fn run_retention(service: GameService) {
    let mut every = tokio::time::interval(RETENTION_EVERY);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        every.tick().await;
        let mut deleted = 0;
        loop {
            let batch = match service.delete_expired_games().await {
                Ok(batch) => batch,
                Err(error) => {
                    log::warn!("retention will try again: {error}");
                    break;
                }
            };
            deleted += batch;
            // A short batch was the last.
            if batch < RETENTION_BATCH {
                break;
            }
            tokio::time::sleep(RETENTION_PAUSE).await;
        }
        if deleted > 0 {
            log::info!("retention deleted {deleted} games that ended before their retention period");
        }
    }
}

/// Measures how far the database's clock is from this instance's (see
/// [`GameService::measure_clock`]), and logs an error when that is beyond the
/// most allowed.
async fn measure_clock(service: &GameService) {
    match service.measure_clock().await {
        Ok(None) => {}
        Ok(Some(offset)) => match service.ready().await {
            Err(error @ Error::ClockOffset { .. }) => {
                log::error!("{}; until then its times are the database's, corrected by the offset", error.detail());
            }
            _ => log::debug!("the database's clock is {} ms from this instance's", offset.as_millis()),
        },
        Err(error) => log::warn!("the database's clock could not be read; it will be read again: {error}"),
    }
}

/// Every [`CLOCK_EVERY`], measures the database's clock against this instance's again.
async fn run_clock(service: GameService) {
    let mut every = tokio::time::interval_at(tokio::time::Instant::now() + CLOCK_EVERY, CLOCK_EVERY);
    loop {
        every.tick().await;
        measure_clock(&service).await;
    }
}

/// Waits for SIGTERM or Ctrl-C (SIGINT).
async fn stop_signal() {
    let mut terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .expect("a process can listen for SIGTERM");
    tokio::select! {
        _ = terminate.recv() => {}
        _ = tokio::signal::ctrl_c() => {}
    }
}
