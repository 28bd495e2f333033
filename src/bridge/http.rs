//! The bridge's side of the API: JSON requests with the bot's token, and the
//! server's event streams read as they come.

use std::time::Duration;

use eventsource_stream::Eventsource;
use futures_util::{Stream, StreamExt};
use serde_json::Value;

/// How long to wait before trying again after `failures` in a row: from half a
/// second, doubling, up to 8 s.
pub fn wait_after(failures: u32) -> Duration {
    Duration::from_millis(500 * (1 << failures.clamp(1, 5).saturating_sub(1)))
}

/// One event of a stream: its id, kind and data.
#[derive(Debug, Clone)]
pub struct Event {
    /// Its id, or empty for an event without one.
    pub id: String,
    /// Its kind.
    pub kind: String,
    /// Its data, as JSON.
    pub data: Value,
}

/// A request that failed: the server's answer, or no answer at all.
#[derive(Debug, Clone)]
pub enum Failure {
    /// The server answered this status and problem.
    Answered(u16, Value),
    /// No answer: the server is away, or the connection broke.
    Unreachable(String),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Answered(status, problem) => {
                write!(f, "{status} {}", problem["detail"].as_str().unwrap_or_default())
            }
            Failure::Unreachable(why) => write!(f, "no answer: {why}"),
        }
    }
}

/// The API of the server at a base URL, as the player of a token.
#[derive(Clone)]
pub struct Api {
    client: awc::Client,
    base: String,
    bearer: String,
}

impl Api {
    /// The API under `server` (`http://host:port`), with `token` as the bearer.
    pub fn new(server: &str, token: &str) -> Api {
        let connector = awc::Connector::new().timeout(Duration::from_secs(10));
        let client = awc::Client::builder().connector(connector).timeout(Duration::from_secs(30)).finish();
        Api { client, base: format!("{}/api/v1", server.trim_end_matches('/')), bearer: format!("Bearer {token}") }
    }

    /// `GET path`'s answer.
    ///
    /// # Errors
    /// Any answer but 200, and none.
    pub async fn get(&self, path: &str) -> Result<Value, Failure> {
        let request = self.client.get(format!("{}{path}", self.base)).insert_header(("Authorization", &*self.bearer));
        answer(request.send().await).await
    }

    /// `POST path` with `body`, on the game's `version` when given.
    ///
    /// # Errors
    /// Any answer but 200 and 201, and none.
    pub async fn post(&self, path: &str, body: &Value, version: Option<i64>) -> Result<Value, Failure> {
        let mut request =
            self.client.post(format!("{}{path}", self.base)).insert_header(("Authorization", &*self.bearer));
        if let Some(version) = version {
            request = request.insert_header(("If-Match", format!("\"{version}\"")));
        }
        answer(request.send_json(body).await).await
    }

    /// The events of the stream at `path`, after `last_event_id` when given;
    /// the stream ends when the server ends it or the connection breaks.
    ///
    /// # Errors
    /// Any answer but 200, and none.
    pub async fn follow(
        &self,
        path: &str,
        last_event_id: Option<&str>,
    ) -> Result<impl Stream<Item = Event> + use<>, Failure> {
        let mut request =
            self.client.get(format!("{}{path}", self.base)).insert_header(("Authorization", &*self.bearer));
        if let Some(id) = last_event_id {
            request = request.insert_header(("Last-Event-ID", id));
        }
        let mut response = request.send().await.map_err(|error| Failure::Unreachable(error.to_string()))?;
        if response.status().as_u16() != 200 {
            let body = response.body().await.unwrap_or_default();
            return Err(Failure::Answered(response.status().as_u16(), problem(&body)));
        }
        let events = response.eventsource();
        Ok(events.take_while(|event| std::future::ready(event.is_ok())).filter_map(|event| {
            std::future::ready(event.ok().map(|event| Event {
                id: event.id,
                kind: event.event,
                data: serde_json::from_str(&event.data).unwrap_or(Value::Null),
            }))
        }))
    }
}

/// A stream followed for ever: after a break, again from the last event seen,
/// after a wait that grows with each break in a row.
pub struct Follower {
    api: Api,
    path: String,
    last_id: Option<String>,
    failures: u32,
    events: Option<std::pin::Pin<Box<dyn Stream<Item = Event>>>>,
}

impl Follower {
    /// The stream at `path` of `api`, from its start.
    pub fn new(api: &Api, path: String) -> Follower {
        Follower { api: api.clone(), path, last_id: None, failures: 0, events: None }
    }

    /// Its next event.
    ///
    /// # Errors
    /// An answer that following again would get again: 204 (a finished game
    /// seen to its end) and any 4xx but 429.
    pub async fn next(&mut self) -> Result<Event, Failure> {
        loop {
            if let Some(events) = self.events.as_mut() {
                if let Some(event) = events.next().await {
                    self.failures = 0;
                    if !event.id.is_empty() {
                        self.last_id = Some(event.id.clone());
                    }
                    return Ok(event);
                }
                // The server ended it: it stopped, or restarts.
                self.events = None;
                self.failures += 1;
                tokio::time::sleep(wait_after(self.failures)).await;
            }
            match self.api.follow(&self.path, self.last_id.as_deref()).await {
                Ok(events) => self.events = Some(Box::pin(events)),
                Err(Failure::Answered(status, problem))
                    if status == 204 || (400..500).contains(&status) && status != 429 =>
                {
                    return Err(Failure::Answered(status, problem));
                }
                Err(failure) => {
                    self.failures += 1;
                    eprintln!("bridge: {} broke ({failure}); following it again", self.path);
                    tokio::time::sleep(wait_after(self.failures)).await;
                }
            }
        }
    }
}

/// The JSON of a problem's body, or its text.
fn problem(body: &[u8]) -> Value {
    serde_json::from_slice(body).unwrap_or_else(|_| Value::String(String::from_utf8_lossy(body).into()))
}

/// The JSON of a successful answer to `sent`.
async fn answer(sent: Result<awc::ClientResponse, awc::error::SendRequestError>) -> Result<Value, Failure> {
    let mut response = sent.map_err(|error| Failure::Unreachable(error.to_string()))?;
    let status = response.status().as_u16();
    let body = response.body().limit(1 << 20).await.map_err(|error| Failure::Unreachable(error.to_string()))?;
    match status {
        200 | 201 => Ok(serde_json::from_slice(&body).unwrap_or(Value::Null)),
        _ => Err(Failure::Answered(status, problem(&body))),
    }
}
