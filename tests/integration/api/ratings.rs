//! Ratings: Glicko-2 for each variant, changed by rated games alone, and the
//! bots rated as players of their own.

use jiff::{SignedDuration, Timestamp};
use qttt::engine::GameResult;
use qttt::rating::{Rating, Standing, rate_game};
use serde_json::{Value, json};

use super::helpers::{Client, TestApp, TestDatabase, goffs_draw};
use crate::command_line::qttt_with;

/// Game `id`'s `operation` by the player of `token`.
fn act(app: &TestApp, id: i64, operation: &str, token: &str) -> Value {
    let done = app.post_with_token(&format!("/api/v1/games/{id}/{operation}"), token, json!({}));
    assert_eq!(done.status, 201, "{operation}: {}", done.body);
    done.json()
}

/// Resigns game `id` for the player of `resigner` once both sides made their
/// first move, the tokens of `seats` (X's, O's; a bot's is never used) moving
/// for them: before, a resignation aborts a rated game. Answers the game.
fn resign_once_both_moved(app: &TestApp, id: i64, seats: [&str; 2], resigner: &str) -> Value {
    loop {
        let game = app.get_game(id).json();
        let moved = game["moves"].as_array().unwrap().len();
        if moved >= 2 {
            return act(app, id, "resign", resigner);
        }
        let token = if game["to_act"]["player"] == "X" { seats[0] } else { seats[1] };
        let squares = [[0, 1], [2, 3]][moved];
        assert_eq!(app.place(id, token, squares).status, 201);
    }
}

impl Client {
    /// A game created by the player of `x` with `body`, joined by the player
    /// of `o`; answers its id.
    pub(super) fn game_between(&self, x: &str, o: &str, body: Value) -> i64 {
        let id = self.create_game_as(x, body);
        let joined = self.post_with_token(&format!("/api/v1/games/{id}/join"), o, json!({}));
        assert_eq!(joined.status, 201, "{}", joined.body);
        id
    }

    /// Player `name`'s rating in `variant` as their profile shows it.
    pub(super) fn rating_of(&self, name: &str, variant: &str) -> Value {
        let profile = self.request("GET", &format!("/api/v1/players/{name}"), &[], None);
        assert_eq!(profile.status, 200, "{}", profile.body);
        profile.json()["ratings"][variant].clone()
    }
}

/// `standing` as a profile shows it, rated within a period of its last game.
fn shown(standing: &Standing) -> Value {
    let Rating { rating, deviation, volatility } = standing.rating;
    json!({"rating": rating, "deviation": deviation, "volatility": volatility,
        "provisional": standing.rating.is_provisional(), "games": standing.games})
}

/// What `qttt ratings <action>` prints for `database`, and whether it succeeded.
fn ratings_command(database: &TestDatabase, action: &str) -> (bool, String) {
    let done = qttt_with(&[("DATABASE_URL", &database.url())], &["ratings", action], "");
    let said = String::from_utf8_lossy(&done.stdout).to_string() + &String::from_utf8_lossy(&done.stderr);
    (done.status.success(), said)
}

#[test]
fn a_sequence_of_rated_games_gives_the_ratings_glicko_2_computes_and_casual_and_aborted_games_change_none() {
    let database = TestDatabase::new();
    let app = TestApp::spawn_on(&database);
    let [alice, bob, carol] = ["alice", "bob", "carol"].map(|name| app.player(name));
    let week = SignedDuration::from_hours(7 * 24);
    let mut standings = [Standing::NEW; 3];
    // Every game is rated within seconds of the last: no idle period comes between.
    let mut rated = |x: usize, o: usize, result: GameResult| {
        let (x_after, o_after) =
            rate_game(&standings[x], &standings[o], result, Timestamp::now(), week, [false, false]).expect("a result");
        (standings[x], standings[o]) = (x_after, o_after);
    };
    let rated_game = json!({"variant": "player_choice", "rated": true});

    // Alice beats Bob: he resigns.
    let first = app.game_between(&alice, &bob, rated_game.clone());
    assert_eq!(app.get_game(first).json()["rated"], true);
    app.hint(first, &alice).assert_problem(422, "rated_game");
    app.request(
        "GET",
        &format!("/api/v1/games/{first}/analysis"),
        &[("Authorization", &format!("Bearer {alice}"))],
        None,
    )
    .assert_problem(422, "rated_game");
    resign_once_both_moved(&app, first, [&alice, &bob], &bob);
    rated(0, 1, GameResult::XWins);
    let analysed = app.request("GET", &format!("/api/v1/games/{first}/analysis"), &[], None);
    assert_eq!(analysed.status, 200, "after its end a rated game is analysed: {}", analysed.body);

    // Bob and Carol draw.
    let second = app.game_between(&bob, &carol, rated_game.clone());
    for step in goffs_draw(&bob, &carol) {
        let taken = step.take(&app, second);
        assert_eq!(taken.status, 201, "{}", taken.body);
    }
    assert_eq!(app.get_game(second).json()["result"], "draw");
    rated(1, 2, GameResult::Draw);

    // Carol beats Alice, who resigns as O.
    let third = app.game_between(&carol, &alice, rated_game.clone());
    resign_once_both_moved(&app, third, [&carol, &alice], &alice);
    rated(2, 0, GameResult::XWins);

    // A casual game, and an aborted rated one, change nothing.
    let casual = app.game_between(&alice, &bob, json!({"variant": "player_choice"}));
    act(&app, casual, "resign", &bob);
    let aborted = app.game_between(&alice, &bob, rated_game);
    act(&app, aborted, "abort", &alice);

    for (name, standing) in ["alice", "bob", "carol"].into_iter().zip(&standings) {
        assert_eq!(app.rating_of(name, "player_choice"), shown(standing), "{name}");
        assert_eq!(app.rating_of(name, "measurement"), shown(&Standing::NEW), "{name}");
    }
    assert_eq!(standings.map(|standing| standing.games), [2, 2, 2]);
    assert!(standings[1].rating.rating < 1500.0 && standings[2].rating.rating > 1500.0, "{standings:?}");

    // The ratings are those the rated games give; one changed by hand is found,
    // and a rebuild mends it.
    let (clean, said) = ratings_command(&database, "check");
    assert!(clean, "{said}");
    assert!(said.contains("3 rated games, 6 rating changes"), "{said}");
    database.execute(
        "UPDATE ratings SET rating = rating + 1 WHERE player_id = (SELECT id FROM players WHERE name = 'bob')",
    );
    let (clean, said) = ratings_command(&database, "check");
    assert!(!clean, "{said}");
    assert!(said.contains("rating in player_choice: stored") && said.contains("1 differences"), "{said}");
    let (rebuilt, said) = ratings_command(&database, "rebuild");
    assert!(rebuilt && said.contains("differed in 1"), "{said}");
    assert_eq!(app.rating_of("bob", "player_choice"), shown(&standings[1]));
    let (clean, said) = ratings_command(&database, "check");
    assert!(clean, "{said}");
}

#[test]
fn a_rated_game_against_a_bot_rates_the_bot_too_and_a_rated_game_needs_players() {
    let app = TestApp::spawn();
    let alice = app.player("alice");
    let created = app.post_with_token(
        "/api/v1/games",
        &alice,
        json!({"variant": "measurement", "rated": true, "opponent": {"bot": "random"}}),
    );
    assert_eq!(created.status, 201, "{}", created.body);
    // The creation's answer shows both seats' ratings, as a read of the game does.
    let id = created.json()["game"]["id"].as_i64().unwrap();
    let new = json!({"rating": 1500.0, "deviation": 350.0, "provisional": true, "rating_diff": null});
    assert_eq!(created.json()["game"]["seats"]["X"]["rating"], new);
    assert_eq!(created.json()["game"]["seats"]["O"]["rating"], new);
    let game = app.get_game(id).json();
    assert_eq!((game["rated"].clone(), game["hints"].clone()), (json!(true), json!(false)));
    resign_once_both_moved(&app, id, [&alice, ""], &alice);
    // The bot counts the game; a new player's loss leaves its rating as it was.
    let week = SignedDuration::from_hours(168);
    let (alice_after, random_after) =
        rate_game(&Standing::NEW, &Standing::NEW, GameResult::OWins, Timestamp::now(), week, [false, true]).unwrap();
    assert_eq!(app.rating_of("alice", "measurement"), shown(&alice_after));
    assert_eq!(app.rating_of("random", "measurement"), shown(&random_after));
    assert_eq!((random_after.rating, random_after.games), (Standing::NEW.rating, 1));

    // Without a player token, no rated game; with hints, none either.
    app.create_game(json!({"rated": true})).assert_problem(401, "unauthorized");
    let refused = app.post_with_token("/api/v1/games", &alice, json!({"rated": true, "hints": true}));
    refused.assert_problem(422, "rated_game");
    let refused = app.post_with_token(
        "/api/v1/games",
        &alice,
        json!({"rated": true, "opponent": {"bot": "parasite", "mistake_chance": 0.5}}),
    );
    refused.assert_problem(422, "rated_game");
    let waiting = app.create_game_as(&alice, json!({"rated": true}));
    app.join(waiting).assert_problem(401, "unauthorized");
    let joined = app.post_with_token(&format!("/api/v1/games/{waiting}/join"), &app.player("bob"), json!({}));
    assert_eq!(joined.status, 201, "{}", joined.body);
    let seats = &joined.json()["game"]["seats"];
    assert_eq!(
        (seats["X"]["rating"]["rating"].as_f64(), seats["O"]["rating"]["rating"].as_f64()),
        (Some(alice_after.rating.rating), Some(1500.0))
    );
    // A name a bot holds is taken.
    app.create_player(Some("Perfect")).assert_problem(409, "name_taken");
}

#[test]
fn rated_seeks_pair_only_when_each_players_rating_lies_in_the_others_range() {
    let app = TestApp::spawn();
    let [alice, bob, carol] = ["alice", "bob", "carol"].map(|name| app.player(name));
    // Alice beats Bob in a rated game: about 1662 against 1338.
    let first = app.game_between(&alice, &bob, json!({"variant": "measurement", "rated": true}));
    resign_once_both_moved(&app, first, [&alice, &bob], &bob);
    let (alice_rating, bob_rating) = (app.rating_of("alice", "measurement"), app.rating_of("bob", "measurement"));
    assert!(alice_rating["rating"].as_f64().unwrap() > 1650.0, "{alice_rating}");
    assert!(bob_rating["rating"].as_f64().unwrap() < 1350.0, "{bob_rating}");

    let seek = |token: &str, range: Value| {
        let sought = app.seek(token, json!({"variant": "measurement", "rated": true, "rating_range": range}));
        assert_eq!(sought.status, 201, "{}", sought.body);
        sought.json()
    };
    // Alice wants someone weaker; Bob wants someone far stronger than her:
    // his range misses her rating, so they do not pair.
    let alices = seek(&alice, json!([1200, 1450]));
    assert_eq!((alices["status"].clone(), alices["rating_range"].clone()), (json!("open"), json!([1200, 1450])));
    let bobs = seek(&bob, json!([1700, 2000]));
    assert_eq!(bobs["status"], "open");
    // Carol, unrated (1500) and open to anyone, lies outside Alice's range,
    // and outside Bob's.
    assert_eq!(seek(&carol, Value::Null)["status"], "open");
    // Bob's new range holds Alice, and hers holds him: they pair.
    let bearer = |token: &str| format!("Bearer {token}");
    let cancelled =
        app.request("DELETE", &format!("/api/v1/seeks/{}", bobs["id"]), &[("Authorization", &bearer(&bob))], None);
    assert_eq!(cancelled.status, 200, "{}", cancelled.body);
    let paired = seek(&bob, json!([1600, 1700]));
    assert_eq!(paired["status"], "paired", "{paired}");
    let game = app.get_game(paired["game_id"].as_i64().unwrap()).json();
    assert_eq!(game["rated"], true);
    let alices =
        app.request("GET", &format!("/api/v1/seeks/{}", alices["id"]), &[("Authorization", &bearer(&alice))], None);
    assert_eq!(alices.json()["game_id"], paired["game_id"]);

    // A range is for rated seeks; its ends come in either order.
    let casual = app.seek(&carol, json!({"rating_range": [1000, 2000]}));
    casual.assert_problem(422, "rated_game");
    // Whole numbers may be written as 1600.0, as everywhere in the API.
    let upside_down =
        app.seek(&carol, json!({"rated": true, "variant": "player_choice", "rating_range": [1600.0, 1400]}));
    assert_eq!(upside_down.json()["rating_range"], json!([1400, 1600]), "{}", upside_down.body);
    let half = app.seek(&carol, json!({"rated": true, "variant": "player_choice", "rating_range": [1600.5, 1400]}));
    half.assert_problem(400, "invalid_body");
}

#[test]
fn a_rated_games_view_shows_ratings_before_and_their_change_and_leaderboards_leave_out_provisional_players() {
    let app = TestApp::spawn();
    let [alice, bob, carol] = ["alice", "bob", "carol"].map(|name| app.player(name));
    let week = SignedDuration::from_hours(7 * 24);
    // Alice loses to the random bot three times, by resigning.
    let (mut alice_standing, mut random_standing) = (Standing::NEW, Standing::NEW);
    let mut last = None;
    for _ in 0..3 {
        let id = app.create_game_as(
            &alice,
            json!({"variant": "player_choice", "rated": true, "play_as": "X", "opponent": {"bot": "random"}}),
        );
        let ongoing = app.get_game(id).json();
        let seats = &ongoing["seats"];
        assert_eq!(seats["X"]["rating"]["rating"].as_f64(), Some(alice_standing.rating.rating), "{seats}");
        assert_eq!(seats["O"]["rating"]["rating"].as_f64(), Some(random_standing.rating.rating), "{seats}");
        assert_eq!(seats["X"]["rating"]["rating_diff"], Value::Null);
        // The answer to the resignation shows the ratings it changed, as the game does after.
        let ended = resign_once_both_moved(&app, id, [&alice, ""], &alice);
        assert_eq!(app.get_game(id).json()["seats"], ended["seats"]);
        let before = alice_standing;
        (alice_standing, random_standing) =
            rate_game(&alice_standing, &random_standing, GameResult::OWins, Timestamp::now(), week, [false, true])
                .unwrap();
        let diff = ended["seats"]["X"]["rating"]["rating_diff"].as_f64().unwrap();
        assert_eq!(ended["seats"]["X"]["rating"]["rating"].as_f64(), Some(before.rating.rating));
        assert_eq!(diff, alice_standing.rating.rating - before.rating.rating);
        assert!(diff < 0.0);
        last = Some(id);
    }

    // The history has a point for each, the last for the last game.
    let history = app.request("GET", "/api/v1/players/Alice/ratings/player_choice", &[], None).json();
    let points = history["points"].as_array().unwrap();
    assert_eq!(points.len(), 3);
    assert_eq!(points[2]["game_id"].as_i64(), last);
    assert_eq!(points[2]["rating"].as_f64(), Some(alice_standing.rating.rating));
    assert_eq!(history["next_cursor"], Value::Null);
    // A page at a time, the latest first: two, then the one before them.
    let page =
        |query: &str| app.request("GET", &format!("/api/v1/players/alice/ratings/player_choice{query}"), &[], None);
    let latest = page("?limit=2").json();
    assert_eq!((&latest["points"][0], &latest["points"][1]), (&points[1], &points[2]));
    assert_eq!(latest["points"].as_array().map(Vec::len), Some(2));
    let earlier = page(&format!("?limit=2&cursor={}", latest["next_cursor"].as_str().unwrap())).json();
    assert_eq!((&earlier["points"], &earlier["next_cursor"]), (&json!([points[0]]), &Value::Null));
    page("?limit=0").assert_problem(400, "invalid_query");
    page("?cursor=x").assert_problem(400, "invalid_query");
    let none = app.request("GET", "/api/v1/players/alice/ratings/measurement", &[], None).json();
    assert_eq!(none["points"], json!([]));
    app.request("GET", "/api/v1/players/alice/ratings/chess", &[], None).assert_problem(400, "invalid_path");

    // The listing shows the game rated, against the bot, with the ratings.
    let listed = app.request("GET", "/api/v1/games?status=finished", &[], None).json();
    let newest = &listed["games"][0];
    assert_eq!(
        (newest["id"].as_i64(), newest["rated"].clone(), newest["bot"].clone()),
        (last, json!(true), json!("random"))
    );
    assert!(newest["ratings"]["X"]["rating_diff"].as_f64().unwrap() < 0.0, "{newest}");
    // A new player's loss leaves the bot's rating as it was.
    assert_eq!(newest["ratings"]["O"]["rating_diff"].as_f64(), Some(0.0), "{newest}");

    // Alice and Bob take turns beating each other until neither is
    // provisional; Carol plays one game, the bot three: both provisional.
    for round in 0..60 {
        let (winner, loser) = if round % 2 == 0 { (&alice, &bob) } else { (&bob, &alice) };
        let id = app.game_between(winner, loser, json!({"variant": "player_choice", "rated": true}));
        resign_once_both_moved(&app, id, [winner, loser], loser);
        let [alice_now, bob_now] = ["alice", "bob"].map(|name| app.rating_of(name, "player_choice"));
        if alice_now["provisional"] == false && bob_now["provisional"] == false {
            break;
        }
    }
    let one = app.game_between(&carol, &alice, json!({"variant": "player_choice", "rated": true}));
    resign_once_both_moved(&app, one, [&carol, &alice], &alice);
    assert_eq!(app.rating_of("carol", "player_choice")["provisional"], true);
    assert_eq!(app.rating_of("random", "player_choice")["provisional"], true);
    let board = app.request("GET", "/api/v1/leaderboards/player_choice", &[], None).json();
    let mut names: Vec<Value> =
        board["players"].as_array().unwrap().iter().map(|leader| leader["name"].clone()).collect();
    names.sort_by_key(ToString::to_string);
    assert_eq!(names, [json!("alice"), json!("bob")], "{board}");
    assert_eq!(board["players"][0]["rank"], 1);
    assert_eq!(board["players"][1]["bot"], false);
    let empty = app.request("GET", "/api/v1/leaderboards/measurement", &[], None).json();
    assert_eq!(empty["players"], json!([]));
    assert_eq!(app.request("GET", "/api/v1/players/random", &[], None).json()["bot"], true);
}

/// Four rated games with a clock of a second, each created on the first of
/// `instances` and joined on the last, left to run out once both players made
/// their first move: each is rated once, by whichever instance's timer writes
/// its timeout.
fn rated_timeouts_are_rated_once(database: &TestDatabase, instances: &[TestApp]) {
    let (first, last) = (&instances[0], &instances[instances.len() - 1]);
    let (alice, bob) = (first.player("alice"), first.player("bob"));
    let mut ids = Vec::new();
    for _ in 0..4 {
        let id =
            first.create_game_as(&alice, json!({"rated": true, "clock": {"initial_ms": 1_000, "increment_ms": 0}}));
        let joined = last.post_with_token(&format!("/api/v1/games/{id}/join"), &bob, json!({}));
        assert_eq!(joined.status, 201, "{}", joined.body);
        assert_eq!(first.place(id, &alice, [0, 1]).status, 201);
        assert_eq!(last.place(id, &bob, [2, 3]).status, 201);
        ids.push(id);
    }
    std::thread::sleep(std::time::Duration::from_millis(2_500));
    for &id in &ids {
        let timeouts = super::life::log_kinds(last, id).iter().filter(|kind| *kind == "timeout").count();
        assert_eq!(timeouts, 1, "game {id}");
    }
    for name in ["alice", "bob"] {
        let history = last.request("GET", &format!("/api/v1/players/{name}/ratings/measurement"), &[], None).json();
        let games: Vec<i64> =
            history["points"].as_array().unwrap().iter().map(|point| point["game_id"].as_i64().unwrap()).collect();
        assert_eq!(games, ids, "{name}");
        assert_eq!(last.rating_of(name, "measurement")["games"], 4, "{name}");
    }
    let (clean, said) = ratings_command(database, "check");
    assert!(clean && said.contains("4 rated games, 8 rating changes"), "{said}");
}

#[test]
fn a_rated_game_that_times_out_is_rated_once() {
    let database = TestDatabase::new();
    rated_timeouts_are_rated_once(&database, &[TestApp::spawn_on(&database)]);
}

#[test]
#[ignore = "needs PostgreSQL: QTTT_TEST_POSTGRES (see .ci/run)"]
fn a_rated_game_that_times_out_is_rated_once_by_two_instances_both_running_the_timer() {
    let database = TestDatabase::new();
    assert!(matches!(database, TestDatabase::Postgres(_)), "set QTTT_TEST_POSTGRES to run this test");
    rated_timeouts_are_rated_once(&database, &[TestApp::spawn_on(&database), TestApp::spawn_on(&database)]);
}

#[test]
fn the_ladder_plays_the_bots_rated_games_against_each_other_and_the_perfect_bot_rises_above_the_others() {
    let database = TestDatabase::new();
    let url = database.url();
    let done = qttt_with(&[("DATABASE_URL", &url), ("RANDOM_SEED", "1")], &["ladder", "--games", "12"], "");
    let said = String::from_utf8_lossy(&done.stdout).to_string();
    assert!(done.status.success(), "{said}{}", String::from_utf8_lossy(&done.stderr));
    assert!(said.starts_with("72 rated games in "), "{said}");
    // Each variant's rows, best first as the table lists them: perfect, parasite, random.
    let rows: Vec<Vec<&str>> = said.lines().skip(2).map(|line| line.split_whitespace().collect()).collect();
    assert_eq!(rows.len(), 6, "{said}");
    for variant in rows.chunks(3) {
        let names: Vec<&str> = variant.iter().map(|row| row[1]).collect();
        assert_eq!(names, ["perfect", "parasite", "random"], "{said}");
        assert!(variant.iter().all(|row| row[5] == "24"), "each bot plays 12 games with each other: {said}");
        let rating = |row: &Vec<&str>| row[2].parse::<f64>().unwrap();
        assert!(rating(&variant[0]) > rating(&variant[1]) && rating(&variant[0]) > rating(&variant[2]), "{said}");
    }
    let (clean, checked) = ratings_command(&database, "check");
    assert!(clean && checked.contains("72 rated games, 144 rating changes"), "{checked}");

    // The bots' games are rated games of their own players, and the
    // leaderboard marks them.
    let app = TestApp::spawn_on(&database);
    assert_eq!(app.rating_of("perfect", "player_choice")["games"], 24);
    let board = app.request("GET", "/api/v1/leaderboards/measurement", &[], None).json();
    let leaders = board["players"].as_array().unwrap();
    assert!(!leaders.is_empty(), "{board}");
    assert!(leaders.iter().all(|leader| leader["bot"] == true), "{board}");
}

#[test]
fn a_rated_game_resigned_before_both_players_moved_is_aborted_and_unrated() {
    let app = TestApp::spawn();
    let (alice, bob) = (app.player("alice"), app.player("bob"));
    let rated = json!({"variant": "player_choice", "rated": true});
    // Before any move, and after X's first alone: an abort in the resigner's name.
    let unmoved = app.game_between(&alice, &bob, rated.clone());
    let ended = act(&app, unmoved, "resign", &bob);
    assert_eq!((&ended["result"], &ended["end"]), (&json!("aborted"), &json!({"reason": "aborted", "player": "O"})));
    let one_move = app.game_between(&alice, &bob, rated.clone());
    assert_eq!(app.place(one_move, &alice, [0, 1]).status, 201);
    assert_eq!(act(&app, one_move, "resign", &alice)["result"], "aborted");
    for name in ["alice", "bob"] {
        assert_eq!(app.rating_of(name, "player_choice")["games"], 0, "{name}");
    }
    // Once both moved, a resignation is a loss, and rated.
    let played = app.game_between(&alice, &bob, rated);
    assert_eq!(resign_once_both_moved(&app, played, [&alice, &bob], &bob)["result"], "x_wins");
    assert_eq!(app.rating_of("alice", "player_choice")["games"], 1);
}

#[test]
fn five_thousand_losses_and_a_win_leave_every_deviation_within_glicko_2s_bound() {
    let app = TestApp::spawn();
    let (alice, bob) = (app.player("alice"), app.player("bob"));
    let against_random =
        json!({"variant": "measurement", "rated": true, "play_as": "X", "opponent": {"bot": "random"}});
    // Two at a time: the ratings are the same in any order of equal games.
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| {
                for _ in 0..2_500 {
                    let id = app.create_game_as(&alice, against_random.clone());
                    assert_eq!(app.place(id, &alice, [0, 1]).status, 201);
                    act(&app, id, "resign", &alice);
                }
            });
        }
    });
    let id = app.game_between(&alice, &bob, json!({"variant": "measurement", "rated": true}));
    assert_eq!(resign_once_both_moved(&app, id, [&alice, &bob], &bob)["result"], "x_wins");
    let alices = app.rating_of("alice", "measurement");
    assert_eq!(alices["games"], 5_001);
    for rating in [alices, app.rating_of("random", "measurement"), app.rating_of("bob", "measurement")] {
        let (value, deviation) = (rating["rating"].as_f64().unwrap(), rating["deviation"].as_f64().unwrap());
        assert!(deviation <= 350.0 && (400.0..=4000.0).contains(&value), "{rating}");
    }
}

#[test]
fn one_players_five_hundred_resignations_leave_a_bots_rating_where_it_was() {
    let database = TestDatabase::new();
    let app = TestApp::spawn_on(&database);
    let (mallory, alice) = (app.player("mallory"), app.player("alice"));
    let against_random =
        json!({"variant": "player_choice", "rated": true, "play_as": "X", "opponent": {"bot": "random"}});
    for _ in 0..500 {
        let id = app.create_game_as(&mallory, against_random.clone());
        assert_eq!(app.place(id, &mallory, [0, 1]).status, 201);
        act(&app, id, "resign", &mallory);
    }
    let randoms = app.rating_of("random", "player_choice");
    assert_eq!(randoms["games"], 500, "the bot counts every game");
    assert!((randoms["rating"].as_f64().unwrap() - 1500.0).abs() < 50.0, "{randoms}");
    // Her own rating fell; another new player's game leaves the bot where it was too.
    assert!(app.rating_of("mallory", "player_choice")["rating"].as_f64().unwrap() < 1000.0);
    let id = app.create_game_as(&alice, against_random);
    assert_eq!(app.place(id, &alice, [0, 1]).status, 201);
    act(&app, id, "resign", &alice);
    assert_eq!(app.rating_of("random", "player_choice")["rating"], randoms["rating"]);
    // The ratings derived again from the games are those stored.
    let (clean, said) = ratings_command(&database, "check");
    assert!(clean && said.contains("501 rated games, 1002 rating changes"), "{said}");
}
