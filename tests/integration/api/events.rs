//! Live events: every change reaches every watcher, and a reconnect misses nothing.

use std::time::{Duration, Instant};

use super::helpers::{Event, EventStream, TestApp, goffs_draw};

pub(super) const PATIENCE: Duration = Duration::from_secs(5);

/// Reads events until the one with id `until`; every id must come once, in order.
pub(super) fn events_through(stream: &mut EventStream, from: i64, until: i64) -> Vec<Event> {
    (from..=until)
        .map(|expected| {
            let event = stream.next_event(PATIENCE).unwrap_or_else(|| panic!("event {expected} never came"));
            assert_eq!(event.id, Some(expected), "{event:?}");
            event
        })
        .collect()
}

/// The game of a write's answer as every watcher of its stream gets it: the
/// same, but for the caller's seat, which a stream's events do not say.
pub(super) fn as_watched(mut answered: serde_json::Value) -> serde_json::Value {
    answered["your_seat"] = serde_json::Value::Null;
    answered
}

#[test]
fn two_watchers_see_every_change_of_a_whole_game_as_it_happens() {
    let app = TestApp::spawn();
    let (id, x, o) = app.two_player_game("player_choice");
    let mut watchers = [app.watch(id, None), app.watch(id, None)];
    for watcher in &mut watchers {
        assert_eq!(watcher.header("content-type").as_deref(), Some("text/event-stream"));
        let seats = events_through(watcher, 1, 2);
        assert_eq!(seats.iter().map(|e| e.kind.as_str()).collect::<Vec<_>>(), ["seat", "seat"]);
    }
    let mut slowest = Duration::ZERO;
    let mut seq = 2;
    for step in goffs_draw(&x, &o) {
        let (kind, answer) = (step.kind(), step.take(&app, id));
        assert_eq!(answer.status, 201, "{}", answer.body);
        let written = Instant::now();
        seq += 1;
        for watcher in &mut watchers {
            let event = watcher.next_event(PATIENCE).expect("the change reaches the watcher");
            slowest = slowest.max(written.elapsed());
            assert_eq!((event.id, event.kind.as_str()), (Some(seq), kind));
            assert_eq!(event.data["entry"]["seq"], seq);
            assert_eq!(event.data["game"], as_watched(answer.json()), "the event carries the new game");
        }
    }
    let last = app.get_game(id).json();
    assert_eq!((last["status"].as_str(), last["version"].as_i64()), (Some("finished"), Some(seq)));
    println!("slowest event after its write's answer: {slowest:?}");
}

#[test]
fn a_reconnect_with_last_event_id_gets_exactly_what_it_missed() {
    let app = TestApp::spawn();
    let (id, x, o) = app.two_player_game("player_choice");
    for (token, squares) in [(&x, [0, 1]), (&o, [2, 3]), (&x, [4, 5])] {
        app.place(id, token, squares);
    }
    // Seen up to the first move (3); missed 4 and 5.
    let mut watcher = app.watch(id, Some(3));
    let missed = events_through(&mut watcher, 4, 5);
    assert_eq!(missed[1].data["game"]["moves"].as_array().unwrap().len(), 3);
    app.place(id, &o, [6, 7]);
    let live = watcher.next_event(PATIENCE).expect("the next change");
    assert_eq!(live.id, Some(6));
    assert!(watcher.next_event(Duration::from_millis(300)).is_none(), "nothing twice, nothing more");
}

#[test]
fn watching_an_unknown_game_or_with_a_bad_last_event_id_is_refused() {
    let app = TestApp::spawn();
    app.request("GET", "/api/v1/games/404/events", &[], None).assert_problem(404, "not_found");
    let (id, _, _) = app.two_player_game("measurement");
    app.request("GET", &format!("/api/v1/games/{id}/events"), &[("Last-Event-ID", "seven")], None)
        .assert_problem(400, "invalid_header");
}

#[test]
fn every_stream_tells_how_many_watch_without_a_seat() {
    let app = TestApp::spawn();
    let (id, x, _) = app.two_player_game("player_choice");
    let bearer = format!("Bearer {x}");
    let mut player = app.watch_at(&format!("/api/v1/games/{id}/events"), &[("Authorization", &bearer)]);
    assert!(player.tells_spectators(0, PATIENCE), "a seat's holder is no spectator: {}", player.received());
    let mut first = app.watch(id, None);
    assert!(first.tells_spectators(1, PATIENCE), "{}", first.received());
    let mut second = app.watch(id, None);
    assert!(second.tells_spectators(2, PATIENCE), "{}", second.received());
    // The others hear of a change at their next keep-alive, within 5 s.
    let keep_alive = Duration::from_secs(5);
    assert!(player.tells_spectators(2, keep_alive + PATIENCE), "{}", player.received());
    drop(first);
    assert!(player.tells_spectators(1, keep_alive + PATIENCE), "{}", player.received());
    assert!(second.tells_spectators(1, keep_alive + PATIENCE), "{}", second.received());
}
