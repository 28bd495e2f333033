//! Live streams through a database outage: thousands of watchers spread their
//! retries over it instead of trying all together, and each resumes with every
//! event once the database answers again.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::Barrier;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::json;

use super::helpers::{EventStream, TestDatabase};
use super::process::Process;

const GAMES: usize = 100;
const WATCHERS_PER_GAME: usize = 20;
const WATCHERS: usize = GAMES * WATCHERS_PER_GAME;

/// Watches game `id` from `address`: once its first `before` events have come,
/// counts itself `opened` and waits at `ready`, then reads until `all` events
/// have come (each wait a minute at most). Answers the ids of the events
/// received, in order.
fn watch(address: SocketAddr, id: i64, before: usize, all: usize, opened: &AtomicUsize, ready: &Barrier) -> Vec<i64> {
    let mut stream = EventStream::open(address, &format!("/api/v1/games/{id}/events"), &[]);
    let mut ids = Vec::new();
    let mut read_until = |count: usize, ids: &mut Vec<i64>| {
        let deadline = Instant::now() + Duration::from_secs(60);
        while ids.len() < count {
            match stream.next_event(deadline.saturating_duration_since(Instant::now())) {
                Some(event) => ids.extend(event.id),
                None => return,
            }
        }
    };
    read_until(before, &mut ids);
    opened.fetch_add(1, Ordering::SeqCst);
    ready.wait();
    read_until(all, &mut ids);
    ids
}

#[test]
#[ignore = "needs PostgreSQL: QTTT_TEST_POSTGRES (see .ci/run)"]
fn two_thousand_watchers_spread_their_retries_over_an_outage_and_each_resumes_with_every_event() {
    let maintenance = std::env::var("QTTT_TEST_POSTGRES").expect("QTTT_TEST_POSTGRES names a PostgreSQL server");
    let database = TestDatabase::on_postgres(&maintenance);
    let logs = tempfile::tempdir().unwrap();
    let log = logs.path().join("qttt.log");
    let settings = [("MAX_LIVE_STREAMS_PER_ADDRESS", "4000"), ("DATABASE_STATEMENT_TIMEOUT_MS", "500")];
    let level = "warn,qttt::api::events=debug";
    let server = Process::start_logging(&database.url(), level, std::fs::File::create(&log).unwrap().into(), &settings);
    let games: Vec<(i64, String)> = (0..GAMES)
        .map(|_| {
            let created =
                server.send("POST", "/api/v1/games", None, Some(json!({"variant": "player_choice"}))).unwrap();
            let created = created.json();
            let id = created["game"]["id"].as_i64().unwrap();
            assert_eq!(server.send("POST", &format!("/api/v1/games/{id}/join"), None, None).unwrap().status, 201);
            (id, created["seat"]["token"].as_str().unwrap().to_string())
        })
        .collect();

    let ready = Barrier::new(WATCHERS + 1);
    let opened = AtomicUsize::new(0);
    let (outage, received) = std::thread::scope(|scope| {
        // Opened a hundred at a time, as browsers spread their connections: a
        // thousand at once would be more than the connections' waiters.
        let mut watchers = Vec::new();
        for id in games.iter().flat_map(|(id, _)| std::iter::repeat_n(*id, WATCHERS_PER_GAME)) {
            let (ready, opened, address) = (&ready, &opened, server.address);
            let watcher = std::thread::Builder::new().stack_size(256 * 1024);
            watchers.push((id, watcher.spawn_scoped(scope, move || watch(address, id, 2, 3, opened, ready)).unwrap()));
            if watchers.len() % 100 == 0 {
                let until = Instant::now() + Duration::from_secs(30);
                while opened.load(Ordering::SeqCst) < watchers.len() && Instant::now() < until {
                    std::thread::sleep(Duration::from_millis(10));
                }
            }
        }
        ready.wait();
        // The outage: the games' tables locked, so that every read waits out its
        // statement timeout; the connection that hears other instances' notices
        // ended, so that on its return every watcher reads the log again.
        let started = Instant::now();
        let url = database.url();
        let lock = scope.spawn(move || {
            crate::postgres::execute(
                &url,
                "BEGIN; LOCK TABLE games, log_entries IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(12); COMMIT",
            );
        });
        std::thread::sleep(Duration::from_millis(500));
        database.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
             WHERE datname = current_database() AND query LIKE 'LISTEN%'",
        );
        lock.join().unwrap();
        let outage = started.elapsed();
        // Once it is over, a move in every game: as a client does, tried again
        // after a 503 while the watchers catch up.
        for (id, x) in &games {
            let path = format!("/api/v1/games/{id}/moves");
            let until = Instant::now() + Duration::from_secs(30);
            let moved =
                std::iter::repeat_with(|| server.send("POST", &path, Some(x), Some(json!({"squares": [0, 1]}))))
                    .map(Option::unwrap)
                    .inspect(|moved| {
                        if moved.status == 503 {
                            eprintln!("{}", moved.body)
                        }
                    })
                    .find(|moved| moved.status != 503 || Instant::now() > until)
                    .unwrap();
            assert_eq!(moved.status, 201, "{}", moved.body);
        }
        let received: Vec<(i64, Vec<i64>)> =
            watchers.into_iter().map(|(id, watcher)| (id, watcher.join().unwrap())).collect();
        (outage, received)
    });

    let missing: Vec<_> = received.iter().filter(|(_, ids)| ids != &[1, 2, 3]).collect();
    assert!(missing.is_empty(), "{} watchers missed events, such as {:?}", missing.len(), missing.first());

    // The failed reads, by the second of the log they were logged in.
    let log = std::fs::read_to_string(log).unwrap();
    let mut per_second: BTreeMap<&str, usize> = BTreeMap::new();
    for line in log.lines().filter(|line| line.contains("watcher will read its log again")) {
        *per_second.entry(line.get(1..20).unwrap_or_default()).or_default() += 1;
    }
    let retries: usize = per_second.values().sum();
    let peak = per_second.values().copied().max().unwrap_or(0);
    println!(
        "{WATCHERS} watchers, an outage of {outage:?}: {retries} failed reads in {} seconds, at most {peak} in one",
        per_second.len()
    );
    assert!(retries >= WATCHERS, "every watcher tried during the outage: {retries} failed reads");
    assert!(per_second.len() >= 8, "the retries spread over the outage: {per_second:?}");
    // Trying together every second, they would fail all at once, every second.
    assert!(peak <= WATCHERS * 3 / 5, "at most three in five watchers try in any one second: {per_second:?}");
}
