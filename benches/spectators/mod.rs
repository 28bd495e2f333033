//! `--spectators N`: N live streams of one game, then the game played.
//!
//! The streams are opened from many loopback addresses (127.1.0.1 and on, as
//! many from each as the server lets one address hold by default), spread over
//! the servers given (one on SQLite; two on one PostgreSQL database with
//! `--postgres`), and the moves are made on the first. It prints each server's
//! memory before and after the streams opened, how long a move's answer took
//! with and without them, and for each server how long after a move's answer
//! its event reached the streams there (p50, p99, max) and how many events were
//! lost.

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpSocket;

use super::script::{SCRIPT, Seated};
use super::stats::percentile;
use super::{Client, Server};

/// The most streams one address holds open: the server's default.
const PER_ADDRESS: usize = 32;

/// The most events a game's stream carries in this run: its seats and moves.
const MOST_EVENTS: usize = 32;

/// Plays a game watched by `spectators` streams spread over `servers`.
pub fn run(servers: &[&Server], spectators: usize) {
    let quiet = play(servers[0], None);
    println!(
        "a game without spectators: move answers p50 {} ms, max {} ms",
        millis(&quiet.answers, 50.0),
        millis(&quiet.answers, 100.0)
    );
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    let idle: Vec<u64> = servers.iter().map(|server| server.memory().1).collect();
    let watched = play(servers[0], Some((servers, spectators, &runtime)));
    let Some(streams) = watched.streams else { return };
    for (index, idle) in idle.iter().enumerate() {
        let before = *idle as f64 / 1024.0;
        let after = streams.memory[index] as f64 / 1024.0;
        let count = streams.count_on(index);
        println!(
            "server {index}: {count} streams, RSS {before:.0} MiB before, {after:.0} MiB with them open ({:.1} KiB a stream)",
            (after - before) * 1024.0 / count as f64,
        );
    }
    let refusals: usize = streams.seen.iter().map(|stream| stream.refusals.load(Ordering::Relaxed)).sum();
    println!("streams opened in {:.1} s, after {refusals} refusals (503) tried again", streams.opened_in.as_secs_f64());
    println!(
        "with {spectators} spectators: move answers p50 {} ms, max {} ms",
        millis(&watched.answers, 50.0),
        millis(&watched.answers, 100.0)
    );
    for index in 0..servers.len() {
        let mut delays = Vec::new();
        let mut lost = 0;
        for stream in streams.seen.iter().filter(|stream| stream.server == index) {
            let seen = stream.events.lock().unwrap();
            for &(version, answered) in &watched.moves {
                match seen.iter().find(|&&(seq, _)| seq == version) {
                    Some(&(_, at)) => delays.push(at.saturating_duration_since(answered)),
                    None => lost += 1,
                }
            }
        }
        delays.sort_unstable();
        println!(
            "server {index}: {} events delivered after the move's answer in p50 {} ms, p99 {} ms, max {} ms; lost {lost}",
            delays.len(),
            millis(&delays, 50.0),
            millis(&delays, 99.0),
            millis(&delays, 100.0)
        );
    }
}

fn millis(sorted: &[Duration], at: f64) -> String {
    if sorted.is_empty() {
        return "-".into();
    }
    format!("{:.1}", percentile(sorted, at / 100.0).as_secs_f64() * 1000.0)
}

/// A game played, and what its spectators saw.
struct Played {
    /// How long each move's answer took, sorted.
    answers: Vec<Duration>,
    /// Each move's version, and when its answer arrived.
    moves: Vec<(i64, Instant)>,
    streams: Option<Streams>,
}

/// Streams opened on a game.
struct Streams {
    seen: Vec<Arc<Stream>>,
    opened_in: Duration,
    /// Each server's resident memory with the streams open, in KiB.
    memory: Vec<u64>,
}

impl Streams {
    fn count_on(&self, server: usize) -> usize {
        self.seen.iter().filter(|stream| stream.server == server).count()
    }
}

/// One stream: its server, and each event id it read, with when.
struct Stream {
    server: usize,
    events: std::sync::Mutex<Vec<(i64, Instant)>>,
    /// How many times the server refused to open it (503), before it opened.
    refusals: AtomicUsize,
}

/// Creates a game, joins it, opens the streams `watch` asks for, then plays
/// the script with a pause after each move until every stream has its event.
fn play(server: &Server, watch: Option<(&[&Server], usize, &tokio::runtime::Runtime)>) -> Played {
    let mut client = Client::connect(server.address);
    let created: Seated =
        serde_json::from_slice(client.send("POST", "/api/v1/games", None, Some(r#"{"variant":"measurement"}"#)).1)
            .unwrap();
    let id = created.game.id;
    let joined: Seated =
        serde_json::from_slice(client.send("POST", &format!("/api/v1/games/{id}/join"), None, Some("{}")).1).unwrap();
    let tokens = [created.seat.token, joined.seat.token];
    // Each stream counts in `reached[seq]` the events it read.
    let reached: Arc<Vec<AtomicUsize>> = Arc::new((0..MOST_EVENTS).map(|_| AtomicUsize::new(0)).collect());
    let streams = watch.map(|(servers, spectators, runtime)| {
        let started = Instant::now();
        let seen: Vec<Arc<Stream>> = (0..spectators)
            .map(|index| {
                let stream = Arc::new(Stream {
                    server: index % servers.len(),
                    events: Default::default(),
                    refusals: AtomicUsize::new(0),
                });
                let from = Ipv4Addr::from(
                    u32::from(Ipv4Addr::new(127, 1, 0, 1)) + u32::try_from(index / PER_ADDRESS).unwrap(),
                );
                let (address, stream_, reached) =
                    (servers[stream.server].address, Arc::clone(&stream), Arc::clone(&reached));
                runtime.spawn(async move {
                    if let Err(error) = follow(address, from, id, &stream_, &reached).await {
                        eprintln!("a stream from {from} failed: {error}");
                    }
                });
                stream
            })
            .collect();
        wait_for(&reached, 2, spectators, Duration::from_secs(120));
        let opened_in = started.elapsed();
        std::thread::sleep(Duration::from_secs(1));
        Streams { seen, opened_in, memory: servers.iter().map(|server| server.memory().1).collect() }
    });
    let watchers = streams.as_ref().map_or(0, |streams| streams.seen.len());
    let mut answers = Vec::new();
    let mut moves = Vec::new();
    for (number, squares) in SCRIPT.iter().enumerate() {
        let body = format!("{{\"squares\": [{}, {}]}}", squares[0], squares[1]);
        // A connection for each move: waiting for the streams may take longer
        // than the server keeps an idle connection.
        let mut client = Client::connect(server.address);
        let sent = Instant::now();
        let (status, answer) =
            client.send("POST", &format!("/api/v1/games/{id}/moves"), Some(&tokens[number % 2]), Some(&body));
        let answered = Instant::now();
        assert_eq!(status, 201, "{}", String::from_utf8_lossy(answer));
        let version = serde_json::from_slice::<serde_json::Value>(answer).unwrap()["version"].as_i64().unwrap();
        answers.push(answered - sent);
        moves.push((version, answered));
        wait_for(&reached, version, watchers, Duration::from_secs(30));
        std::thread::sleep(Duration::from_millis(100));
    }
    answers.sort_unstable();
    Played { answers, moves, streams }
}

/// Waits until `count` streams read event `seq`, or `most` passed.
fn wait_for(reached: &[AtomicUsize], seq: i64, count: usize, most: Duration) {
    let started = Instant::now();
    let reached = &reached[usize::try_from(seq).unwrap()];
    while reached.load(Ordering::Relaxed) < count && started.elapsed() < most {
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Reads game `id`'s stream on `server` from address `from`, noting when each
/// event id arrives, until the server closes it. A stream refused with 503 (the
/// server's database connections all busy and as many requests waiting as it
/// lets wait, while thousands of streams open at once) is opened again after
/// its `Retry-After`, as a browser's `EventSource` does.
async fn follow(
    server: SocketAddr,
    from: Ipv4Addr,
    id: i64,
    stream: &Stream,
    reached: &[AtomicUsize],
) -> std::io::Result<()> {
    let (mut buffer, mut chunk) = (Vec::new(), vec![0; 64 * 1024]);
    let mut connection = loop {
        let socket = TcpSocket::new_v4()?;
        socket.bind(SocketAddr::from((from, 0)))?;
        let mut connection = socket.connect(server).await?;
        let request =
            format!("GET /api/v1/games/{id}/events HTTP/1.1\r\nHost: load\r\nAccept: text/event-stream\r\n\r\n");
        connection.write_all(request.as_bytes()).await?;
        let read = connection.read(&mut chunk).await?;
        if chunk[..read].starts_with(b"HTTP/1.1 200") {
            buffer.extend_from_slice(&chunk[..read]);
            break connection;
        }
        if !chunk[..read].starts_with(b"HTTP/1.1 503") {
            let head = String::from_utf8_lossy(&chunk[..read.min(200)]).into_owned();
            return Err(std::io::Error::other(format!("refused: {head}")));
        }
        stream.refusals.fetch_add(1, Ordering::Relaxed);
        tokio::time::sleep(Duration::from_secs(2)).await;
    };
    loop {
        let at = Instant::now();
        let mut start = 0;
        while let Some(end) = buffer[start..].iter().position(|&byte| byte == b'\n') {
            if let Some(seq) = buffer[start..start + end].strip_prefix(b"id: ") {
                let seq: i64 = std::str::from_utf8(seq).unwrap().trim().parse().unwrap();
                stream.events.lock().unwrap().push((seq, at));
                if let Some(count) = reached.get(usize::try_from(seq).unwrap()) {
                    count.fetch_add(1, Ordering::Relaxed);
                }
            }
            start += end + 1;
        }
        buffer.drain(..start);
        let read = connection.read(&mut chunk).await?;
        if read == 0 {
            return Ok(());
        }
        buffer.extend_from_slice(&chunk[..read]);
    }
}
