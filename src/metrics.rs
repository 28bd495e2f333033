//! What the server counts and times, for Prometheus to scrape at `GET /metrics`:
//! the names of its metrics, what each means, and the one recorder of the process
//! that the `metrics` crate's macros feed wherever something happens.

use std::net::SocketAddr;
use std::sync::{LazyLock, OnceLock};
use std::time::Duration;

use ::metrics::{Counter, Histogram, counter, describe_counter, describe_gauge, describe_histogram, histogram};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};

use crate::engine::Variant;

/// Requests answered: `method`, `route` (the route's template, such as
/// `/api/v1/games/{id}`, or `unmatched`) and `status`.
pub(crate) const HTTP_REQUESTS: &str = "qttt_http_requests_total";
/// Seconds from a request's arrival to its answer's head: `method`, `route`.
pub(crate) const HTTP_REQUEST_SECONDS: &str = "qttt_http_request_duration_seconds";
/// Games created: `variant`.
pub(crate) const GAMES_CREATED: &str = "qttt_games_created_total";
/// Games that ended on this instance: `variant` and `reason` (`lines`,
/// `full_board`, `resignation`, `timeout`, `aborted`), as a game's `end` says.
pub(crate) const GAMES_FINISHED: &str = "qttt_games_finished_total";
/// Live event streams open.
pub(crate) const LIVE_WATCHERS: &str = "qttt_live_watchers";
/// Seconds from a write's call to its answer, its waits included.
pub(crate) const STORE_WRITE_SECONDS: &str = "qttt_store_write_duration_seconds";
/// Seconds the store's work waits its turn: a write for SQLite's writer, any
/// operation for a PostgreSQL connection.
pub(crate) const STORE_QUEUE_SECONDS: &str = "qttt_store_queue_wait_seconds";
/// Writes committed in one transaction: SQLite's units of work, PostgreSQL's batched writes.
pub(crate) const STORE_BATCH_WRITES: &str = "qttt_store_commit_batch_writes";
/// Bytes of the SQLite file held in memory (`SQLITE_RESIDENT_MIB`).
pub(crate) const SQLITE_RESIDENT_BYTES: &str = "qttt_sqlite_resident_bytes";
/// The database's failures: `kind` (`unavailable`, `conflict`, `full`,
/// `corrupt`, `other`).
pub(crate) const DATABASE_ERRORS: &str = "qttt_database_errors_total";
/// Seconds a bot thinks for one answer: `level` (`random`, `parasite`, `perfect`).
pub(crate) const BOT_THINKING_SECONDS: &str = "qttt_bot_thinking_seconds";

/// The store's histograms, which every write records. A macro looks its metric
/// up by name and labels each time it runs, at a cost a write should not pay: a
/// handle is registered once, with the recorder installed when it is first used
/// (the server installs it before it opens the store).
pub(crate) static STORE_WRITES: LazyLock<Histogram> = LazyLock::new(|| histogram!(STORE_WRITE_SECONDS));
/// See [`STORE_WRITES`].
pub(crate) static STORE_QUEUE: LazyLock<Histogram> = LazyLock::new(|| histogram!(STORE_QUEUE_SECONDS));
/// See [`STORE_WRITES`].
pub(crate) static STORE_BATCHES: LazyLock<Histogram> = LazyLock::new(|| histogram!(STORE_BATCH_WRITES));

/// The count of the games created in `variant`, a handle as [`STORE_WRITES`] is:
/// the macro's look-up cost a creation 1 us.
pub(crate) fn games_created(variant: Variant) -> &'static Counter {
    static BY_VARIANT: LazyLock<[Counter; 2]> =
        LazyLock::new(|| Variant::ALL.map(|variant| counter!(GAMES_CREATED, "variant" => variant.code())));
    let at = Variant::ALL.iter().position(|&each| each == variant).expect("every variant is in ALL");
    &BY_VARIANT[at]
}

/// Where the metrics are served: `METRICS` and `METRICS_ADDR`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetricsAt {
    /// Nowhere; nothing is counted.
    Off,
    /// At `/metrics` on the server's own port (the default).
    ServerPort,
    /// At `/metrics` on an address of its own.
    Address(SocketAddr),
}

/// Seconds, from a tenth of a millisecond to ten seconds.
const SECONDS_BUCKETS: [f64; 13] =
    [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1.0, 10.0];

/// Writes in a commit, up to the most the SQLite writer commits together (64).
const BATCH_BUCKETS: [f64; 7] = [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0];

/// How often the histograms' samples are folded into their buckets.
const UPKEEP_EVERY: Duration = Duration::from_secs(5);

/// The process's metrics, read from the operating system at each scrape.
static PROCESS: OnceLock<metrics_process::Collector> = OnceLock::new();

/// The recorder of the process: installed by the first server that serves
/// metrics, shared by any other in the same process (as in tests).
static RECORDER: OnceLock<PrometheusHandle> = OnceLock::new();

/// The process's recorder, installed on first use.
pub fn recorder() -> PrometheusHandle {
    RECORDER
        .get_or_init(|| {
            let handle = PrometheusBuilder::new()
                .set_buckets_for_metric(Matcher::Suffix("_seconds".into()), &SECONDS_BUCKETS)
                .and_then(|builder| {
                    builder.set_buckets_for_metric(Matcher::Full(STORE_BATCH_WRITES.into()), &BATCH_BUCKETS)
                })
                .and_then(PrometheusBuilder::install_recorder)
                .expect("the buckets are valid and nothing else installs a recorder");
            describe();
            PROCESS.get_or_init(metrics_process::Collector::default).describe();
            // Samples wait in each histogram until folded into its buckets.
            let upkept = handle.clone();
            std::thread::Builder::new()
                .name("qttt-metrics".into())
                .spawn(move || {
                    loop {
                        std::thread::sleep(UPKEEP_EVERY);
                        upkept.run_upkeep();
                    }
                })
                .expect("a thread starts");
            handle
        })
        .clone()
}

/// Every metric, in the Prometheus text format, the process's own figures read now.
pub(crate) fn render(recorder: &PrometheusHandle) -> String {
    if let Some(process) = PROCESS.get() {
        process.collect();
    }
    recorder.render()
}

fn describe() {
    describe_counter!(HTTP_REQUESTS, "HTTP requests answered, by method, route template and status.");
    describe_histogram!(HTTP_REQUEST_SECONDS, "Seconds from a request's arrival to its answer, by method and route.");
    describe_counter!(GAMES_CREATED, "Games created, by variant.");
    describe_counter!(GAMES_FINISHED, "Games that ended on this instance, by variant and how they ended.");
    describe_gauge!(LIVE_WATCHERS, "Live event streams open.");
    describe_histogram!(STORE_WRITE_SECONDS, "Seconds from a write's call to its answer, its waits included.");
    describe_histogram!(STORE_QUEUE_SECONDS, "Seconds a write waited for SQLite's writer, or work for a connection.");
    describe_histogram!(STORE_BATCH_WRITES, "Writes committed in one transaction.");
    describe_gauge!(SQLITE_RESIDENT_BYTES, "Bytes of the SQLite file held in memory, mapped into the server.");
    describe_counter!(DATABASE_ERRORS, "The database's failures, by kind.");
    describe_histogram!(BOT_THINKING_SECONDS, "Seconds a bot thought for one answer, by level.");
}
