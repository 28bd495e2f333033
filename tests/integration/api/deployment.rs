//! The deployment of `deploy/`: nginx with its configuration (only the addresses
//! filled in) in front of two instances on one PostgreSQL database, played
//! through nginx alone. It needs nginx (`QTTT_TEST_NGINX`, the binary) and
//! PostgreSQL (`QTTT_TEST_POSTGRES`): see `.ci/run`.

use std::net::{IpAddr, SocketAddr, TcpListener};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;

use super::events::events_through;
use super::helpers::{Client, Response, TestDatabase, goffs_draw, ready_within};
use super::operations::{scrape, value, whole};
use super::process::Process;

/// Games each client address may create at once on each instance. One more
/// comes back each minute: less than one in the test's time.
const CREATE_RATE_BURST: usize = 3;

/// The creations each client tries: enough for every instance to refuse it.
const ATTEMPTS: usize = 20;

/// How long a live stream through nginx stays quiet, and must stay open.
const QUIET: Duration = Duration::from_secs(20);

/// nginx, as a process of its own, serving `deploy/nginx.conf` on `address`.
struct Nginx {
    child: Child,
    address: SocketAddr,
    folder: tempfile::TempDir,
}

impl Nginx {
    /// nginx with `deploy/nginx.conf`, its instances `upstreams` and its port a
    /// free one on 127.0.0.1: the configuration's only changes.
    fn start(binary: &str, upstreams: &[SocketAddr]) -> Nginx {
        let folder = tempfile::tempdir().unwrap();
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let address = SocketAddr::from(([127, 0, 0, 1], port));
        let deployed =
            std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy/nginx.conf")).unwrap();
        let servers: String = upstreams.iter().map(|upstream| format!("    server {upstream};\n")).collect();
        let access_log = folder.path().join("qttt-access.log");
        let filled = deployed
            .replace("    server qttt-1:8000;\n    server qttt-2:8000;\n", &servers)
            .replace("listen 80;", &format!("listen {address};"))
            .replace("/var/log/nginx/access.log", &access_log.display().to_string());
        assert_ne!(filled.matches(&servers).count(), 0, "deploy/nginx.conf names its upstreams as the test expects");
        assert!(filled.contains(&format!("listen {address};")), "deploy/nginx.conf listens as the test expects");
        assert!(filled.contains(&access_log.display().to_string()), "deploy/nginx.conf logs as the test expects");
        std::fs::write(folder.path().join("qttt.conf"), filled).unwrap();
        // What the official image's own nginx.conf holds around conf.d, in this folder.
        let main = format!(
            "daemon off;\nworker_processes 2;\nerror_log {0}/error.log warn;\npid {0}/nginx.pid;\n\
             events {{ worker_connections 1024; }}\n\
             http {{\n  access_log {0}/access.log;\n  client_body_temp_path {0}/body;\n  proxy_temp_path {0}/proxy;\n  \
             fastcgi_temp_path {0}/fastcgi;\n  uwsgi_temp_path {0}/uwsgi;\n  scgi_temp_path {0}/scgi;\n  \
             include {0}/qttt.conf;\n}}\n",
            folder.path().display()
        );
        std::fs::write(folder.path().join("nginx.conf"), main).unwrap();
        let child = Command::new(binary)
            .arg("-p")
            .arg(folder.path())
            .arg("-c")
            .arg(folder.path().join("nginx.conf"))
            .stdout(Stdio::null())
            .spawn()
            .expect("nginx starts");
        let nginx = Nginx { child, address, folder };
        assert!(ready_within(address, Duration::from_secs(10)), "nginx never passed /readyz on");
        nginx
    }

    /// What the shipped configuration's access log holds so far.
    fn access_log(&self) -> String {
        std::fs::read_to_string(self.folder.path().join("qttt-access.log")).unwrap_or_default()
    }

    /// A client of nginx connecting from `from`, an address of the loopback.
    fn client(&self, from: &str) -> Client {
        Client { address: self.address, from: Some(from.parse::<IpAddr>().unwrap()) }
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        // SIGTERM: the master stops its workers first (SIGKILL would leave them on).
        let master = nix::unistd::Pid::from_raw(i32::try_from(self.child.id()).expect("a process id"));
        let _ = nix::sys::signal::kill(master, nix::sys::signal::Signal::SIGTERM);
        let _ = self.child.wait();
    }
}

fn token(answer: &Response) -> String {
    answer.json()["seat"]["token"].as_str().expect("a token").to_string()
}

/// How many requests of `method` on `route` answered `status` the instance at
/// `address` counted.
fn served(address: SocketAddr, method: &str, route: &str, status: &str) -> usize {
    let labels = [("method", method), ("route", route), ("status", status)];
    whole(value(&scrape(address), "qttt_http_requests_total", &labels).unwrap_or(0.0))
}

#[test]
#[ignore = "needs nginx and PostgreSQL: QTTT_TEST_NGINX, QTTT_TEST_POSTGRES (see .ci/run)"]
fn the_deployment_of_deploy_plays_whole_games_through_nginx_on_two_instances() {
    let nginx_binary = std::env::var("QTTT_TEST_NGINX").expect("set QTTT_TEST_NGINX to nginx's binary");
    let database = TestDatabase::new();
    assert!(matches!(database, TestDatabase::Postgres(_)), "set QTTT_TEST_POSTGRES to run this test");
    let burst = CREATE_RATE_BURST.to_string();
    let settings =
        [("TRUSTED_PROXIES", "127.0.0.1"), ("CREATE_RATE_LIMIT", "1"), ("CREATE_RATE_BURST", burst.as_str())];
    let instances: Vec<Process> =
        (0..2).map(|_| Process::start_logging(&database.url(), "error", Stdio::inherit(), &settings)).collect();
    let nginx = Nginx::start(&nginx_binary, &instances.iter().map(|instance| instance.address).collect::<Vec<_>>());
    let (alice, bob) = (nginx.client("127.0.0.2"), nginx.client("127.0.0.3"));

    // A game that waits, watched: its stream must outlast a quiet spell.
    let waiting = alice.create_game(json!({ "variant": "player_choice" }));
    assert_eq!(waiting.status, 201, "{}", waiting.body);
    let waiting_id = waiting.json()["game"]["id"].as_i64().unwrap();
    let mut quiet_watcher = bob.watch(waiting_id, None);
    let opened = Instant::now();
    events_through(&mut quiet_watcher, 1, 1);

    // A whole game, every request through nginx, watched through nginx.
    let created = alice.create_game(json!({ "variant": "player_choice" }));
    let id = created.json()["game"]["id"].as_i64().unwrap();
    let joined = bob.join(id);
    assert_eq!(joined.status, 201, "{}", joined.body);
    let (x, o) = (token(&created), token(&joined));
    let mut watcher = alice.watch(id, None);
    events_through(&mut watcher, 1, 2);
    let steps = goffs_draw(&x, &o);
    for (seq, step) in (3..).zip(&steps) {
        let answer = step.take(if seq % 2 == 0 { &alice } else { &bob }, id);
        assert_eq!(answer.status, 201, "step {seq}: {}", answer.body);
    }
    let last = 2 + i64::try_from(steps.len()).unwrap();
    let events = events_through(&mut watcher, 3, last);
    assert_eq!(events.last().unwrap().data["game"]["status"], "finished", "{:?}", events.last());
    // A stream opened as an EventSource is, with the seat's token in the
    // query: nginx logs its path, and never the token.
    let mut seated = alice.watch_at(&format!("/api/v1/games/{id}/events?token={x}"), &[]);
    events_through(&mut seated, 1, 1);
    drop(seated);
    // nginx writes a request's line once its connection closes.
    let stream_line = format!("GET /api/v1/games/{id}/events HTTP/1.1\" 200");
    let deadline = Instant::now() + Duration::from_secs(10);
    while !nginx.access_log().contains(&stream_line) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    let logged = nginx.access_log();
    assert!(logged.contains(&stream_line), "{logged}");
    assert!(!logged.contains(&x) && !logged.contains("token="), "a token in nginx's log: {logged}");

    // The quiet stream is still open after the quiet spell, and hears the join.
    std::thread::sleep(QUIET.saturating_sub(opened.elapsed()));
    assert!(opened.elapsed() >= QUIET);
    assert_eq!(alice.join(waiting_id).status, 201);
    let join = quiet_watcher.next_event(Duration::from_secs(5)).expect("the join, after 20 s of quiet");
    assert_eq!((join.id, join.kind.as_str()), (Some(2), "seat"));

    // Each instance counts each client address apart, whatever the client
    // writes into X-Forwarded-For: each may create CREATE_RATE_BURST rows on
    // each instance. Alice has created two games and taken a seat, Bob
    // taken a seat.
    let create_as = |client: &Client| {
        (0..ATTEMPTS)
            .filter(|attempt| {
                let forwarded = format!("198.51.100.{attempt}");
                let headers = [("Content-Type", "application/json"), ("X-Forwarded-For", forwarded.as_str())];
                client.request("POST", "/api/v1/games", &headers, Some("{}")).status == 201
            })
            .count()
    };
    let (by_alice, by_bob) = (create_as(&alice), create_as(&bob));
    assert_eq!((by_alice, by_bob), (2 * CREATE_RATE_BURST - 3, 2 * CREATE_RATE_BURST - 1));

    // Both instances served moves, and between them counted every request.
    let moves: Vec<usize> =
        instances.iter().map(|instance| served(instance.address, "POST", "/api/v1/games/{id}/moves", "2xx")).collect();
    assert!(moves.iter().all(|&count| count > 0), "moves land on both instances: {moves:?}");
    let placed = steps.iter().filter(|step| step.kind() == "move").count();
    assert_eq!(moves.iter().sum::<usize>(), placed);
    let counted = |status| -> usize {
        instances.iter().map(|instance| served(instance.address, "POST", "/api/v1/games", status)).sum()
    };
    assert_eq!(counted("2xx"), 2 + by_alice + by_bob);
    assert_eq!(counted("4xx"), 2 * ATTEMPTS - by_alice - by_bob);
    // nginx keeps the metrics to the inside.
    assert_eq!(alice.request("GET", "/metrics", &[], None).status, 404);
}
