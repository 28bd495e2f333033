//! Load benchmark: starts the release server on a fresh database and plays
//! complete games over HTTP with N concurrent clients for a bounded time.
//!
//! `cargo bench --bench load -- [--clients 1,32] [--seconds 10] [--variant measurement|player_choice|both]`
//!
//! Prints, per client count: complete games per second, requests per second,
//! latency p50 / p99 / max per request kind, errors by status, and the server's
//! memory.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// Never more games per client and level than this, whatever the time allows.
const MAX_GAMES_PER_CLIENT: usize = 100_000;

struct Options {
    clients: Vec<usize>,
    seconds: u64,
    variants: Vec<&'static str>,
}

fn options() -> Options {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |flag: &str| args.iter().position(|a| a == flag).and_then(|i| args.get(i + 1)).cloned();
    let clients = value("--clients")
        .unwrap_or_else(|| "1,32".into())
        .split(',')
        .map(|n| n.trim().parse().expect("--clients takes numbers such as 1,32"))
        .collect();
    let seconds = value("--seconds").map_or(10, |s| s.parse().expect("--seconds takes a number"));
    let variants = match value("--variant").as_deref() {
        None | Some("both") => vec!["measurement", "player_choice"],
        Some("measurement") => vec!["measurement"],
        Some("player_choice") => vec!["player_choice"],
        Some(other) => panic!("unknown variant {other}"),
    };
    Options { clients, seconds, variants }
}

/// The release server on a fresh database in a temporary folder.
struct Server {
    child: Child,
    address: SocketAddr,
    folder: std::path::PathBuf,
}

impl Server {
    fn start() -> Server {
        let folder = std::env::temp_dir().join(format!("qttt-load-{}", std::process::id()));
        std::fs::create_dir_all(&folder).unwrap();
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let child = Command::new(env!("CARGO_BIN_EXE_qttt"))
            .arg("serve")
            .env("HOST", "127.0.0.1")
            .env("PORT", port.to_string())
            .env("DATABASE_URL", format!("sqlite:{}", folder.join("load.db").display()))
            .env("RUST_LOG", "warn")
            .stdout(Stdio::null())
            .spawn()
            .expect("the server binary starts");
        // Owned by `Server` at once, so that its `Drop` ends the process on any path.
        let server = Server { child, address: SocketAddr::from(([127, 0, 0, 1], port)), folder };
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(10) {
            if let Ok(stream) = TcpStream::connect(server.address) {
                let mut client = Client { reader: BufReader::new(stream) };
                if client.send("GET", "/readyz", None, None).0 == 200 {
                    println!("server ready in {:.0} ms", started.elapsed().as_secs_f64() * 1000.0);
                    return server;
                }
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        panic!("the server did not become ready in 10 s");
    }

    /// (peak, current) resident memory of the server in KiB, from /proc.
    fn memory(&self) -> (u64, u64) {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap_or_default();
        let field = |name: &str| {
            status
                .lines()
                .find(|l| l.starts_with(name))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
                .unwrap_or(0)
        };
        (field("VmHWM:"), field("VmRSS:"))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.folder);
    }
}

/// A keep-alive HTTP/1.1 connection.
struct Client {
    reader: BufReader<TcpStream>,
}

impl Client {
    fn connect(address: SocketAddr) -> Client {
        let stream = TcpStream::connect(address).expect("the server accepts");
        stream.set_nodelay(true).unwrap();
        Client { reader: BufReader::new(stream) }
    }

    /// Sends one request and reads the whole answer: (status, body).
    fn send(&mut self, method: &str, path: &str, token: Option<&str>, body: Option<&Value>) -> (u16, Value) {
        let body = body.map(Value::to_string).unwrap_or_default();
        let mut head = format!("{method} {path} HTTP/1.1\r\nHost: load\r\nContent-Length: {}\r\n", body.len());
        if !body.is_empty() {
            head.push_str("Content-Type: application/json\r\n");
        }
        if let Some(token) = token {
            head.push_str(&format!("Authorization: Bearer {token}\r\n"));
        }
        head.push_str("\r\n");
        head.push_str(&body);
        self.reader.get_mut().write_all(head.as_bytes()).expect("the request is sent");
        let mut line = String::new();
        self.reader.read_line(&mut line).expect("a status line");
        let status = line.split(' ').nth(1).and_then(|s| s.parse().ok()).expect("a status");
        let mut length = 0;
        loop {
            line.clear();
            self.reader.read_line(&mut line).expect("a header");
            if line == "\r\n" {
                break;
            }
            if let Some((name, value)) = line.split_once(':')
                && name.eq_ignore_ascii_case("content-length")
            {
                length = value.trim().parse().expect("a length");
            }
        }
        let mut body = vec![0; length];
        self.reader.read_exact(&mut body).expect("the body");
        (status, serde_json::from_slice(&body).unwrap_or(Value::Null))
    }
}

/// What one client saw.
#[derive(Default)]
struct Tally {
    games: usize,
    latencies: BTreeMap<&'static str, Vec<Duration>>,
    errors: BTreeMap<u16, usize>,
}

impl Tally {
    fn timed(&mut self, kind: &'static str, send: impl FnOnce() -> (u16, Value)) -> Option<Value> {
        let started = Instant::now();
        let (status, body) = send();
        self.latencies.entry(kind).or_default().push(started.elapsed());
        if status >= 300 {
            *self.errors.entry(status).or_default() += 1;
            return None;
        }
        Some(body)
    }

    fn merge(&mut self, other: Tally) {
        self.games += other.games;
        for (kind, mut list) in other.latencies {
            self.latencies.entry(kind).or_default().append(&mut list);
        }
        for (status, count) in other.errors {
            *self.errors.entry(status).or_default() += count;
        }
    }
}

/// Plays one complete game, both seats from this client: each move on the first
/// two squares without a classical mark, each collapse choice the first option.
fn play_game(client: &mut Client, tally: &mut Tally, variant: &str) -> Option<()> {
    let created =
        tally.timed("create", || client.send("POST", "/api/v1/games", None, Some(&json!({ "variant": variant }))))?;
    let id = created["game"]["id"].as_i64()?;
    let x = created["seat"]["token"].as_str()?.to_string();
    let joined = tally.timed("join", || client.send("POST", &format!("/api/v1/games/{id}/join"), None, None))?;
    let o = joined["seat"]["token"].as_str()?.to_string();
    let mut view = joined["game"].clone();
    while view["result"] == "ongoing" {
        let token_of = |player: &Value| if player == "X" { &x } else { &o };
        view = if let Some(pending) = view["pending_collapse"].as_object() {
            let choice = json!({ "move": pending["closing_move"], "square": pending["options"][0]["square"] });
            let token = token_of(&pending["chooser"]).clone();
            tally.timed("collapse", || {
                client.send("POST", &format!("/api/v1/games/{id}/collapse"), Some(&token), Some(&choice))
            })?
        } else {
            let open: Vec<u64> = view["board"]
                .as_array()?
                .iter()
                .filter(|cell| cell["classical"].is_null())
                .filter_map(|cell| cell["square"].as_u64())
                .collect();
            let squares = if open.len() == 1 { [open[0], open[0]] } else { [open[0], open[1]] };
            let token = token_of(&view["next_to_move"]["player"]).clone();
            tally.timed("move", || {
                client.send(
                    "POST",
                    &format!("/api/v1/games/{id}/moves"),
                    Some(&token),
                    Some(&json!({ "squares": squares })),
                )
            })?
        };
    }
    tally.games += 1;
    Some(())
}

fn percentile(sorted: &[Duration], share: f64) -> Duration {
    sorted[((sorted.len() as f64 * share).ceil() as usize).clamp(1, sorted.len()) - 1]
}

fn millis(duration: Duration) -> String {
    format!("{:.2}", duration.as_secs_f64() * 1000.0)
}

fn main() {
    let options = options();
    let server = Server::start();
    let (_, idle) = server.memory();
    println!("idle memory: {:.1} MiB", idle as f64 / 1024.0);
    for variant in &options.variants {
        for &clients in &options.clients {
            let deadline = Instant::now() + Duration::from_secs(options.seconds);
            let started = Instant::now();
            let mut total = Tally::default();
            let tallies: Vec<Tally> = std::thread::scope(|scope| {
                let workers: Vec<_> = (0..clients)
                    .map(|_| {
                        scope.spawn(move || {
                            let mut client = Client::connect(server.address);
                            let mut tally = Tally::default();
                            while Instant::now() < deadline && tally.games < MAX_GAMES_PER_CLIENT {
                                if play_game(&mut client, &mut tally, variant).is_none() {
                                    // A failed request may leave the game half played: start a new one.
                                    client = Client::connect(server.address);
                                }
                            }
                            tally
                        })
                    })
                    .collect();
                workers.into_iter().map(|w| w.join().expect("a client thread")).collect()
            });
            let elapsed = started.elapsed().as_secs_f64();
            tallies.into_iter().for_each(|t| total.merge(t));
            let requests: usize = total.latencies.values().map(Vec::len).sum();
            let (peak, _) = server.memory();
            println!(
                "\n{variant}, {clients} clients, {elapsed:.1} s: {:.1} games/s, {:.0} requests/s, errors {:?}, server peak memory {:.1} MiB",
                total.games as f64 / elapsed,
                requests as f64 / elapsed,
                total.errors,
                peak as f64 / 1024.0
            );
            println!("  {:<9} {:>8} {:>9} {:>9} {:>9}", "kind", "count", "p50 ms", "p99 ms", "max ms");
            for (kind, list) in &mut total.latencies {
                list.sort_unstable();
                println!(
                    "  {kind:<9} {:>8} {:>9} {:>9} {:>9}",
                    list.len(),
                    millis(percentile(list, 0.5)),
                    millis(percentile(list, 0.99)),
                    millis(*list.last().unwrap())
                );
            }
        }
    }
}
