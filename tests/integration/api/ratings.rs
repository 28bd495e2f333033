//! Ratings: Glicko-2 for each variant, changed by rated games alone, and the
//! bots rated as players of their own.

use jiff::{SignedDuration, Timestamp};
use qttt::engine::GameResult;
use qttt::rating::{Rating, Standing, rate_game};
use serde_json::{Value, json};

use super::helpers::{Client, TestApp, goffs_draw};

/// Game `id`'s `operation` by the player of `token`.
fn act(app: &TestApp, id: i64, operation: &str, token: &str) -> Value {
    let done = app.post_with_token(&format!("/api/v1/games/{id}/{operation}"), token, json!({}));
    assert_eq!(done.status, 201, "{operation}: {}", done.body);
    done.json()
}

impl Client {
    /// A game created by the player of `x` with `body`, joined by the player
    /// of `o`; answers its id.
    fn game_between(&self, x: &str, o: &str, body: Value) -> i64 {
        let id = self.create_game_as(x, body);
        let joined = self.post_with_token(&format!("/api/v1/games/{id}/join"), o, json!({}));
        assert_eq!(joined.status, 201, "{}", joined.body);
        id
    }

    /// Player `name`'s rating in `variant` as their profile shows it.
    fn rating_of(&self, name: &str, variant: &str) -> Value {
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

#[test]
fn a_sequence_of_rated_games_gives_the_ratings_glicko_2_computes_and_casual_and_aborted_games_change_none() {
    let app = TestApp::spawn();
    let [alice, bob, carol] = ["alice", "bob", "carol"].map(|name| app.player(name));
    let week = SignedDuration::from_hours(7 * 24);
    let mut standings = [Standing::NEW; 3];
    // Every game is rated within seconds of the last: no idle period comes between.
    let mut rated = |x: usize, o: usize, result: GameResult| {
        let (x_after, o_after) =
            rate_game(&standings[x], &standings[o], result, Timestamp::now(), week).expect("a result to rate");
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
    act(&app, first, "resign", &bob);
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
    act(&app, third, "resign", &alice);
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
}

#[test]
fn a_rated_game_against_a_bot_rates_the_bot_too_and_a_rated_game_needs_players() {
    let app = TestApp::spawn();
    let alice = app.player("alice");
    let id =
        app.create_game_as(&alice, json!({"variant": "measurement", "rated": true, "opponent": {"bot": "random"}}));
    let game = app.get_game(id).json();
    assert_eq!((game["rated"].clone(), game["hints"].clone()), (json!(true), json!(false)));
    act(&app, id, "resign", &alice);
    let (alice_after, random_after) =
        rate_game(&Standing::NEW, &Standing::NEW, GameResult::OWins, Timestamp::now(), SignedDuration::from_hours(168))
            .unwrap();
    assert_eq!(app.rating_of("alice", "measurement"), shown(&alice_after));
    assert_eq!(app.rating_of("random", "measurement"), shown(&random_after));

    // Without a player token, no rated game; with hints, none either.
    app.create_game(json!({"rated": true})).assert_problem(401, "unauthorized");
    let refused = app.post_with_token("/api/v1/games", &alice, json!({"rated": true, "hints": true}));
    refused.assert_problem(400, "invalid_body");
    let refused = app.post_with_token(
        "/api/v1/games",
        &alice,
        json!({"rated": true, "opponent": {"bot": "parasite", "mistake_chance": 0.5}}),
    );
    refused.assert_problem(400, "invalid_body");
    let waiting = app.create_game_as(&alice, json!({"rated": true}));
    app.join(waiting).assert_problem(401, "unauthorized");
    // A name a bot holds is taken.
    app.create_player(Some("Perfect")).assert_problem(409, "name_taken");
}
