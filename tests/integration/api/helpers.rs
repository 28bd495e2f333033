//! A real server on a fresh database per test, and a small blocking HTTP client.
//!
//! The database is a SQLite file, or, when `QTTT_TEST_POSTGRES` gives the URL of a
//! PostgreSQL server's maintenance database (such as
//! `postgres://postgres@127.0.0.1:5432/postgres`), a database of its own there:
//! the same tests run against either backend.

use std::io::{Read, Write};
use std::net::{IpAddr, SocketAddr, TcpStream};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::Duration;

use qttt::config::{Config, CorsOrigins};
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
        // every run.
        let mut config = Config {
            port: 0,
            database_url: database.url(),
            random_seed: Some(TEST_SEED),
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
        let stream = connect(self.address, self.from).expect("the server accepts");
        request_on(stream, method, path, headers, body).expect("the server answers")
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

    pub fn place(&self, id: i64, token: &str, squares: [i64; 2]) -> Response {
        self.post_with_token(&format!("/api/v1/games/{id}/moves"), token, json!({ "squares": squares }))
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

/// An open Server-Sent Events stream.
pub struct EventStream {
    stream: TcpStream,
    /// What came and is not decoded yet: the head until it is whole, then the
    /// chunks of the body (a proxy may cut an event across two).
    raw: Vec<u8>,
    head: Option<String>,
    /// The body decoded, less the events taken from it.
    body: String,
    /// Whether the body's last chunk came.
    ended: bool,
}

/// One event: its id (none for `end`), its kind and its data.
#[derive(Debug, Clone)]
pub struct Event {
    pub id: Option<i64>,
    pub kind: String,
    pub data: Value,
}

impl Client {
    /// Opens the event stream of game `id`, resuming after `last_event_id`.
    pub fn watch(&self, id: i64, last_event_id: Option<i64>) -> EventStream {
        let resume = last_event_id.map(|seq| format!("Last-Event-ID: {seq}\r\n")).unwrap_or_default();
        self.watch_at(&format!("/api/v1/games/{id}/events"), &resume)
    }

    /// Opens the event stream at `path_and_query`, with `headers` (each ending in CRLF).
    pub fn watch_at(&self, path_and_query: &str, headers: &str) -> EventStream {
        let stream = connect(self.address, self.from).expect("the server accepts");
        EventStream::on(stream, path_and_query, headers)
    }
}

impl EventStream {
    /// Opens the event stream at `path_and_query` of the server at `address`,
    /// with `headers` (each ending in CRLF).
    pub fn open(address: SocketAddr, path_and_query: &str, headers: &str) -> EventStream {
        EventStream::on(TcpStream::connect(address).expect("the server accepts"), path_and_query, headers)
    }

    /// Opens the event stream at `path_and_query` on `stream`.
    fn on(mut stream: TcpStream, path_and_query: &str, headers: &str) -> EventStream {
        let address = stream.peer_addr().unwrap();
        let head = format!("GET {path_and_query} HTTP/1.1\r\nHost: {address}\r\n{headers}\r\n");
        stream.write_all(head.as_bytes()).unwrap();
        stream.set_read_timeout(Some(Duration::from_millis(50))).unwrap();
        EventStream { stream, raw: Vec::new(), head: None, body: String::new(), ended: false }
    }

    /// The next event, waiting at most `patience`.
    pub fn next_event(&mut self, patience: Duration) -> Option<Event> {
        let deadline = std::time::Instant::now() + patience;
        loop {
            // An event's fields each begin a line; comments and `retry` are skipped.
            let start = ["id: ", "event: "]
                .iter()
                .filter_map(|field| match self.body.starts_with(field) {
                    true => Some(0),
                    false => self.body.find(&format!("\n{field}")).map(|at| at + 1),
                })
                .min();
            if let Some(start) = start
                && let Some(length) = self.body[start..].find("\n\n")
            {
                let block = self.body[start..start + length].to_string();
                self.body.drain(..start + length + 2);
                let field = |name: &str| block.lines().find_map(|line| line.strip_prefix(name)).map(str::to_string);
                return Some(Event {
                    id: field("id: ").map(|id| id.parse().expect("a numeric id")),
                    kind: field("event: ").expect("an event's kind"),
                    data: serde_json::from_str(&field("data: ").expect("an event's data")).expect("JSON data"),
                });
            }
            if std::time::Instant::now() > deadline || !self.read_more() {
                return None;
            }
        }
    }

    /// Reads what has come; false once the server closed the connection.
    fn read_more(&mut self) -> bool {
        let mut buffer = [0u8; 65536];
        match self.stream.read(&mut buffer) {
            Ok(0) => false,
            Ok(read) => {
                self.take_in(&buffer[..read]);
                true
            }
            Err(error) if matches!(error.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => true,
            Err(error) => panic!("the event stream failed: {error}"),
        }
    }

    /// Takes in `bytes` as they came: the head, then the body's chunks, each
    /// decoded once whole.
    fn take_in(&mut self, bytes: &[u8]) {
        self.raw.extend_from_slice(bytes);
        if self.head.is_none() {
            let Some(end) = self.raw.windows(4).position(|window| window == b"\r\n\r\n") else { return };
            self.head = Some(String::from_utf8_lossy(&self.raw[..end]).into_owned());
            self.raw.drain(..end + 4);
        }
        let chunked =
            self.head.as_ref().is_some_and(|head| head.to_ascii_lowercase().contains("transfer-encoding: chunked"));
        if !chunked {
            self.body.push_str(&String::from_utf8_lossy(&self.raw));
            self.raw.clear();
            return;
        }
        while let Some((data, taken)) = chunk(&self.raw) {
            self.ended |= data.is_empty();
            self.body.push_str(&String::from_utf8_lossy(&self.raw[data]));
            self.raw.drain(..taken);
        }
    }

    /// Whether the stream ends (its last chunk comes) within `patience`, with
    /// nothing but comments left unread.
    pub fn ends_within(&mut self, patience: Duration) -> bool {
        let deadline = std::time::Instant::now() + patience;
        while !self.ended {
            if std::time::Instant::now() > deadline || !self.read_more() {
                return false;
            }
        }
        !self.body.contains("event: ")
    }

    /// Everything of the body received and not yet taken as an event.
    pub fn unread(&self) -> &str {
        &self.body
    }

    /// The head of the answer, once it has come.
    pub fn head(&mut self) -> String {
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while self.head.is_none() && std::time::Instant::now() < deadline && self.read_more() {}
        self.head.clone().unwrap_or_default()
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
    let deadline = std::time::Instant::now() + patience;
    while std::time::Instant::now() < deadline {
        if try_request(address, "GET", "/readyz", &[], None).is_ok_and(|ready| ready.status == 200) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    false
}

/// One HTTP/1.1 request on its own connection.
pub fn request(
    address: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&str>,
) -> Response {
    try_request(address, method, path, headers, body).expect("the server answers")
}

/// One HTTP/1.1 request on its own connection, or why no answer came: the server
/// refused the connection, or closed it before the whole head of its answer.
pub fn try_request(
    address: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&str>,
) -> std::io::Result<Response> {
    request_on(TcpStream::connect(address)?, method, path, headers, body)
}

/// A connection to `address`, from `from` when given.
fn connect(address: SocketAddr, from: Option<IpAddr>) -> std::io::Result<TcpStream> {
    let Some(from) = from else { return TcpStream::connect(address) };
    let socket = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None)?;
    socket.bind(&SocketAddr::new(from, 0).into())?;
    socket.connect(&address.into())?;
    Ok(socket.into())
}

/// One HTTP/1.1 request on `stream`, which it closes.
fn request_on(
    mut stream: TcpStream,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&str>,
) -> std::io::Result<Response> {
    let address = stream.peer_addr()?;
    stream.set_read_timeout(Some(Duration::from_secs(30)))?;
    let mut head = format!("{method} {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n");
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    if let Some(body) = body {
        head.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes())?;
    stream.write_all(body.unwrap_or("").as_bytes())?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw)?;
    if !raw.windows(4).any(|w| w == b"\r\n\r\n") {
        return Err(std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "the answer ended before its head did"));
    }
    Ok(parse_response(&raw))
}

fn parse_response(raw: &[u8]) -> Response {
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").expect("a complete head");
    let head = String::from_utf8_lossy(&raw[..split]);
    let mut lines = head.split("\r\n");
    let status = lines.next().and_then(|l| l.split(' ').nth(1)).and_then(|s| s.parse().ok()).expect("a status");
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_string(), value.trim().to_string()))
        .collect();
    let mut body = raw[split + 4..].to_vec();
    let chunked = headers.iter().any(|(n, v)| n.eq_ignore_ascii_case("transfer-encoding") && v.contains("chunked"));
    if chunked {
        body = dechunk(&body);
    }
    Response { status, headers, body: String::from_utf8(body).expect("a text body") }
}

fn dechunk(mut raw: &[u8]) -> Vec<u8> {
    let mut body = Vec::new();
    loop {
        let (data, taken) = chunk(raw).expect("a whole chunk");
        if data.is_empty() {
            return body;
        }
        body.extend_from_slice(&raw[data]);
        raw = &raw[taken..];
    }
}

/// The first chunk of a chunked body `raw`: where its data lies and how many
/// bytes the chunk takes; none while it has not come whole. The last chunk's data
/// is empty.
fn chunk(raw: &[u8]) -> Option<(std::ops::Range<usize>, usize)> {
    let line = raw.windows(2).position(|w| w == b"\r\n")?;
    let size = String::from_utf8_lossy(&raw[..line]);
    let size = usize::from_str_radix(size.split(';').next().unwrap_or_default().trim(), 16).expect("a hex size");
    let (data, taken) = (line + 2..line + 2 + size, line + 2 + size + 2);
    (raw.len() >= taken).then_some((data, taken))
}
