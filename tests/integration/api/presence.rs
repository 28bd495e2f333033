//! Who is here: each seat's holder is present while seen within 30 s, and a game
//! without a clock whose player to act walked away can be claimed. A test moves
//! a player's sightings into the past behind the server's back rather than wait.

use std::time::Duration;

use serde_json::json;

use super::helpers::{Client, EventStream, TestApp, TestDatabase};

/// Long enough for a stream's look at the other seat, every 5 s.
const PRESENCE_PATIENCE: Duration = Duration::from_secs(12);

/// Moves every sighting of player `name` in game `id` a day into the past: its
/// log's times (the other player's too), its seats' sightings, and, with
/// `everywhere`, the player's own.
fn send_away(database: &TestDatabase, id: i64, name: &str, everywhere: bool) {
    let mut sql = format!(
        "UPDATE log_entries SET created_at = '2026-01-01T00:00:00.000Z' WHERE game_id = {id};
         UPDATE seats SET last_seen_at = NULL WHERE game_id = {id};"
    );
    if everywhere {
        sql.push_str(&format!("UPDATE players SET last_seen_at = '2026-01-01T00:00:00.000Z' WHERE name = '{name}';"));
    }
    database.execute(&sql);
}

impl Client {
    /// Game `id`'s stream as the seat of `token` reads it, the token in the query.
    fn watch_as(&self, id: i64, token: &str) -> EventStream {
        self.watch_at(&format!("/api/v1/games/{id}/events?token={token}"), &[])
    }

    fn claim(&self, id: i64, token: &str) -> super::helpers::Response {
        self.post_with_token(&format!("/api/v1/games/{id}/claim-victory"), token, json!({}))
    }
}

/// The next presence event of `stream`, after the game's own events.
fn next_presence(stream: &mut EventStream) -> super::helpers::Event {
    loop {
        let event = stream.next_event(PRESENCE_PATIENCE).expect("a presence event");
        if event.kind.starts_with("opponent_") {
            return event;
        }
    }
}

#[test]
fn a_game_walked_away_from_is_claimed_after_the_wait_and_refused_before() {
    let database = TestDatabase::new();
    let app = TestApp::spawn_with_database(&database, |config| config.claim_after = Duration::from_secs(60));
    let (alice, bob) = (app.player("alice"), app.player("bob"));
    let id = app.create_game_as(&alice, json!({"variant": "measurement"}));
    assert_eq!(app.post_with_token(&format!("/api/v1/games/{id}/join"), &bob, json!({})).status, 201);
    assert_eq!(app.place(id, &alice, [0, 1]).status, 201);
    let game = app.get_game(id).json();
    assert_eq!(
        (game["seats"]["X"]["present"].as_bool(), game["seats"]["O"]["present"].as_bool()),
        (Some(true), Some(true))
    );
    let mut alices = app.watch_as(id, &alice);
    alices.next_event(PRESENCE_PATIENCE).expect("the log's first event");

    let early = app.claim(id, &alice).assert_problem(422, "too_early");
    assert!(early["detail"].as_str().unwrap().starts_with("O is here"), "{early}");
    // The view says from when, as the refusal does: O's last sighting, 30 s, then the minute.
    let claim_from = app.get_game(id).json()["claim_from"].as_str().expect("a claim_from").to_string();
    assert!(early["detail"].as_str().unwrap().ends_with(&format!("claimed from {claim_from}")), "{early} {claim_from}");
    app.claim(id, &bob).assert_problem(422, "claim_not_allowed");

    send_away(&database, id, "bob", true);
    let game = app.get_game(id).json();
    assert_eq!(
        (game["seats"]["O"]["present"].as_bool(), game["claim_from"].as_str()),
        (Some(false), Some("2026-01-01T00:01:30.000Z"))
    );
    let gone = next_presence(&mut alices);
    assert_eq!((gone.kind.as_str(), gone.data["player"].as_str()), ("opponent_gone", Some("O")));
    assert!(
        gone.data["claim_from"].as_str().is_some_and(|from| from.starts_with("2026-01-01T00:01:30")),
        "{:?}",
        gone.data
    );
    // The claim is open: the stream says so, once.
    let open = alices.next_event(PRESENCE_PATIENCE).expect("claim_open");
    assert_eq!((open.kind.as_str(), open.data["player"].as_str()), ("claim_open", Some("O")), "{open:?}");
    assert!(open.data["claim_from"].as_str().is_some_and(|from| from.starts_with("2026-01-01T00:01:30")), "{open:?}");
    // A day gone: well past 30 s and the minute to wait after.
    let claimed = app.claim(id, &alice);
    assert_eq!(claimed.status, 201, "{}", claimed.body);
    let game = claimed.json();
    assert_eq!(game["end"], json!({"reason": "abandoned", "player": "O"}));
    assert_eq!(game["claim_from"], json!(null), "a game over is claimed no more");
    assert_eq!((game["result"].as_str(), game["status"].as_str()), (Some("x_wins"), Some("finished")));
    let log = app.request("GET", &format!("/api/v1/games/{id}/log"), &[], None).json();
    assert_eq!(log["entries"].as_array().unwrap().last().unwrap()["kind"], "abandon");
    app.claim(id, &alice).assert_problem(422, "game_over");
    let profile = app.request("GET", "/api/v1/players/alice", &[], None).json();
    assert_eq!(profile["games"]["won"], 1);
}

#[test]
fn a_player_who_comes_back_is_told_to_the_other_and_games_with_a_clock_or_a_bot_are_never_claimed() {
    let database = TestDatabase::new();
    let app = TestApp::spawn_on(&database);
    let (id, x, o) = app.two_player_game("player_choice");
    let mut xs = app.watch_as(id, &x);
    // Once the stream has sent the log's first event, it has seen O present:
    // only then may O go.
    xs.next_event(PRESENCE_PATIENCE).expect("the log's first event");
    send_away(&database, id, "", false);
    let gone = next_presence(&mut xs);
    assert_eq!(gone.kind, "opponent_gone");
    assert!(gone.data["claim_from"].is_null(), "X is to act: there is nothing to claim: {:?}", gone.data);
    // O looks at the game with the seat's token: here again.
    assert_eq!(app.get_with_token(&format!("/api/v1/games/{id}"), &o).status, 200);
    let back = next_presence(&mut xs);
    assert_eq!((back.kind.as_str(), back.data["player"].as_str()), ("opponent_back", Some("O")));

    let (clocked, clocked_x, _) = app.two_player_game_with(json!({"clock": {"initial_ms": 600000, "increment_ms": 0}}));
    assert_eq!(app.place(clocked, &clocked_x, [0, 1]).status, 201);
    assert_eq!(app.get_game(clocked).json()["claim_from"], json!(null), "a game with a clock");
    let refused = app.claim(clocked, &clocked_x).assert_problem(422, "claim_not_allowed");
    assert!(refused["detail"].as_str().unwrap().contains("clock"), "{refused}");
    let against_bot = app.create_game(json!({"opponent": {"bot": "random"}, "play_as": "O"}));
    let (bot_game, mine) = (
        against_bot.json()["game"]["id"].as_i64().unwrap(),
        against_bot.json()["seat"]["token"].as_str().unwrap().to_string(),
    );
    app.claim(bot_game, &mine).assert_problem(422, "claim_not_allowed");
}

#[test]
#[ignore = "needs PostgreSQL: QTTT_TEST_POSTGRES (see .ci/run)"]
fn a_player_present_on_the_other_instance_cannot_be_claimed_against() {
    let database = TestDatabase::new();
    assert!(matches!(database, TestDatabase::Postgres(_)), "set QTTT_TEST_POSTGRES to run this test");
    let (a, b) = (TestApp::spawn_on(&database), TestApp::spawn_on(&database));
    let (alice, bob) = (a.player("alice"), b.player("bob"));
    let id = a.create_game_as(&alice, json!({}));
    assert_eq!(b.post_with_token(&format!("/api/v1/games/{id}/join"), &bob, json!({})).status, 201);
    assert_eq!(a.place(id, &alice, [0, 1]).status, 201);
    // Bob has been away a day, then opens his own event stream on the other
    // instance, and idles in the game: longer than he counts as present after
    // one sighting, so that only the stream's own keep him here.
    send_away(&database, id, "bob", true);
    let mut bobs = b.watch_at(&format!("/api/v1/players/me/events?token={bob}"), &[]);
    assert_eq!(bobs.status(), Some(200));
    for _ in 0..9 {
        let refused = a.claim(id, &alice).assert_problem(422, "too_early");
        assert!(refused["detail"].as_str().unwrap().starts_with("O is here"), "{refused}");
        std::thread::sleep(Duration::from_secs(4));
    }
    drop(bobs);
    send_away(&database, id, "bob", true);
    let claimed = a.claim(id, &alice);
    assert_eq!(
        (claimed.status, claimed.json()["end"]["reason"].as_str()),
        (201, Some("abandoned")),
        "{}",
        claimed.body
    );
}

#[test]
fn a_rated_game_without_a_clock_is_claimed_against_a_player_who_stays_but_never_acts() {
    let database = TestDatabase::new();
    let app = TestApp::spawn_on(&database);
    let (alice, bob) = (app.player("alice"), app.player("bob"));
    let mut ids = Vec::new();
    for rated in [true, false] {
        let id = app.create_game_as(&alice, json!({"variant": "measurement", "rated": rated}));
        assert_eq!(app.post_with_token(&format!("/api/v1/games/{id}/join"), &bob, json!({})).status, 201);
        assert_eq!(app.place(id, &alice, [0, 1]).status, 201);
        assert_eq!(app.place(id, &bob, [2, 3]).status, 201);
        app.claim(id, &bob).assert_problem(422, "too_early");
        ids.push(id);
    }
    // Alice's turn began two days ago, and she stays: she reads each game.
    for &id in &ids {
        database
            .execute(&format!("UPDATE log_entries SET created_at = '2026-01-01T00:00:00.000Z' WHERE game_id = {id}"));
        let seen = app.get_with_token(&format!("/api/v1/games/{id}"), &alice).json();
        assert_eq!(seen["seats"]["X"]["present"], true, "{seen}");
    }
    // The rated game is claimed a day after her turn began; the casual one waits for her to go.
    let rated = app.get_game(ids[0]).json();
    assert_eq!(rated["claim_from"], "2026-01-02T00:00:00.000Z", "{rated}");
    let claimed = app.claim(ids[0], &bob);
    assert_eq!(claimed.status, 201, "{}", claimed.body);
    assert_eq!(claimed.json()["end"], json!({"reason": "abandoned", "player": "X"}));
    let early = app.claim(ids[1], &bob).assert_problem(422, "too_early");
    assert!(early["detail"].as_str().unwrap().starts_with("X is here"), "{early}");
}
