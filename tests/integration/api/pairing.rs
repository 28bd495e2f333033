//! Challenges, seeks, and the players' event streams that tell of them.

use std::time::Duration;

use serde_json::{Value, json};

use super::events::PATIENCE;
use super::helpers::{Client, EventStream, Response, TestApp, TestDatabase};

impl Client {
    /// The event stream of the player of `token`, the token in the query as an
    /// `EventSource` sends it, resuming after `last_event_id`.
    pub fn player_events(&self, token: &str, last_event_id: Option<i64>) -> EventStream {
        let resume = last_event_id.map(|seq| seq.to_string());
        let headers: Vec<(&str, &str)> = resume.iter().map(|seq| ("Last-Event-ID", seq.as_str())).collect();
        self.watch_at(&format!("/api/v1/players/me/events?token={token}"), &headers)
    }

    /// The player of `token` challenges the player `name` with `body`.
    pub fn challenge(&self, token: &str, name: &str, body: Value) -> Response {
        self.post_with_token(&format!("/api/v1/players/{name}/challenges"), token, body)
    }

    /// The player of `token` answers challenge `id` with `answer` (accept, decline or cancel).
    pub fn answer(&self, token: &str, id: i64, answer: &str, body: Value) -> Response {
        self.post_with_token(&format!("/api/v1/challenges/{id}/{answer}"), token, body)
    }

    /// The player of `token` seeks a game on `terms`.
    pub fn seek(&self, token: &str, terms: Value) -> Response {
        self.post_with_token("/api/v1/seeks", token, terms)
    }
}

/// The next event of `stream`, of kind `kind`.
pub(super) fn next_of(stream: &mut EventStream, kind: &str) -> Value {
    let event = stream.next_event(PATIENCE).unwrap_or_else(|| panic!("no {kind} event came"));
    assert_eq!(event.kind, kind, "{event:?}");
    assert_eq!(event.data["seq"].as_i64(), event.id, "{event:?}");
    event.data
}

#[test]
fn a_challenge_accepted_starts_the_game_with_both_seats_and_both_players_hear_of_it() {
    let app = TestApp::spawn();
    let (alice, bob) = (app.player("alice"), app.player("bob"));
    let mut alices = app.watch_at("/api/v1/players/me/events", &[("Authorization", &format!("Bearer {alice}"))]);
    let mut bobs = app.player_events(&bob, None);
    assert_eq!((alices.status(), bobs.status()), (Some(200), Some(200)));

    let sent = app.challenge(&alice, "BOB", json!({"variant": "player_choice", "colour": "x"}));
    assert_eq!(sent.status, 201, "{}", sent.body);
    let challenge = sent.json();
    assert_eq!((challenge["challenger"].as_str(), challenge["challenged"].as_str()), (Some("alice"), Some("bob")));
    assert_eq!((challenge["status"].as_str(), challenge["colour"].as_str()), (Some("open"), Some("X")));
    let id = challenge["id"].as_i64().unwrap();
    let came = next_of(&mut bobs, "challenge");
    assert_eq!((came["challenge"]["id"].as_i64(), came["game"].clone()), (Some(id), Value::Null));
    let listed = app.get_with_token("/api/v1/players/me/challenges", &bob).json();
    assert_eq!((listed["received"][0]["id"].as_i64(), listed["sent"].as_array().map(Vec::len)), (Some(id), Some(0)));
    let listed = app.get_with_token("/api/v1/players/me/challenges", &alice).json();
    assert_eq!(listed["sent"][0]["id"].as_i64(), Some(id));

    let accepted = app.answer(&bob, id, "accept", json!({}));
    assert_eq!(accepted.status, 201, "{}", accepted.body);
    let game = &accepted.json()["game"];
    let game_id = game["id"].as_i64().unwrap();
    assert_eq!((game["status"].as_str(), accepted.json()["seat"]["player"].as_str()), (Some("ongoing"), Some("O")));
    assert_eq!(
        (game["seats"]["X"]["name"].as_str(), game["seats"]["O"]["name"].as_str()),
        (Some("alice"), Some("bob"))
    );
    let started = next_of(&mut bobs, "game_start");
    assert_eq!((started["game"]["id"].as_i64(), started["seat"].as_str()), (Some(game_id), Some("O")));
    let started = next_of(&mut alices, "game_start");
    assert_eq!((started["game"]["id"].as_i64(), started["seat"].as_str()), (Some(game_id), Some("X")));
    let told = next_of(&mut alices, "challenge_accepted");
    assert_eq!(
        (told["challenge"]["status"].as_str(), told["challenge"]["game_id"].as_i64()),
        (Some("accepted"), Some(game_id))
    );

    // Both play with their players' tokens; the end reaches both streams.
    assert_eq!(app.place(game_id, &alice, [0, 1]).status, 201);
    assert_eq!(app.post_with_token(&format!("/api/v1/games/{game_id}/resign"), &bob, json!({})).status, 201);
    for stream in [&mut alices, &mut bobs] {
        let finished = next_of(stream, "game_finish");
        assert_eq!(
            (finished["game"]["result"].as_str(), finished["game"]["end"]["reason"].as_str()),
            (Some("x_wins"), Some("resignation"))
        );
    }
    app.answer(&bob, id, "accept", json!({})).assert_problem(409, "not_open");
}

#[test]
fn a_challenge_declined_another_cancelled_another_expired_and_each_refusal_its_code() {
    let app = TestApp::spawn_with(|config| config.challenge_timeout = Duration::from_secs(1));
    let (alice, bob, carol) = (app.player("alice"), app.player("bob"), app.player("carol"));
    let mut alices = app.player_events(&alice, None);
    let mut bobs = app.player_events(&bob, None);
    let id_of = |sent: Response| {
        assert_eq!(sent.status, 201, "{}", sent.body);
        sent.json()["id"].as_i64().unwrap()
    };

    let declined = id_of(app.challenge(&alice, "bob", json!({})));
    next_of(&mut bobs, "challenge");
    app.answer(&carol, declined, "accept", json!({})).assert_problem(403, "forbidden");
    app.get_with_token(&format!("/api/v1/challenges/{declined}"), &carol).assert_problem(403, "forbidden");
    app.answer(&alice, declined, "accept", json!({})).assert_problem(403, "forbidden");
    app.answer(&bob, declined, "cancel", json!({})).assert_problem(403, "forbidden");
    // A reason is text to show: no control character, nothing that reorders or hides text.
    for (reason, named) in [("later\u{202E}esaelp", "U+202E"), ("la\u{200B}ter", "U+200B"), ("later\u{0}", "U+0000")] {
        let refused =
            app.answer(&bob, declined, "decline", json!({ "reason": reason })).assert_problem(400, "invalid_body");
        assert_eq!(refused["detail"], format!("a reason is text to show: {named} is not"));
    }
    let answered = app.answer(&bob, declined, "decline", json!({"reason": "later, please"}));
    assert_eq!((answered.status, answered.json()["status"].as_str()), (200, Some("declined")));
    let told = next_of(&mut alices, "challenge_declined");
    assert_eq!(told["challenge"]["decline_reason"], "later, please");
    app.answer(&bob, declined, "accept", json!({})).assert_problem(409, "not_open");

    let cancelled = id_of(app.challenge(&alice, "bob", json!({"clock": {"initial_ms": 60000, "increment_ms": 0}})));
    next_of(&mut bobs, "challenge");
    assert_eq!(app.answer(&alice, cancelled, "cancel", json!({})).json()["status"], "cancelled");
    assert_eq!(next_of(&mut bobs, "challenge_cancelled")["challenge"]["id"].as_i64(), Some(cancelled));

    let expired = id_of(app.challenge(&alice, "bob", json!({"colour": "O"})));
    std::thread::sleep(Duration::from_millis(1200));
    let seen = app.get_with_token(&format!("/api/v1/challenges/{expired}"), &bob).json();
    assert_eq!(seen["status"], "expired");
    let refused = app.answer(&bob, expired, "accept", json!({})).assert_problem(409, "not_open");
    assert_eq!(refused["detail"], "this challenge is expired");
    assert_eq!(app.get_with_token("/api/v1/players/me/challenges", &bob).json()["received"], json!([]));

    app.challenge(&alice, "alice", json!({})).assert_problem(422, "self_challenge");
    app.challenge(&alice, "nobody", json!({})).assert_problem(404, "not_found");
    app.challenge(&alice, "bob", json!({"colour": "purple"})).assert_problem(400, "invalid_body");
    app.get_with_token("/api/v1/challenges/424242", &alice).assert_problem(404, "not_found");
    let long = "x".repeat(201);
    let open = id_of(app.challenge(&carol, "bob", json!({})));
    app.answer(&bob, open, "decline", json!({"reason": long})).assert_problem(400, "invalid_body");
}

#[test]
fn a_player_has_at_most_twenty_challenges_waiting() {
    let app = TestApp::spawn();
    let (alice, bob) = (app.player("alice"), app.player("bob"));
    for _ in 0..20 {
        assert_eq!(app.challenge(&alice, "bob", json!({})).status, 201);
    }
    app.challenge(&alice, "bob", json!({})).assert_problem(422, "too_many_open");
    let first = app.get_with_token("/api/v1/players/me/challenges", &alice).json()["sent"][19]["id"].as_i64().unwrap();
    assert_eq!(app.answer(&alice, first, "cancel", json!({})).status, 200);
    assert_eq!(app.challenge(&alice, "bob", json!({})).status, 201, "one cancelled: one more may go");
    assert_eq!(
        app.get_with_token("/api/v1/players/me/challenges", &bob).json()["received"].as_array().map(Vec::len),
        Some(20)
    );
}

#[test]
fn two_seeks_pair_into_one_game_and_a_third_waits() {
    let app = TestApp::spawn();
    let (alice, bob, carol, dave) = (app.player("alice"), app.player("bob"), app.player("carol"), app.player("dave"));
    let mut alices = app.player_events(&alice, None);
    let mut bobs = app.player_events(&bob, None);
    let terms = json!({"variant": "player_choice", "clock": {"initial_ms": 60000, "increment_ms": 1000}});

    let waiting = app.seek(&alice, terms.clone());
    assert_eq!(waiting.status, 201, "{}", waiting.body);
    assert_eq!((waiting.json()["status"].as_str(), waiting.json()["game_id"].clone()), (Some("open"), Value::Null));
    let alices_seek = waiting.json()["id"].as_i64().unwrap();
    // Her own second seek, and one on other terms, never pair with it.
    let second = app.seek(&alice, terms.clone()).json();
    assert_eq!(second["status"], "open");
    let other_terms = app.seek(&carol, json!({"variant": "player_choice"})).json();
    assert_eq!(other_terms["status"], "open");

    let paired = app.seek(&bob, terms.clone()).json();
    assert_eq!(paired["status"], "paired");
    let game_id = paired["game_id"].as_i64().unwrap();
    let hers = app.get_with_token(&format!("/api/v1/seeks/{alices_seek}"), &alice).json();
    assert_eq!((hers["status"].as_str(), hers["game_id"].as_i64()), (Some("paired"), Some(game_id)), "the oldest");
    for stream in [&mut alices, &mut bobs] {
        assert_eq!(next_of(stream, "game_start")["game"]["id"].as_i64(), Some(game_id));
    }
    let game = app.get_game(game_id).json();
    let mut players = [game["seats"]["X"]["name"].as_str().unwrap(), game["seats"]["O"]["name"].as_str().unwrap()];
    players.sort_unstable();
    assert_eq!(players, ["alice", "bob"]);
    assert_eq!((game["status"].as_str(), game["clock"]["initial_ms"].as_i64()), (Some("ongoing"), Some(60000)));

    // Once her second seek is cancelled, a third seeker waits for a fourth.
    let delete = |id: &Value, token: &str| {
        app.request("DELETE", &format!("/api/v1/seeks/{id}"), &[("Authorization", &format!("Bearer {token}"))], None)
    };
    delete(&second["id"], &dave).assert_problem(403, "forbidden");
    assert_eq!(delete(&second["id"], &alice).json()["status"], "cancelled");
    delete(&second["id"], &alice).assert_problem(409, "not_open");
    let third = app.seek(&carol, terms.clone()).json();
    assert_eq!(third["status"], "open");
    app.get_with_token(&format!("/api/v1/seeks/{}", third["id"]), &dave).assert_problem(403, "forbidden");
    let fourth = app.seek(&dave, terms.clone()).json();
    assert_eq!(fourth["status"], "paired");
    let carols = app.get_with_token(&format!("/api/v1/seeks/{}", third["id"]), &carol).json();
    assert_eq!(carols["game_id"], fourth["game_id"]);
    assert_eq!(app.get_with_token(&format!("/api/v1/seeks/{}", other_terms["id"]), &carol).json()["status"], "open");

    // At most three open at once.
    for _ in 0..3 {
        assert_eq!(app.seek(&dave, json!({"variant": "measurement"})).json()["status"], "open");
    }
    app.seek(&dave, json!({"variant": "measurement"})).assert_problem(422, "too_many_open");
}

#[test]
fn a_players_stream_resumes_after_last_event_id_and_sends_nothing_twice() {
    let app = TestApp::spawn();
    let (alice, bob) = (app.player("alice"), app.player("bob"));
    for _ in 0..3 {
        let id = app.challenge(&bob, "alice", json!({})).json()["id"].as_i64().unwrap();
        assert_eq!(app.answer(&bob, id, "cancel", json!({})).status, 200);
    }
    let mut first = app.player_events(&alice, None);
    let kinds: Vec<String> = (1..=6)
        .map(|seq| {
            let event = first.next_event(PATIENCE).unwrap_or_else(|| panic!("event {seq}"));
            assert_eq!(event.id, Some(seq));
            event.kind
        })
        .collect();
    assert_eq!(
        kinds,
        ["challenge", "challenge_cancelled", "challenge", "challenge_cancelled", "challenge", "challenge_cancelled"]
    );
    drop(first);
    let id = app.challenge(&bob, "alice", json!({})).json()["id"].as_i64().unwrap();
    let mut resumed = app.player_events(&alice, Some(4));
    assert_eq!(resumed.next_event(PATIENCE).map(|event| event.id), Some(Some(5)));
    assert_eq!(resumed.next_event(PATIENCE).map(|event| event.id), Some(Some(6)));
    let missed = resumed.next_event(PATIENCE).expect("the challenge sent while nobody listened");
    assert_eq!((missed.id, missed.data["challenge"]["id"].as_i64()), (Some(7), Some(id)));
    assert!(resumed.next_event(Duration::from_millis(300)).is_none(), "nothing twice, nothing more");
    let query =
        app.watch_at(&format!("/api/v1/players/me/events?token={alice}&last_event_id=6"), &[]).next_event(PATIENCE);
    assert_eq!(query.map(|event| event.id), Some(Some(7)));
    let mut refused = app.watch_at("/api/v1/players/me/events?token=qtp_nobody", &[]);
    assert_eq!(refused.status(), Some(401));
}

#[test]
#[ignore = "needs PostgreSQL: QTTT_TEST_POSTGRES (see .ci/run)"]
fn twenty_players_seeking_at_once_on_two_instances_make_ten_games_each_player_in_one() {
    let database = TestDatabase::new();
    assert!(matches!(database, TestDatabase::Postgres(_)), "set QTTT_TEST_POSTGRES to run this test");
    let instances = [TestApp::spawn_on(&database), TestApp::spawn_on(&database)];
    for round in 0..3 {
        let tokens: Vec<String> = (0..20).map(|n| instances[n % 2].player(&format!("seeker{round}_{n}"))).collect();
        let barrier = std::sync::Barrier::new(20);
        let seeks: Vec<Value> = std::thread::scope(|scope| {
            let threads: Vec<_> = tokens
                .iter()
                .enumerate()
                .map(|(n, token)| {
                    let (instance, barrier) = (&instances[n % 2], &barrier);
                    scope.spawn(move || {
                        barrier.wait();
                        let seek = instance.seek(token, json!({"variant": "measurement"}));
                        assert_eq!(seek.status, 201, "{}", seek.body);
                        seek.json()
                    })
                })
                .collect();
            threads.into_iter().map(|thread| thread.join().unwrap()).collect()
        });
        // Each seek as it stands now: the first of each pair was answered open.
        let seeks: Vec<Value> = seeks
            .iter()
            .zip(&tokens)
            .map(|(seek, token)| instances[0].get_with_token(&format!("/api/v1/seeks/{}", seek["id"]), token).json())
            .collect();
        assert!(seeks.iter().all(|seek| seek["status"] == "paired"), "round {round}: {seeks:?}");
        let mut games: Vec<i64> = seeks.iter().map(|seek| seek["game_id"].as_i64().unwrap()).collect();
        games.sort_unstable();
        games.dedup();
        assert_eq!(games.len(), 10, "round {round}: {seeks:?}");
        let mut seated: Vec<String> = games
            .iter()
            .flat_map(|id| {
                let game = instances[1].get_game(*id).json();
                ["X", "O"].map(|seat| game["seats"][seat]["name"].as_str().unwrap().to_string())
            })
            .collect();
        seated.sort_unstable();
        seated.dedup();
        assert_eq!(seated.len(), 20, "every player in exactly one game");
    }
}

#[test]
#[ignore = "needs PostgreSQL: QTTT_TEST_POSTGRES (see .ci/run)"]
fn a_players_stream_on_one_instance_hears_of_what_happens_on_the_other() {
    let database = TestDatabase::new();
    assert!(matches!(database, TestDatabase::Postgres(_)), "set QTTT_TEST_POSTGRES to run this test");
    let (a, b) = (TestApp::spawn_on(&database), TestApp::spawn_on(&database));
    let (alice, bob) = (a.player("alice"), b.player("bob"));
    let mut bobs_on_a = a.player_events(&bob, None);
    assert_eq!(bobs_on_a.status(), Some(200));
    let id = b.challenge(&alice, "bob", json!({})).json()["id"].as_i64().unwrap();
    assert_eq!(next_of(&mut bobs_on_a, "challenge")["challenge"]["id"].as_i64(), Some(id));
    let accepted = b.answer(&bob, id, "accept", json!({}));
    let game_id = accepted.json()["game"]["id"].as_i64();
    assert_eq!(next_of(&mut bobs_on_a, "game_start")["game"]["id"].as_i64(), game_id);
    assert_eq!(b.post_with_token(&format!("/api/v1/games/{}/resign", game_id.unwrap()), &alice, json!({})).status, 201);
    assert_eq!(next_of(&mut bobs_on_a, "game_finish")["game"]["end"]["reason"], "resignation");
}

#[test]
fn seeks_that_expire_unpaired_are_swept_out_of_the_open_ones() {
    let database = TestDatabase::new();
    let app = TestApp::spawn_with_database(&database, |config| config.seek_timeout = Duration::from_secs(1));
    // Three seeks on terms of their own, which pair with nothing.
    let seeks: Vec<(String, i64)> = [
        ("alice", json!({"variant": "measurement"})),
        ("bob", json!({"variant": "player_choice"})),
        ("carol", json!({"variant": "measurement", "scoring": "narrow_win"})),
    ]
    .into_iter()
    .map(|(name, terms)| {
        let token = app.player(name);
        let id = app.seek(&token, terms).json()["id"].as_i64().unwrap();
        (token, id)
    })
    .collect();
    let open = || database.count("SELECT count(*) FROM seeks WHERE status = 'open'");
    assert_eq!(open(), 3);
    let deadline = std::time::Instant::now() + PATIENCE;
    while open() > 0 && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(open(), 0, "the expired seeks are still open");
    assert_eq!(database.count("SELECT count(*) FROM seeks WHERE status = 'expired'"), 3);
    for (token, id) in &seeks {
        assert_eq!(app.get_with_token(&format!("/api/v1/seeks/{id}"), token).json()["status"], "expired");
    }
    // A new seek on the first's terms finds no partner among them.
    assert_eq!(app.seek(&app.player("dave"), json!({"variant": "measurement"})).json()["status"], "open");
}

#[test]
fn a_new_token_ends_the_streams_opened_with_the_old_one() {
    let app = TestApp::spawn();
    let (alice, bob) = (app.player("alice"), app.player("bob"));
    let mut old = app.player_events(&alice, None);
    let mut by_header = app.watch_at("/api/v1/players/me/events", &[("Authorization", &format!("Bearer {alice}"))]);
    let mut bobs = app.player_events(&bob, None);
    assert_eq!((old.status(), by_header.status(), bobs.status()), (Some(200), Some(200), Some(200)));
    let renewed = app.post_with_token("/api/v1/players/me/token", &alice, json!({}));
    assert_eq!(renewed.status, 201, "{}", renewed.body);
    let new = renewed.json()["token"].as_str().unwrap().to_string();
    assert!(old.ends_within(PATIENCE), "the stream of the old token goes on: {}", old.received());
    assert!(by_header.ends_within(PATIENCE), "{}", by_header.received());
    // Nothing of hers reached them; the new token's stream hears what comes next.
    let mut current = app.player_events(&new, None);
    assert_eq!(current.status(), Some(200));
    app.challenge(&bob, "alice", json!({}));
    assert_eq!(next_of(&mut current, "challenge")["challenge"]["challenger"], "bob");
    assert!(!old.received().contains("challenge") && !by_header.received().contains("challenge"));
    // Another player's stream is not touched.
    bobs.next_event(Duration::from_millis(200));
    assert_eq!(bobs.status(), Some(200));
}

#[test]
fn a_player_is_sent_at_most_fifty_open_challenges() {
    let app = TestApp::spawn();
    let alice = app.player("alice");
    let challengers: Vec<String> = (0..51).map(|index| app.player(&format!("challenger{index}"))).collect();
    for challenger in &challengers[..50] {
        assert_eq!(app.challenge(challenger, "alice", json!({})).status, 201);
    }
    let refused = app.challenge(&challengers[50], "alice", json!({})).assert_problem(422, "too_many_open");
    assert!(refused["detail"].as_str().unwrap().starts_with("alice has 50 challenges waiting"), "{refused}");
    let listed = app.get_with_token("/api/v1/players/me/challenges", &alice).json();
    assert_eq!(listed["received"].as_array().map(Vec::len), Some(50));
    assert_eq!(listed["next_cursor"], Value::Null);
    // A page at a time, newest first.
    let first = app.get_with_token("/api/v1/players/me/challenges?limit=30", &alice).json();
    let cursor = first["next_cursor"].as_str().expect("another page").to_string();
    let rest = app.get_with_token(&format!("/api/v1/players/me/challenges?limit=30&cursor={cursor}"), &alice).json();
    let ids = |page: &Value| page["received"].as_array().unwrap().iter().map(|c| c["id"].clone()).collect::<Vec<_>>();
    assert_eq!([ids(&first), ids(&rest)].concat(), ids(&listed));
    assert_eq!((ids(&first).len(), &rest["next_cursor"]), (30, &Value::Null));
    // One answered, another may come.
    let newest = listed["received"][0]["id"].as_i64().unwrap();
    assert_eq!(app.answer(&alice, newest, "decline", json!({})).status, 200);
    assert_eq!(app.challenge(&challengers[50], "alice", json!({})).status, 201);
}
