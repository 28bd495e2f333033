//! What one client may take: rows created and authentications failed, each
//! within a rate, and live streams open at once; and who a client is, behind a
//! trusted proxy.

use std::collections::HashMap;
use std::future::{Ready, ready};
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use actix_web::dev::{Payload, ServiceResponse};
use actix_web::http::StatusCode;
use actix_web::{FromRequest, HttpRequest, web};
use ipnet::{IpNet, Ipv6Net};

use super::problem::ApiError;
use crate::config::RateLimit;
use crate::metrics::LIVE_WATCHERS;
use crate::record::{Holder, PlayerId};

/// How long a client over a stream cap waits before trying again.
const STREAMS_RETRY_AFTER: u64 = 5;

/// How often a budget forgets the addresses that have all of it back, so that
/// it holds only those that spent some lately.
const FORGET_EVERY: Duration = Duration::from_secs(60);

/// The limits of every client, counted across all workers.
#[derive(Debug)]
pub struct Limits {
    creations: Option<Budget>,
    failed_authentications: Option<Budget>,
    streams: Mutex<OpenStreams>,
    max_streams: usize,
    max_streams_per_address: usize,
    trusted_proxies: Vec<IpNet>,
}

/// What each spender has spent of a rate limit: a bucket of `burst` tokens for
/// each, refilled at `per_minute`.
#[derive(Debug)]
struct Budget {
    limit: RateLimit,
    spent: Mutex<Spent>,
}

#[derive(Debug)]
struct Spent {
    /// The tokens each spender had spent, and when that was counted.
    by_spender: HashMap<Spender, (Instant, f64)>,
    forgotten_at: Instant,
}

impl Budget {
    fn new(limit: RateLimit) -> Budget {
        Budget { limit, spent: Mutex::new(Spent { by_spender: HashMap::new(), forgotten_at: Instant::now() }) }
    }

    /// Spends a token of `spender`'s, when `spend`, or only looks whether one
    /// is left; answers the whole seconds until one is, when none is.
    fn take(&self, spender: Spender, spend: bool) -> Result<(), u64> {
        let per_second = f64::from(self.limit.per_minute) / 60.0;
        let (now, burst) = (Instant::now(), f64::from(self.limit.burst));
        let mut spent = self.spent.lock().expect("a budget's lock is never poisoned");
        let refilled =
            |(at, tokens): (Instant, f64)| (tokens - now.duration_since(at).as_secs_f64() * per_second).max(0.0);
        if now.duration_since(spent.forgotten_at) >= FORGET_EVERY {
            spent.by_spender.retain(|_, &mut entry| refilled(entry) > 0.0);
            spent.forgotten_at = now;
        }
        let tokens = spent.by_spender.get(&spender).map_or(0.0, |&entry| refilled(entry));
        if tokens + 1.0 > burst {
            // Whole seconds, rounded up: trying again then finds a token.
            #[expect(clippy::cast_possible_truncation, clippy::cast_sign_loss, reason = "a few minutes at most")]
            return Err(((tokens + 1.0 - burst) / per_second).ceil().max(1.0) as u64);
        }
        if spend {
            spent.by_spender.insert(spender, (now, tokens + 1.0));
        }
        Ok(())
    }
}

/// Whom a budget counts: a player, whatever address they come from, so that
/// two bots on one host have a budget each; or an address, by itself, or for
/// IPv6 by its /64, which one machine is given whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Spender {
    Player(PlayerId),
    Address(IpAddr),
}

impl Spender {
    /// The spender `client` is: its address, or its /64.
    fn address(client: ClientAddress) -> Spender {
        Spender::Address(client.counted())
    }
}

#[derive(Debug, Default)]
struct OpenStreams {
    all: usize,
    by_address: HashMap<IpAddr, usize>,
}

impl Limits {
    /// `creations` rows created per address (none: no limit), `failed_authentications`
    /// failed per address, `max_streams` live streams open and
    /// `max_streams_per_address` from one address; a connection from one of
    /// `trusted_proxies` is the client its `X-Forwarded-For` names.
    pub fn new(
        creations: Option<RateLimit>,
        failed_authentications: Option<RateLimit>,
        max_streams: usize,
        max_streams_per_address: usize,
        trusted_proxies: Vec<IpNet>,
    ) -> Limits {
        Limits {
            creations: creations.map(Budget::new),
            failed_authentications: failed_authentications.map(Budget::new),
            streams: Mutex::default(),
            max_streams,
            max_streams_per_address,
            trusted_proxies,
        }
    }

    /// Counts a creation (a game, a seat, a challenge) by `player` when a
    /// player asks, else by `client`.
    ///
    /// # Errors
    /// [`ApiError::RateLimited`] with the seconds to wait, beyond the limit.
    pub(crate) fn admit_creation(&self, client: ClientAddress, player: Option<&Holder>) -> Result<(), ApiError> {
        let Some(budget) = &self.creations else { return Ok(()) };
        let (spender, who) = match player {
            Some(player) => (Spender::Player(player.id), "you"),
            None => (Spender::address(client), "this address"),
        };
        budget.take(spender, true).map_err(|retry_after| ApiError::RateLimited {
            retry_after,
            detail: format!("{who} created too many games and seats; try again in {retry_after} s"),
        })
    }

    /// Lets `client` present a token or an invite, unless it failed too many
    /// authentications lately.
    ///
    /// # Errors
    /// [`ApiError::RateLimited`] with the seconds to wait, beyond the limit.
    pub(crate) fn admit_authentication(&self, client: ClientAddress) -> Result<(), ApiError> {
        let Some(budget) = &self.failed_authentications else { return Ok(()) };
        budget.take(Spender::address(client), false).map_err(|retry_after| ApiError::RateLimited {
            retry_after,
            detail: format!(
                "this address presented too many tokens or invites that were wrong; try again in {retry_after} s"
            ),
        })
    }

    /// Counts a failed authentication of `client`'s.
    pub(crate) fn count_failed_authentication(&self, client: ClientAddress) {
        if let Some(budget) = &self.failed_authentications {
            // Over the budget already (failures that were let in together): it
            // stays spent, and the client waits for the first token back.
            let _ = budget.take(Spender::address(client), true);
        }
    }

    /// A place for one more live stream of `client`, held until it is dropped.
    ///
    /// # Errors
    /// [`ApiError::RateLimited`] when the server, or this client, has as many
    /// streams open as it may.
    pub(crate) fn open_stream(limits: &web::Data<Limits>, client: ClientAddress) -> Result<StreamPlace, ApiError> {
        let counted = client.counted();
        let mut open = limits.streams.lock().expect("the streams' lock is never poisoned");
        let of_client = open.by_address.get(&counted).copied().unwrap_or(0);
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
        *open.by_address.entry(counted).or_insert(0) += 1;
        ::metrics::gauge!(LIVE_WATCHERS).increment(1);
        Ok(StreamPlace { limits: limits.clone(), counted })
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

/// Counts `answer`, when it is 401 (no token, or a player's token that is
/// nobody's) or 403 (a token that holds no seat, a wrong invite, someone else's
/// challenge or seek), as a failed authentication of `client`'s. The layer that
/// sees every answer calls it ([`super::observe::observe`]): a layer of its own
/// cost each request about 2.7 us.
pub(crate) fn count_if_refused<B>(answer: &ServiceResponse<B>, client: ClientAddress) {
    if [StatusCode::UNAUTHORIZED, StatusCode::FORBIDDEN].contains(&answer.status())
        && let Some(limits) = answer.request().app_data::<web::Data<Limits>>()
    {
        limits.count_failed_authentication(client);
    }
}

/// A live stream's place among those open; given back when dropped.
#[derive(Debug)]
pub(crate) struct StreamPlace {
    limits: web::Data<Limits>,
    /// Its client's address as the limits count it.
    counted: IpAddr,
}

impl Drop for StreamPlace {
    fn drop(&mut self) {
        let mut open = self.limits.streams.lock().expect("the streams' lock is never poisoned");
        open.all -= 1;
        ::metrics::gauge!(LIVE_WATCHERS).decrement(1);
        if let Some(count) = open.by_address.get_mut(&self.counted) {
            *count -= 1;
            if *count == 0 {
                open.by_address.remove(&self.counted);
            }
        }
    }
}

/// The address of the client that sent a request: the connection's, or, from a
/// trusted proxy, the one its `X-Forwarded-For` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ClientAddress(pub IpAddr);

impl ClientAddress {
    /// The client that sent `request`.
    pub fn of(request: &HttpRequest) -> ClientAddress {
        // A request always has a peer over TCP; a test request may not.
        let peer = request.peer_addr().map_or(IpAddr::from([127, 0, 0, 1]), |peer| peer.ip());
        let limits = request.app_data::<web::Data<Limits>>().expect("the app has its limits");
        let forwarded_for = request.headers().get("X-Forwarded-For").and_then(|value| value.to_str().ok());
        ClientAddress(limits.client_of(peer, forwarded_for))
    }

    /// The address as every limit counts it: itself, or for IPv6 its /64,
    /// which one machine is given whole.
    fn counted(self) -> IpAddr {
        match self.0 {
            IpAddr::V4(_) => self.0,
            IpAddr::V6(v6) => IpAddr::V6(Ipv6Net::new(v6, 64).expect("64 is a prefix length").network()),
        }
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
        Limits::new(None, None, 10, 2, proxies.iter().map(|proxy| proxy.parse().unwrap()).collect())
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
    fn a_budget_lets_a_burst_through_then_one_at_its_rate_for_each_address() {
        let budget = Budget::new(RateLimit { per_minute: 30, burst: 3 });
        let [a, b] = ["192.0.2.1", "192.0.2.2"].map(|text| Spender::address(ClientAddress(address(text))));
        assert_eq!((0..3).map(|_| budget.take(a, true)).collect::<Vec<_>>(), [Ok(()), Ok(()), Ok(())]);
        assert_eq!(budget.take(a, true), Err(2), "a token is back every 2 s");
        assert_eq!(budget.take(a, false), Err(2), "looking spends nothing, and finds none");
        assert_eq!(budget.take(b, true), Ok(()), "each address has a budget of its own");
        // Half a minute later, 15 tokens have come back: the bucket is full again.
        let earlier = Instant::now().checked_sub(Duration::from_secs(30)).unwrap();
        budget.spent.lock().unwrap().by_spender.insert(a, (earlier, 3.0));
        assert_eq!(budget.take(a, false), Ok(()));
        assert!((0..3).all(|_| budget.take(a, true).is_ok()));
        assert!(budget.take(a, true).is_err());
        // A player's budget is their own, whatever address they come from.
        let [one, two] = [1, 2].map(|id| Spender::Player(PlayerId::new(id)));
        assert_eq!((0..4).map(|_| budget.take(one, true).is_ok()).collect::<Vec<_>>(), [true, true, true, false]);
        assert_eq!(budget.take(two, true), Ok(()));
    }

    #[test]
    fn an_ipv6_client_is_counted_by_its_64() {
        let budget = Budget::new(RateLimit { per_minute: 1, burst: 1 });
        assert_eq!(budget.take(Spender::address(ClientAddress(address("2001:db8:1:2::1"))), true), Ok(()));
        assert_eq!(budget.take(Spender::address(ClientAddress(address("2001:db8:1:2:ffff::9"))), true), Err(60));
        assert_eq!(budget.take(Spender::address(ClientAddress(address("2001:db8:1:3::1"))), true), Ok(()));
    }

    #[test]
    fn streams_are_counted_per_address_and_given_back() {
        let limits = web::Data::new(Limits::new(None, None, 3, 2, Vec::new()));
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

    #[test]
    fn an_ipv6_64_opens_as_many_streams_as_one_address() {
        let limits = web::Data::new(Limits::new(None, None, 10, 2, Vec::new()));
        let one_machine =
            ["2001:db8:1:2::1", "2001:db8:1:2::2", "2001:db8:1:2:ffff::9"].map(|a| ClientAddress(address(a)));
        let _first = Limits::open_stream(&limits, one_machine[0]).unwrap();
        let second = Limits::open_stream(&limits, one_machine[1]).unwrap();
        assert!(matches!(Limits::open_stream(&limits, one_machine[2]), Err(ApiError::RateLimited { .. })));
        let _other = Limits::open_stream(&limits, ClientAddress(address("2001:db8:1:3::1"))).unwrap();
        drop(second);
        assert!(Limits::open_stream(&limits, one_machine[2]).is_ok(), "its place is the /64's");
    }
}
