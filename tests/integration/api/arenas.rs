//! Arenas: a tournament of a fixed length in which whoever is free is paired
//! again at once, scored as lichess's arenas, played through HTTP.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::events::PATIENCE;
use super::helpers::{Client, TestApp, TestDatabase};
use qttt::record::GameId;
use qttt::service::Credentials;

/// How long the players go on playing after their arena ended, at most,
/// finishing the games begun before its end.
const PLAYED_OUT: Duration = Duration::from_secs(60);

impl Client {
    /// The player of `token` creates an arena with `body`; answers the answer's JSON, after asserting 201.
    fn create_arena(&self, token: &str, body: Value) -> Value {
        let created = self.post_with_token("/api/v1/arenas", token, body);
        assert_eq!(created.status, 201, "{}", created.body);
        created.json()
    }

    /// Arena `id` as `GET /arenas/{id}` answers it.
    fn arena(&self, id: i64) -> Value {
        let answer = self.request("GET", &format!("/api/v1/arenas/{id}"), &[], None);
        assert_eq!(answer.status, 200, "{}", answer.body);
        answer.json()
    }

    /// Every game of the player of `token` that arena `id` paired, oldest first.
    fn arena_games(&self, token: &str, id: i64) -> Vec<Value> {
        let mut games = Vec::new();
        let mut query = "?limit=100".to_string();
        loop {
            let page = self.my_games(token, &query);
            games.extend(page["games"].as_array().unwrap().iter().filter(|game| game["arena"] == id).cloned());
            match page["next_cursor"].as_str() {
                Some(cursor) => query = format!("?limit=100&cursor={cursor}"),
                None => break,
            }
        }
        games.reverse();
        games
    }

    /// When game `id` ended: its last entry's time.
    fn ended_at(&self, id: i64) -> String {
        let log = self.request("GET", &format!("/api/v1/games/{id}/log"), &[], None).json();
        log["entries"].as_array().unwrap().last().unwrap()["created_at"].as_str().unwrap().to_string()
    }

    /// Plays one random legal action in each arena game of the player named
    /// `name` (token `token`) that waits for them; answers whether they play a game.
    fn play_a_turn(&self, name: &str, token: &str, random: &mut u64) -> bool {
        let ongoing = self.my_games(token, "?status=ongoing");
        let games = ongoing["games"].as_array().unwrap();
        for game in games {
            let id = game["id"].as_i64().unwrap();
            let legal = self.request("GET", &format!("/api/v1/games/{id}/legal"), &[], None).json();
            let Some(seat) = legal["player"].as_str() else { continue };
            if game["players"][seat] != name {
                continue;
            }
            let actions = legal["actions"].as_array().unwrap();
            // xorshift: each player draws their own actions.
            *random ^= *random << 13;
            *random ^= *random >> 7;
            *random ^= *random << 17;
            let action = &actions[usize::try_from(*random % actions.len() as u64).unwrap()];
            let number = |field: &str| action[field].as_i64().unwrap();
            let taken = match action["kind"].as_str() {
                Some("move") => self.place(
                    id,
                    token,
                    [action["squares"][0].as_i64().unwrap(), action["squares"][1].as_i64().unwrap()],
                ),
                _ => self.collapse(id, token, number("move"), number("square")),
            };
            // The other player's action, or the clock, may have come first.
            assert!([201, 409, 422].contains(&taken.status), "{}", taken.body);
        }
        !games.is_empty()
    }
}

/// The scoring of lichess's arenas, again, from `outcomes` in the order the
/// games ended: each game's points and whether the player was on fire.
fn scored(outcomes: &[&str]) -> Vec<(u64, bool)> {
    let mut wins_in_a_row = 0;
    outcomes
        .iter()
        .map(|&outcome| {
            let on_fire = wins_in_a_row >= 2;
            let points = match outcome {
                "win" => 2,
                "draw" => 1,
                _ => 0,
            } * if on_fire { 2 } else { 1 };
            wins_in_a_row = if outcome == "win" { wins_in_a_row + 1 } else { 0 };
            (points, on_fire)
        })
        .collect()
}

#[test]
fn a_one_minute_arena_of_six_random_players_pairs_whoever_is_free_and_scores_as_lichess() {
    let database = TestDatabase::new();
    let app = TestApp::spawn_on(&database);
    let games = play_an_arena(&[&app]);
    app.stop();
    // Retention keeps an arena's games, long after they ended, as it keeps the arena.
    let (runtime, service, _) =
        super::life::service_on(&database, |options| options.retention = Some(Duration::from_secs(1)));
    runtime.block_on(async {
        assert_eq!(service.delete_expired_games().await.unwrap(), 0);
        for id in games {
            assert!(service.game(GameId::new(id), &Credentials::default()).await.is_ok(), "game {id} was deleted");
        }
    });
}

#[test]
#[ignore = "needs PostgreSQL: QTTT_TEST_POSTGRES (see .ci/run)"]
fn two_instances_on_one_postgresql_pair_each_free_player_of_an_arena_once() {
    let database = TestDatabase::new();
    assert!(matches!(database, TestDatabase::Postgres(_)), "set QTTT_TEST_POSTGRES to run this test");
    let (a, b) = (TestApp::spawn_on(&database), TestApp::spawn_on(&database));
    play_an_arena(&[&a, &b]);
}

/// Six players, each on one of `instances` in turn, play random legal actions
/// as fast as they can in a one-minute arena, one of them withdrawing after a
/// while; then everything the arena says is checked against their games.
/// Answers the ids of the arena's games.
fn play_an_arena(instances: &[&TestApp]) -> HashSet<i64> {
    let app = instances[0];
    let names = ["arena_ann", "arena_ben", "arena_cat", "arena_dan", "arena_eve", "arena_fay"];
    let tokens: Vec<String> = names.iter().map(|name| app.player(name)).collect();
    let arena = app.create_arena(
        &tokens[0],
        json!({"name": "One minute", "variant": "player_choice", "clock": {"initial_ms": 30_000, "increment_ms": 0},
            "minutes": 1, "starts_at": jiff::Timestamp::now().to_string()}),
    );
    assert_eq!((arena["status"].as_str(), arena["minutes"].as_i64()), (Some("running"), Some(1)), "{arena}");
    let id = arena["id"].as_i64().unwrap();
    app.request("GET", &format!("/api/v1/arenas/{id}/results"), &[], None).assert_problem(409, "not_open");
    let mut streams: Vec<_> = tokens.iter().map(|token| app.player_events(token, None)).collect();
    let mut arena_stream = app.watch_at(&format!("/api/v1/arenas/{id}/stream"), &[]);
    for token in &tokens {
        assert_eq!(app.post_with_token(&format!("/api/v1/arenas/{id}/join"), token, json!({})).status, 200);
    }
    app.post_with_token(&format!("/api/v1/arenas/{id}/join"), &tokens[1], json!({}))
        .assert_problem(409, "already_joined");

    // Each plays as fast as they can; the last withdraws after a while, and
    // plays out the game they are in.
    let withdrawn_games = std::thread::scope(|scope| {
        let players: Vec<_> = names
            .iter()
            .zip(&tokens)
            .enumerate()
            .map(|(i, (&name, token))| {
                let client = Client { address: instances[i % instances.len()].address, from: None };
                scope.spawn(move || {
                    let mut random = 0x9E37_79B9_7F4A_7C15_u64 + i as u64;
                    let started = Instant::now();
                    let mut withdrawn = None;
                    loop {
                        // The end is read before the turn, so that the turn sees
                        // every game paired before the end that has landed.
                        let over = client.arena(id)["status"] == "finished";
                        let playing = client.play_a_turn(name, token, &mut random);
                        if i == 5 && withdrawn.is_none() && started.elapsed() > Duration::from_secs(20) {
                            let answer =
                                client.post_with_token(&format!("/api/v1/arenas/{id}/withdraw"), token, json!({}));
                            assert_eq!(answer.status, 200, "{}", answer.body);
                            // What they were paired into before their withdrawal counts; nothing after it.
                            withdrawn = Some(client.arena_games(token, id).len());
                        }
                        if (over && !playing) || started.elapsed() > Duration::from_secs(60) + PLAYED_OUT {
                            return withdrawn;
                        }
                    }
                })
            })
            .collect();
        players.into_iter().map(|player| player.join().expect("a player plays to the end")).last().flatten()
    });
    // A pairing decided just before the end may land just after its players
    // last looked: they play it out.
    let started = Instant::now();
    let mut random = 0x2545_F491_4F6C_DD1D_u64;
    while app.arena(id)["playing"] != json!([]) {
        for (name, token) in names.iter().zip(&tokens) {
            app.play_a_turn(name, token, &mut random);
        }
        assert!(started.elapsed() < PLAYED_OUT, "every game begun before the end was played out");
    }

    let arena = app.arena(id);
    assert_eq!((arena["status"].as_str(), arena["remaining_ms"].as_i64()), (Some("finished"), Some(0)));
    let ends_at = arena["ends_at"].as_str().unwrap().to_string();
    let standings = arena["standings"].as_array().unwrap();
    assert_eq!(standings.len(), 6);
    let mut everyone_games = HashSet::new();
    for (name, token) in names.iter().zip(&tokens) {
        let games = app.arena_games(token, id);
        assert!(games.len() >= 2, "{name} played {} games", games.len());
        // Never two at once: each game begins after the one before ended.
        let ended: Vec<String> = games.iter().map(|game| app.ended_at(game["id"].as_i64().unwrap())).collect();
        for (i, game) in games.iter().enumerate().skip(1) {
            assert!(game["created_at"].as_str().unwrap() >= ended[i - 1].as_str(), "{name}: {game} overlaps");
        }
        // Nobody is paired after the end.
        assert!(games.iter().all(|game| game["created_at"].as_str().unwrap() < ends_at.as_str()));
        assert!(games.iter().all(|game| game["status"] == "finished" && game["clock"]["initial_ms"] == 30_000));
        // The scoring again, from the games in the order they ended.
        let mut counted: Vec<(&String, i64, &str)> = games
            .iter()
            .zip(&ended)
            .filter(|(game, _)| game["result"] != "aborted")
            .map(|(game, ended)| {
                let seat = if game["players"]["X"] == *name { "X" } else { "O" };
                let outcome = match game["result"].as_str().unwrap() {
                    "draw" => "draw",
                    result if result == format!("{}_wins", seat.to_lowercase()) => "win",
                    _ => "loss",
                };
                (ended, game["id"].as_i64().unwrap(), outcome)
            })
            .collect();
        counted.sort();
        let expected = scored(&counted.iter().map(|(_, _, outcome)| *outcome).collect::<Vec<_>>());
        let standing = standings.iter().find(|standing| standing["name"] == *name).unwrap();
        let sheet: Vec<(i64, &str, u64, bool)> = standing["sheet"]
            .as_array()
            .unwrap()
            .iter()
            .map(|entry| {
                let field = |name: &str| entry[name].clone();
                (
                    field("game_id").as_i64().unwrap(),
                    entry["outcome"].as_str().unwrap(),
                    field("points").as_u64().unwrap(),
                    field("on_fire").as_bool().unwrap(),
                )
            })
            .collect();
        let again: Vec<(i64, &str, u64, bool)> = counted
            .iter()
            .zip(&expected)
            .map(|((_, id, outcome), (points, fire))| (*id, *outcome, *points, *fire))
            .collect();
        assert_eq!(sheet, again, "{name}'s sheet");
        assert_eq!(standing["score"].as_u64(), Some(expected.iter().map(|(points, _)| points).sum()), "{name}");
        // Their stream told them of each pairing.
        let mut told = HashSet::new();
        let stream = &mut streams[names.iter().position(|n| n == name).unwrap()];
        while told.len() < games.len() {
            let Some(event) = stream.next_event(PATIENCE) else { break };
            if event.kind == "game_start" {
                told.insert(event.data["game"]["id"].as_i64().unwrap());
            }
        }
        let paired: HashSet<i64> = games.iter().map(|game| game["id"].as_i64().unwrap()).collect();
        assert_eq!(told, paired, "{name} heard of each of their games");
        everyone_games.extend(paired);
    }
    let scores: Vec<u64> = standings.iter().map(|standing| standing["score"].as_u64().unwrap()).collect();
    assert!(scores.windows(2).all(|pair| pair[0] >= pair[1]), "ranked by score: {scores:?}");
    assert_eq!(standings.iter().map(|s| s["rank"].as_u64().unwrap()).collect::<Vec<_>>(), [1, 2, 3, 4, 5, 6]);

    // The withdrawn player kept their points and was paired no more.
    let fay = standings.iter().find(|standing| standing["name"] == "arena_fay").unwrap();
    assert_eq!(fay["withdrawn"], true);
    let withdrawn_games = withdrawn_games.expect("the last player withdrew");
    assert_eq!(app.arena_games(&tokens[5], id).len(), withdrawn_games, "paired after withdrawing");

    let results = app.request("GET", &format!("/api/v1/arenas/{id}/results"), &[], None);
    assert_eq!(results.status, 200, "{}", results.body);
    assert_eq!(results.json()["standings"], arena["standings"]);
    app.post_with_token(&format!("/api/v1/arenas/{id}/join"), &tokens[0], json!({})).assert_problem(409, "not_open");
    let finished = app.request("GET", "/api/v1/arenas?status=finished", &[], None).json();
    assert_eq!(finished["arenas"][0]["id"].as_i64(), Some(id));
    assert!(everyone_games.len() >= 6, "{} games", everyone_games.len());
    let game = app.get_game(*everyone_games.iter().next().unwrap()).json();
    assert_eq!(game["arena"].as_i64(), Some(id));

    // The arena's stream told each pairing, numbered, and the end with the final standings.
    let told = pairings_told(&mut arena_stream, &arena);
    assert_eq!(told.iter().map(|(_, game)| *game).collect::<HashSet<_>>(), everyone_games);
    let count = i64::try_from(told.len()).unwrap();
    assert_eq!(told.iter().map(|(number, _)| *number).collect::<Vec<_>>(), (1..=count).collect::<Vec<_>>());
    // Resumed after all but the last two, it tells those two, then the standings and the end.
    let from = count - 2;
    let mut resumed = app.watch_at(&format!("/api/v1/arenas/{id}/stream"), &[("Last-Event-ID", &from.to_string())]);
    assert_eq!(pairings_told(&mut resumed, &arena), told[told.len() - 2..]);
    everyone_games
}

/// The pairings `stream` tells, each its number and its game's id, until its
/// end, whose standings are `arena`'s.
fn pairings_told(stream: &mut super::helpers::EventStream, arena: &Value) -> Vec<(i64, i64)> {
    let mut pairings = Vec::new();
    loop {
        let event = stream.next_event(PATIENCE).expect("the stream ends with the arena");
        match event.kind.as_str() {
            "pairing" => pairings.push((event.id.unwrap(), event.data["game_id"].as_i64().unwrap())),
            "standings" => assert_eq!(event.data["id"], arena["id"]),
            "end" => {
                assert_eq!(event.data["standings"], arena["standings"]);
                return pairings;
            }
            other => panic!("an arena's stream told {other}"),
        }
    }
}

#[test]
fn arenas_refuse_bad_settings_bots_where_they_are_not_allowed_and_a_sixth_upcoming_one() {
    let app = TestApp::spawn();
    let (alice, engine) = (app.player("alice"), app.player("engine"));
    assert_eq!(app.post_with_token("/api/v1/players/me/bot", &engine, json!({})).status, 200);
    let arena = |body: Value| app.post_with_token("/api/v1/arenas", &alice, body);
    let clock = json!({"initial_ms": 60_000, "increment_ms": 0});
    for (body, why) in [
        (json!({"name": "", "clock": clock, "minutes": 10}), "name"),
        (json!({"name": "Long", "clock": clock, "minutes": 721}), "minutes"),
        (json!({"name": "Zero", "clock": clock, "minutes": 0}), "minutes"),
        (json!({"name": "Past", "clock": clock, "minutes": 5, "starts_at": "2020-01-01T00:00:00Z"}), "past"),
        (json!({"name": "Bad", "clock": clock, "minutes": 5, "starts_at": "tomorrow"}), "starts_at"),
        (json!({"name": "No clock", "minutes": 5}), "clock"),
    ] {
        let refused = arena(body).assert_problem(400, "invalid_body");
        assert!(refused["detail"].as_str().unwrap().contains(why), "{refused}");
    }

    let people = app.create_arena(&alice, json!({"name": "People", "clock": clock, "minutes": 10}));
    assert_eq!((people["status"].as_str(), people["bots"].as_bool()), (Some("upcoming"), Some(false)));
    assert_eq!(people["variant"], "measurement");
    let id = people["id"].as_i64().unwrap();
    app.post_with_token(&format!("/api/v1/arenas/{id}/join"), &engine, json!({})).assert_problem(403, "forbidden");
    app.post_with_token(&format!("/api/v1/arenas/{id}/withdraw"), &alice, json!({})).assert_problem(409, "not_open");
    let joined = app.post_with_token(&format!("/api/v1/arenas/{id}/join"), &alice, json!({}));
    assert_eq!(joined.json()["standings"][0]["name"], "alice");
    let withdrawn = app.post_with_token(&format!("/api/v1/arenas/{id}/withdraw"), &alice, json!({})).json();
    assert_eq!(withdrawn["standings"][0]["withdrawn"], true);
    let back = app.post_with_token(&format!("/api/v1/arenas/{id}/join"), &alice, json!({})).json();
    assert_eq!(back["standings"][0]["withdrawn"], false);
    app.request("GET", "/api/v1/arenas/999", &[], None).assert_problem(404, "not_found");

    let bots = app.create_arena(&alice, json!({"name": "Bots", "clock": clock, "minutes": 10, "bots": true}));
    let bots_id = bots["id"].as_i64().unwrap();
    assert_eq!(app.post_with_token(&format!("/api/v1/arenas/{bots_id}/join"), &engine, json!({})).status, 200);
    for n in 3..=5 {
        app.create_arena(&alice, json!({"name": format!("Arena {n}"), "clock": clock, "minutes": 10}));
    }
    arena(json!({"name": "Sixth", "clock": clock, "minutes": 10})).assert_problem(422, "too_many_open");
    let upcoming = app.request("GET", "/api/v1/arenas?status=upcoming&limit=2", &[], None).json();
    let listed: Vec<&str> =
        upcoming["arenas"].as_array().unwrap().iter().map(|a| a["name"].as_str().unwrap()).collect();
    assert_eq!(listed, ["Arena 5", "Arena 4"]);
    let next = upcoming["next_cursor"].as_str().unwrap();
    let rest = app.request("GET", &format!("/api/v1/arenas?status=upcoming&cursor={next}"), &[], None).json();
    assert_eq!(rest["arenas"].as_array().unwrap().len(), 3);
    assert_eq!(app.request("GET", "/api/v1/arenas", &[], None).json()["arenas"], json!([]), "none runs");
    let span = |arena: &Value| {
        let at = |field: &str| arena[field].as_str().unwrap().parse::<jiff::Timestamp>().unwrap();
        at("ends_at").duration_since(at("starts_at")).as_secs()
    };
    assert_eq!(span(&people), 600, "ten minutes");
    assert!(people["starts_at"].as_str().unwrap().parse::<jiff::Timestamp>().unwrap() > jiff::Timestamp::now());
}

#[test]
fn the_servers_bots_that_the_creator_adds_play_the_people_one_game_at_a_time_and_never_each_other() {
    let app = TestApp::spawn();
    let (alice, bob) = (app.player("alice"), app.player("bob"));
    let arena = app.create_arena(
        &alice,
        json!({"name": "Ladder", "variant": "player_choice", "clock": {"initial_ms": 60_000, "increment_ms": 0},
            "minutes": 1, "bots": true, "starts_at": jiff::Timestamp::now().to_string()}),
    );
    let id = arena["id"].as_i64().unwrap();
    let add =
        |token: &str, bot: &str| app.post_with_token(&format!("/api/v1/arenas/{id}/bots/{bot}"), token, json!({}));
    add(&bob, "perfect").assert_problem(403, "forbidden");
    add(&alice, "bob").assert_problem(404, "not_found");
    for bot in ["perfect", "random"] {
        assert_eq!(add(&alice, bot).status, 200);
    }
    add(&alice, "random").assert_problem(409, "already_joined");
    for token in [&alice, &bob] {
        assert_eq!(app.post_with_token(&format!("/api/v1/arenas/{id}/join"), token, json!({})).status, 200);
    }
    // Each person plays until they have finished two games; then withdraws and plays out the game they are in.
    std::thread::scope(|scope| {
        for (i, (name, token)) in [("alice", &alice), ("bob", &bob)].into_iter().enumerate() {
            let client = Client { address: app.address, from: None };
            scope.spawn(move || {
                let mut random = 0x2545_F491_4F6C_DD1D_u64 + i as u64;
                let started = Instant::now();
                while client.arena_games(token, id).iter().filter(|game| game["status"] == "finished").count() < 2 {
                    client.play_a_turn(name, token, &mut random);
                    assert!(started.elapsed() < PLAYED_OUT, "{name} did not finish two games");
                }
                assert_eq!(
                    client.post_with_token(&format!("/api/v1/arenas/{id}/withdraw"), token, json!({})).status,
                    200
                );
                while client.play_a_turn(name, token, &mut random) {
                    assert!(started.elapsed() < PLAYED_OUT * 2, "{name}'s last game did not end");
                }
            });
        }
    });

    let arena = app.arena(id);
    assert_eq!(arena["playing"], json!([]));
    let standings = arena["standings"].as_array().unwrap();
    let sheet = |name: &str| -> Vec<i64> {
        let standing = standings.iter().find(|standing| standing["name"] == name).unwrap();
        standing["sheet"].as_array().unwrap().iter().map(|entry| entry["game_id"].as_i64().unwrap()).collect()
    };
    let (perfect, random) = (sheet("perfect"), sheet("random"));
    assert!(!perfect.is_empty() && !random.is_empty(), "both bots played: {standings:?}");
    for (bot, games) in [("perfect", &perfect), ("random", &random)] {
        let mut spans = Vec::new();
        for &game in games.iter() {
            let viewed = app.get_game(game).json();
            assert_eq!(
                (viewed["opponent"]["bot"].as_str(), viewed["arena"].as_i64()),
                (Some(bot), Some(id)),
                "{viewed}"
            );
            let person = [&viewed["seats"]["X"]["name"], &viewed["seats"]["O"]["name"]];
            assert!(person.iter().any(|name| *name == "alice" || *name == "bob"), "a person played the bot");
            let log = app.request("GET", &format!("/api/v1/games/{game}/log"), &[], None).json();
            let entries = log["entries"].as_array().unwrap();
            let at = |entry: &Value| entry["created_at"].as_str().unwrap().to_string();
            spans.push((at(&entries[0]), at(entries.last().unwrap())));
        }
        spans.sort();
        assert!(spans.windows(2).all(|pair| pair[1].0 >= pair[0].1), "{bot} played two games at once: {spans:?}");
    }
    assert!(perfect.iter().all(|game| !random.contains(game)), "the bots never met");
}
