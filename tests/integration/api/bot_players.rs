//! Bots as players: the server's own bots challenged by name, the list of bots,
//! the cap on rated games between bots, and limits counted per player.

use serde_json::{Value, json};

use super::events::PATIENCE;
use super::helpers::TestApp;
use super::pairing::next_of;

impl TestApp {
    /// The legal actions of game `id` now.
    pub(super) fn legal(&self, id: i64) -> Vec<Value> {
        let answer = self.request("GET", &format!("/api/v1/games/{id}/legal"), &[], None);
        assert_eq!(answer.status, 200, "{}", answer.body);
        answer.json()["actions"].as_array().expect("a list of actions").clone()
    }

    /// Plays the first legal action of game `id` with `token` whenever it is
    /// the turn of `seat`, until the game is finished; answers the game then.
    pub(super) fn play_first_actions(&self, id: i64, token: &str, seat: &str) -> Value {
        let mut game = self.get_game(id).json();
        for _ in 0..20 {
            if game["status"] == "finished" {
                return game;
            }
            assert_eq!(game["to_act"]["player"], seat, "the bot answered at once: {game}");
            let action = self.legal(id)[0].clone();
            let taken = match action["kind"].as_str() {
                Some("move") => {
                    let squares = &action["squares"];
                    self.place(id, token, [squares[0].as_i64().unwrap(), squares[1].as_i64().unwrap()])
                }
                _ => self.collapse(id, token, action["move"].as_i64().unwrap(), action["square"].as_i64().unwrap()),
            };
            assert_eq!(taken.status, 201, "{}", taken.body);
            game = taken.json();
        }
        panic!("game {id} did not end within 20 actions: {game}");
    }
}

#[test]
fn each_server_bot_accepts_a_rated_challenge_at_once_and_its_game_is_played_and_rated() {
    let app = TestApp::spawn();
    let alice = app.player("alice");
    let mut alices = app.player_events(&alice, None);
    let challenges =
        [("random", "measurement", "x"), ("parasite", "player_choice", "o"), ("perfect", "player_choice", "x")];
    for (bot, variant, colour) in challenges {
        let sent = app.challenge(&alice, bot, json!({"variant": variant, "rated": true, "colour": colour}));
        assert_eq!(sent.status, 201, "{}", sent.body);
        let challenge = sent.json();
        assert_eq!((challenge["status"].as_str(), challenge["challenged"].as_str()), (Some("accepted"), Some(bot)));
        let id = challenge["game_id"].as_i64().expect("the game it started");
        let started = next_of(&mut alices, "game_start");
        let seat = colour.to_uppercase();
        assert_eq!((started["game"]["id"].as_i64(), started["seat"].as_str()), (Some(id), Some(seat.as_str())));
        assert_eq!(next_of(&mut alices, "challenge_accepted")["challenge"]["game_id"].as_i64(), Some(id));

        let game = app.get_game(id).json();
        let bot_seat = if seat == "X" { "O" } else { "X" };
        assert_eq!((&game["rated"], &game["hints"], &game["variant"]), (&json!(true), &json!(false), &json!(variant)));
        assert_eq!(game["seats"][&seat]["name"], "alice");
        assert_eq!(game["seats"][bot_seat]["bot"], bot);
        // The bot opened at once when it plays X.
        assert_eq!(game["to_act"]["player"], seat.as_str(), "{game}");
        let finished = app.play_first_actions(id, &alice, &seat);
        assert_ne!(finished["result"], "aborted", "{finished}");
        assert_eq!(next_of(&mut alices, "game_finish")["game"]["id"].as_i64(), Some(id));
        assert_eq!(app.rating_of(bot, variant)["games"], 1, "the bot is rated");
        // Its profile counts the game it played, as its rating does.
        let profile = app.request("GET", &format!("/api/v1/players/{bot}"), &[], None).json();
        assert_eq!(profile["games"]["played"], 1, "{profile}");
        let (won, lost) = (profile["games"]["won"].as_i64().unwrap(), profile["games"]["lost"].as_i64().unwrap());
        let bot_won = finished["result"] == if seat == "X" { "o_wins" } else { "x_wins" };
        assert_eq!((won, lost + won), (i64::from(bot_won), 1 - profile["games"]["drawn"].as_i64().unwrap()));
    }
    assert_eq!(app.rating_of("alice", "player_choice")["games"], 2);
    assert_eq!(app.rating_of("alice", "measurement")["games"], 1);
}

impl TestApp {
    /// A new player named `name`, made a bot account; answers its token.
    fn bot_account(&self, name: &str) -> String {
        let token = self.player(name);
        let made = self.post_with_token("/api/v1/players/me/bot", &token, json!({}));
        assert_eq!(made.status, 200, "{}", made.body);
        token
    }

    /// The page of bots at `query`.
    fn bots(&self, query: &str) -> Value {
        let listed = self.request("GET", &format!("/api/v1/bots{query}"), &[], None);
        assert_eq!(listed.status, 200, "{}", listed.body);
        listed.json()
    }
}

/// The names of a page of bots.
fn names(page: &Value) -> Vec<&str> {
    page["bots"].as_array().expect("bots").iter().map(|bot| bot["name"].as_str().unwrap()).collect()
}

#[test]
fn the_list_of_bots_shows_the_servers_and_the_accounts_with_ratings_and_who_is_online() {
    let app = TestApp::spawn();
    let alice = app.player("alice");
    let zeta = app.bot_account("Zeta");
    app.bot_account("engine");
    let all = app.bots("");
    assert_eq!(names(&all), ["engine", "parasite", "perfect", "random", "Zeta"], "people are not bots");
    assert_eq!(all["next_cursor"], Value::Null);
    let perfect = &all["bots"][2];
    assert_eq!((&perfect["bot_account"], &perfect["online"]), (&json!(false), &json!(true)));
    let zeta_listed = &all["bots"][4];
    // Zeta was seen when it became a bot; a held-open stream keeps it online.
    assert_eq!((&zeta_listed["bot_account"], &zeta_listed["online"]), (&json!(true), &json!(true)));
    assert_eq!(zeta_listed["ratings"]["player_choice"]["games"], 0);

    // A rated game moves both ratings in the list.
    let sent = app.challenge(&alice, "Zeta", json!({"variant": "player_choice", "rated": true, "colour": "x"}));
    let accepted = app.answer(&zeta, sent.json()["id"].as_i64().unwrap(), "accept", json!({}));
    let id = accepted.json()["game"]["id"].as_i64().unwrap();
    assert_eq!(app.place(id, &alice, [0, 1]).status, 201);
    assert_eq!(app.place(id, &zeta, [2, 3]).status, 201);
    assert_eq!(app.post_with_token(&format!("/api/v1/games/{id}/resign"), &zeta, json!({})).status, 201);
    let rated = &app.bots("?cursor=random")["bots"][0];
    assert_eq!((rated["name"].as_str(), rated["ratings"]["player_choice"]["games"].as_i64()), (Some("Zeta"), Some(1)));
    assert!(rated["ratings"]["player_choice"]["rating"].as_f64().unwrap() < 1500.0, "{rated}");
    assert_eq!(rated["ratings"]["measurement"]["games"], 0);

    // Pages of two, by name regardless of case.
    let first = app.bots("?limit=2");
    assert_eq!((names(&first), first["next_cursor"].as_str()), (vec!["engine", "parasite"], Some("parasite")));
    let second = app.bots("?limit=2&cursor=parasite");
    assert_eq!((names(&second), second["next_cursor"].as_str()), (vec!["perfect", "random"], Some("random")));
    let last = app.bots("?limit=2&cursor=random");
    assert_eq!((names(&last), &last["next_cursor"]), (vec!["Zeta"], &Value::Null));
    for query in ["?limit=0", "?limit=101", "?cursor=no!"] {
        app.request("GET", &format!("/api/v1/bots{query}"), &[], None).assert_problem(400, "invalid_query");
    }
}

#[test]
fn a_bot_account_starts_at_most_the_days_cap_of_rated_games_against_bots_and_any_against_people() {
    let app = TestApp::spawn_with(|config| config.bot_games_per_day = 2);
    let alice = app.player("alice");
    let (first, second, third) = (app.bot_account("first"), app.bot_account("second"), app.bot_account("third"));
    let rated = json!({"variant": "player_choice", "rated": true});
    assert_eq!(app.challenge(&first, "random", rated.clone()).json()["status"], "accepted");
    let against_perfect =
        app.post_with_token("/api/v1/games", &first, json!({"rated": true, "opponent": {"bot": "perfect"}}));
    assert_eq!(against_perfect.status, 201, "{}", against_perfect.body);
    // Two rated games against bots today: a third is refused, however it is asked for.
    let refused = app.challenge(&first, "parasite", rated.clone()).assert_problem(422, "rated_game");
    assert_eq!(
        refused["detail"],
        "first has started 2 rated games against bots in the last 24 hours, the most a bot may (BOT_GAMES_PER_DAY): \
         play a person, or a casual game"
    );
    app.post_with_token("/api/v1/games", &first, json!({"rated": true, "opponent": {"bot": "random"}}))
        .assert_problem(422, "rated_game");
    app.seek(&first, rated.clone()).assert_problem(422, "rated_game");
    app.challenge(&second, "first", rated.clone()).assert_problem(422, "rated_game");
    let waiting = app.create_game_as(&third, rated.clone());
    app.post_with_token(&format!("/api/v1/games/{waiting}/join"), &first, json!({})).assert_problem(422, "rated_game");
    // A challenge sent before the cap was reached is refused when accepted.
    let early = app.challenge(&third, "second", rated.clone());
    assert_eq!(early.status, 201, "{}", early.body);
    assert_eq!(app.challenge(&second, "random", rated.clone()).json()["status"], "accepted");
    assert_eq!(app.challenge(&second, "random", rated.clone()).json()["status"], "accepted");
    app.answer(&second, early.json()["id"].as_i64().unwrap(), "accept", json!({})).assert_problem(422, "rated_game");

    // Casual games between bots, and rated games against people, are not capped.
    assert_eq!(app.challenge(&first, "parasite", json!({"variant": "player_choice"})).json()["status"], "accepted");
    let from_alice = app.challenge(&alice, "first", rated.clone());
    assert_eq!(app.answer(&first, from_alice.json()["id"].as_i64().unwrap(), "accept", json!({})).status, 201);
    let joined = app.post_with_token(&format!("/api/v1/games/{waiting}/join"), &alice, json!({}));
    assert_eq!(joined.status, 201, "{}", joined.body);
    assert_eq!(
        app.post_with_token("/api/v1/games", &alice, json!({"rated": true, "opponent": {"bot": "random"}})).status,
        201
    );
}

#[test]
fn a_players_creations_count_against_their_own_limit_not_their_addresss() {
    let app = TestApp::spawn_with(|config| config.create_rate_limit = super::helpers::limited(2));
    // Creating the two players spends the address's budget; each player has one of their own.
    let (one, two) = (app.bot_account("one"), app.bot_account("two"));
    for token in [&one, &two] {
        for _ in 0..2 {
            assert_eq!(app.post_with_token("/api/v1/games", token, json!({})).status, 201);
        }
        let refused = app.challenge(token, "random", json!({})).assert_problem(429, "rate_limited");
        assert!(refused["detail"].as_str().unwrap().starts_with("you created too many games"), "{refused}");
    }
    let refused = app.create_game(json!({})).assert_problem(429, "rate_limited");
    assert!(refused["detail"].as_str().unwrap().starts_with("this address created too many"), "{refused}");
}

/// The legal actions of game `id` as `GET /legal` answers them, whole.
fn legal_answer(app: &TestApp, id: i64) -> Value {
    let answer = app.request("GET", &format!("/api/v1/games/{id}/legal"), &[], None);
    assert_eq!(answer.status, 200, "{}", answer.body);
    answer.json()
}

#[test]
fn a_state_stream_opens_with_the_whole_game_then_one_small_event_per_change_each_with_the_legal_actions() {
    let app = TestApp::spawn();
    let (one, two) = (app.bot_account("one"), app.bot_account("two"));
    let sent = app.challenge(
        &one,
        "two",
        json!({"variant": "player_choice", "colour": "x", "clock": {"initial_ms": 60_000, "increment_ms": 0}}),
    );
    let accepted = app.answer(&two, sent.json()["id"].as_i64().unwrap(), "accept", json!({}));
    let id = accepted.json()["game"]["id"].as_i64().unwrap();
    assert_eq!(accepted.json()["game"]["your_seat"], "O");
    // The view says whose seat the caller holds: by seat or player token; nobody's without.
    assert_eq!(app.get_with_token(&format!("/api/v1/games/{id}"), &one).json()["your_seat"], "X");
    assert_eq!(app.get_with_token(&format!("/api/v1/games/{id}"), &two).json()["your_seat"], "O");
    assert_eq!(app.get_game(id).json()["your_seat"], Value::Null);

    let mut ones = app.watch_at(&format!("/api/v1/games/{id}/events?format=state&token={one}"), &[]);
    let whole = ones.next_event(PATIENCE).expect("the game event");
    let version = app.get_game(id).json()["version"].as_i64().unwrap();
    assert_eq!((whole.kind.as_str(), whole.id), ("game", Some(version)));
    assert_eq!(
        (&whole.data["game"]["your_seat"], &whole.data["game"]["clock"]["initial_ms"]),
        (&json!("X"), &json!(60_000))
    );
    assert_eq!((&whole.data["game"]["seats"]["O"]["name"], &whole.data["transcript"]), (&json!("two"), &json!("")));
    assert_eq!(whole.data["legal"], legal_answer(&app, id));
    assert_eq!(
        (whole.data["legal"]["player"].as_str(), whole.data["legal"]["actions"].as_array().map(Vec::len)),
        (Some("X"), Some(36))
    );

    // Each action is one small event, whose legal actions are GET /legal's at its version.
    let tokens = [("X", &one), ("O", &two)];
    let mut taken = 0;
    let mut versions = vec![version];
    loop {
        let game = app.get_game(id).json();
        let Some(player) = game["to_act"]["player"].as_str() else { break };
        let token = tokens.iter().find(|(seat, _)| *seat == player).unwrap().1;
        let action = &app.legal(id)[0];
        let answer = match action["kind"].as_str() {
            Some("move") => {
                app.place(id, token, [action["squares"][0].as_i64().unwrap(), action["squares"][1].as_i64().unwrap()])
            }
            _ => app.collapse(id, token, action["move"].as_i64().unwrap(), action["square"].as_i64().unwrap()),
        };
        assert_eq!(answer.status, 201, "{}", answer.body);
        taken += 1;
        let event = ones.next_event(PATIENCE).expect("an event for the action");
        let version = answer.json()["version"].as_i64().unwrap();
        versions.push(version);
        assert_eq!((event.id, event.data["entry"]["seq"].as_i64()), (Some(version), Some(version)), "{event:?}");
        assert_eq!(event.kind, event.data["entry"]["kind"].as_str().unwrap());
        assert_eq!(event.data["legal"], legal_answer(&app, id), "at version {version}");
        assert_eq!(event.data["to_act"], answer.json()["to_act"]);
        assert_eq!(
            (&event.data["status"], &event.data["clock"]["initial_ms"]),
            (&answer.json()["status"], &json!(60_000))
        );
        assert!(event.data.get("board").is_none() && event.data.get("game").is_none(), "small: {:?}", event.data);
    }
    assert!(taken >= 9, "a whole game: {taken} actions");
    assert_eq!(app.get_game(id).json()["status"], "finished");

    // Resumed after an event, it sends the small events after it, and no game event.
    let mut resumed = app
        .watch_at(&format!("/api/v1/games/{id}/events?format=state"), &[("Last-Event-ID", &versions[3].to_string())]);
    let next = resumed.next_event(PATIENCE).expect("the event after the one seen");
    assert_eq!((next.id, next.data["legal"]["version"].as_i64()), (Some(versions[4]), Some(versions[4])));
    let refused = app.request("GET", &format!("/api/v1/games/{id}/events?format=bogus"), &[], None);
    let problem = refused.assert_problem(400, "invalid_query");
    assert!(
        problem["detail"].as_str().unwrap().contains("unknown variant `bogus`, expected `game` or `state`"),
        "{problem}"
    );
    // The spectators' stream is as it was: each event the whole game.
    let mut spectators = app.watch(id, None);
    let first = spectators.next_event(PATIENCE).expect("the first entry");
    assert_eq!((first.kind.as_str(), first.data["game"]["board"].as_array().map(Vec::len)), ("seat", Some(9)));
}
