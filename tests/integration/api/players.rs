//! Players: an identity across games, their games, and their token.

use serde_json::{Value, json};

use super::helpers::{Client, Response, TestApp, goffs_draw};

impl Client {
    /// Creates a player named `name` (or a drawn name); answers the answer.
    pub fn create_player(&self, name: Option<&str>) -> Response {
        let body = name.map_or_else(|| json!({}), |name| json!({ "name": name }));
        self.request("POST", "/api/v1/players", &[("Content-Type", "application/json")], Some(&body.to_string()))
    }

    /// Creates a player named `name`; answers their token.
    pub fn player(&self, name: &str) -> String {
        let created = self.create_player(Some(name));
        assert_eq!(created.status, 201, "{}", created.body);
        created.json()["token"].as_str().expect("a token").to_string()
    }

    /// A GET of `path` with `token` as its bearer.
    pub fn get_with_token(&self, path: &str, token: &str) -> Response {
        self.request("GET", path, &[("Authorization", &format!("Bearer {token}"))], None)
    }

    /// Creates a game with `body` as the player of `token`; answers its id.
    pub fn create_game_as(&self, token: &str, body: Value) -> i64 {
        let created = self.post_with_token("/api/v1/games", token, body);
        assert_eq!(created.status, 201, "{}", created.body);
        created.json()["game"]["id"].as_i64().expect("an id")
    }

    /// The games of the player of `token` with `query`, as a page.
    pub fn my_games(&self, token: &str, query: &str) -> Value {
        let listed = self.get_with_token(&format!("/api/v1/players/me/games{query}"), token);
        assert_eq!(listed.status, 200, "{}", listed.body);
        listed.json()
    }
}

/// The ids of the games of a page.
fn ids(page: &Value) -> Vec<i64> {
    page["games"].as_array().expect("games").iter().map(|game| game["id"].as_i64().unwrap()).collect()
}

#[test]
fn a_player_creates_a_game_and_plays_it_to_the_end_with_the_player_token_alone() {
    let app = TestApp::spawn();
    let alice = app.player("alice");
    let id = app.create_game_as(&alice, json!({"variant": "player_choice"}));
    let joined = app.join(id);
    let o = joined.json()["seat"]["token"].as_str().unwrap().to_string();
    let seats = &joined.json()["game"]["seats"];
    assert_eq!(seats["X"]["name"], "alice");
    assert_eq!((seats["O"]["name"].clone(), seats["O"]["bot"].clone()), (Value::Null, Value::Null));
    for step in goffs_draw(&alice, &o) {
        let taken = step.take(&app, id);
        assert_eq!(taken.status, 201, "{}", taken.body);
    }
    let game = app.get_game(id).json();
    assert_eq!((game["status"].as_str(), game["result"].as_str()), (Some("finished"), Some("draw")));
    let profile = app.request("GET", "/api/v1/players/ALICE", &[], None).json();
    assert_eq!(profile["name"], "alice");
    assert_eq!(profile["games"], json!({"played": 1, "won": 0, "lost": 0, "drawn": 1, "aborted": 0}));
}

#[test]
fn the_same_player_on_a_new_device_lists_their_games_and_resumes_an_ongoing_one() {
    let app = TestApp::spawn();
    let alice = app.player("alice");
    let bob = app.player("bob");
    let waiting = app.create_game_as(&alice, json!({}));
    let private = app.create_game_as(&alice, json!({"private": true}));
    let joined = app.post_with_token(&format!("/api/v1/games/{private}/join"), &bob, json!({}));
    assert_eq!(joined.status, 403, "a private game still needs its invite: {}", joined.body);
    let against_bot = app.create_game_as(&bob, json!({"opponent": {"bot": "random"}}));
    let public = app.create_game_as(&alice, json!({"variant": "player_choice"}));
    let joined = app.post_with_token(&format!("/api/v1/games/{public}/join"), &bob, json!({}));
    assert_eq!(joined.status, 201, "{}", joined.body);
    assert_eq!(joined.json()["game"]["seats"]["O"]["name"], "bob");

    // The new device has nothing but alice's token.
    let everything = app.my_games(&alice, "");
    assert_eq!(ids(&everything), [public, private, waiting], "the private one too, never bob's alone");
    assert_eq!(ids(&app.my_games(&alice, "?status=ongoing")), [public]);
    let first_page = app.my_games(&alice, "?limit=2");
    assert_eq!(ids(&first_page), [public, private]);
    let cursor = first_page["next_cursor"].as_str().unwrap();
    assert_eq!(ids(&app.my_games(&alice, &format!("?limit=2&cursor={cursor}"))), [waiting]);
    assert_eq!(ids(&app.my_games(&bob, "")), [public, against_bot]);
    assert_eq!(everything["games"][0]["players"], json!({"X": "alice", "O": "bob"}));

    // It resumes the game with the same token: the seat follows its player.
    let moved = app.place(public, &alice, [0, 1]);
    assert_eq!(moved.status, 201, "{}", moved.body);
    let moved = app.place(public, &bob, [0, 1]);
    assert_eq!(moved.json()["pending_collapse"]["chooser"], "X");
    let hint = app.hint(against_bot, &bob);
    assert_eq!(hint.status, 200, "a player's token asks for its seat's hints: {}", hint.body);
    let not_hers = app.place(against_bot, &alice, [0, 1]);
    not_hers.assert_problem(403, "forbidden");
    // A player cannot hold both seats of a game.
    let both = app.post_with_token(&format!("/api/v1/games/{waiting}/join"), &alice, json!({}));
    both.assert_problem(409, "conflict");
}

#[test]
fn a_profile_lists_the_players_public_games_with_their_clocks_never_a_private_one() {
    let app = TestApp::spawn();
    let (alice, bob) = (app.player("alice"), app.player("bob"));
    let clock = json!({"initial_ms": 60000, "increment_ms": 1000});
    let public = app.create_game_as(&alice, json!({"variant": "player_choice", "clock": clock}));
    assert_eq!(app.post_with_token(&format!("/api/v1/games/{public}/join"), &bob, json!({})).status, 201);
    let private = app.create_game_as(&alice, json!({"private": true}));
    let untimed = app.create_game_as(&bob, json!({}));

    let listed = app.request("GET", "/api/v1/players/ALICE/games", &[], None);
    assert_eq!(listed.status, 200, "{}", listed.body);
    assert_eq!(ids(&listed.json()), [public]);
    let game = &listed.json()["games"][0];
    assert_eq!((game["players"]["X"].as_str(), game["players"]["O"].as_str()), (Some("alice"), Some("bob")));
    assert_eq!(game["clock"], clock);
    assert_eq!(ids(&app.request("GET", "/api/v1/players/bob/games", &[], None).json()), [untimed, public]);
    let bobs = app.request("GET", "/api/v1/players/bob/games?limit=1", &[], None).json();
    assert_eq!((ids(&bobs), bobs["games"][0]["clock"].clone()), (vec![untimed], Value::Null));
    let rest = app.request(
        "GET",
        &format!("/api/v1/players/bob/games?cursor={}", bobs["next_cursor"].as_str().unwrap()),
        &[],
        None,
    );
    assert_eq!(ids(&rest.json()), [public]);
    assert_eq!(
        ids(&app.request("GET", "/api/v1/players/alice/games?status=finished", &[], None).json()),
        Vec::<i64>::new()
    );
    // Her own list holds the private one.
    assert_eq!(ids(&app.my_games(&alice, "")), [private, public]);
    app.request("GET", "/api/v1/players/nobody/games", &[], None).assert_problem(404, "not_found");
    app.request("GET", "/api/v1/players/n!/games", &[], None).assert_problem(400, "invalid_path");
}

#[test]
fn a_taken_name_in_any_case_gets_409_and_a_name_that_is_none_400() {
    let app = TestApp::spawn();
    assert_eq!(app.create_player(Some("Alice")).status, 201);
    app.create_player(Some("aLICE")).assert_problem(409, "name_taken");
    for bad in ["al", "a-name-that-is-much-too-long", "ali ce", "alicé", ""] {
        app.create_player(Some(bad)).assert_problem(400, "invalid_body");
    }
    let drawn = app.create_player(None);
    assert_eq!(drawn.status, 201, "{}", drawn.body);
    let name = drawn.json()["player"]["name"].as_str().unwrap().to_string();
    assert!(name.len() >= 3 && name.contains('_'), "{name}");
    assert_eq!(drawn.header("location"), Some(format!("/api/v1/players/{name}").as_str()));
    app.request("GET", "/api/v1/players/nobody", &[], None).assert_problem(404, "not_found");
    app.request("GET", "/api/v1/players/n!", &[], None).assert_problem(400, "invalid_path");
}

#[test]
fn a_new_token_replaces_the_old_one_at_once() {
    let app = TestApp::spawn();
    let old = app.player("alice");
    let created = app.create_player(Some("bob"));
    let bob = created.json()["token"].as_str().unwrap().to_string();
    let id = app.create_game_as(&old, json!({}));
    app.post_with_token(&format!("/api/v1/games/{id}/join"), &bob, json!({}));
    let me = app.get_with_token("/api/v1/players/me", &old);
    assert_eq!((me.status, me.json()["name"].as_str()), (200, Some("alice")));

    let rotated = app.post_with_token("/api/v1/players/me/token", &old, json!({}));
    assert_eq!(rotated.status, 201, "{}", rotated.body);
    let new = rotated.json()["token"].as_str().unwrap().to_string();
    assert!(new.starts_with("qtp_") && new != old);

    for refused in [
        app.get_with_token("/api/v1/players/me", &old),
        app.get_with_token("/api/v1/players/me/games", &old),
        app.place(id, &old, [0, 1]),
        app.post_with_token("/api/v1/games", &old, json!({})),
    ] {
        let problem = refused.assert_problem(401, "unauthorized");
        assert!(problem["detail"].as_str().unwrap().contains("new one"), "{problem}");
    }
    assert_eq!(app.place(id, &new, [0, 1]).status, 201);
    assert_eq!(app.get_with_token("/api/v1/players/me", &new).json()["name"], "alice");
    app.get_with_token("/api/v1/players/me", "qtp_made-up").assert_problem(401, "unauthorized");
    app.request("GET", "/api/v1/players/me", &[], None).assert_problem(401, "unauthorized");
}

#[test]
fn a_rematch_asked_for_with_the_players_tokens_keeps_each_seat_with_its_player() {
    let app = TestApp::spawn();
    let (alice, bob) = (app.player("alice"), app.player("bob"));
    let id = app.create_game_as(&alice, json!({"variant": "player_choice"}));
    assert_eq!(app.post_with_token(&format!("/api/v1/games/{id}/join"), &bob, json!({})).status, 201);
    assert_eq!(app.post_with_token(&format!("/api/v1/games/{id}/abort"), &bob, json!({})).status, 201);
    let asked = app.post_with_token(&format!("/api/v1/games/{id}/rematch"), &alice, json!({}));
    assert_eq!(asked.status, 201, "{}", asked.body);
    let rematch = asked.json()["game"]["id"].as_i64().unwrap();
    assert_eq!(asked.json()["seat"]["player"], "O", "the colours swapped");
    let joined = app.post_with_token(&format!("/api/v1/games/{id}/rematch"), &bob, json!({}));
    assert_eq!(joined.status, 201, "{}", joined.body);
    let seats = &joined.json()["game"]["seats"];
    assert_eq!((seats["X"]["name"].as_str(), seats["O"]["name"].as_str()), (Some("bob"), Some("alice")));
    assert_eq!(ids(&app.my_games(&alice, "")), [rematch, id]);
    assert_eq!(app.place(rematch, &bob, [4, 5]).status, 201, "bob's player's token plays X");
}

#[test]
fn a_new_player_becomes_a_bot_for_good_and_one_who_has_played_does_not() {
    let app = TestApp::spawn();
    let engine = app.player("engine");
    let made = app.post_with_token("/api/v1/players/me/bot", &engine, json!({}));
    assert_eq!(made.status, 200, "{}", made.body);
    assert_eq!((&made.json()["name"], &made.json()["bot"]), (&json!("engine"), &json!(true)));
    assert_eq!(app.request("GET", "/api/v1/players/engine", &[], None).json()["bot"], true);
    let again = app.post_with_token("/api/v1/players/me/bot", &engine, json!({})).assert_problem(409, "conflict");
    assert_eq!(again["detail"], "engine is a bot already");
    // A player who has held a seat stays a person.
    let alice = app.player("alice");
    app.create_game_as(&alice, json!({"variant": "measurement"}));
    let refused = app.post_with_token("/api/v1/players/me/bot", &alice, json!({})).assert_problem(409, "conflict");
    assert_eq!(refused["detail"], "alice has played: only a player who has played no game becomes a bot");
    assert_eq!(app.request("GET", "/api/v1/players/alice", &[], None).json()["bot"], false);
    // A bot account is challenged as any player is, and its seat says it is a bot.
    let challenge = app.challenge(&alice, "engine", json!({"variant": "player_choice"}));
    assert_eq!(challenge.status, 201, "{}", challenge.body);
    let id = challenge.json()["id"].as_i64().unwrap();
    let accepted = app.answer(&engine, id, "accept", json!({}));
    assert_eq!(accepted.status, 201, "{}", accepted.body);
    let game = app.get_game(accepted.json()["game"]["id"].as_i64().unwrap()).json();
    let seats = [&game["seats"]["X"], &game["seats"]["O"]];
    let engine_seat = seats.iter().find(|seat| seat["name"] == "engine").expect("the bot's seat");
    assert_eq!((&engine_seat["bot"], &engine_seat["bot_account"]), (&json!(null), &json!(true)));
    // A bot gets no hints, even in a game that gives them.
    let own = app.create_game_as(&engine, json!({"variant": "player_choice", "hints": true}));
    assert_eq!(app.join(own).status, 201);
    let hint = app.hint(own, &engine).assert_problem(422, "hints_disabled");
    assert_eq!(hint["detail"], "a bot gets no hints: it is an engine already");
}

#[test]
fn a_profile_reads_the_results_counted_as_games_end_not_the_games() {
    let database = super::helpers::TestDatabase::new();
    let app = TestApp::spawn_on(&database);
    let (alice, bob) = (app.player("alice"), app.player("bob"));
    // A win against bob, a loss to the random bot, a game aborted.
    let won = app.create_game_as(&alice, json!({"variant": "measurement"}));
    assert_eq!(app.post_with_token(&format!("/api/v1/games/{won}/join"), &bob, json!({})).status, 201);
    assert_eq!(app.place(won, &alice, [0, 1]).status, 201);
    assert_eq!(app.post_with_token(&format!("/api/v1/games/{won}/resign"), &bob, json!({})).status, 201);
    let lost = app.create_game_as(&alice, json!({"opponent": {"bot": "random"}, "play_as": "X"}));
    assert_eq!(app.place(lost, &alice, [0, 1]).status, 201);
    assert_eq!(app.post_with_token(&format!("/api/v1/games/{lost}/resign"), &alice, json!({})).status, 201);
    let aborted = app.create_game_as(&alice, json!({}));
    assert_eq!(app.post_with_token(&format!("/api/v1/games/{aborted}/abort"), &alice, json!({})).status, 201);
    let results =
        |name: &str| app.request("GET", &format!("/api/v1/players/{name}"), &[], None).json()["games"].clone();
    let hers = json!({"played": 2, "won": 1, "lost": 1, "drawn": 0, "aborted": 1});
    assert_eq!(results("alice"), hers);
    assert_eq!(results("bob"), json!({"played": 1, "won": 0, "lost": 1, "drawn": 0, "aborted": 0}));
    assert_eq!(results("random"), json!({"played": 1, "won": 1, "lost": 0, "drawn": 0, "aborted": 0}));
    // 100,000 more finished games of hers, written behind the server's back:
    // a profile does not count them again on each read.
    database.execute(&format!(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100000) \
         INSERT INTO games (variant, created_at, status, result, end_reason, ended_at) \
         SELECT g.variant, g.created_at, g.status, g.result, g.end_reason, g.ended_at FROM n, games g WHERE g.id = {won}; \
         INSERT INTO seats (game_id, player, token_hash, player_id) \
         SELECT games.id, s.player, s.token_hash, s.player_id FROM games, seats s \
         WHERE games.id > {aborted} AND s.game_id = {won} AND s.player = 'X'"
    ));
    assert_eq!(
        database.count("SELECT count(*) FROM seats WHERE player_id = (SELECT id FROM players WHERE name = 'alice')"),
        100_003
    );
    assert_eq!(results("alice"), hers);
}
