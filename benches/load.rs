//! Load benchmark: starts the release server on a fresh database and plays
//! complete games over HTTP with N concurrent clients for a bounded time, and
//! measures the floor under them in the same run.
//!
//! `cargo bench --bench load -- [--clients 1,8,64,256] [--seconds 5] [--rounds 1] [--variant measurement|player_choice|both] [--games N]`
//!
//! For each client count it runs, one after the other, each for `--seconds`, and
//! all of them `--rounds` times in turn (each phase's figures are then those of
//! its rounds together, so that a change in the machine's other load falls on
//! every phase alike):
//! - healthz: `GET /healthz` of the server, which touches no database;
//! - floor: `POST /floor` of a bare actix-web server (benches/floor), which
//!   writes one row in one statement, a transaction of its own, and answers its
//!   id: the cheapest write the stack can do;
//! - games, per variant: complete games, both seats played by one client (create,
//!   join, every move and collapse), every answer a full game view.
//!
//! It prints, per phase: complete games per second, requests per second, latency
//! p50 / p99 / max per request kind, errors by status, and the server's peak
//! memory; then a table with the ratio of the game requests' throughput (every
//! one of them a write) to the floor's, and of their p99 to the floor's p99.
//! `--games N` measures memory instead: game phases only, each ending after N
//! complete games in all (or after `--seconds`), then the server's memory.
//!
//! `--pairing` measures quick pairing instead: each client is a player who seeks
//! a game (`POST /seeks`), and, when the answer is an open seek, asks for it
//! (`GET /seeks/{id}`, every 2 ms) until another client's seek paired it; it
//! prints seeks paired per second, on SQLite, and with `--postgres URL` on
//! PostgreSQL with one instance and with two (client i on instance i mod 2).
//! With `--rated` the seeks are rated, a player whose seek's answer shows it
//! paired resigns the game at once, and at the end `qttt ratings check` checks
//! each database's ratings. A rated game resigned before both players moved
//! is aborted, unrated: the pairings end games, but rate none.
//!
//! `QTTT_BIN=path` serves with another build of qttt, to compare it with this one.
//!
//! `--spectators N` measures N live streams of one game instead, and how fast a
//! move reaches them: see benches/spectators. With `--postgres URL`, on two
//! instances of one PostgreSQL database, the moves made on the first.
//!
//! `--scale GAMES` measures how each request's cost grows with the games a
//! database keeps: see benches/scale. With `--postgres URL`, on PostgreSQL.
//!
//! `--compare-with BIN` compares this build with the qttt program BIN at one
//! client, on one keep-alive connection: game creation alone, then whole
//! `measurement` games, each for `--seconds`, on a fresh SQLite database each
//! time, the two builds in turn (the other first in every other round),
//! `--rounds` times; it prints every round, with the server's CPU time per
//! request, and each build's best.
//!
//! `--postgres URL` compares the backends instead: URL is a PostgreSQL server's
//! maintenance database (such as `postgres://postgres@127.0.0.1:5432/postgres`),
//! where the tool makes a fresh database and drops it at the end. For each client
//! count it runs the floor on that database and pgbench's one-row inserts (the
//! database's own limit), and for each variant it plays games against the server
//! on SQLite, on PostgreSQL, and on two instances on that PostgreSQL database
//! (client i on instance i mod 2); it prints games per second, PostgreSQL's game
//! requests as a share of its floor, and the server's CPU per request on each.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::json;

mod floor;
#[path = "../tests/support/postgres.rs"]
mod postgres;
mod scale;
mod script;
mod spectators;
mod stats;
use postgres::PostgresDatabase;
use script::{SCRIPT, Seated};
use stats::percentile;

struct Options {
    clients: Vec<usize>,
    seconds: u64,
    /// How many times the phases run in turn.
    rounds: usize,
    variants: Vec<&'static str>,
    /// The games per game phase, when measuring memory.
    games: Option<usize>,
    /// A PostgreSQL server's maintenance database, when comparing the backends.
    postgres: Option<String>,
    /// Whether to measure quick pairing.
    pairing: bool,
    /// Whether the pairing's games are rated, and ended at once.
    rated: bool,
    /// How many live streams watch one game, when measuring spectators.
    spectators: Option<usize>,
    /// How many finished games a database holds, when measuring scale.
    scale: Option<usize>,
    /// Another build of qttt, to compare this one with at one client.
    compare_with: Option<String>,
}

fn options(args: &[String]) -> Options {
    let value = |flag: &str| args.iter().position(|a| a == flag).and_then(|i| args.get(i + 1)).cloned();
    let clients = value("--clients")
        .unwrap_or_else(|| "1,8,64,256".into())
        .split(',')
        .map(|n| n.trim().parse().expect("--clients takes numbers such as 1,8,64"))
        .collect();
    let seconds = value("--seconds").map_or(5, |s| s.parse().expect("--seconds takes a number"));
    let rounds = value("--rounds").map_or(1, |s| s.parse().expect("--rounds takes a number"));
    let variants = match value("--variant").as_deref() {
        None | Some("both") => vec!["measurement", "player_choice"],
        Some("measurement") => vec!["measurement"],
        Some("player_choice") => vec!["player_choice"],
        Some(other) => panic!("unknown variant {other}"),
    };
    let games = value("--games").map(|n| n.parse().expect("--games takes a number"));
    let pairing = args.iter().any(|a| a == "--pairing");
    let rated = args.iter().any(|a| a == "--rated");
    let spectators = value("--spectators").map(|n| n.parse().expect("--spectators takes a number"));
    let scale = value("--scale").map(|n| n.parse().expect("--scale takes a number"));
    Options {
        clients,
        seconds,
        rounds,
        variants,
        games,
        postgres: value("--postgres"),
        pairing,
        rated,
        spectators,
        scale,
        compare_with: value("--compare-with"),
    }
}

/// A server process on a fresh database in a temporary folder of its own.
struct Server {
    child: Child,
    address: SocketAddr,
    /// Removed, with the database, once the process has been ended.
    folder: tempfile::TempDir,
    /// From the process's start to `/readyz` answering 200.
    ready_in: Duration,
}

impl Server {
    /// The release qttt server called `name`, on the database at `database_url`,
    /// or on a SQLite file of its own.
    fn qttt(name: &str, database_url: Option<&str>) -> Server {
        Server::qttt_with(name, database_url, &[])
    }

    /// The same, with the settings `settings` adds.
    fn qttt_with(name: &str, database_url: Option<&str>, settings: &[(&str, &str)]) -> Server {
        // QTTT_BIN runs another build, to compare it with this one.
        let binary = std::env::var_os("QTTT_BIN").unwrap_or_else(|| env!("CARGO_BIN_EXE_qttt").into());
        Server::qttt_built(&binary, name, database_url, settings)
    }

    /// The same, served by the qttt program at `binary`.
    fn qttt_built(binary: &OsStr, name: &str, database_url: Option<&str>, settings: &[(&str, &str)]) -> Server {
        Server::start(name, |port, database| {
            let mut command = Command::new(binary);
            command
                .arg("serve")
                .env("HOST", "127.0.0.1")
                .env("PORT", port.to_string())
                .env(
                    "DATABASE_URL",
                    database_url.map_or_else(|| format!("sqlite:{}", database.display()), String::from),
                )
                .env("RUST_LOG", "warn")
                // The load comes from one address, far faster than any person.
                .env("CREATE_RATE_LIMIT", "0")
                .env("FAILED_AUTH_RATE_LIMIT", "0")
                .envs(settings.iter().copied());
            command
        })
    }

    /// The floor: this program again, as a bare write server, on the database
    /// at `database_url`, or on a SQLite file of its own.
    fn floor(database_url: Option<&str>) -> Server {
        Server::start("floor", |port, database| {
            let mut command = Command::new(std::env::current_exe().expect("this program's path"));
            command.arg("--floor-server").arg(port.to_string());
            match database_url {
                Some(url) => command.arg(url),
                None => command.arg(database),
            };
            command
        })
    }

    fn start(name: &str, command: impl FnOnce(u16, &Path) -> Command) -> Server {
        let folder = tempfile::Builder::new().prefix(&format!("qttt-load-{name}-")).tempdir().unwrap();
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let child =
            command(port, &folder.path().join("load.db")).stdout(Stdio::null()).spawn().expect("the server starts");
        // Owned by `Server` at once, so that its `Drop` ends the process on any path.
        let address = SocketAddr::from(([127, 0, 0, 1], port));
        let mut server = Server { child, address, folder, ready_in: Duration::ZERO };
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(10) {
            if let Ok(stream) = TcpStream::connect(server.address) {
                let mut client = Client::over(stream);
                if client.send("GET", "/readyz", None, None).0 == 200 {
                    server.ready_in = started.elapsed();
                    println!("{name} server ready in {:.0} ms", server.ready_in.as_secs_f64() * 1000.0);
                    return server;
                }
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        panic!("the {name} server did not become ready in 10 s");
    }

    /// The CPU time the server has used so far.
    fn cpu_time(&self) -> Duration {
        cpu_time(self.child.id())
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

/// The CPU time process `pid` has used so far, from /proc.
fn cpu_time(pid: u32) -> Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // The fields after the command name, which ends with the last ')': utime and stime are the 12th and 13th.
    let fields: Vec<&str> = stat.rsplit_once(')').map_or("", |(_, rest)| rest).split_whitespace().collect();
    let ticks: u64 = [11, 12].iter().filter_map(|&i| fields.get(i)?.parse::<u64>().ok()).sum();
    // Linux reports these in clock ticks of 1/100 s.
    Duration::from_millis(ticks * 10)
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A keep-alive HTTP/1.1 connection, with buffers kept from one request to the
/// next: the clients share the machine with the server, so they do little.
struct Client {
    reader: BufReader<TcpStream>,
    request: Vec<u8>,
    line: String,
    body: Vec<u8>,
}

impl Client {
    fn connect(address: SocketAddr) -> Client {
        Client::over(TcpStream::connect(address).expect("the server accepts"))
    }

    fn over(stream: TcpStream) -> Client {
        stream.set_nodelay(true).unwrap();
        Client { reader: BufReader::new(stream), request: Vec::new(), line: String::new(), body: Vec::new() }
    }

    /// Sends one request with `body`, JSON, and reads the whole answer: (status, body).
    fn send(&mut self, method: &str, path: &str, token: Option<&str>, body: Option<&str>) -> (u16, &[u8]) {
        let body = body.unwrap_or_default();
        self.request.clear();
        write!(self.request, "{method} {path} HTTP/1.1\r\nHost: load\r\nContent-Length: {}\r\n", body.len()).unwrap();
        if !body.is_empty() {
            self.request.extend_from_slice(b"Content-Type: application/json\r\n");
        }
        if let Some(token) = token {
            write!(self.request, "Authorization: Bearer {token}\r\n").unwrap();
        }
        self.request.extend_from_slice(b"\r\n");
        self.request.extend_from_slice(body.as_bytes());
        self.reader.get_mut().write_all(&self.request).expect("the request is sent");
        self.line.clear();
        self.reader.read_line(&mut self.line).expect("a status line");
        let status = self.line.split(' ').nth(1).and_then(|s| s.parse().ok()).expect("a status");
        let mut length = 0;
        loop {
            self.line.clear();
            self.reader.read_line(&mut self.line).expect("a header");
            if self.line == "\r\n" {
                break;
            }
            if let Some((name, value)) = self.line.split_once(':')
                && name.eq_ignore_ascii_case("content-length")
            {
                length = value.trim().parse().expect("a length");
            }
        }
        self.body.resize(length, 0);
        self.reader.read_exact(&mut self.body).expect("the body");
        (status, &self.body)
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
    fn timed<'a>(&mut self, kind: &'static str, send: impl FnOnce() -> (u16, &'a [u8])) -> Option<&'a [u8]> {
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

/// The request bodies of a game of one variant, written once for every game.
struct GameBodies {
    /// Whether a player chooses the collapse.
    player_choice: bool,
    create: String,
    moves: Vec<String>,
    collapse: String,
}

impl GameBodies {
    fn of(variant: &str) -> GameBodies {
        GameBodies {
            player_choice: variant == "player_choice",
            create: json!({ "variant": variant }).to_string(),
            moves: SCRIPT.iter().map(|squares| json!({ "squares": squares }).to_string()).collect(),
            collapse: script::collapse_body().to_string(),
        }
    }
}

/// Plays one complete game by [`SCRIPT`] with `bodies`, both seats from this client.
fn play_game(client: &mut Client, tally: &mut Tally, bodies: &GameBodies) -> Option<()> {
    let seated = |body: &[u8]| serde_json::from_slice::<Seated>(body).ok();
    let created = seated(tally.timed("create", || client.send("POST", "/api/v1/games", None, Some(&bodies.create)))?)?;
    let (id, x) = (created.game.id, created.seat.token);
    let o = seated(tally.timed("join", || client.send("POST", &format!("/api/v1/games/{id}/join"), None, None))?)?
        .seat
        .token;
    let moves = format!("/api/v1/games/{id}/moves");
    for (body, token) in bodies.moves.iter().zip([&x, &o].into_iter().cycle()) {
        tally.timed("move", || client.send("POST", &moves, Some(token), Some(body)))?;
    }
    if bodies.player_choice {
        let path = format!("/api/v1/games/{id}/collapse");
        tally.timed("collapse", || client.send("POST", &path, Some(&o), Some(&bodies.collapse)))?;
    }
    tally.games += 1;
    Some(())
}

fn millis(duration: Duration) -> String {
    format!("{:.2}", duration.as_secs_f64() * 1000.0)
}

/// What all clients of one phase saw.
struct Phase {
    seconds: f64,
    tally: Tally,
    /// The server's CPU time over the phase.
    server_cpu: Duration,
    /// This program's CPU time over the phase: the clients'.
    client_cpu: Duration,
}

impl Phase {
    /// `clients` clients each repeating `unit` on their own connection to one of
    /// `servers` (client i to server i mod their number) until `seconds` pass or
    /// `units` units have started in all.
    fn run(
        servers: &[&Server],
        clients: usize,
        seconds: u64,
        units: usize,
        unit: impl Fn(&mut Client, &mut Tally) -> Option<()> + Sync,
    ) -> Phase {
        let server_cpu = || servers.iter().map(|server| server.cpu_time()).sum::<Duration>();
        let client_cpu = || cpu_time(std::process::id());
        let (server_cpu_before, client_cpu_before) = (server_cpu(), client_cpu());
        let deadline = Instant::now() + Duration::from_secs(seconds);
        let started_units = AtomicUsize::new(0);
        let started = Instant::now();
        let tallies: Vec<Tally> = std::thread::scope(|scope| {
            let workers: Vec<_> = (0..clients)
                .map(|client| {
                    let address = servers[client % servers.len()].address;
                    let (started_units, unit) = (&started_units, &unit);
                    scope.spawn(move || {
                        let mut client = Client::connect(address);
                        let mut tally = Tally::default();
                        while Instant::now() < deadline && started_units.fetch_add(1, Ordering::Relaxed) < units {
                            if unit(&mut client, &mut tally).is_none() {
                                // A failed request may leave a game half played: start afresh.
                                client = Client::connect(address);
                            }
                        }
                        tally
                    })
                })
                .collect();
            workers.into_iter().map(|w| w.join().expect("a client thread")).collect()
        });
        let seconds = started.elapsed().as_secs_f64();
        let mut tally = Tally::default();
        tallies.into_iter().for_each(|t| tally.merge(t));
        Phase {
            seconds,
            tally,
            server_cpu: server_cpu().saturating_sub(server_cpu_before),
            client_cpu: client_cpu().saturating_sub(client_cpu_before),
        }
    }

    /// This phase and `later`, a run of the same phase, as one.
    fn and(mut self, later: Phase) -> Phase {
        self.seconds += later.seconds;
        self.tally.merge(later.tally);
        self.server_cpu += later.server_cpu;
        self.client_cpu += later.client_cpu;
        self
    }

    fn games_per_second(&self) -> f64 {
        self.tally.games as f64 / self.seconds
    }

    fn errors(&self) -> usize {
        self.tally.errors.values().sum()
    }

    fn requests(&self) -> usize {
        self.tally.latencies.values().map(Vec::len).sum()
    }

    /// The server's CPU time per request, in microseconds.
    fn server_cpu_per_request(&self) -> f64 {
        self.server_cpu.as_secs_f64() * 1e6 / self.requests().max(1) as f64
    }

    fn requests_per_second(&self) -> f64 {
        self.requests() as f64 / self.seconds
    }

    /// The latencies of the request kinds in `kinds` together, sorted.
    fn sorted_latencies(&self, kinds: &[&str]) -> Vec<Duration> {
        let mut all: Vec<Duration> =
            kinds.iter().filter_map(|kind| self.tally.latencies.get(kind)).flatten().copied().collect();
        all.sort_unstable();
        all
    }

    /// The p99 latency of the request kinds in `kinds` together.
    fn p99(&self, kinds: &[&str]) -> Duration {
        let all = self.sorted_latencies(kinds);
        if all.is_empty() { Duration::ZERO } else { percentile(&all, 0.99) }
    }

    fn print(&self, title: &str, server: &Server) {
        let (peak, current) = server.memory();
        println!(
            "\n{title}, {:.1} s: {:.1} games/s, {:.0} requests/s, CPU per request: server {:.1} us, clients {:.1} us; errors {:?}, server memory {:.1} MiB (peak {:.1} MiB)",
            self.seconds,
            self.games_per_second(),
            self.requests_per_second(),
            self.server_cpu_per_request(),
            self.client_cpu.as_secs_f64() * 1e6 / self.requests().max(1) as f64,
            self.tally.errors,
            current as f64 / 1024.0,
            peak as f64 / 1024.0
        );
        println!("  {:<9} {:>8} {:>9} {:>9} {:>9}", "kind", "count", "p50 ms", "p99 ms", "max ms");
        for kind in self.tally.latencies.keys() {
            let sorted = self.sorted_latencies(&[kind]);
            println!(
                "  {kind:<9} {:>8} {:>9} {:>9} {:>9}",
                sorted.len(),
                millis(percentile(&sorted, 0.5)),
                millis(percentile(&sorted, 0.99)),
                millis(*sorted.last().unwrap())
            );
        }
    }
}

/// `--compare-with BIN`: see the module's doc.
fn compare_builds(other: &str, seconds: u64, rounds: usize) {
    let this = std::env::var_os("QTTT_BIN").unwrap_or_else(|| env!("CARGO_BIN_EXE_qttt").into());
    let builds = [("this build", this.as_os_str()), ("the other", OsStr::new(other))];
    let bodies = GameBodies::of("measurement");
    let create = bodies.create.clone();
    // For each build, its rounds: (creations a second, games a second, creation p50, game p50 per request).
    let mut measured: [Vec<(f64, f64, Duration, Duration)>; 2] = [Vec::new(), Vec::new()];
    for round in 0..rounds {
        for index in [round % 2, 1 - round % 2] {
            let (name, binary) = builds[index];
            let server = Server::qttt_built(binary, &format!("{name} {round}"), None, &[]);
            let created = Phase::run(&[&server], 1, seconds, usize::MAX, |client, tally| {
                tally.timed("create", || client.send("POST", "/api/v1/games", None, Some(&create))).map(drop)
            });
            let played =
                Phase::run(&[&server], 1, seconds, usize::MAX, |client, tally| play_game(client, tally, &bodies));
            let p50 = |phase: &Phase, kinds: &[&str]| percentile(&phase.sorted_latencies(kinds), 0.5);
            let figures = (
                created.requests_per_second(),
                played.games_per_second(),
                p50(&created, &["create"]),
                p50(&played, &["create", "join", "move"]),
            );
            println!(
                "round {round}, {name}: {:.0} creations/s (p50 {} ms, server CPU {:.1} us each), \
                 {:.1} games/s (request p50 {} ms, server CPU {:.1} us each), errors {}",
                figures.0,
                millis(figures.2),
                created.server_cpu_per_request(),
                figures.1,
                millis(figures.3),
                played.server_cpu_per_request(),
                created.errors() + played.errors()
            );
            measured[index].push(figures);
        }
    }
    for ((name, _), rounds) in builds.iter().zip(&measured) {
        let best = |figure: fn(&(f64, f64, Duration, Duration)) -> f64| rounds.iter().map(figure).fold(0.0, f64::max);
        println!(
            "{name}, best of {}: {:.0} creations/s, {:.1} games/s",
            rounds.len(),
            best(|round| round.0),
            best(|round| round.1)
        );
    }
}

/// `--spectators N`: see [`spectators`]; on SQLite, or on two instances of one
/// PostgreSQL database made on the server of `maintenance_url`.
fn watch_one_game(spectators: usize, maintenance_url: Option<&str>) {
    let streams = (spectators + 100).to_string();
    let settings = [("MAX_LIVE_STREAMS", streams.as_str())];
    match maintenance_url {
        None => spectators::run(&[&Server::qttt_with("qttt", None, &settings)], spectators),
        Some(maintenance_url) => {
            let database = PostgresDatabase::create(maintenance_url, format!("qttt_watch_{}", std::process::id()));
            let url = database.url();
            let instances = ["postgres-1", "postgres-2"].map(|name| Server::qttt_with(name, Some(&url), &settings));
            spectators::run(&[&instances[0], &instances[1]], spectators);
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(at) = args.iter().position(|a| a == "--floor-server") {
        let port = args[at + 1].parse().expect("--floor-server PORT DATABASE");
        return floor::serve(port, &args[at + 2]);
    }
    let options = options(&args);
    if options.pairing {
        return pairing(&options);
    }
    if let Some(spectators) = options.spectators {
        return watch_one_game(spectators, options.postgres.as_deref());
    }
    if let Some(other) = &options.compare_with {
        return compare_builds(other, options.seconds, options.rounds);
    }
    if let Some(games) = options.scale {
        return scale::run(games, options.seconds, options.rounds, options.postgres.as_deref());
    }
    if let Some(maintenance_url) = &options.postgres {
        return compare_backends(&options, maintenance_url);
    }
    let server = Server::qttt("qttt", None);
    let floor = Server::floor(None);
    println!("qttt server idle memory: {:.1} MiB", server.memory().1 as f64 / 1024.0);
    let mut table = Vec::new();
    if let Some(games) = options.games {
        for variant in &options.variants {
            let bodies = GameBodies::of(variant);
            for &clients in &options.clients {
                let played = Phase::run(&[&server], clients, options.seconds, games, |client, tally| {
                    play_game(client, tally, &bodies)
                });
                played.print(&format!("{variant}, {clients} clients, {} games", played.tally.games), &server);
            }
        }
        return;
    }
    let bodies: Vec<GameBodies> = options.variants.iter().map(|variant| GameBodies::of(variant)).collect();
    for &clients in &options.clients {
        let run = |server: &Server, unit: &(dyn Fn(&mut Client, &mut Tally) -> Option<()> + Sync)| {
            Phase::run(&[server], clients, options.seconds, usize::MAX, unit)
        };
        let round = || {
            let healthz = run(&server, &|client, tally| {
                tally.timed("healthz", || client.send("GET", "/healthz", None, None)).map(drop)
            });
            let write_floor = run(&floor, &|client, tally| {
                tally.timed("floor", || client.send("POST", "/floor", None, None)).map(drop)
            });
            let games: Vec<Phase> =
                bodies.iter().map(|bodies| run(&server, &|client, tally| play_game(client, tally, bodies))).collect();
            (healthz, write_floor, games)
        };
        let (healthz, write_floor, games) = (1..options.rounds).fold(round(), |(healthz, floor, games), _| {
            let (next_healthz, next_floor, next_games) = round();
            let games = games.into_iter().zip(next_games).map(|(phase, next)| phase.and(next)).collect();
            (healthz.and(next_healthz), floor.and(next_floor), games)
        });
        healthz.print(&format!("GET /healthz, {clients} clients"), &server);
        write_floor.print(&format!("write floor, {clients} clients"), &floor);
        for (variant, games) in options.variants.iter().zip(games) {
            games.print(&format!("{variant}, {clients} clients"), &server);
            table.push(format!(
                "| {clients} | {variant} | {:.0} | {:.0} | {} | {:.0} | {} | {:.0} | {} | {:.0}% | {:.2} | {} |",
                games.games_per_second(),
                games.requests_per_second(),
                millis(games.p99(&["move", "collapse"])),
                write_floor.requests_per_second(),
                millis(write_floor.p99(&["floor"])),
                healthz.requests_per_second(),
                millis(healthz.p99(&["healthz"])),
                100.0 * games.requests_per_second() / write_floor.requests_per_second(),
                games.p99(&["move", "collapse"]).as_secs_f64() / write_floor.p99(&["floor"]).as_secs_f64(),
                games.errors() + write_floor.errors(),
            ));
        }
    }
    println!(
        "\n| clients | variant | games/s | game requests/s | move p99 ms | floor requests/s | floor p99 ms | healthz requests/s | healthz p99 ms | game requests / floor | move p99 / floor p99 | errors |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
    table.iter().for_each(|row| println!("{row}"));
    let (peak, current) = server.memory();
    println!(
        "\nqttt server memory at the end: {:.1} MiB, peak {:.1} MiB",
        current as f64 / 1024.0,
        peak as f64 / 1024.0
    );
}

/// One seek of the player of `token`, `rated` or not, until it is paired: the
/// answer to the seek, or the seek as asked for after it, every 2 ms;
/// cancelled at `deadline`, the phase's end, when nobody paired it by then. A
/// rated seek paired by its answer resigns its game at once, which aborts it.
fn seek_until_paired(
    client: &mut Client,
    tally: &mut Tally,
    token: &str,
    rated: bool,
    deadline: Instant,
) -> Option<()> {
    #[derive(serde::Deserialize)]
    struct Seek {
        id: i64,
        status: String,
        game_id: Option<i64>,
    }
    let read = |body: &[u8]| serde_json::from_slice::<Seek>(body).ok();
    let body = if rated { r#"{"rated": true}"# } else { "{}" };
    let mut seek = read(tally.timed("seek", || client.send("POST", "/api/v1/seeks", Some(token), Some(body)))?)?;
    if let (true, Some(game)) = (rated, seek.game_id) {
        // The first seek's answer, read once it is written, may show it paired
        // already: then both players resign, and the second finds the game over.
        let path = format!("/api/v1/games/{game}/resign");
        let started = Instant::now();
        let (status, body) = client.send("POST", &path, Some(token), Some("{}"));
        tally.latencies.entry("resign").or_default().push(started.elapsed());
        if status != 201 && !(status == 422 && String::from_utf8_lossy(body).contains("\"game_over\"")) {
            *tally.errors.entry(status).or_default() += 1;
        }
    }
    let path = format!("/api/v1/seeks/{}", seek.id);
    while seek.status == "open" {
        if Instant::now() >= deadline {
            client.send("DELETE", &path, Some(token), None);
            return None;
        }
        std::thread::sleep(Duration::from_millis(2));
        seek = read(tally.timed("seek status", || client.send("GET", &path, Some(token), None))?)?;
    }
    (seek.status == "paired").then(|| tally.games += 1)
}

/// Seeks paired per second with each of `options.clients` players seeking at
/// once, on SQLite and, with `--postgres`, on one and on two PostgreSQL instances.
fn pairing(options: &Options) {
    let database = options
        .postgres
        .as_ref()
        .map(|maintenance| PostgresDatabase::create(maintenance, format!("qttt_pairing_{}", std::process::id())));
    let url = database.as_ref().map(PostgresDatabase::url);
    let mut table = Vec::new();
    {
        let sqlite = Server::qttt("sqlite", None);
        let instances: Vec<Server> =
            url.iter().flat_map(|url| ["postgres-1", "postgres-2"].map(|name| Server::qttt(name, Some(url)))).collect();
        let mut setups: Vec<(&str, Vec<&Server>)> = vec![("SQLite", vec![&sqlite])];
        if let [first, second] = instances.as_slice() {
            setups.push(("PostgreSQL, 1 instance", vec![first]));
            setups.push(("PostgreSQL, 2 instances", vec![first, second]));
        }
        for &clients in &options.clients {
            for (title, servers) in &setups {
                // One player for each client, made before the clock starts.
                let tokens: Vec<String> = (0..clients)
                    .map(|client| {
                        let mut client = Client::connect(servers[client % servers.len()].address);
                        let (status, body) = client.send("POST", "/api/v1/players", None, Some("{}"));
                        assert_eq!(status, 201, "{}", String::from_utf8_lossy(body));
                        serde_json::from_slice::<serde_json::Value>(body).unwrap()["token"]
                            .as_str()
                            .unwrap()
                            .to_string()
                    })
                    .collect();
                let next = AtomicUsize::new(0);
                let deadline = Instant::now() + Duration::from_secs(options.seconds);
                let phase = Phase::run(servers, clients, options.seconds, usize::MAX, |client, tally| {
                    thread_local!(static TOKEN: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) });
                    let token = TOKEN.with(|token| {
                        token
                            .borrow_mut()
                            .get_or_insert_with(|| tokens[next.fetch_add(1, Ordering::Relaxed)].clone())
                            .clone()
                    });
                    seek_until_paired(client, tally, &token, options.rated, deadline)
                });
                phase.print(&format!("pairing, {clients} clients, {title}"), servers[0]);
                table.push(format!(
                    "| {clients} | {title} | {:.0} | {} | {} | {} |",
                    phase.games_per_second(),
                    millis(phase.p99(&["seek"])),
                    millis(phase.p99(&["seek status"])),
                    phase.errors(),
                ));
            }
        }
        if options.rated {
            let sqlite_url = format!("sqlite:{}", sqlite.folder.path().join("load.db").display());
            for (title, url) in [("SQLite", Some(&sqlite_url)), ("PostgreSQL", url.as_ref())] {
                let Some(url) = url else { continue };
                let checked = Command::new(env!("CARGO_BIN_EXE_qttt"))
                    .args(["ratings", "check"])
                    .env("DATABASE_URL", url)
                    .output()
                    .expect("qttt runs");
                let said = String::from_utf8_lossy(&checked.stdout);
                println!("qttt ratings check on {title}: {}", said.trim());
                assert!(checked.status.success(), "{}", String::from_utf8_lossy(&checked.stderr));
            }
        }
    }
    drop(database);
    println!("\n| clients | backend | seeks paired/s | seek p99 ms | seek status p99 ms | errors |");
    println!("|---|---|---|---|---|---|");
    table.iter().for_each(|row| println!("{row}"));
}

/// Games per second on SQLite, on PostgreSQL, and on two instances sharing that
/// PostgreSQL database, in one run, with the floor on PostgreSQL and pgbench's
/// one-row inserts on the same server as the database's own limit.
fn compare_backends(options: &Options, maintenance_url: &str) {
    let database = PostgresDatabase::create(maintenance_url, format!("qttt_load_{}", std::process::id()));
    let url = database.url();
    let mut table = Vec::new();
    {
        let sqlite = Server::qttt("sqlite", None);
        let instances = [Server::qttt("postgres-1", Some(&url)), Server::qttt("postgres-2", Some(&url))];
        let floor = Server::floor(Some(&url));
        for &clients in &options.clients {
            let write_floor = Phase::run(&[&floor], clients, options.seconds, usize::MAX, |client, tally| {
                tally.timed("floor", || client.send("POST", "/floor", None, None)).map(drop)
            });
            write_floor.print(&format!("write floor on PostgreSQL, {clients} clients"), &floor);
            let pgbench = pgbench(&url, clients, options.seconds)
                .map_or_else(|| "-".to_string(), |transactions| format!("{transactions:.0}"));
            for variant in &options.variants {
                let bodies = GameBodies::of(variant);
                let play = |servers: &[&Server], title: &str| {
                    let phase = Phase::run(servers, clients, options.seconds, usize::MAX, |client, tally| {
                        play_game(client, tally, &bodies)
                    });
                    phase.print(&format!("{variant}, {clients} clients, {title}"), servers[0]);
                    phase
                };
                let on_sqlite = play(&[&sqlite], "SQLite");
                let on_postgres = play(&[&instances[0]], "PostgreSQL, 1 instance");
                let on_two = play(&[&instances[0], &instances[1]], "PostgreSQL, 2 instances");
                table.push(format!(
                    "| {clients} | {variant} | {:.0} | {:.0} | {:.0} | {:.0} | {:.0}% | {:.0} | {:.0} | {:.2} | {:.0} | {pgbench} | {} |",
                    on_sqlite.games_per_second(),
                    on_postgres.games_per_second(),
                    on_postgres.requests_per_second(),
                    write_floor.requests_per_second(),
                    100.0 * on_postgres.requests_per_second() / write_floor.requests_per_second(),
                    on_sqlite.server_cpu_per_request(),
                    on_postgres.server_cpu_per_request(),
                    on_postgres.server_cpu_per_request() / on_sqlite.server_cpu_per_request(),
                    on_two.games_per_second(),
                    on_sqlite.errors() + on_postgres.errors() + on_two.errors() + write_floor.errors(),
                ));
            }
        }
    }
    drop(database);
    println!(
        "\n| clients | variant | SQLite games/s | PostgreSQL games/s | PostgreSQL game requests/s | PostgreSQL floor requests/s | game requests / floor | server CPU per request on SQLite, us | on PostgreSQL, us | PostgreSQL ÷ SQLite | 2 instances games/s | pgbench inserts/s | errors |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    table.iter().for_each(|row| println!("{row}"));
}

/// pgbench's rate of one-row inserts into the database at `url`, with `clients`
/// clients for `seconds`, each a transaction of its own, prepared once per
/// connection; `None` without pgbench (PostgreSQL's packages have it).
fn pgbench(url: &str, clients: usize, seconds: u64) -> Option<f64> {
    let found = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|path| std::env::split_paths(&path).collect::<Vec<_>>())
        .chain(std::fs::read_dir("/usr/lib/postgresql").into_iter().flatten().flatten().map(|v| v.path().join("bin")))
        .map(|folder| folder.join("pgbench"))
        .find(|candidate| candidate.is_file());
    let Some(pgbench) = found else {
        println!("pgbench not found: no database limit in the table");
        return None;
    };
    postgres::execute(
        url,
        "CREATE TABLE IF NOT EXISTS pgbench_floor (id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, \
         written_at TIMESTAMPTZ NOT NULL)",
    );
    let script = tempfile::NamedTempFile::new().expect("a temporary file");
    std::fs::write(script.path(), "INSERT INTO pgbench_floor (written_at) VALUES (now());\n").unwrap();
    let output = Command::new(pgbench)
        .args(["-n", "-M", "prepared", "-j", "2", "-c", &clients.to_string(), "-T", &seconds.to_string(), "-f"])
        .arg(script.path())
        .arg(url)
        .output()
        .expect("pgbench runs");
    let report = String::from_utf8_lossy(&output.stdout);
    let transactions = report
        .lines()
        .find_map(|line| line.strip_prefix("tps = "))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|number| number.parse().ok());
    println!("pgbench, {clients} clients: {} inserts/s", transactions.unwrap_or(f64::NAN));
    transactions
}
