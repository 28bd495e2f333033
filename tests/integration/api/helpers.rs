//! A real server on a fresh database per test, and a blocking HTTP client for it
//! (awc, run to the end of each request) with a reader of its event streams.
//!
//! The database is a SQLite file, or, when `QTTT_TEST_POSTGRES` gives the URL of a
//! PostgreSQL server's maintenance database (such as
//! `postgres://postgres@127.0.0.1:5432/postgres`), a database of its own there:
//! the same tests run against either backend.

use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use qttt::config::{Config, CorsOrigins, RateLimit};
use qttt::server::{Running, Stopper};
use qttt::service::GameService;
use serde_json::{Value, json};

use crate::postgres::{self, PostgresDatabase};

/// A fresh database for one test, removed when dropped.
pub enum TestDatabase {
    /// A file in a folder of its own.
    Sqlite(tempfile::TempDir),
    /// A database of its own on the server of `QTTT_TEST_POSTGRES`.
    Postgres(PostgresDatabase),
}

impl TestDatabase {
    pub fn new() -> TestDatabase {
        match std::env::var("QTTT_TEST_POSTGRES") {
            Ok(maintenance_url) => TestDatabase::on_postgres(&maintenance_url),
            Err(_) => TestDatabase::sqlite(),
        }
    }

    /// A SQLite file of its own, whatever the tests run on.
    pub fn sqlite() -> TestDatabase {
        TestDatabase::Sqlite(tempfile::tempdir().expect("a temporary folder"))
    }

    /// A database of its own on the PostgreSQL server of `maintenance_url`.
    pub fn on_postgres(maintenance_url: &str) -> TestDatabase {
        static COUNTER: AtomicU32 = AtomicU32::new(0);
        let name = format!("qttt_test_{}_{}", std::process::id(), COUNTER.fetch_add(1, Ordering::SeqCst));
        TestDatabase::Postgres(PostgresDatabase::create(maintenance_url, name))
    }

    /// The `DATABASE_URL` of this database.
    pub fn url(&self) -> String {
        match self {
            TestDatabase::Sqlite(dir) => format!("sqlite:{}", dir.path().join("qttt.db").display()),
            TestDatabase::Postgres(database) => database.url(),
        }
    }

    /// Runs `sql` on this database, behind the server's back.
    pub fn execute(&self, sql: &str) {
        match self {
            TestDatabase::Sqlite(_) => actix_web::rt::System::new().block_on(async {
                use sqlx::Connection;
                let mut connection = sqlx::SqliteConnection::connect(&self.url()).await.expect("the file opens");
                sqlx::raw_sql(sqlx::AssertSqlSafe(sql.to_string()))
                    .execute(&mut connection)
                    .await
                    .expect("the SQL runs");
                connection.close().await.expect("the file closes");
            }),
            TestDatabase::Postgres(database) => postgres::execute(&database.url(), sql),
        }
    }

    /// The number that `sql`, a count, answers on this database, behind the server's back.
    pub fn count(&self, sql: &str) -> i64 {
        actix_web::rt::System::new().block_on(async {
            use sqlx::Connection;
            let sql = || sqlx::AssertSqlSafe(sql.to_string());
            match self {
                TestDatabase::Sqlite(_) => {
                    let mut connection = sqlx::SqliteConnection::connect(&self.url()).await.expect("the file opens");
                    sqlx::query_scalar(sql()).fetch_one(&mut connection).await.expect("the count runs")
                }
                TestDatabase::Postgres(database) => {
                    let mut connection =
                        sqlx::PgConnection::connect(&database.url()).await.expect("PostgreSQL answers");
                    sqlx::query_scalar(sql()).fetch_one(&mut connection).await.expect("the count runs")
                }
            }
        })
    }
}

/// The seed of every test server's measurements and bots.
pub const TEST_SEED: u64 = 1;

/// A client of a server at `address`: one connection a request, from `from` (an
/// address of this machine's loopback, such as 127.0.0.2) or from 127.0.0.1.
pub struct Client {
    pub address: SocketAddr,
    pub from: Option<IpAddr>,
}

/// The server, listening on 127.0.0.1 on a port of its own, in a thread of its own;
/// its client's requests through it.
pub struct TestApp {
    client: Client,
    /// The server's service, to look at what HTTP does not show.
    pub service: GameService,
    stopper: Stopper,
    thread: Option<JoinHandle<()>>,
    /// Kept so that the database outlives the server.
    _database: Option<TestDatabase>,
}

/// A rate limit of `count` a minute, all of them at once.
pub fn limited(count: u32) -> Option<RateLimit> {
    Some(RateLimit { per_minute: count, burst: count })
}

impl TestApp {
    /// A server on a fresh database.
    pub fn spawn() -> TestApp {
        TestApp::spawn_with(|_| {})
    }

    /// A server on a fresh database that lets only `origins` call it from a browser.
    pub fn spawn_with_origins(origins: CorsOrigins) -> TestApp {
        TestApp::spawn_with(|config| config.cors_allowed_origins = origins)
    }

    /// A server on a fresh database, with `configure` applied to the defaults.
    pub fn spawn_with(configure: impl FnOnce(&mut Config)) -> TestApp {
        let database = TestDatabase::new();
        let mut app = TestApp::spawn_with_database(&database, configure);
        app._database = Some(database);
        app
    }

    /// A server on `database`, as `cargo run` would start it.
    pub fn spawn_on(database: &TestDatabase) -> TestApp {
        TestApp::spawn_with_database(database, |_| {})
    }

    /// A server on `database`, with `configure` applied to the defaults.
    pub fn spawn_with_database(database: &TestDatabase, configure: impl FnOnce(&mut Config)) -> TestApp {
        // The defaults, but on any free port and this database, with the
        // measurements and the bots seeded: each test plays the same games on
        // every run. A test plays faster than any person, and many from one
        // address: the rate limits are off unless it turns them on.
        let mut config = Config {
            port: 0,
            database_url: database.url(),
            random_seed: Some(TEST_SEED),
            create_rate_limit: None,
            failed_auth_rate_limit: None,
            ..Config::from_lookup(|_| None).expect("the defaults are valid")
        };
        configure(&mut config);
        TestApp::start(config)
    }

    fn start(config: Config) -> TestApp {
        let (started, start) = mpsc::channel();
        let thread = std::thread::spawn(move || {
            actix_web::rt::System::new().block_on(async move {
                let running = Running::start(&config).await.expect("the server starts");
                started.send((running.addresses[0], running.stopper(), running.service())).expect("the test waits");
                running.finish().await.expect("the server stops cleanly");
            })
        });
        let (address, stopper, service) = start.recv().expect("the server reports its address");
        TestApp { client: Client { address, from: None }, service, stopper, thread: Some(thread), _database: None }
    }

    /// Stops the server gracefully and waits until it closed the database.
    pub fn stop(mut self) {
        self.stop_and_join();
    }

    fn stop_and_join(&mut self) {
        if let Some(thread) = self.thread.take() {
            actix_web::rt::System::new().block_on(self.stopper.stop());
            thread.join().expect("the server thread ends");
        }
    }
}

impl std::ops::Deref for TestApp {
    type Target = Client;

    fn deref(&self) -> &Client {
        &self.client
    }
}

impl Client {
    pub fn request(&self, method: &str, path: &str, headers: &[(&str, &str)], body: Option<&str>) -> Response {
        send(self.address, self.from, method, path, headers, body).expect("the server answers")
    }

    pub fn create_game(&self, body: Value) -> Response {
        self.request("POST", "/api/v1/games", &[("Content-Type", "application/json")], Some(&body.to_string()))
    }

    /// Creates a game of `variant`, joins it, and returns its id with X's and O's tokens.
    pub fn two_player_game(&self, variant: &str) -> (i64, String, String) {
        self.two_player_game_with(json!({ "variant": variant }))
    }

    /// Creates a game with `body`, joins it, and returns its id with X's and O's tokens.
    pub fn two_player_game_with(&self, body: Value) -> (i64, String, String) {
        let created = self.create_game(body);
        assert_eq!(created.status, 201, "{}", created.body);
        let id = created.json()["game"]["id"].as_i64().expect("an id");
        let joined = self.join(id);
        assert_eq!(joined.status, 201, "{}", joined.body);
        let token = |r: &Response| r.json()["seat"]["token"].as_str().expect("a token").to_string();
        (id, token(&created), token(&joined))
    }

    pub fn join(&self, id: i64) -> Response {
        self.request("POST", &format!("/api/v1/games/{id}/join"), &[], None)
    }

    pub fn get_game(&self, id: i64) -> Response {
        self.request("GET", &format!("/api/v1/games/{id}"), &[], None)
    }

    /// Game `id`'s hint, asked for by the seat of `token`.
    pub fn hint(&self, id: i64, token: &str) -> Response {
        let authorization = format!("Bearer {token}");
        self.request("GET", &format!("/api/v1/games/{id}/hint"), &[("Authorization", &authorization)], None)
    }

    pub fn place(&self, id: i64, token: &str, squares: [i64; 2]) -> Response {
        self.post_with_token(&format!("/api/v1/games/{id}/moves"), token, json!({ "squares": squares }))
    }

    /// Takes `action`, as the legal actions and a hint write one, in game `id`.
    pub fn take(&self, id: i64, token: &str, action: &Value) -> Response {
        let number = |value: &Value| value.as_i64().expect("a number");
        if action["kind"] == "move" {
            let squares = &action["squares"];
            self.place(id, token, [number(&squares[0]), number(&squares[1])])
        } else {
            self.collapse(id, token, number(&action["move"]), number(&action["square"]))
        }
    }

    pub fn collapse(&self, id: i64, token: &str, move_number: i64, square: i64) -> Response {
        self.post_with_token(
            &format!("/api/v1/games/{id}/collapse"),
            token,
            json!({ "move": move_number, "square": square }),
        )
    }

    pub fn post_with_token(&self, path: &str, token: &str, body: Value) -> Response {
        let authorization = format!("Bearer {token}");
        self.request(
            "POST",
            path,
            &[("Authorization", &authorization), ("Content-Type", "application/json")],
            Some(&body.to_string()),
        )
    }
}

/// The squares of a game view that hold no classical mark, in order.
pub fn open_squares(view: &Value) -> Vec<i64> {
    let board = view["board"].as_array().expect("a board");
    board.iter().zip(0..).filter(|(cell, _)| cell["classical"].is_null()).map(|(_, square)| square).collect()
}

/// One step of a scripted game: a move or a collapse, with the token of the seat that takes it.
pub enum Step<'a> {
    Move(&'a str, [i64; 2]),
    Collapse(&'a str, i64, i64),
}

impl Step<'_> {
    /// The kind of log entry it writes.
    pub fn kind(&self) -> &'static str {
        match self {
            Step::Move(..) => "move",
            Step::Collapse(..) => "collapse",
        }
    }

    /// Sends it to `app` for game `id`.
    pub fn take(&self, app: &Client, id: i64) -> Response {
        match *self {
            Step::Move(token, squares) => app.place(id, token, squares),
            Step::Collapse(token, move_number, square) => app.collapse(id, token, move_number, square),
        }
    }
}

/// Goff's draw in `player_choice`, for X's and O's tokens: three 2-cycles, then X9
/// closes a cycle and O collapses it. Thirteen steps, the game finished after them.
pub fn goffs_draw<'a>(x: &'a str, o: &'a str) -> Vec<Step<'a>> {
    use Step::{Collapse, Move};
    vec![
        Move(x, [0, 1]),
        Move(o, [0, 1]),
        Collapse(x, 2, 1),
        Move(x, [2, 4]),
        Move(o, [2, 4]),
        Collapse(x, 4, 4),
        Move(x, [3, 5]),
        Move(o, [3, 5]),
        Collapse(x, 6, 5),
        Move(x, [7, 8]),
        Move(o, [6, 7]),
        Move(x, [6, 8]),
        Collapse(o, 9, 8),
    ]
}

/// An open Server-Sent Events stream, read by awc and parsed by
/// eventsource-stream on a thread of its own, which hands over what came.
pub struct EventStream {
    /// The answer's status and headers, once they came.
    heads: mpsc::Receiver<Head>,
    head: Option<Head>,
    /// Each event, or why the stream failed; closed when the body ends.
    events: mpsc::Receiver<Result<Event, String>>,
    /// The count of spectators the stream told last: its `spectators` events
    /// are kept aside, as they come at no set place among the others.
    spectators: Option<i64>,
    /// The body as it came, comments and fields the parser keeps to itself too.
    received: Arc<Mutex<String>>,
    /// Dropped to stop the reading thread, which then closes the connection.
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    reader: Option<JoinHandle<()>>,
}

/// An answer's status and headers.
type Head = (u16, Vec<(String, String)>);

/// One event: the id of the last event with one (the `end` event has none of its
/// own, so it carries the one before it, as a browser's does), its kind and its data.
#[derive(Debug, Clone)]
pub struct Event {
    pub id: Option<i64>,
    pub kind: String,
    pub data: Value,
}

impl Client {
    /// Opens the event stream of game `id`, resuming after `last_event_id`.
    pub fn watch(&self, id: i64, last_event_id: Option<i64>) -> EventStream {
        let resume = last_event_id.map(|seq| seq.to_string());
        let headers: Vec<(&str, &str)> = resume.iter().map(|seq| ("Last-Event-ID", seq.as_str())).collect();
        self.watch_at(&format!("/api/v1/games/{id}/events"), &headers)
    }

    /// Opens the event stream at `path_and_query`, with `headers`.
    pub fn watch_at(&self, path_and_query: &str, headers: &[(&str, &str)]) -> EventStream {
        EventStream::from(self.address, self.from, path_and_query, headers)
    }
}

impl EventStream {
    /// Opens the event stream at `path_and_query` of the server at `address`,
    /// with `headers`.
    pub fn open(address: SocketAddr, path_and_query: &str, headers: &[(&str, &str)]) -> EventStream {
        EventStream::from(address, None, path_and_query, headers)
    }

    fn from(address: SocketAddr, from: Option<IpAddr>, path_and_query: &str, headers: &[(&str, &str)]) -> EventStream {
        let ((tell_head, heads), (tell, events)) = (mpsc::channel(), mpsc::channel());
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let received = Arc::new(Mutex::new(String::new()));
        let (url, headers) = (format!("http://{address}{path_and_query}"), owned(headers));
        let body = Arc::clone(&received);
        let reader = std::thread::spawn(move || {
            let reading = read_events(client(from), url, headers, body, tell_head, tell, stopped);
            actix_web::rt::System::new().block_on(reading);
        });
        EventStream { heads, head: None, events, spectators: None, received, stop: Some(stop), reader: Some(reader) }
    }

    /// The next event but `spectators`, waiting at most `patience`; none once
    /// the stream ended.
    pub fn next_event(&mut self, patience: Duration) -> Option<Event> {
        let deadline = Instant::now() + patience;
        loop {
            match self.events.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                Ok(Ok(event)) if event.kind == "spectators" => self.spectators = event.data["spectators"].as_i64(),
                Ok(Ok(event)) => return Some(event),
                Ok(Err(error)) => panic!("the event stream failed: {error}"),
                Err(_) => return None,
            }
        }
    }

    /// Whether the stream ends (its body's last chunk comes) within `patience`,
    /// with no event but `spectators` left unread.
    pub fn ends_within(&mut self, patience: Duration) -> bool {
        self.next_event(patience).is_none() && matches!(self.events.try_recv(), Err(mpsc::TryRecvError::Disconnected))
    }

    /// Whether the stream tells `count` spectators within `patience`; the
    /// other events it reads meanwhile are dropped.
    pub fn tells_spectators(&mut self, count: i64, patience: Duration) -> bool {
        let deadline = Instant::now() + patience;
        while self.spectators != Some(count) {
            match self.events.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                Ok(Ok(event)) if event.kind == "spectators" => self.spectators = event.data["spectators"].as_i64(),
                Ok(Ok(_)) => {}
                Ok(Err(error)) => panic!("the event stream failed: {error}"),
                Err(_) => return false,
            }
        }
        true
    }

    /// Everything of the body received so far, events and comments alike.
    pub fn received(&self) -> String {
        self.received.lock().expect("the reader never panics holding it").clone()
    }

    /// The answer's status, once its head came (within 5 s).
    pub fn status(&mut self) -> Option<u16> {
        self.head().map(|(status, _)| *status)
    }

    /// A header of the answer, once its head came (within 5 s).
    pub fn header(&mut self, name: &str) -> Option<String> {
        let (_, headers) = self.head()?;
        headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, value)| value.clone())
    }

    fn head(&mut self) -> Option<&Head> {
        if self.head.is_none() {
            self.head = self.heads.recv_timeout(Duration::from_secs(5)).ok();
        }
        self.head.as_ref()
    }
}

/// Reads the event stream at `url` with `client`: hands over its head through
/// `tell_head` and each event through `tell`, and keeps the body as it came in
/// `received`, until the stream ends (and `tell` with it) or `stopped` says to stop.
async fn read_events(
    client: awc::Client,
    url: String,
    headers: Vec<(String, String)>,
    received: Arc<Mutex<String>>,
    tell_head: mpsc::Sender<Head>,
    tell: mpsc::Sender<Result<Event, String>>,
    mut stopped: tokio::sync::oneshot::Receiver<()>,
) {
    use eventsource_stream::Eventsource;
    use futures_util::StreamExt;
    let request = with_headers(client.get(url), &headers);
    let response = tokio::select! {
        _ = &mut stopped => return,
        sent = request.send() => match sent {
            Ok(response) => response,
            Err(error) => return drop(tell.send(Err(error.to_string()))),
        },
    };
    if tell_head.send((response.status().as_u16(), header_list(response.headers()))).is_err() {
        return;
    }
    let mut events = response
        .inspect(move |chunk| {
            if let Ok(bytes) = chunk {
                received.lock().expect("nothing panics holding it").push_str(&String::from_utf8_lossy(bytes));
            }
        })
        .eventsource();
    loop {
        let event = tokio::select! {
            _ = &mut stopped => return,
            next = events.next() => match next {
                None => return,
                Some(Ok(event)) => serde_json::from_str(&event.data)
                    .map(|data| Event { id: event.id.parse().ok(), kind: event.event.clone(), data })
                    .map_err(|error| format!("the data of {event:?} is not JSON: {error}")),
                Some(Err(error)) => Err(error.to_string()),
            },
        };
        if tell.send(event).is_err() {
            return;
        }
    }
}

impl Drop for EventStream {
    /// Stops the reading thread and waits until it closed the connection.
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(reader) = self.reader.take() {
            reader.join().expect("the reading thread ends");
        }
    }
}

impl Drop for TestApp {
    fn drop(&mut self) {
        self.stop_and_join();
    }
}

/// An HTTP answer.
#[derive(Debug, Clone)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Response {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// Asserts an RFC 9457 problem with `status` and `code`, and returns its body.
    #[track_caller]
    pub fn assert_problem(&self, status: u16, code: &str) -> Value {
        assert_eq!(
            (self.status, self.header("content-type")),
            (status, Some("application/problem+json")),
            "{}",
            self.body
        );
        let problem = self.json();
        assert_eq!(problem["code"], code, "{}", self.body);
        assert_eq!(problem["status"], status);
        assert_eq!(problem["type"], format!("urn:qttt:problem:{code}"));
        assert!(problem["title"].as_str().is_some_and(|t| !t.is_empty()));
        assert!(problem["detail"].as_str().is_some_and(|d| !d.is_empty()));
        problem
    }
}

/// Whether the server at `address` answers `/readyz` with 200 within `patience`.
pub fn ready_within(address: SocketAddr, patience: Duration) -> bool {
    let deadline = Instant::now() + patience;
    while Instant::now() < deadline {
        if try_request(address, "GET", "/readyz", &[], None).is_ok_and(|ready| ready.status == 200) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    false
}

/// One request on its own connection.
pub fn request(
    address: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&str>,
) -> Response {
    try_request(address, method, path, headers, body).expect("the server answers")
}

/// One request on its own connection, or why no answer came: the server refused
/// the connection, or closed it before the whole head of its answer.
pub fn try_request(
    address: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&str>,
) -> Result<Response, String> {
    send(address, None, method, path, headers, body)
}

/// The tests' HTTP client: awc, with no headers of its own and no redirects
/// followed, on a connection of its own from `from` (an address of this machine's loopback) when given.
fn client(from: Option<IpAddr>) -> awc::Client {
    let connector = awc::Connector::new().timeout(Duration::from_secs(30));
    let connector = match from {
        Some(from) => connector.local_address(from),
        None => connector,
    };
    let builder = awc::Client::builder().connector(connector).no_default_headers().disable_redirects();
    builder.timeout(Duration::from_secs(30)).finish()
}

/// One request, from `from` when given, to its whole answer.
fn send(
    address: SocketAddr,
    from: Option<IpAddr>,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&str>,
) -> Result<Response, String> {
    let method = awc::http::Method::from_bytes(method.as_bytes()).map_err(|error| error.to_string())?;
    let (url, headers, body) = (format!("http://{address}{path}"), owned(headers), body.map(str::to_string));
    actix_web::rt::System::new().block_on(async move {
        let request = with_headers(client(from).request(method, url), &headers);
        let sent = match body {
            Some(body) => request.send_body(body).await,
            None => request.send().await,
        };
        let mut answer = sent.map_err(|error| error.to_string())?;
        let body = answer.body().limit(64 << 20).await.map_err(|error| error.to_string())?;
        Ok(Response {
            status: answer.status().as_u16(),
            headers: header_list(answer.headers()),
            body: String::from_utf8(body.to_vec()).expect("a text body"),
        })
    })
}

/// `request` with each of `headers` added, in order, a name given twice sent twice.
fn with_headers(request: awc::ClientRequest, headers: &[(String, String)]) -> awc::ClientRequest {
    headers.iter().fold(request, |request, (name, value)| request.append_header((name.as_str(), value.as_str())))
}

fn owned(headers: &[(&str, &str)]) -> Vec<(String, String)> {
    headers.iter().map(|(name, value)| ((*name).to_string(), (*value).to_string())).collect()
}

fn header_list(headers: &awc::http::header::HeaderMap) -> Vec<(String, String)> {
    headers
        .iter()
        .map(|(name, value)| (name.to_string(), String::from_utf8_lossy(value.as_bytes()).into_owned()))
        .collect()
}
