//! What one client may take: rows created per minute and live streams open at
//! once; and who a client is, behind a trusted proxy.

use std::collections::HashMap;
use std::future::{Ready, ready};
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpRequest, web};
use ipnet::IpNet;

use super::problem::ApiError;
use crate::metrics::LIVE_WATCHERS;

const WINDOW: Duration = Duration::from_secs(60);

/// How long a client over a stream cap waits before trying again.
const STREAMS_RETRY_AFTER: u64 = 5;

/// The limits of every client, counted across all workers.
#[derive(Debug)]
pub struct Limits {
    creations: Option<CreationLimit>,
    streams: Mutex<OpenStreams>,
    max_streams: usize,
    max_streams_per_address: usize,
    trusted_proxies: Vec<IpNet>,
}

/// Counts each address's creations in windows of a minute.
#[derive(Debug)]
struct CreationLimit {
    per_minute: u32,
    windows: Mutex<HashMap<IpAddr, (Instant, u32)>>,
}

#[derive(Debug, Default)]
struct OpenStreams {
    all: usize,
    by_address: HashMap<IpAddr, usize>,
}

impl Limits {
    /// At most `creations_per_minute` rows created per address and minute (none:
    /// no limit), `max_streams` live streams open and `max_streams_per_address`
    /// from one address; a connection from one of `trusted_proxies` is the client
    /// its `X-Forwarded-For` names.
    pub fn new(
        creations_per_minute: Option<u32>,
        max_streams: usize,
        max_streams_per_address: usize,
        trusted_proxies: Vec<IpNet>,
    ) -> Limits {
        Limits {
            creations: creations_per_minute.map(|per_minute| CreationLimit { per_minute, windows: Mutex::default() }),
            streams: Mutex::default(),
            max_streams,
            max_streams_per_address,
            trusted_proxies,
        }
    }

    /// Counts a creation (a game, a seat) by `client`.
    ///
    /// # Errors
    /// [`ApiError::RateLimited`] with the seconds to wait, beyond the limit.
    pub fn admit_creation(&self, client: ClientAddress) -> Result<(), ApiError> {
        let Some(limit) = &self.creations else { return Ok(()) };
        let now = Instant::now();
        let mut windows = limit.windows.lock().expect("the limit's lock is never poisoned");
        // Finished windows go, so that the map holds only this minute's creators.
        windows.retain(|_, (start, _)| now.duration_since(*start) < WINDOW);
        let (start, count) = windows.entry(client.0).or_insert((now, 0));
        if *count >= limit.per_minute {
            let retry_after = (WINDOW - now.duration_since(*start)).as_secs().max(1);
            return Err(ApiError::RateLimited {
                retry_after,
                detail: format!("this address created too many games and seats; try again in {retry_after} s"),
            });
        }
        *count += 1;
        Ok(())
    }

    /// A place for one more live stream of `client`, held until it is dropped.
    ///
    /// # Errors
    /// [`ApiError::RateLimited`] when the server, or this client, has as many
    /// streams open as it may.
    pub fn open_stream(limits: &web::Data<Limits>, client: ClientAddress) -> Result<StreamPlace, ApiError> {
        let mut open = limits.streams.lock().expect("the streams' lock is never poisoned");
        let of_client = open.by_address.get(&client.0).copied().unwrap_or(0);
        let refusal = if of_client >= limits.max_streams_per_address {
            Some(format!("this address has {of_client} live streams open, the most it may; close one first"))
        } else if open.all >= limits.max_streams {
            Some(format!("the server has {} live streams open, the most it serves; try again later", open.all))
        } else {
            None
        };
        if let Some(detail) = refusal {
            return Err(ApiError::RateLimited { retry_after: STREAMS_RETRY_AFTER, detail });
        }
        open.all += 1;
        *open.by_address.entry(client.0).or_insert(0) += 1;
        ::metrics::gauge!(LIVE_WATCHERS).increment(1);
        Ok(StreamPlace { limits: limits.clone(), client })
    }

    /// The client behind a connection from `peer` that says `forwarded_for`.
    fn client_of(&self, peer: IpAddr, forwarded_for: Option<&str>) -> IpAddr {
        let trusted = |address: &IpAddr| self.trusted_proxies.iter().any(|proxy| proxy.contains(address));
        if !trusted(&peer) {
            return peer;
        }
        // Each proxy appends the address it was connected from: the client is the
        // last one that is not a trusted proxy. Whatever comes before it the
        // client wrote itself.
        let mut client = peer;
        for hop in forwarded_for.unwrap_or_default().rsplit(',').map(str::trim) {
            match hop.parse::<IpAddr>() {
                Ok(address) if trusted(&address) => client = address,
                Ok(address) => return address,
                // Not an address: the proxies' word ends here.
                Err(_) => return client,
            }
        }
        client
    }
}

/// A live stream's place among those open; given back when dropped.
#[derive(Debug)]
pub struct StreamPlace {
    limits: web::Data<Limits>,
    client: ClientAddress,
}

impl Drop for StreamPlace {
    fn drop(&mut self) {
        let mut open = self.limits.streams.lock().expect("the streams' lock is never poisoned");
        open.all -= 1;
        ::metrics::gauge!(LIVE_WATCHERS).decrement(1);
        if let Some(count) = open.by_address.get_mut(&self.client.0) {
            *count -= 1;
            if *count == 0 {
                open.by_address.remove(&self.client.0);
            }
        }
    }
}

/// The address of the client that sent a request: the connection's, or, from a
/// trusted proxy, the one its `X-Forwarded-For` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientAddress(pub IpAddr);

impl ClientAddress {
    /// The client that sent `request`.
    pub fn of(request: &HttpRequest) -> ClientAddress {
        // A request always has a peer over TCP; a test request may not.
        let peer = request.peer_addr().map_or(IpAddr::from([127, 0, 0, 1]), |peer| peer.ip());
        let limits = request.app_data::<web::Data<Limits>>().expect("the app has its limits");
        let forwarded_for = request.headers().get("X-Forwarded-For").and_then(|value| value.to_str().ok());
        ClientAddress(limits.client_of(peer, forwarded_for))
    }
}

impl FromRequest for ClientAddress {
    type Error = ApiError;
    type Future = Ready<Result<ClientAddress, ApiError>>;

    fn from_request(request: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(Ok(ClientAddress::of(request)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn behind(proxies: &[&str]) -> Limits {
        Limits::new(None, 10, 2, proxies.iter().map(|proxy| proxy.parse().unwrap()).collect())
    }

    fn address(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn only_a_trusted_proxy_names_the_client() {
        let limits = behind(&["10.0.0.0/8"]);
        let (proxy, stranger) = (address("10.0.0.5"), address("203.0.113.9"));
        assert_eq!(limits.client_of(stranger, Some("198.51.100.1")), stranger, "an untrusted peer is its own client");
        assert_eq!(limits.client_of(proxy, Some("198.51.100.1")), address("198.51.100.1"));
        assert_eq!(limits.client_of(proxy, None), proxy);
        // What the client wrote itself, before the proxies' entries, is not believed.
        assert_eq!(limits.client_of(proxy, Some("1.2.3.4, 198.51.100.1, 10.0.0.7")), address("198.51.100.1"));
        assert_eq!(limits.client_of(proxy, Some("10.0.0.9, 10.0.0.7")), address("10.0.0.9"));
        assert_eq!(limits.client_of(proxy, Some("198.51.100.1, nonsense")), proxy);
        assert_eq!(behind(&[]).client_of(proxy, Some("198.51.100.1")), proxy, "no proxy is trusted by default");
    }

    #[test]
    fn streams_are_counted_per_address_and_given_back() {
        let limits = web::Data::new(Limits::new(None, 3, 2, Vec::new()));
        let (a, b) = (ClientAddress(address("192.0.2.1")), ClientAddress(address("192.0.2.2")));
        let first = Limits::open_stream(&limits, a).unwrap();
        let _second = Limits::open_stream(&limits, a).unwrap();
        assert!(matches!(Limits::open_stream(&limits, a), Err(ApiError::RateLimited { retry_after: 5, .. })));
        let _third = Limits::open_stream(&limits, b).unwrap();
        assert!(Limits::open_stream(&limits, b).is_err(), "the server's cap");
        drop(first);
        assert!(Limits::open_stream(&limits, a).is_ok(), "a closed stream gives its place back");
        assert_eq!(limits.streams.lock().unwrap().by_address.len(), 2);
    }
}
