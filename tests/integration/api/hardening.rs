//! What one client can cost the server: slow bodies, rows created, streams held,
//! and the routes an operator may turn off.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use serde_json::json;

use super::events::PATIENCE;
use super::helpers::{Client, TestApp, TestDatabase, limited};
use super::process::Process;

#[test]
fn a_body_that_does_not_arrive_in_time_gets_408_and_its_connection_closes() {
    let app = TestApp::spawn_with(|config| config.request_body_timeout = Duration::from_secs(1));
    let started = Instant::now();
    let mut slow = TcpStream::connect(app.address).unwrap();
    let head = "POST /api/v1/games HTTP/1.1\r\nHost: qttt\r\nContent-Type: application/json\r\nContent-Length: 4000\r\n\r\n{\"va";
    slow.write_all(head.as_bytes()).unwrap();
    slow.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut answer = Vec::new();
    slow.read_to_end(&mut answer).expect("the server closes the connection");
    let (answer, waited) = (String::from_utf8_lossy(&answer), started.elapsed());
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("\"code\":\"invalid_body\"") && answer.contains("within 1 s"), "{answer}");
    assert!(waited >= Duration::from_secs(1) && waited < Duration::from_secs(4), "{waited:?}");
    // A body that comes in time is read as ever.
    assert_eq!(app.create_game(json!({})).status, 201);
}

#[test]
fn creations_joins_and_resets_share_one_limit_per_address() {
    let app = TestApp::spawn_with(|config| config.create_rate_limit = limited(3));
    let created = app.create_game(json!({}));
    let id = created.json()["game"]["id"].as_i64().unwrap();
    assert_eq!(app.join(id).status, 201);
    let reset = || app.request("POST", "/reset", &[("Content-Type", "application/json")], Some("{}"));
    assert_eq!(reset().status, 200);
    let refused = reset();
    assert_eq!(refused.status, 429, "{}", refused.body);
    assert!(refused.json()["detail"].as_str().unwrap().contains("too many games"), "{}", refused.body);
    assert!(refused.header("retry-after").is_some_and(|seconds| seconds.parse::<u64>().is_ok()));
    let other = app.create_game(json!({}));
    other.assert_problem(429, "rate_limited");
    // Reading is never limited.
    assert_eq!(app.request("GET", "/state", &[], None).status, 200);
    assert_eq!(app.get_game(id).status, 200);
}

#[test]
fn a_trusted_proxy_names_each_client_and_nobody_else_can() {
    let create_as = |app: &TestApp, client: &str| {
        app.request(
            "POST",
            "/api/v1/games",
            &[("Content-Type", "application/json"), ("X-Forwarded-For", client)],
            Some("{}"),
        )
        .status
    };
    let behind_proxy = TestApp::spawn_with(|config| {
        config.create_rate_limit = limited(1);
        config.trusted_proxies = vec!["127.0.0.0/8".parse().unwrap()];
    });
    assert_eq!(create_as(&behind_proxy, "198.51.100.1"), 201);
    assert_eq!(create_as(&behind_proxy, "198.51.100.2"), 201, "another client behind the same proxy");
    assert_eq!(create_as(&behind_proxy, "198.51.100.1"), 429);
    // What a client writes before the proxy's entry is not believed.
    assert_eq!(create_as(&behind_proxy, "203.0.113.7, 198.51.100.2"), 429);
    let direct = TestApp::spawn_with(|config| config.create_rate_limit = limited(1));
    assert_eq!(create_as(&direct, "198.51.100.1"), 201);
    assert_eq!(create_as(&direct, "198.51.100.2"), 429, "an untrusted client cannot pose as another");
}

#[test]
fn a_client_over_the_stream_cap_gets_429_until_it_closes_one() {
    let app = TestApp::spawn_with(|config| config.max_live_streams_per_address = 2);
    let created = app.create_game(json!({}));
    let id = created.json()["game"]["id"].as_i64().unwrap();
    let mut first = app.watch(id, None);
    let mut second = app.watch(id, None);
    assert_eq!((first.status(), second.status()), (Some(200), Some(200)));
    let refused = app.request("GET", &format!("/api/v1/games/{id}/events"), &[], None);
    let problem = refused.assert_problem(429, "rate_limited");
    assert!(problem["detail"].as_str().unwrap().contains("2 live streams open"), "{problem}");
    assert_eq!(refused.header("retry-after"), Some("5"));
    // A closed stream gives its place back at once, not at its next keep-alive.
    drop(first);
    let deadline = Instant::now() + Duration::from_secs(2);
    let reopened = loop {
        let mut third = app.watch(id, None);
        if third.status() == Some(200) {
            break true;
        }
        if Instant::now() > deadline {
            break false;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(reopened, "the closed stream's place was not given back within 2 s");
}

#[test]
fn an_ipv6_64_gets_429_after_its_32nd_stream_and_the_next_64_does_not() {
    let app = TestApp::spawn_with(|config| config.trusted_proxies = vec!["127.0.0.0/8".parse().unwrap()]);
    let id = app.create_game(json!({})).json()["game"]["id"].as_i64().unwrap();
    let path = format!("/api/v1/games/{id}/events");
    let watch_from = |client: &str| app.watch_at(&path, &[("X-Forwarded-For", client)]);
    // Each stream from another address of the same /64, as one machine may have.
    let mut open: Vec<_> = (1..=32).map(|host| watch_from(&format!("2001:db8:1:2::{host:x}"))).collect();
    assert!(open.iter_mut().all(|stream| stream.status() == Some(200)));
    // Watched as a stream, so that a stream let in fails the test rather than never ending.
    let mut refused = watch_from("2001:db8:1:2:ffff::1");
    assert_eq!(refused.status(), Some(429));
    assert!(
        refused.ends_within(PATIENCE) && refused.received().contains("32 live streams open"),
        "{}",
        refused.received()
    );
    assert_eq!(watch_from("2001:db8:1:3::1").status(), Some(200), "another /64");
}

#[test]
fn an_operator_can_turn_off_the_original_apps_routes() {
    let app = TestApp::spawn_with(|config| config.original_app_routes = false);
    for (method, path) in [("GET", "/state"), ("POST", "/reset"), ("POST", "/move")] {
        app.request(method, path, &[("Content-Type", "application/json")], Some("{}")).assert_problem(404, "not_found");
    }
    let document = app.request("GET", "/api-docs/openapi.json", &[], None).json();
    assert!(document["paths"].get("/state").is_none());
    assert!(document["paths"].get("/api/v1/games").is_some());
    assert_eq!(app.create_game(json!({})).status, 201);
}

/// A game between two people with hints, after four moves: out of the opening
/// book, so that a hint is a search of its own.
/// A game with hints after four moves, and the token of X, to move.
fn game_out_of_the_book(app: &TestApp) -> (i64, String) {
    let (id, x, o) = app.two_player_game_with(json!({ "variant": "measurement", "hints": true }));
    for (token, squares) in [(&x, [0, 1]), (&o, [2, 3]), (&x, [4, 5]), (&o, [6, 7])] {
        assert_eq!(app.place(id, token, squares).status, 201);
    }
    (id, x)
}

/// The hint of each of `games` asked for at once by the seat of its token,
/// each on a connection of its own.
fn hints_at_once(app: &TestApp, games: &[(i64, String)]) -> Vec<super::helpers::Response> {
    let address = app.address;
    let requests: Vec<_> = games
        .iter()
        .cloned()
        .map(|(id, token)| {
            std::thread::spawn(move || {
                let (path, authorization) = (format!("/api/v1/games/{id}/hint"), format!("Bearer {token}"));
                super::helpers::request(address, "GET", &path, &[("Authorization", &authorization)], None)
            })
        })
        .collect();
    requests.into_iter().map(|request| request.join().unwrap()).collect()
}

#[test]
fn a_game_versions_hint_is_searched_once_however_many_ask() {
    let app = TestApp::spawn();
    let (id, x) = game_out_of_the_book(&app);
    let before = app.service.searches_begun();
    let answers = hints_at_once(&app, &vec![(id, x.clone()); 200]);
    assert!(answers.iter().all(|answer| answer.status == 200), "{:?}", answers.iter().find(|a| a.status != 200));
    assert!(answers.iter().all(|answer| answer.body == answers[0].body), "one answer for all");
    assert_eq!(app.service.searches_begun() - before, 1, "200 asked at once");
    assert_eq!(app.hint(id, &x).body, answers[0].body);
    assert_eq!(app.service.searches_begun() - before, 1, "asked again later");
}

#[test]
fn searches_beyond_the_queue_are_refused_as_busy() {
    // One search thread: one search runs and four wait.
    let app = TestApp::spawn_with(|config| config.search_threads = 1);
    let games: Vec<(i64, String)> = (0..30).map(|_| game_out_of_the_book(&app)).collect();
    let before = app.service.searches_begun();
    let answers = hints_at_once(&app, &games);
    let busy: Vec<_> = answers.iter().filter(|answer| answer.status == 503).collect();
    assert!(!busy.is_empty(), "30 searches at once on one thread: none was refused");
    for refused in &busy {
        refused.assert_problem(503, "busy");
        assert_eq!(refused.header("retry-after"), Some("1"));
    }
    let searched = answers.iter().filter(|answer| answer.status == 200).count();
    assert_eq!(searched + busy.len(), 30);
    assert_eq!(app.service.searches_begun() - before, u64::try_from(searched).unwrap());
    // Once the queue has drained, a refused hint is answered.
    let (id, x) = &games[answers.iter().position(|answer| answer.status == 503).unwrap()];
    assert_eq!(app.hint(*id, x).status, 200);
}

#[test]
fn a_search_nobody_waits_for_gives_its_thread_back_at_once() {
    use qttt::bot::Solver;
    use qttt::engine::{Game, Variant};
    use qttt::service::Searches;
    actix_web::rt::System::new().block_on(async {
        let searches = Searches::new(1);
        // The opening without the book: minutes of search.
        let endless = searches.run(|stop| Ok(Solver::stopped_by(stop).solve(&Game::new(Variant::PlayerChoice))));
        assert!(tokio::time::timeout(Duration::from_millis(300), endless).await.is_err(), "it is still searching");
        // Its asker has gone: the next search gets the one thread, where it
        // would wait minutes for the opening's search to end.
        let next = tokio::time::timeout(Duration::from_secs(5), searches.run(|_| Ok(7))).await;
        assert_eq!(next.expect("the thread came free"), Ok(7));
    });
}

#[test]
fn a_private_game_is_not_listed_and_is_joined_only_with_its_invite() {
    let app = TestApp::spawn();
    let public = app.create_game(json!({})).json();
    assert!(public.get("invite").is_none(), "{public}");
    assert_eq!(public["game"]["private"], false);
    let created = app.create_game(json!({ "private": true, "variant": "player_choice" }));
    assert_eq!(created.status, 201);
    let created = created.json();
    let (id, invite) = (created["game"]["id"].as_i64().unwrap(), created["invite"].as_str().unwrap().to_string());
    assert_eq!(created["game"]["private"], true);
    let listed: Vec<i64> = app.request("GET", "/api/v1/games?status=waiting", &[], None).json()["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|game| game["id"].as_i64().unwrap())
        .collect();
    assert_eq!(listed, vec![public["game"]["id"].as_i64().unwrap()], "only the public game is listed");
    let join = |body: Option<&str>| {
        app.request("POST", &format!("/api/v1/games/{id}/join"), &[("Content-Type", "application/json")], body)
    };
    let refused = join(None).assert_problem(403, "forbidden");
    assert!(refused["detail"].as_str().unwrap().contains("private"), "{refused}");
    join(Some(r#"{"invite": "guessed"}"#)).assert_problem(403, "forbidden");
    join(Some(r#"{"invite": 7}"#)).assert_problem(400, "invalid_body");
    let with_invite = app.request("GET", &format!("/api/v1/games/{id}?invite={invite}"), &[], None);
    assert_eq!(with_invite.json()["open_seats"], json!(["O"]), "a refused join takes no seat");
    let joined = join(Some(&json!({ "invite": invite }).to_string()));
    assert_eq!(joined.status, 201, "{}", joined.body);
    assert_eq!(joined.json()["seat"]["player"], "O");
    assert!(joined.json().get("invite").is_none(), "only the creator is shown the invite");
    // A public game is joined as ever, with or without a body.
    let public_id = public["game"]["id"].as_i64().unwrap();
    assert_eq!(app.join(public_id).status, 201);
}

#[test]
fn retention_deletes_the_games_that_ended_long_ago_in_batches_while_play_goes_on() {
    use super::life::{BETWEEN_TWO, squares};
    use qttt::error::Error;
    use qttt::service::{Credentials, RETENTION_BATCH};

    let database = super::helpers::TestDatabase::new();
    let day = Duration::from_secs(86_400);
    let (runtime, service, time) = super::life::service_on(&database, |options| options.retention = Some(day));
    runtime.block_on(async {
        // 250 aborted games, and a game and its rematch, both resigned.
        let mut old = Vec::new();
        for _ in 0..250 {
            let (game, x) = service.create_game(BETWEEN_TWO).await.unwrap();
            service.abort(game.stored.id, &x.token, None).await.unwrap();
            old.push(game.stored.id);
        }
        let (first, x) = service.create_game(BETWEEN_TWO).await.unwrap();
        let (_, o) = service.join(first.stored.id, None).await.unwrap();
        service.resign(first.stored.id, &o.token, None).await.unwrap();
        let (rematch, x_again) = service.rematch(first.stored.id, &x.token, None).await.unwrap();
        service.rematch(first.stored.id, &o.token, None).await.unwrap();
        service.resign(rematch.stored.id, &x_again.token, None).await.unwrap();
        old.extend([first.stored.id, rematch.stored.id]);
        // Kept: a game that goes on, one that waits, and one that ended lately.
        let (ongoing, ongoing_x) = service.create_game(BETWEEN_TWO).await.unwrap();
        let (_, ongoing_o) = service.join(ongoing.stored.id, None).await.unwrap();
        service.act(ongoing.stored.id, &ongoing_x.token, squares(0, 1), None).await.unwrap();
        let (waiting, _) = service.create_game(BETWEEN_TWO).await.unwrap();
        time.advance(day * 2);
        let (recent, recent_x) = service.create_game(BETWEEN_TWO).await.unwrap();
        service.abort(recent.stored.id, &recent_x.token, None).await.unwrap();

        let mut batches = Vec::new();
        let mut moves =
            [(ongoing_o.token.clone(), squares(2, 3)), (ongoing_x.token.clone(), squares(4, 5))].into_iter();
        loop {
            let deleted = service.delete_expired_games().await.unwrap();
            batches.push(deleted);
            // Play goes on between batches.
            if let Some((token, action)) = moves.next() {
                service.act(ongoing.stored.id, &token, action, None).await.unwrap();
            }
            if deleted == 0 {
                break;
            }
        }
        assert_eq!(batches, vec![RETENTION_BATCH, RETENTION_BATCH, 52, 0]);
        for id in old {
            assert!(
                matches!(service.game(id, &Credentials::default()).await, Err(Error::NotFound(_))),
                "game {id} is still there"
            );
        }
        for id in [ongoing.stored.id, waiting.stored.id, recent.stored.id] {
            assert!(service.game(id, &Credentials::default()).await.is_ok(), "game {id} was deleted");
        }
        assert_eq!(
            service.game(ongoing.stored.id, &Credentials::default()).await.unwrap().version(),
            5,
            "two seats and three moves"
        );
        // The newest game is kept, even long over: SQLite would give its id to the
        // next game. Once another follows, it goes.
        time.advance(day * 2);
        assert_eq!(service.delete_expired_games().await.unwrap(), 0, "the game that ended lately is the newest");
        assert!(service.game(recent.stored.id, &Credentials::default()).await.is_ok());
        service.create_game(BETWEEN_TWO).await.unwrap();
        assert_eq!(service.delete_expired_games().await.unwrap(), 1);
        assert!(matches!(service.game(recent.stored.id, &Credentials::default()).await, Err(Error::NotFound(_))));
    });
}

#[test]
fn the_games_nobody_joined_are_deleted_a_day_after_the_server_aborted_them_and_played_games_are_kept() {
    use super::life::{BETWEEN_TWO, squares};
    use qttt::error::Error;
    use qttt::service::{Credentials, DEFAULT_WAITING_TIMEOUT};

    let database = super::helpers::TestDatabase::new();
    let hour = Duration::from_secs(3600);
    // The defaults: played games are kept for ever, unjoined ones for a day.
    let (runtime, service, time) = super::life::service_on(&database, |_| {});
    runtime.block_on(async {
        let exists = |id| {
            let service = service.clone();
            async move {
                match service.game(id, &Credentials::default()).await {
                    Ok(_) => true,
                    Err(Error::NotFound(_)) => false,
                    Err(error) => panic!("{error}"),
                }
            }
        };
        let mut unjoined = Vec::new();
        for _ in 0..3 {
            unjoined.push(service.create_game(BETWEEN_TWO).await.unwrap().0.stored.id);
        }
        // Kept: a game called off by its creator, one played and resigned, and
        // the rematch of it that nobody took up.
        let (called_off, x) = service.create_game(BETWEEN_TWO).await.unwrap();
        service.abort(called_off.stored.id, &x.token, None).await.unwrap();
        let (played, x) = service.create_game(BETWEEN_TWO).await.unwrap();
        let (_, o) = service.join(played.stored.id, None).await.unwrap();
        service.act(played.stored.id, &x.token, squares(0, 1), None).await.unwrap();
        service.resign(played.stored.id, &o.token, None).await.unwrap();
        let (rematch, _) = service.rematch(played.stored.id, &x.token, None).await.unwrap();
        time.advance(DEFAULT_WAITING_TIMEOUT + Duration::from_secs(1));
        assert_eq!(service.abort_unjoined_games().await.unwrap(), 4, "three games and the rematch waited an hour");
        assert_eq!(service.delete_expired_games().await.unwrap(), 0, "aborted a moment ago");
        time.advance(hour * 23);
        assert_eq!(service.delete_expired_games().await.unwrap(), 0, "aborted 23 hours ago");
        // The newest game is kept whatever it is (SQLite would give its id again).
        service.create_game(BETWEEN_TWO).await.unwrap();
        time.advance(hour * 2);
        assert_eq!(service.delete_expired_games().await.unwrap(), 3);
        for id in unjoined {
            assert!(!exists(id).await, "unjoined game {id} is still there");
        }
        for id in [called_off.stored.id, played.stored.id, rematch.stored.id] {
            assert!(exists(id).await, "game {id} was deleted");
        }
        assert_eq!(service.delete_expired_games().await.unwrap(), 0);
    });
}

#[test]
fn a_private_game_is_read_only_by_its_seats_and_with_its_invite_and_is_no_game_to_anyone_else() {
    let app = TestApp::spawn();
    let created = app.create_game(json!({ "private": true, "variant": "player_choice", "hints": true })).json();
    let (id, x, invite) = (
        created["game"]["id"].as_i64().unwrap(),
        created["seat"]["token"].as_str().unwrap().to_string(),
        created["invite"].as_str().unwrap().to_string(),
    );
    let joined = app.request(
        "POST",
        &format!("/api/v1/games/{id}/join"),
        &[("Content-Type", "application/json")],
        Some(&json!({ "invite": invite }).to_string()),
    );
    let o = joined.json()["seat"]["token"].as_str().unwrap().to_string();
    assert_eq!(app.place(id, &x, [0, 1]).status, 201);
    let reads = ["", "/log", "/transcript", "/legal", "/analysis"];
    let read = |path: &str, headers: &[(&str, &str)]| app.request("GET", path, headers, None);
    // To a stranger, every read is that of a game that does not exist.
    let nothing = read("/api/v1/games/999999", &[]).assert_problem(404, "not_found");
    let public = app.create_game(json!({})).json()["game"]["id"].as_i64().unwrap();
    for what in reads {
        for headers in [&[][..], &[("Authorization", "Bearer made-up")][..]] {
            let problem = read(&format!("/api/v1/games/{id}{what}"), headers).assert_problem(404, "not_found");
            assert_eq!(problem["detail"], nothing["detail"].as_str().unwrap().replace("999999", &id.to_string()));
        }
        read(&format!("/api/v1/games/{id}{what}?invite=guessed"), &[]).assert_problem(404, "not_found");
        // The spec gives an invite at least one character, of a public game too.
        read(&format!("/api/v1/games/{public}{what}?invite="), &[]).assert_problem(400, "invalid_query");
    }
    let mut stranger = app.watch_at(&format!("/api/v1/games/{id}/events"), &[]);
    assert_eq!(stranger.status(), Some(404));
    // Its seats read it with their tokens, and anyone with its invite; the
    // analysis of a game that goes on is its players' alone.
    for token in [&x, &o] {
        let bearer = format!("Bearer {token}");
        for what in reads {
            let answer = read(&format!("/api/v1/games/{id}{what}"), &[("Authorization", &bearer)]);
            assert_eq!(answer.status, 200, "{what}: {}", answer.body);
        }
        let mut seat = app.watch_at(&format!("/api/v1/games/{id}/events"), &[("Authorization", &bearer)]);
        assert_eq!(seat.next_event(Duration::from_secs(5)).map(|event| event.id), Some(Some(1)));
    }
    for what in ["", "/log", "/transcript", "/legal"] {
        assert_eq!(read(&format!("/api/v1/games/{id}{what}?invite={invite}"), &[]).status, 200, "{what}");
    }
    read(&format!("/api/v1/games/{id}/analysis?invite={invite}"), &[]).assert_problem(403, "forbidden");
    let mut invited = app.watch_at(&format!("/api/v1/games/{id}/events?invite={invite}"), &[]);
    let events: Vec<_> = (0..3).filter_map(|_| invited.next_event(Duration::from_secs(5))).map(|e| e.id).collect();
    assert_eq!(events, [Some(1), Some(2), Some(3)], "both seats and the move");
}

#[test]
fn the_default_creation_limit_stops_a_flood_from_one_address_and_never_a_persons_pace() {
    let defaults = qttt::config::Config::from_lookup(|_| None).unwrap();
    let app = TestApp::spawn_with(|config| config.create_rate_limit = defaults.create_rate_limit);
    let answers: Vec<_> = (0..30).map(|_| app.create_game(json!({}))).collect();
    let created = answers.iter().take_while(|answer| answer.status == 201).count();
    assert_eq!(created, 10, "a burst of ten");
    for refused in &answers[10..] {
        refused.assert_problem(429, "rate_limited");
        let wait: u64 = refused.header("retry-after").unwrap().parse().unwrap();
        assert!((1..=2).contains(&wait), "a token comes back every 2 s: {wait}");
    }
    // One game every two seconds is a pace no person keeps up for long, and it is never refused.
    for _ in 0..2 {
        std::thread::sleep(Duration::from_millis(2100));
        assert_eq!(app.create_game(json!({})).status, 201);
    }
}

#[test]
fn made_up_tokens_are_refused_then_limited_and_the_real_players_play_on() {
    use qttt::config::RateLimit;
    let app = TestApp::spawn_with(|config| {
        config.failed_auth_rate_limit = Some(RateLimit { per_minute: 20, burst: 10 });
    });
    let (id, x, o) = app.two_player_game("player_choice");
    let guesser = super::helpers::Client { address: app.address, from: Some("127.0.0.2".parse().unwrap()) };
    let statuses: Vec<u16> = (0..30).map(|n| guesser.place(id, &format!("guess-{n}"), [0, 1]).status).collect();
    assert_eq!(statuses[..10], [403; 10], "{statuses:?}");
    assert_eq!(statuses[10..], [429; 20], "{statuses:?}");
    let limited = guesser.place(id, "guess", [0, 1]);
    let problem = limited.assert_problem(429, "rate_limited");
    assert!(problem["detail"].as_str().unwrap().contains("tokens or invites that were wrong"), "{problem}");
    assert_eq!(limited.header("retry-after"), Some("3"), "a failure is forgiven every 3 s");
    // Even its real token waits: the address is limited, not the token.
    guesser.place(id, &x, [0, 1]).assert_problem(429, "rate_limited");
    // Reading needs no token, and is never limited.
    assert_eq!(guesser.get_game(id).status, 200);
    // The players, from their own address, play on; a wrong token is refused
    // before anything is written.
    assert_eq!(app.place(id, &x, [0, 1]).status, 201);
    assert_eq!(app.place(id, &o, [1, 2]).status, 201);
    assert_eq!(app.get_game(id).json()["version"], 4, "two seats and two moves");
}

/// Sends `GET /healthz` with a header of `size` bytes on `connection` and reads
/// its answer whole (its head and as many bytes as its length says): the status
/// line and the body.
fn healthz_with_header_of(connection: &mut TcpStream, size: usize) -> (String, String) {
    let head = format!("GET /healthz HTTP/1.1\r\nHost: qttt\r\nX-Pad: {}\r\n\r\n", "a".repeat(size));
    connection.write_all(head.as_bytes()).unwrap();
    connection.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut answer = Vec::new();
    let mut byte = [0];
    while !answer.ends_with(b"\r\n\r\n") {
        connection.read_exact(&mut byte).expect("an answer's head");
        answer.push(byte[0]);
    }
    let head = String::from_utf8(answer).unwrap();
    let length = head.lines().find_map(|line| line.strip_prefix("content-length: ")).unwrap().parse().unwrap();
    let mut body = vec![0; length];
    connection.read_exact(&mut body).unwrap();
    (head.lines().next().unwrap().to_string(), String::from_utf8(body).unwrap())
}

#[test]
fn a_head_over_32_kb_gets_431_and_its_connection_closes_and_one_within_is_read() {
    let app = TestApp::spawn();
    let mut connection = TcpStream::connect(app.address).unwrap();
    // Twice on one connection: the cap is a head's, not a connection's.
    for _ in 0..2 {
        assert_eq!(healthz_with_header_of(&mut connection, 30 * 1024).0, "HTTP/1.1 200 OK");
    }
    let (status, body) = healthz_with_header_of(&mut connection, 64 * 1024);
    assert_eq!(status, "HTTP/1.1 431 Request Header Fields Too Large");
    let problem: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(problem["code"], "rejected", "{problem}");
    assert_eq!(problem["detail"], "the request's head is larger than 32768 bytes", "{problem}");
    let mut rest = Vec::new();
    assert_eq!(connection.read_to_end(&mut rest).map(|_| rest.len()).unwrap_or(0), 0, "then it closes");
}

#[test]
fn slow_heads_take_bounded_memory_and_give_it_back_once_closed() {
    use nix::sys::resource::{Resource, getrlimit, setrlimit};
    // Each connection is a file here and one in the server, which inherits the limit.
    let (_, most) = getrlimit(Resource::RLIMIT_NOFILE).unwrap();
    let wanted = most.max(8192);
    setrlimit(Resource::RLIMIT_NOFILE, wanted, wanted).expect("room for 2,000 connections at both ends");
    let database = super::helpers::TestDatabase::new();
    let server = super::process::Process::start(&database);
    let before = server.resident_mb();
    let head = format!("GET /healthz HTTP/1.1\r\nHost: qttt\r\nX-Pad: {}", "a".repeat(30 * 1024));
    // actix answers an unfinished head with 408 after 5 s: all are open well before.
    let started = Instant::now();
    let held: Vec<TcpStream> = (0..2000)
        .map(|_| {
            let mut connection = TcpStream::connect(server.address).unwrap();
            connection.write_all(head.as_bytes()).unwrap();
            connection
        })
        .collect();
    std::thread::sleep(Duration::from_millis(500));
    let holding = server.resident_mb();
    let waited = started.elapsed();
    for connection in &held {
        connection.set_nonblocking(true).unwrap();
        let unanswered = matches!((&*connection).read(&mut [0]), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock);
        assert!(unanswered, "every head is still waiting after {waited:?}");
    }
    assert!(holding < before + 100, "{before} MB, then {holding} MB with 2,000 heads of 30 KB");
    drop(held);
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut after = server.resident_mb();
    while after > before + 20 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(250));
        after = server.resident_mb();
    }
    assert!(after <= before + 20, "{before} MB, {holding} MB with the heads, {after} MB 30 s after they closed");
}

#[test]
fn unread_player_streams_over_forty_thousand_events_hold_little_memory() {
    let database = TestDatabase::new();
    let settings = [("MAX_LIVE_STREAMS_PER_ADDRESS", "64")];
    let server = Process::start_logging(&database.url(), "error", std::process::Stdio::inherit(), &settings);
    let alice = server.player("alice");
    let bob = server.player("bob");
    assert_eq!(server.post_with_token("/api/v1/players/alice/challenges", &bob, json!({})).status, 201);
    // 40,000 more events of hers, written behind the server's back (as fast as
    // they could come from people, her first repeated).
    database.execute(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 40000) \
         INSERT INTO player_events (player_id, seq, kind, game_id, challenge_id, created_at) \
         SELECT e.player_id, e.seq + n.i, e.kind, e.game_id, e.challenge_id, e.created_at FROM n \
         JOIN player_events e ON e.seq = 1 JOIN players p ON p.id = e.player_id AND p.name = 'alice'; \
         UPDATE players SET last_event_seq = 40001 WHERE name = 'alice'",
    );
    let before = server.resident_mb();
    // 32 streams that never read, half a first connection, half resumed from her first event.
    let _streams: Vec<TcpStream> = (0..32)
        .map(|index| {
            let mut stream = TcpStream::connect(server.address).unwrap();
            let resume = if index % 2 == 0 { "" } else { "Last-Event-ID: 1\r\n" };
            let head = format!(
                "GET /api/v1/players/me/events?token={alice} HTTP/1.1\r\nHost: qttt\r\nAccept: text/event-stream\r\n{resume}\r\n"
            );
            stream.write_all(head.as_bytes()).unwrap();
            stream
        })
        .collect();
    // Until the server has done what they ask: its memory no longer grows.
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut last = server.resident_mb();
    loop {
        std::thread::sleep(Duration::from_secs(1));
        let now = server.resident_mb();
        if now <= last || Instant::now() > deadline {
            break;
        }
        last = now;
    }
    let grown = server.resident_mb().saturating_sub(before);
    assert!(grown <= 100, "32 unread streams took {grown} MB (from {before} MB)");
    // Her own stream, read, has the recent past on a first connection: her last 20 events.
    let mut read = server.player_events(&alice, None);
    let ids: Vec<i64> = (0..20).map(|_| read.next_event(PATIENCE).and_then(|event| event.id).unwrap()).collect();
    assert_eq!(ids, (39_982..=40_001).collect::<Vec<i64>>());
}

#[test]
fn a_player_keeps_their_last_thousand_events() {
    let database = TestDatabase::new();
    let app = TestApp::spawn_on(&database);
    let (alice, bob) = (app.player("alice"), app.player("bob"));
    // Each challenge sent and cancelled is two of her events.
    for _ in 0..505 {
        let challenge = app.post_with_token("/api/v1/players/alice/challenges", &bob, json!({})).json();
        let cancelled = app.post_with_token(&format!("/api/v1/challenges/{}/cancel", challenge["id"]), &bob, json!({}));
        assert_eq!(cancelled.status, 200, "{}", cancelled.body);
    }
    let kept = "SELECT count(*) FROM player_events WHERE player_id = (SELECT id FROM players WHERE name = 'alice')";
    let oldest = "SELECT min(seq) FROM player_events WHERE player_id = (SELECT id FROM players WHERE name = 'alice')";
    assert_eq!((database.count(kept), database.count(oldest)), (1000, 11));
    // A stream resumed from before them starts at the oldest kept.
    let mut resumed = app.watch_at(&format!("/api/v1/players/me/events?token={alice}&last_event_id=3"), &[]);
    assert_eq!(resumed.next_event(PATIENCE).and_then(|event| event.id), Some(11));
}

#[test]
fn a_client_that_sends_four_mib_before_reading_reads_the_413() {
    let app = TestApp::spawn();
    // As Python's http.client does without `Expect: 100-continue`: the whole
    // body first, then the answer.
    let waiting = app.create_game(json!({})).json()["game"]["id"].as_i64().unwrap();
    for path in ["/api/v1/games".to_string(), "/api/v1/players".into(), format!("/api/v1/games/{waiting}/join")] {
        let mut stream = TcpStream::connect(app.address).unwrap();
        stream.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        let body = vec![b' '; 4 * 1024 * 1024];
        let head = format!(
            "POST {path} HTTP/1.1\r\nHost: qttt\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            body.len()
        );
        stream.write_all(head.as_bytes()).unwrap();
        stream.write_all(&body).unwrap_or_else(|error| panic!("{path}: {error}"));
        let mut answer = String::new();
        let _ = stream.read_to_string(&mut answer);
        assert!(answer.starts_with("HTTP/1.1 413"), "{path}: {answer}");
        assert!(answer.contains("the body is larger than 4096 bytes"), "{answer}");
    }
}

/// The spec's operations that create a game, a seat, a player, a challenge, a
/// seek, an arena or a puzzle attempt: each counts against `CREATE_RATE_LIMIT`.
const CREATING: [&str; 10] = [
    "POST /api/v1/arenas",
    "POST /api/v1/challenges/{id}/accept",
    "POST /api/v1/games",
    "POST /api/v1/games/{id}/join",
    "POST /api/v1/games/{id}/rematch",
    "POST /api/v1/players",
    "POST /api/v1/players/{name}/challenges",
    "POST /api/v1/puzzles/{id}/attempts",
    "POST /api/v1/seeks",
    "POST /reset",
];

/// The spec's other writes, which act on what exists (a game's actions, an
/// answer to a challenge, a step of an attempt, a player's own token) or add
/// a player to an arena once: not counted.
const ACTING: [&str; 18] = [
    "POST /api/v1/arenas/{id}/bots/{name}",
    "POST /api/v1/arenas/{id}/join",
    "POST /api/v1/arenas/{id}/withdraw",
    "POST /api/v1/challenges/{id}/cancel",
    "POST /api/v1/challenges/{id}/decline",
    "POST /api/v1/games/{id}/abort",
    "POST /api/v1/games/{id}/claim-victory",
    "POST /api/v1/games/{id}/collapse",
    "POST /api/v1/games/{id}/draw",
    "POST /api/v1/games/{id}/draw/decline",
    "POST /api/v1/games/{id}/moves",
    "POST /api/v1/games/{id}/rematch/decline",
    "POST /api/v1/games/{id}/resign",
    "POST /api/v1/players/me/bot",
    "POST /api/v1/players/me/token",
    "POST /api/v1/puzzles/{id}/attempts/{attempt}",
    "DELETE /api/v1/seeks/{id}",
    "POST /move",
];

#[test]
fn every_operation_of_the_spec_that_creates_is_counted_against_the_creation_limit() {
    let app = TestApp::spawn_with(|config| config.create_rate_limit = limited(1));
    // Every write the spec has is one or the other: a new one must be sorted.
    let spec = app.request("GET", "/api-docs/openapi.json", &[], None).json();
    let mut writes: Vec<String> = spec["paths"]
        .as_object()
        .unwrap()
        .iter()
        .flat_map(|(path, operations)| {
            let methods = operations.as_object().unwrap().keys();
            methods.filter(|method| *method != "get").map(move |method| format!("{} {path}", method.to_uppercase()))
        })
        .collect();
    writes.sort();
    let mut sorted: Vec<String> = CREATING.iter().chain(&ACTING).map(ToString::to_string).collect();
    sorted.sort();
    assert_eq!(writes, sorted);

    // Each client its own address, and a creation each: a player, then what they make.
    let from = |last: u8| Client { address: app.address, from: Some(std::net::IpAddr::from([127, 0, 0, last])) };
    let player = |client: &Client, name: &str| {
        let created = client.create_player(Some(name));
        assert_eq!(created.status, 201, "{}", created.body);
        created.json()["token"].as_str().unwrap().to_string()
    };
    let (bob, carol, dave) = (from(2), from(4), from(5));
    let (bobs, carols, daves) = (player(&bob, "bob"), player(&carol, "carol"), player(&dave, "dave"));
    let alice = from(3);
    let alices = player(&alice, "alice");
    let challenge = carol.post_with_token("/api/v1/players/alice/challenges", &carols, json!({})).json()["id"].clone();
    let waiting = dave.create_game_as(&daves, json!({}));
    let hers = bob.create_game_as(&bobs, json!({}));
    // Her one creation: a seat in bob's game.
    assert_eq!(alice.post_with_token(&format!("/api/v1/games/{hers}/join"), &alices, json!({})).status, 201);

    let action = json!({"action": {"kind": "move", "squares": [0, 1]}});
    let clock = json!({"initial_ms": 60000, "increment_ms": 0});
    for (operation, path, body) in [
        (CREATING[0], "/api/v1/arenas".to_string(), json!({"name": "Spent", "clock": clock, "minutes": 5})),
        (CREATING[1], format!("/api/v1/challenges/{challenge}/accept"), json!({})),
        (CREATING[2], "/api/v1/games".into(), json!({})),
        (CREATING[3], format!("/api/v1/games/{waiting}/join"), json!({})),
        (CREATING[4], format!("/api/v1/games/{hers}/rematch"), json!({})),
        (CREATING[6], "/api/v1/players/bob/challenges".into(), json!({})),
        (CREATING[7], "/api/v1/puzzles/1/attempts".into(), action),
        (CREATING[8], "/api/v1/seeks".into(), json!({})),
    ] {
        let answer = alice.post_with_token(&path, &alices, body);
        assert_eq!(answer.status, 429, "{operation} was not counted: {}", answer.body);
    }
    // Without a token, her address's.
    assert_eq!(alice.create_player(Some("alice2")).status, 429, "{}", CREATING[5]);
    let reset = alice.request("POST", "/reset", &[("Content-Type", "application/json")], Some("{}"));
    assert_eq!(reset.status, 429, "{}: {}", CREATING[9], reset.body);
}
