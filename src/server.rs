//! Start-up: open the store, bind the listener, run until a stop signal.

use std::net::SocketAddr;

use actix_web::HttpServer;
use actix_web::dev::{Server, ServerHandle};

use crate::api;
use crate::config::Config;
use crate::service::GameService;
use crate::store::Store;

/// How long requests in flight may take to finish after a stop signal.
const SHUTDOWN_SECONDS: u64 = 10;

/// A server that is listening.
pub struct Running {
    server: Server,
    store: Store,
    /// Where it listens (the actual port when the configured one was 0).
    pub addresses: Vec<SocketAddr>,
}

impl Running {
    /// Opens the database of `config` (creating and migrating it if needed) and
    /// starts listening on its host and port.
    ///
    /// # Errors
    /// One line saying what failed: the database or the listener.
    pub async fn start(config: &Config) -> Result<Running, String> {
        let store = Store::connect(&config.database_url)
            .await
            .map_err(|error| format!("cannot open the database {}: {error}", config.database_url))?;
        let service = GameService::new(store.clone());
        let origins = config.cors_allowed_origins.clone();
        let listener = HttpServer::new(move || api::app(service.clone(), origins.clone()))
            .bind((config.host.as_str(), config.port))
            .map_err(|error| format!("cannot listen on {}:{}: {error}", config.host, config.port))?
            .shutdown_timeout(SHUTDOWN_SECONDS);
        let addresses = listener.addrs();
        Ok(Running { server: listener.run(), store, addresses })
    }

    /// A handle that stops the server from elsewhere.
    pub fn handle(&self) -> ServerHandle {
        self.server.handle()
    }

    /// Serves until SIGTERM, SIGINT or [`ServerHandle::stop`]: requests in flight
    /// finish, then the database is closed, which checkpoints its write-ahead log.
    ///
    /// # Errors
    /// When the server fails.
    pub async fn finish(self) -> std::io::Result<()> {
        self.server.await?;
        self.store.close().await;
        Ok(())
    }
}
