//! What an operator sees: the metrics, each request's id, the log for machines,
//! and the client behind a trusted proxy. Each server is a process of its own
//! (the metrics' recorder is one per process), on SQLite, whose store's figures
//! the metrics test counts exactly (deployment.rs has PostgreSQL's).

use std::net::SocketAddr;
use std::process::Stdio;
use std::time::{Duration, Instant};

use openmetrics_parser::prometheus::parse_prometheus;
use openmetrics_parser::{MetricsExposition, PrometheusType, PrometheusValue, Sample};
use serde_json::{Value, json};

use super::helpers::{EventStream, TestDatabase, try_request};
use super::process::Process;

/// A server on a SQLite file of its own with `vars`, logging at info as JSON
/// lines into a file.
struct Logged {
    server: Process,
    log: std::path::PathBuf,
    _database: TestDatabase,
    _folder: tempfile::TempDir,
}

fn logging_json(vars: &[(&str, &str)]) -> Logged {
    let (database, folder) = (TestDatabase::sqlite(), tempfile::tempdir().unwrap());
    let log = folder.path().join("qttt.log");
    let mut settings = vec![("LOG_FORMAT", "json"), ("RANDOM_SEED", "1")];
    settings.extend_from_slice(vars);
    let server =
        Process::start_logging(&database.url(), "info", std::fs::File::create(&log).unwrap().into(), &settings);
    Logged { server, log, _database: database, _folder: folder }
}

/// The log's JSON lines, once the line of the request `id` is among them.
fn log_lines_with(log: &std::path::Path, id: &str) -> Vec<Value> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let lines: Vec<Value> = std::fs::read_to_string(log)
            .unwrap()
            .lines()
            .map(|line| serde_json::from_str(line).unwrap_or_else(|_| panic!("a JSON line: {line}")))
            .collect();
        if lines.iter().any(|line| line["request_id"] == id) || Instant::now() > deadline {
            return lines;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

pub(super) type Scrape = MetricsExposition<PrometheusType, PrometheusValue>;

/// `GET /metrics` of the server at `address`, parsed by a Prometheus text-format parser.
pub(super) fn scrape(address: SocketAddr) -> Scrape {
    let answer = try_request(address, "GET", "/metrics", &[], None).unwrap();
    assert_eq!(answer.status, 200);
    assert!(answer.header("content-type").unwrap().starts_with("text/plain; version=0.0.4"));
    parse_prometheus(&answer.body).unwrap_or_else(|error| panic!("{error:?} in the Prometheus text\n{}", answer.body))
}

/// The sample of family `name` whose labels are `labels`, exactly.
fn sample<'a>(scrape: &'a Scrape, name: &str, labels: &[(&str, &str)]) -> Option<&'a Sample<PrometheusValue>> {
    scrape.families.get(name)?.iter_samples().find(|sample| {
        let set = sample.get_labelset().expect("a sample's labels");
        set.iter().count() == labels.len()
            && labels.iter().all(|(label, value)| set.get_label_value(label) == Some(*value))
    })
}

/// The value of the counter or gauge `name` with `labels`; none when there is
/// no such sample.
pub(super) fn value(scrape: &Scrape, name: &str, labels: &[(&str, &str)]) -> Option<f64> {
    sample(scrape, name, labels).map(|sample| match &sample.value {
        PrometheusValue::Counter(counter) => counter.value.as_f64(),
        PrometheusValue::Gauge(value) | PrometheusValue::Unknown(value) => value.as_f64(),
        other => panic!("{name} is no single number: {other:?}"),
    })
}

/// The value of the unlabelled metric `name` once it is `wanted`, scraped again
/// and again for up to 10 s; `what` says what failed when it never is.
fn value_once(address: SocketAddr, name: &str, wanted: impl Fn(f64) -> bool, what: &str) -> f64 {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        match value(&scrape(address), name, &[]) {
            Some(found) if wanted(found) => return found,
            _ => assert!(Instant::now() < deadline, "{what}"),
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A counter's value, which counts: a whole number.
pub(super) fn whole(value: f64) -> usize {
    assert!(value >= 0.0 && value.fract() == 0.0, "{value} is no count");
    value.to_string().parse().expect("a whole number")
}

/// How many samples the histogram `name` with `labels` holds.
fn count(scrape: &Scrape, name: &str, labels: &[(&str, &str)]) -> u64 {
    match sample(scrape, name, labels).map(|sample| &sample.value) {
        Some(PrometheusValue::Histogram(histogram)) => histogram.count.expect("a histogram's count"),
        other => panic!("{name} with {labels:?} is no histogram: {other:?}"),
    }
}

#[test]
fn metrics_count_exactly_what_the_server_served() {
    // Without the deletion of unjoined games, the writer's one unit of work
    // every minute that these counts would have to allow for.
    let server = &logging_json(&[("UNJOINED_GAME_RETENTION_HOURS", "0")]).server;
    let post = |path: &str, token: Option<&str>, body: Value| {
        let answer = server.send("POST", path, token, Some(body)).unwrap();
        assert!(answer.status < 300, "{path}: {}", answer.body);
        answer.json()
    };
    // A game between two people: created, joined, a move, a resignation.
    let created = post("/api/v1/games", None, json!({ "variant": "player_choice" }));
    let id = created["game"]["id"].as_i64().unwrap();
    let x = created["seat"]["token"].as_str().unwrap().to_string();
    post(&format!("/api/v1/games/{id}/join"), None, json!({}));
    post(&format!("/api/v1/games/{id}/moves"), Some(&x), json!({ "squares": [0, 1] }));
    let mut watcher = EventStream::open(server.address, &format!("/api/v1/games/{id}/events"), &[]);
    assert!(watcher.next_event(Duration::from_secs(5)).is_some(), "the stream is open");
    let open = scrape(server.address);
    assert_eq!(value(&open, "qttt_live_watchers", &[]), Some(1.0));
    post(&format!("/api/v1/games/{id}/resign"), Some(&x), json!({}));
    // A game against the random bot: created, and one move that it answers.
    let against_bot = post("/api/v1/games", None, json!({ "variant": "measurement", "opponent": { "bot": "random" } }));
    let (bot_game, token) =
        (against_bot["game"]["id"].as_i64().unwrap(), against_bot["seat"]["token"].as_str().unwrap());
    post(&format!("/api/v1/games/{bot_game}/moves"), Some(token), json!({ "squares": [4, 8] }));
    for _ in 0..2 {
        assert_eq!(server.send("GET", "/api/v1/games/999", None, None).unwrap().status, 404);
    }
    drop(watcher);

    let first = scrape(server.address);
    let requests = |method, route, status| {
        value(&first, "qttt_http_requests_total", &[("method", method), ("route", route), ("status", status)])
    };
    assert_eq!(requests("POST", "/api/v1/games", "2xx"), Some(2.0));
    assert_eq!(requests("POST", "/api/v1/games/{id}/join", "2xx"), Some(1.0));
    assert_eq!(requests("POST", "/api/v1/games/{id}/moves", "2xx"), Some(2.0));
    assert_eq!(requests("POST", "/api/v1/games/{id}/resign", "2xx"), Some(1.0));
    assert_eq!(requests("GET", "/api/v1/games/{id}", "4xx"), Some(2.0));
    assert_eq!(requests("GET", "/api/v1/games/{id}/events", "2xx"), Some(1.0));
    assert_eq!(requests("GET", "/metrics", "2xx"), Some(1.0), "the scrape before this one");
    let duration = &[("method", "GET"), ("route", "/api/v1/games/{id}")];
    assert_eq!(count(&first, "qttt_http_request_duration_seconds", duration), 2);
    let created = |variant| value(&first, "qttt_games_created_total", &[("variant", variant)]);
    assert_eq!((created("player_choice"), created("measurement")), (Some(1.0), Some(1.0)));
    let finished = &[("variant", "player_choice"), ("reason", "resignation")];
    assert_eq!(value(&first, "qttt_games_finished_total", finished), Some(1.0));
    assert_eq!(count(&first, "qttt_bot_thinking_seconds", &[("level", "random")]), 1);
    // The puzzles that ship with the server, added at start, a write for each
    // variant; two creations, a join, two moves (the bot's answer written with
    // its move), a resignation: eight writes, one after the other. The
    // writer's work is one more: the move against the bot was decided in a
    // unit of work that wrote nothing, and written after the bot's answer in
    // another.
    assert_eq!(count(&first, "qttt_store_write_duration_seconds", &[]), 8);
    assert_eq!(count(&first, "qttt_store_queue_wait_seconds", &[]), 9);
    assert_eq!(count(&first, "qttt_store_commit_batch_writes", &[]), 9);
    assert_eq!(value(&first, "qttt_database_errors_total", &[("kind", "conflict")]), None, "no failure");
    // The stream closed when its client went.
    value_once(server.address, "qttt_live_watchers", |watchers| watchers == 0.0, "the closed stream is counted out");
    // The SQLite file is held in memory, in whole pages, once the checkpointer's
    // first turn has come.
    let resident = value_once(server.address, "qttt_sqlite_resident_bytes", |bytes| bytes > 0.0, "the file is held");
    assert_eq!(resident % 4096.0, 0.0, "{resident} bytes");
    assert!(value(&first, "process_resident_memory_bytes", &[]).unwrap() > 1e6);
    assert!(value(&first, "process_open_fds", &[]).unwrap() > 3.0);
}

#[test]
fn a_request_is_followed_by_its_id_through_header_problem_and_log() {
    let logged = logging_json(&[]);
    let (server, log) = (&logged.server, &logged.log);
    let asked =
        |headers: &[(&str, &str)]| try_request(server.address, "GET", "/api/v1/games/999", headers, None).unwrap();
    let answer = asked(&[("X-Request-Id", "abc-123")]);
    assert_eq!(answer.header("x-request-id"), Some("abc-123"));
    assert_eq!(answer.assert_problem(404, "not_found")["instance"], "abc-123");
    let lines = log_lines_with(log, "abc-123");
    let line = lines.iter().find(|line| line["request_id"] == "abc-123").expect("the request's log line");
    assert_eq!(line["target"], "qttt::access");
    assert_eq!((line["method"].as_str(), line["route"].as_str()), (Some("GET"), Some("/api/v1/games/{id}")));
    assert_eq!((line["status"].as_u64(), line["client"].as_str()), (Some(404), Some("127.0.0.1")));
    assert!(line["duration_ms"].as_f64().unwrap() > 0.0);
    assert_eq!(line["level"], "INFO");
    assert!(line["time"].as_str().unwrap().starts_with("20"), "{line}");
    // An id that is no sane token is replaced by one of the server's.
    let made_up = asked(&[("X-Request-Id", "no spaces, please")]);
    let id = made_up.header("x-request-id").unwrap().to_string();
    assert_eq!(id.len(), 32);
    assert!(id.bytes().all(|byte| byte.is_ascii_hexdigit()));
    assert_eq!(made_up.json()["instance"], id.as_str());
    let unnamed = asked(&[]);
    assert_ne!(unnamed.header("x-request-id"), Some(id.as_str()), "each request an id of its own");
}

#[test]
fn the_log_names_the_client_a_trusted_proxy_names_and_no_other() {
    let forwarded = [("X-Forwarded-For", "198.51.100.7")];
    for (trusted, client) in [(None, "127.0.0.1"), (Some("127.0.0.0/8"), "198.51.100.7")] {
        let vars: Vec<(&str, &str)> = trusted.map(|proxies| ("TRUSTED_PROXIES", proxies)).into_iter().collect();
        let logged = logging_json(&vars);
        let (server, log) = (&logged.server, &logged.log);
        let asked = [forwarded[0], ("X-Request-Id", "proxied")];
        assert_eq!(try_request(server.address, "GET", "/healthz", &asked, None).unwrap().status, 200);
        let lines = log_lines_with(log, "proxied");
        let line = lines.iter().find(|line| line["request_id"] == "proxied").expect("the request's log line");
        assert_eq!(line["client"], client, "trusted proxies: {trusted:?}");
    }
}

#[test]
fn metrics_can_be_served_apart_or_not_at_all() {
    let (database, other) = (TestDatabase::sqlite(), TestDatabase::sqlite());
    // A port found free may be taken by another test's server before this one
    // listens on it (it then refuses to start): another is tried.
    let (server, apart) = (0..3)
        .find_map(|_| {
            let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
            let apart = format!("127.0.0.1:{port}");
            let vars = [("METRICS_ADDR", apart.as_str())];
            Process::try_start_logging(&database.url(), "error", Stdio::inherit(), &vars).map(|server| (server, apart))
        })
        .expect("the server became ready on one of three ports");
    assert_eq!(server.send("GET", "/metrics", None, None).unwrap().status, 404, "not on the API's port");
    let scraped = try_request(apart.parse().unwrap(), "GET", "/metrics", &[], None).unwrap();
    assert_eq!(scraped.status, 200);
    assert!(scraped.body.contains("qttt_http_requests_total{method=\"GET\",route=\"/readyz\",status=\"2xx\"}"));
    let off = Process::start_logging(&other.url(), "error", Stdio::inherit(), &[("METRICS", "off")]);
    assert_eq!(off.send("GET", "/metrics", None, None).unwrap().status, 404);
}

/// The most request series a scrape holds, as README says: a counter for each
/// status class (2xx-5xx) of each method and route an answer can be labelled
/// with, and a histogram (13 buckets, the sum and the count) of each `GET` and
/// `POST` among them. The routes are the API's 43 operations on 41 paths (42
/// of them `GET` or `POST`, one `DELETE`), `GET /metrics`, Swagger UI's page,
/// its two redirects, the play page's three files and the redirect of `/` to
/// it, which answer any method (`GET`, `POST`, `OPTIONS` or `other`): 56 timed.
/// With the `DELETE`, a CORS preflight on each of those 49 routes, and
/// `unmatched` for the rest, 115 are counted.
const MOST_REQUEST_SERIES: usize = 115 * 4 + 56 * 16;

#[test]
fn metrics_hold_a_bounded_number_of_series_however_many_routes_methods_and_errors_are_tried() {
    let server = &logging_json(&[]).server;
    let created = server.send("POST", "/api/v1/games", None, Some(json!({}))).unwrap().json();
    let id = created["game"]["id"].as_i64().unwrap();
    let document: Value = server.send("GET", "/api-docs/openapi.json", None, None).unwrap().json();
    let mut paths: Vec<String> = document["paths"].as_object().unwrap().keys().cloned().collect();
    paths.extend(
        [
            "/metrics",
            "/swagger-ui/",
            "/swagger-ui",
            "/docs",
            "/",
            "/play",
            "/play/play.js",
            "/play/play.css",
            "/nothing/here",
            "/api/v1/nothing",
        ]
        .map(String::from),
    );
    let methods = ["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS", "TRACE", "BREW"];
    let mut sent = 0;
    for path in &paths {
        for game in [id.to_string(), "999".to_string(), "nonsense".to_string()] {
            let path = path.replace("{id}", &game);
            // A stream's GET would be open for as long as the game goes on.
            for method in methods.into_iter().filter(|&method| !(method == "GET" && path.ends_with("/events"))) {
                for headers in [
                    &[][..],
                    &[("Origin", "http://localhost:3000"), ("Access-Control-Request-Method", "POST")][..],
                    &[("Authorization", "Bearer made-up"), ("Content-Type", "application/json")][..],
                ] {
                    try_request(server.address, method, &path, headers, Some("{\"squares\": [0]}")).unwrap();
                    sent += 1;
                }
            }
        }
    }
    assert!(sent > 2000, "{sent}");
    let scraped = try_request(server.address, "GET", "/metrics", &[], None).unwrap().body;
    let series = |prefix: &str| scraped.lines().filter(|line| line.starts_with(prefix)).count();
    let requests = series("qttt_http_");
    assert!(requests <= MOST_REQUEST_SERIES, "{requests} request series:\n{scraped}");
    let statuses: std::collections::BTreeSet<&str> =
        scraped.lines().filter_map(|line| line.split("status=\"").nth(1)?.split('"').next()).collect();
    assert_eq!(statuses.into_iter().collect::<Vec<_>>(), ["2xx", "3xx", "4xx"], "statuses by class only");
    assert!(!scraped.contains("method=\"BREW\"") && !scraped.contains("/api/v1/nothing"), "{scraped}");
    println!(
        "{requests} request series, {} in all, {} bytes, after {sent} requests",
        series("qttt_") + series("process_"),
        scraped.len()
    );
}

#[test]
fn a_made_up_token_costs_the_writer_nothing() {
    let server = &logging_json(&[]).server;
    let created = server.send("POST", "/api/v1/games", None, Some(json!({}))).unwrap().json();
    let id = created["game"]["id"].as_i64().unwrap();
    server.send("POST", &format!("/api/v1/games/{id}/join"), None, Some(json!({}))).unwrap();
    let writer_work = || count(&scrape(server.address), "qttt_store_queue_wait_seconds", &[]);
    let before = writer_work();
    for path in ["resign", "abort", "rematch"] {
        let refused = server.send("POST", &format!("/api/v1/games/{id}/{path}"), Some("made-up"), Some(json!({})));
        refused.unwrap().assert_problem(403, "forbidden");
    }
    for _ in 0..20 {
        let refused = server.send(
            "POST",
            &format!("/api/v1/games/{id}/moves"),
            Some("made-up"),
            Some(json!({ "squares": [0, 1] })),
        );
        refused.unwrap().assert_problem(403, "forbidden");
    }
    assert_eq!(writer_work(), before, "no made-up token reached the writer");
}
