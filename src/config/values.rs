//! Each setting's text read as its value, or the problem with it, said in
//! words that follow the name of its variable.

use std::net::{IpAddr, SocketAddr};

use ipnet::IpNet;

use crate::logging::LogFormat;
use crate::store::{Durability, is_postgres};

/// Which origins may call the API from a browser.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CorsOrigins {
    /// Any origin, the default: the API holds no cookies to steal.
    Any,
    /// Only these, exactly as a browser sends them (`https://example.com`).
    List(Vec<String>),
}

/// The trusted proxies as one setting: clap would read a `Vec` as a flag given
/// many times.
#[derive(Debug, Clone)]
pub(crate) struct Proxies(pub(super) Vec<IpNet>);

/// What is wrong with a value, said after the name of its variable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Problem {
    /// An address to listen on that is blank.
    #[error("is empty; set it to an address such as 127.0.0.1 or 0.0.0.0")]
    EmptyHost,
    /// Not a port.
    #[error("is {0:?}; it must be a number from 1 to 65535")]
    Port(String),
    /// A database of neither kind, named by its scheme alone: the rest of a database's address may hold a password.
    #[error(
        "starts with {0:?}; it must start with sqlite: (for example sqlite:qttt.db) \
         or postgres:// (for example postgres://qttt@localhost/qttt)"
    )]
    DatabaseScheme(String),
    /// Not a whole number from `min` to `max`.
    #[error("is {text:?}; it must be a whole number from {min} to {max}")]
    WholeNumber {
        /// The value as given.
        text: String,
        /// The least allowed.
        min: u64,
        /// The most allowed.
        max: u64,
    },
    /// Not a rate.
    #[error("is {0:?}; it must be a whole number per minute (0 for no limit)")]
    RateLimit(String),
    /// None of the words the setting takes.
    #[error("is {text:?}; it must be {}", .choices.join(" or "))]
    Choice {
        /// The value as given.
        text: String,
        /// The words it takes.
        choices: Vec<&'static str>,
    },
    /// A listed origin that is not one.
    #[error("has {0:?}; list origins such as https://example.com, or * for any")]
    Origin(String),
    /// A list of no origins.
    #[error("is empty; list origins, or * for any")]
    NoOrigins,
    /// A listed proxy that is neither an address nor a range.
    #[error("has {0:?}; list addresses or CIDR ranges, such as 10.0.0.5 or 10.0.0.0/8")]
    Proxy(String),
    /// Not an address and port.
    #[error("is {0:?}; it must be an address and port, such as 127.0.0.1:9100")]
    Address(String),
}

pub(super) fn host(text: &str) -> Result<String, Problem> {
    if text.trim().is_empty() { Err(Problem::EmptyHost) } else { Ok(text.to_string()) }
}

pub(super) fn port(text: &str) -> Result<u16, Problem> {
    text.trim().parse::<u16>().ok().filter(|&port| port != 0).ok_or(Problem::Port(text.to_string()))
}

pub(super) fn database_url(text: &str) -> Result<String, Problem> {
    if text.starts_with("sqlite:") || is_postgres(text) {
        Ok(text.to_string())
    } else {
        Err(Problem::DatabaseScheme(text.split(':').next().unwrap_or_default().to_string()))
    }
}

/// A whole number from `MIN` to `MAX`.
pub(super) fn whole_number<const MIN: u64, const MAX: u64>(text: &str) -> Result<u64, Problem> {
    match text.trim().parse::<u64>() {
        Ok(number) if (MIN..=MAX).contains(&number) => Ok(number),
        _ => Err(Problem::WholeNumber { text: text.to_string(), min: MIN, max: MAX }),
    }
}

pub(super) fn rate_limit(text: &str) -> Result<u32, Problem> {
    text.trim().parse::<u32>().map_err(|_| Problem::RateLimit(text.to_string()))
}

pub(super) fn burst(text: &str) -> Result<u32, Problem> {
    let burst = whole_number::<1, 1_000_000>(text)?;
    Ok(u32::try_from(burst).expect("at most a million"))
}

pub(super) fn origins(text: &str) -> Result<CorsOrigins, Problem> {
    if text.trim() == "*" {
        return Ok(CorsOrigins::Any);
    }
    let origins: Vec<String> = text.split(',').map(str::trim).filter(|o| !o.is_empty()).map(String::from).collect();
    if let Some(bad) = origins.iter().find(|o| !(o.starts_with("http://") || o.starts_with("https://"))) {
        return Err(Problem::Origin(bad.clone()));
    }
    if origins.is_empty() {
        return Err(Problem::NoOrigins);
    }
    Ok(CorsOrigins::List(origins))
}

pub(super) fn proxies(text: &str) -> Result<Proxies, Problem> {
    let proxy = |proxy: &str| {
        proxy
            .parse::<IpNet>()
            .or_else(|_| proxy.parse::<IpAddr>().map(IpNet::from))
            .map_err(|_| Problem::Proxy(proxy.into()))
    };
    text.split(',').map(str::trim).filter(|proxy| !proxy.is_empty()).map(proxy).collect::<Result<_, _>>().map(Proxies)
}

pub(super) fn address(text: &str) -> Result<SocketAddr, Problem> {
    text.trim().parse().map_err(|_| Problem::Address(text.to_string()))
}

pub(super) fn on_or_off(text: &str) -> Result<bool, Problem> {
    one_of(text, &[("on", true), ("off", false)])
}

pub(super) fn durability(text: &str) -> Result<Durability, Problem> {
    one_of(text, &[("normal", Durability::Normal), ("full", Durability::Full)])
}

pub(super) fn log_format(text: &str) -> Result<LogFormat, Problem> {
    one_of(text, &[("text", LogFormat::Text), ("json", LogFormat::Json)])
}

/// The value of the one of `choices` that `text` names, in any case.
pub(super) fn one_of<T: Copy>(text: &str, choices: &[(&'static str, T)]) -> Result<T, Problem> {
    match choices.iter().find(|(word, _)| text.trim().eq_ignore_ascii_case(word)) {
        Some(&(_, value)) => Ok(value),
        None => {
            Err(Problem::Choice { text: text.to_string(), choices: choices.iter().map(|(word, _)| *word).collect() })
        }
    }
}
