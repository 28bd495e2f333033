//! The CPU time a complete game costs the server's own code: the load tool's games
//! played through the whole application (routing, middleware, extractors, the
//! service, the SQLite store and its writer thread, views and JSON) in this
//! process, with no socket. The load tool measures the same games over HTTP,
//! where the kernel's share and the machine's other work hide a change of a few
//! percent; this shows it.
//!
//! The figure is the CPU time of the whole process, every thread, per round of
//! [`GAMES_AT_ONCE`] games: on a machine whose cores are all busy under load,
//! that, not the wall time, sets how many requests the server carries. It also
//! holds this benchmark's own part, making the requests and reading the two seat
//! answers of each game (6% of it in a profile), the same in every run.

use std::time::Duration;

use actix_http::Request;
use actix_web::body::MessageBody;
use actix_web::dev::{Service, ServiceResponse};
use actix_web::test;
use criterion::{Criterion, criterion_group, criterion_main};
use futures_util::future::join_all;
use nix::time::{ClockId, clock_gettime};
use qttt::config::Config;
use qttt::service::{GameService, ServiceOptions};
use qttt::store::{PoolSettings, SqliteSettings, Store};
use serde_json::json;

mod script;
use script::{SCRIPT, Seated};

/// The server's allocator, so that allocations cost what they cost there.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Games in play at once, as the load tool's 64 clients play them: the store's
/// writer then commits many requests' writes together, as under load.
const GAMES_AT_ONCE: usize = 64;

/// Sends `request`, with the seat `token` and the JSON `body` if given, and
/// checks that it succeeded.
async fn send<B: MessageBody>(
    app: &impl Service<Request, Response = ServiceResponse<B>, Error = actix_web::Error>,
    request: test::TestRequest,
    token: Option<&str>,
    body: Option<serde_json::Value>,
) -> ServiceResponse<B> {
    let request = match token {
        Some(token) => request.insert_header(("Authorization", format!("Bearer {token}"))),
        None => request,
    };
    let request = match body {
        Some(body) => request.set_json(body),
        None => request,
    };
    let answer = test::call_service(app, request.to_request()).await;
    assert!(answer.status().is_success(), "{} answered {}", answer.request().path(), answer.status());
    answer
}

/// A complete game of `variant`, both seats played from here.
async fn play_game<B: MessageBody>(
    app: &impl Service<Request, Response = ServiceResponse<B>, Error = actix_web::Error>,
    variant: &str,
) {
    let create = test::TestRequest::post().uri("/api/v1/games");
    let created: Seated =
        test::read_body_json(send(app, create, None, Some(json!({ "variant": variant }))).await).await;
    let (id, x) = (created.game.id, created.seat.token);
    let join = test::TestRequest::post().uri(&format!("/api/v1/games/{id}/join"));
    let joined: Seated = test::read_body_json(send(app, join, None, None).await).await;
    let o = joined.seat.token;
    let moves = format!("/api/v1/games/{id}/moves");
    for (squares, token) in SCRIPT.iter().zip([&x, &o].into_iter().cycle()) {
        send(app, test::TestRequest::post().uri(&moves), Some(token), Some(json!({ "squares": squares }))).await;
    }
    if variant == "player_choice" {
        let collapse = test::TestRequest::post().uri(&format!("/api/v1/games/{id}/collapse"));
        send(app, collapse, Some(&o), Some(script::collapse_body())).await;
    }
}

/// The CPU time every thread of this process has used so far.
fn process_cpu_time() -> Duration {
    clock_gettime(ClockId::CLOCK_PROCESS_CPUTIME_ID).expect("Linux has a process CPU clock").into()
}

fn complete_games(c: &mut Criterion) {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let url = format!("sqlite:{}", folder.path().join("bench.db").display());
    let system = actix_web::rt::System::new();
    let app = system.block_on(async {
        let store =
            Store::connect(&url, SqliteSettings::default(), PoolSettings::default()).await.expect("the database opens");
        let options = qttt::api::ApiOptions::of(&Config::from_lookup(|_| None).expect("the defaults are valid"));
        test::init_service(qttt::api::app(GameService::new(store, ServiceOptions::default()), options)).await
    });
    for variant in ["measurement", "player_choice"] {
        c.bench_function(&format!("CPU time of {GAMES_AT_ONCE} complete games at once ({variant})"), |b| {
            b.iter_custom(|rounds| {
                let started = process_cpu_time();
                for _ in 0..rounds {
                    system.block_on(join_all((0..GAMES_AT_ONCE).map(|_| play_game(&app, variant))));
                }
                process_cpu_time() - started
            })
        });
    }
    drop(app);
}

criterion_group!(benches, complete_games);
criterion_main!(benches);
