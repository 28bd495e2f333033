//! Several instances of the server on one PostgreSQL database, PostgreSQL going
//! away for a while, and the writes of many games sharing a statement. These need a PostgreSQL server: `QTTT_TEST_POSTGRES`
//! for the shared one, and `QTTT_TEST_POSTGRES_RESTARTABLE` with
//! `QTTT_TEST_POSTGRES_CTL` for one the test may stop (see `.ci/run`).

use std::process::Command;
use std::time::{Duration, Instant};

use super::concurrency::{RacingRequest, place_if_match, race};
use super::events::{PATIENCE, events_through};
use super::helpers::{TestApp, TestDatabase, goffs_draw};

/// A database of its own on the shared PostgreSQL server.
fn shared_postgres() -> TestDatabase {
    let database = TestDatabase::new();
    assert!(matches!(database, TestDatabase::Postgres(_)), "set QTTT_TEST_POSTGRES to run this test");
    database
}

#[test]
#[ignore = "needs PostgreSQL: QTTT_TEST_POSTGRES (see .ci/run)"]
fn two_instances_play_one_game_move_by_move_and_their_watchers_see_every_move() {
    let database = shared_postgres();
    let instances = [TestApp::spawn_on(&database), TestApp::spawn_on(&database)];
    let (a, b) = (&instances[0], &instances[1]);
    let created = a.create_game(serde_json::json!({ "variant": "player_choice" }));
    let id = created.json()["game"]["id"].as_i64().unwrap();
    let joined = b.join(id);
    assert_eq!(joined.status, 201, "{}", joined.body);
    let token = |answer: &super::helpers::Response| answer.json()["seat"]["token"].as_str().unwrap().to_string();
    let (x, o) = (token(&created), token(&joined));

    let mut watcher_on_a = a.watch(id, None);
    let mut watcher_on_b = b.watch(id, None);
    events_through(&mut watcher_on_a, 1, 2);
    events_through(&mut watcher_on_b, 1, 2);
    // Steps alternate between the instances; each watcher sees every one of them.
    for (seq, (step, instance)) in (3..).zip(goffs_draw(&x, &o).iter().zip(instances.iter().cycle())) {
        let answer = step.take(instance, id);
        assert_eq!(answer.status, 201, "step {seq}: {}", answer.body);
        for watcher in [&mut watcher_on_a, &mut watcher_on_b] {
            let event = watcher.next_event(PATIENCE).unwrap_or_else(|| panic!("event {seq} never came"));
            assert_eq!((event.id, event.kind.as_str()), (Some(seq), step.kind()));
            assert_eq!(event.data["game"], super::events::as_watched(answer.json()), "the event carries the new game");
        }
    }
    for instance in &instances {
        let game = instance.get_game(id).json();
        assert_eq!((game["status"].as_str(), game["version"].as_i64()), (Some("finished"), Some(15)));
    }
}

#[test]
#[ignore = "needs PostgreSQL: QTTT_TEST_POSTGRES (see .ci/run)"]
fn a_watcher_that_reconnects_to_the_other_instance_misses_nothing_and_sees_nothing_twice() {
    let database = shared_postgres();
    let (a, b) = (TestApp::spawn_on(&database), TestApp::spawn_on(&database));
    let (id, x, o) = a.two_player_game("player_choice");
    a.place(id, &x, [0, 1]);
    let mut watcher = a.watch(id, None);
    events_through(&mut watcher, 1, 3);
    drop(watcher);
    // Written while nobody watched, on both instances.
    assert_eq!(b.place(id, &o, [2, 3]).status, 201);
    assert_eq!(a.place(id, &x, [4, 5]).status, 201);

    let mut resumed = b.watch(id, Some(3));
    let missed = events_through(&mut resumed, 4, 5);
    assert_eq!(missed[1].data["game"]["moves"].as_array().unwrap().len(), 3);
    assert_eq!(a.place(id, &o, [6, 7]).status, 201);
    assert_eq!(resumed.next_event(PATIENCE).expect("the move made on the other instance").id, Some(6));
    assert!(resumed.next_event(Duration::from_millis(300)).is_none(), "nothing twice, nothing more");
}

#[test]
#[ignore = "needs PostgreSQL: QTTT_TEST_POSTGRES (see .ci/run)"]
fn the_same_move_sent_to_both_instances_lands_exactly_once() {
    let database = shared_postgres();
    let (a, b) = (TestApp::spawn_on(&database), TestApp::spawn_on(&database));
    for _ in 0..10 {
        let (id, x, _) = a.two_player_game("measurement");
        // With If-Match: the loser hears that the game moved on.
        let answers =
            race([&a, &b], [place_if_match(id, x.clone(), [0, 1], 2), place_if_match(id, x.clone(), [0, 1], 2)]);
        let mut statuses: Vec<u16> = answers.iter().map(|answer| answer.status).collect();
        statuses.sort_unstable();
        assert_eq!(statuses, [201, 409], "{answers:?}");
        // Without: the loser finds it is no longer its turn.
        let (id, x, _) = b.two_player_game("measurement");
        let plain = |token: String| -> RacingRequest { Box::new(move |app: &TestApp| app.place(id, &token, [4, 5])) };
        let answers = race([&a, &b], [plain(x.clone()), plain(x.clone())]);
        assert_eq!(answers.iter().filter(|answer| answer.status == 201).count(), 1, "{answers:?}");
        let game = a.get_game(id).json();
        assert_eq!((game["version"].as_i64(), game["moves"].as_array().map(Vec::len)), (Some(3), Some(1)));
    }
}

#[test]
#[ignore = "needs PostgreSQL: QTTT_TEST_POSTGRES (see .ci/run)"]
fn an_instance_whose_copy_of_a_game_is_out_of_date_acts_on_the_game_as_it_is() {
    let database = shared_postgres();
    let (a, b) = (TestApp::spawn_on(&database), TestApp::spawn_on(&database));
    let (id, x, o) = a.two_player_game("player_choice");
    assert_eq!(a.place(id, &x, [0, 1]).status, 201);
    // Written on b: a's copy of the game is one move behind.
    assert_eq!(b.place(id, &o, [2, 3]).status, 201);
    // For the version the game is at, which a has not seen: accepted.
    let moved = place_if_match(id, x.clone(), [4, 5], 4)(&a);
    assert_eq!((moved.status, moved.json()["version"].as_i64()), (201, Some(5)), "{}", moved.body);
    // O moves on b; a's copy says it is O's turn still, the game that it is X's.
    assert_eq!(b.place(id, &o, [6, 7]).status, 201);
    assert_eq!(a.place(id, &x, [7, 8]).json()["version"], 7);
    // b's copy says it is X's turn, the game that it is O's: refused.
    let refused = b.place(id, &x, [0, 8]);
    assert_eq!((refused.status, refused.json()["code"].as_str()), (422, Some("not_your_turn")), "{}", refused.body);
    let game = b.get_game(id).json();
    assert_eq!((game["version"].as_i64(), game["moves"].as_array().map(Vec::len)), (Some(7), Some(5)));
}

/// Runs the restartable server's control command with `arguments`.
fn postgres_ctl(arguments: &str) {
    let command = std::env::var("QTTT_TEST_POSTGRES_CTL").expect("set QTTT_TEST_POSTGRES_CTL to run this test");
    let status = Command::new("sh").arg("-c").arg(format!("{command} {arguments}")).status().expect("sh runs");
    assert!(status.success(), "{command} {arguments}: {status}");
}

/// An instance on `database` that waits at most 1 s for it, so that the database
/// being away or locked shows within a second.
fn impatient_instance(database: &TestDatabase) -> TestApp {
    TestApp::spawn_with_database(database, |config| {
        config.database_pool.statement_timeout = Duration::from_secs(1);
    })
}

#[test]
#[ignore = "needs PostgreSQL: QTTT_TEST_POSTGRES (see .ci/run)"]
fn a_watchers_stream_outlasts_reads_of_the_log_that_time_out() {
    let database = shared_postgres();
    let (app, watched) = (impatient_instance(&database), impatient_instance(&database));
    let (id, x, o) = app.two_player_game("player_choice");
    let mut watcher = watched.watch(id, None);
    events_through(&mut watcher, 1, 2);
    // Behind the servers' back: keep every reader off the games for 4 s, and
    // meanwhile announce a change, so that the watcher's read of the log times out.
    std::thread::scope(|scope| {
        scope
            .spawn(|| database.execute("BEGIN; LOCK TABLE games IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(4); COMMIT"));
        let started = Instant::now();
        while app.get_game(id).status != 503 {
            assert!(started.elapsed() < Duration::from_secs(3), "the games were never locked");
            std::thread::sleep(Duration::from_millis(50));
        }
        database.execute(&format!("NOTIFY qttt_games, '{id} 3'"));
    });
    // The lock is gone, and the stream still open: the next moves reach it. (The
    // instance took the false notice for version 3 as told: the notice of the
    // next version wakes the watcher, which reads both.)
    app.place(id, &x, [0, 1]);
    app.place(id, &o, [1, 2]);
    let event = watcher.next_event(PATIENCE).expect("the stream outlasted the failed reads");
    assert_eq!((event.id, event.kind.as_str()), (Some(3), "move"));
    assert_eq!(watcher.next_event(PATIENCE).map(|event| event.id), Some(Some(4)));
}

#[test]
#[ignore = "needs a PostgreSQL it may stop: QTTT_TEST_POSTGRES_RESTARTABLE and QTTT_TEST_POSTGRES_CTL (see .ci/run)"]
fn while_postgres_is_down_requests_get_503_and_afterwards_the_game_goes_on() {
    let maintenance_url =
        std::env::var("QTTT_TEST_POSTGRES_RESTARTABLE").expect("set QTTT_TEST_POSTGRES_RESTARTABLE to run this test");
    let database = TestDatabase::on_postgres(&maintenance_url);
    // Players on one instance; a watcher on the other, which must hear of every
    // move across the outage.
    let (app, watched) = (impatient_instance(&database), impatient_instance(&database));
    let (id, x, o) = app.two_player_game("player_choice");
    let mut watcher = watched.watch(id, None);
    let steps = goffs_draw(&x, &o);
    let (before, after) = steps.split_at(5);
    for step in before {
        assert_eq!(step.take(&app, id).status, 201);
    }
    events_through(&mut watcher, 1, 7);

    postgres_ctl("stop -m fast");
    let refused = after[0].take(&app, id);
    refused.assert_problem(503, "unavailable");
    app.request("GET", "/readyz", &[], None).assert_problem(503, "unavailable");
    app.get_game(id).assert_problem(503, "unavailable");

    postgres_ctl("start");
    let back = Instant::now();
    while app.request("GET", "/readyz", &[], None).status != 200 {
        assert!(back.elapsed() < Duration::from_secs(30), "the server never saw the database come back");
        std::thread::sleep(Duration::from_millis(100));
    }
    // Nothing acknowledged was lost, the refused step did not land, and the game goes on.
    assert_eq!(app.get_game(id).json()["version"], 7);
    for step in after {
        assert_eq!(step.take(&app, id).status, 201);
    }
    events_through(&mut watcher, 8, 15);
    let game = app.get_game(id).json();
    assert_eq!((game["status"].as_str(), game["version"].as_i64()), (Some("finished"), Some(15)));
}

#[test]
#[ignore = "needs PostgreSQL: QTTT_TEST_POSTGRES (see .ci/run)"]
fn connections_ended_behind_the_servers_back_cost_no_request_an_error() {
    let database = shared_postgres();
    let app = TestApp::spawn_on(&database);
    // Ends every connection to the test's database but the one asking.
    let terminate = || {
        database.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
             WHERE datname = current_database() AND pid <> pg_backend_pid()",
        );
    };
    let (id, x, o) = app.two_player_game("player_choice");
    for step in goffs_draw(&x, &o) {
        terminate();
        let answer = step.take(&app, id);
        assert_eq!(answer.status, 201, "{}", answer.body);
        terminate();
        assert_eq!(app.get_game(id).json()["version"], answer.json()["version"]);
    }
    assert_eq!(app.get_game(id).json()["status"], "finished");
    terminate();
    let against_bot = app.create_game(serde_json::json!({ "variant": "measurement", "opponent": {"bot": "random"} }));
    assert_eq!(against_bot.status, 201, "{}", against_bot.body);
    let (id, token) = (against_bot.json()["game"]["id"].as_i64().unwrap(), against_bot.json()["seat"]["token"].clone());
    terminate();
    let moved = app.place(id, token.as_str().unwrap(), [0, 1]);
    assert_eq!((moved.status, moved.json()["version"].as_i64()), (201, Some(4)), "{}", moved.body);
    for path in ["/api/v1/games", "/readyz"] {
        terminate();
        assert_eq!(app.request("GET", path, &[], None).status, 200, "{path}");
    }
}

#[test]
#[ignore = "needs PostgreSQL: QTTT_TEST_POSTGRES (see .ci/run)"]
fn moves_in_many_games_at_once_share_a_statement_and_one_that_fails_costs_the_others_nothing() {
    use super::life::{BETWEEN_TWO, squares};
    use qttt::error::Error;
    use sqlx::Connection;

    let database = shared_postgres();
    let (runtime, service, _) = super::life::service_on(&database, |_| {});
    runtime.block_on(async {
        let mut games = Vec::new();
        for _ in 0..20 {
            let (game, x) = service.create_game(BETWEEN_TWO).await.unwrap();
            let (_, o) = service.join(game.stored.id, None).await.unwrap();
            games.push((game.stored.id, x.token, o.token));
        }
        let moves = games.iter().map(|(id, x, _)| service.act(*id, x, squares(0, 1), None));
        let moved = futures_util::future::join_all(moves).await;
        assert!(moved.iter().all(|moved| moved.as_ref().is_ok_and(|game| game.version() == 3)), "{moved:?}");
        let mut connection = sqlx::PgConnection::connect(&database.url()).await.unwrap();
        let transactions: i64 = sqlx::query_scalar("SELECT count(DISTINCT xmin::TEXT) FROM log_entries WHERE seq = 3")
            .fetch_one(&mut connection)
            .await
            .unwrap();
        // Each move's token is read first, on a connection of the pool's, so
        // the 20 reach the writer a little apart: 2-3 batches alone, up to 8
        // beside other tests; never one each.
        assert!(transactions <= 10, "the 20 moves were written in {transactions} transactions");

        // A write to a game deleted behind the server's back fails its batch;
        // the others are written again, alone.
        let gone = games[7].0;
        for table in ["log_entries", "seats"] {
            sqlx::query(sqlx::AssertSqlSafe(format!("DELETE FROM {table} WHERE game_id = $1")))
                .bind(gone.get())
                .execute(&mut connection)
                .await
                .unwrap();
        }
        sqlx::query("DELETE FROM games WHERE id = $1").bind(gone.get()).execute(&mut connection).await.unwrap();
        let moves = games.iter().map(|(id, _, o)| service.act(*id, o, squares(2, 3), None));
        let moved = futures_util::future::join_all(moves).await;
        for ((id, _, _), moved) in games.iter().zip(&moved) {
            match moved {
                Err(Error::NotFound(_)) if *id == gone => {}
                Ok(game) if *id != gone => assert_eq!(game.version(), 4, "game {id}"),
                moved => panic!("game {id}: {moved:?}"),
            }
        }
        let fourth_entries: i64 = sqlx::query_scalar("SELECT count(*) FROM log_entries WHERE seq = 4")
            .fetch_one(&mut connection)
            .await
            .unwrap();
        assert_eq!(fourth_entries, 19);
    });
}

/// The entry of `log` (a game's `/log`) of kind `kind`, if it has one.
fn entry_of<'a>(log: &'a serde_json::Value, kind: &str) -> Option<&'a serde_json::Value> {
    log["entries"].as_array().unwrap().iter().find(|entry| entry["kind"] == kind)
}

/// The time of a log entry, in milliseconds since the epoch.
fn stamped_ms(entry: &serde_json::Value) -> i64 {
    let stamp: jiff::Timestamp = entry["created_at"].as_str().unwrap().parse().unwrap();
    stamp.as_millisecond()
}

/// This machine's clock, which PostgreSQL on it shares, in milliseconds since the epoch.
fn machine_ms() -> i64 {
    jiff::Timestamp::now().as_millisecond()
}

#[test]
#[ignore = "needs PostgreSQL and faketime: QTTT_TEST_POSTGRES (see .ci/run)"]
fn an_instance_whose_clock_runs_five_seconds_ahead_keeps_the_databases_time_and_says_it_is_not_ready() {
    use super::process::Process;
    let database = shared_postgres();
    let on_time = Process::start(&database);
    let ahead = Process::start_with_clock_off(&database.url(), "+5s", &[]);
    // It says so, and why, to whatever balances the load; the other is ready.
    let deadline = Instant::now() + Duration::from_secs(10);
    let refused = loop {
        let answer = ahead.send("GET", "/readyz", None, None).unwrap();
        if answer.status == 503 || Instant::now() > deadline {
            break answer;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let problem = refused.assert_problem(503, "clock_offset");
    let detail = problem["detail"].as_str().unwrap();
    let ahead_ms: i64 =
        detail.split("clock is ").nth(1).and_then(|rest| rest.split(' ').next()).unwrap().parse().unwrap();
    assert!((4_700..=5_300).contains(&ahead_ms) && detail.contains(" ms ahead of the database's"), "{problem}");
    assert_eq!(on_time.send("GET", "/readyz", None, None).unwrap().status, 200);

    // A 10 s clock, its game created and joined on time: whichever timer writes
    // the timeout, it is written at 10 s by the database's clock, not at 5.
    let timed = |initial_ms: i64| {
        let body =
            serde_json::json!({ "variant": "player_choice", "clock": { "initial_ms": initial_ms, "increment_ms": 0 } });
        let created = on_time.send("POST", "/api/v1/games", None, Some(body)).unwrap().json();
        let id = created["game"]["id"].as_i64().unwrap();
        let joined = on_time.send("POST", &format!("/api/v1/games/{id}/join"), None, None).unwrap();
        assert_eq!(joined.status, 201, "{}", joined.body);
        let x = created["seat"]["token"].as_str().unwrap().to_string();
        let o = joined.json()["seat"]["token"].as_str().unwrap().to_string();
        for (token, squares) in [(&x, [0, 1]), (&o, [2, 3])] {
            let path = format!("/api/v1/games/{id}/moves");
            let moved = on_time.send("POST", &path, Some(token), Some(serde_json::json!({ "squares": squares })));
            assert_eq!(moved.unwrap().status, 201);
        }
        let log = on_time.send("GET", &format!("/api/v1/games/{id}/log"), None, None).unwrap().json();
        // The clocks start with O's first move, the log's fourth entry.
        (id, x, stamped_ms(&log["entries"][3]))
    };
    let (flagged, _, started_ms) = timed(10_000);
    let timeout = loop {
        let log = ahead.send("GET", &format!("/api/v1/games/{flagged}/log"), None, None).unwrap().json();
        if let Some(timeout) = entry_of(&log, "timeout") {
            break (timeout.clone(), machine_ms());
        }
        assert!(machine_ms() - started_ms < 15_000, "no timeout 15 s after the clock started");
        std::thread::sleep(Duration::from_millis(20));
    };
    let (entry, seen_ms) = timeout;
    let written_after = stamped_ms(&entry) - started_ms;
    assert!(
        (9_500..=10_500).contains(&written_after),
        "the timeout is stamped {written_after} ms after the clock started"
    );
    assert!(
        seen_ms - started_ms >= 9_500,
        "the timeout was written {} ms after the clock started",
        seen_ms - started_ms
    );

    // A move through the fast instance 3.5 s into an 8 s clock is taken, and
    // charged 3.5 s.
    let (id, x, started_ms) = timed(8_000);
    std::thread::sleep(Duration::from_millis(u64::try_from(3_500 - (machine_ms() - started_ms)).unwrap_or(0)));
    let moved = ahead
        .send("POST", &format!("/api/v1/games/{id}/moves"), Some(&x), Some(serde_json::json!({ "squares": [4, 5] })))
        .unwrap();
    assert_eq!(moved.status, 201, "{}", moved.body);
    let charged = 8_000 - moved.json()["clock"]["remaining_ms"]["X"].as_i64().unwrap();
    assert!((3_200..=3_800).contains(&charged), "charged {charged} ms for a 3.5 s think");
}

#[test]
#[ignore = "needs PostgreSQL: QTTT_TEST_POSTGRES (see .ci/run)"]
fn two_instances_serve_one_daily_puzzle_and_one_players_tried_puzzles() {
    let database = shared_postgres();
    let (a, b) = (TestApp::spawn_on(&database), TestApp::spawn_on(&database));
    for variant in ["player_choice", "measurement"] {
        let path = format!("/api/v1/puzzles/daily?variant={variant}");
        let (on_a, on_b) = (a.request("GET", &path, &[], None), b.request("GET", &path, &[], None));
        assert_eq!(on_a.status, 200, "{}", on_a.body);
        assert_eq!(on_a.json(), on_b.json());
    }
    // The second instance added no second set.
    let last = a.request("GET", "/api/v1/puzzles/1200", &[], None);
    assert_eq!(last.status, 200, "{}", last.body);
    b.request("GET", "/api/v1/puzzles/1201", &[], None).assert_problem(404, "not_found");
    // A puzzle tried on one instance is not given again on the other.
    let erin = a.player("erin");
    let next = a.get_with_token("/api/v1/puzzles/next?variant=player_choice", &erin).json();
    let body = serde_json::json!({ "action": next["position"]["legal_actions"][0] });
    let tried = a.post_with_token(&format!("/api/v1/puzzles/{}/attempts", next["id"]), &erin, body);
    assert_eq!(tried.status, 201, "{}", tried.body);
    let then = b.get_with_token("/api/v1/puzzles/next?variant=player_choice", &erin).json();
    assert_ne!(then["id"], next["id"]);
}
