//! Every worked rule scenario, played through the engine.

use qttt::engine::{Actor, Game, Rules, Scoring, notation};
use rand::SeedableRng;
use rand::rngs::StdRng;

use crate::fixtures::{Ending, Scenario, scenarios, state_of};

/// Plays every step of `scenario` with [`Game::play`] under Goff's scoring, the
/// scenarios' own, checking each rejection and each expected state on the way.
fn play_steps(scenario: &Scenario) -> Game {
    play_steps_under(scenario, Scoring::Goff)
}

/// [`play_steps`] under `scoring`: the states expected before the end are the same
/// under every scoring, since no line has scored yet.
fn play_steps_under(scenario: &Scenario, scoring: Scoring) -> Game {
    let mut game = Game::new(Rules { variant: scenario.variant(), scoring });
    for (index, step) in scenario.steps.iter().enumerate() {
        let context = format!("{} step {}", scenario.name, index + 1);
        let before = game;
        let outcome = step.action().and_then(|action| game.play(step.actor(), action).map_err(|e| e.code()));
        match (&step.rejected, outcome) {
            (Some(codes), Err(code)) => {
                assert!(codes.iter().any(|c| c == code), "{context}: rejected with {code}, expected one of {codes:?}");
                assert_eq!(game, before, "{context}: a rejected action changed the game");
            }
            (Some(codes), Ok(())) => {
                panic!("{context}: accepted, expected a rejection with one of {codes:?}")
            }
            (None, Err(code)) => panic!("{context}: rejected with {code}"),
            (None, Ok(())) => {}
        }
        if let Some(expected) = &step.expect {
            assert_eq!(&state_of(&game), expected, "{context}");
        }
    }
    game
}

#[test]
fn every_player_choice_scenario_ends_in_its_expected_state() {
    let mut played = 0;
    for scenario in scenarios().iter().filter(|s| s.r#final.is_some()) {
        let game = play_steps(scenario);
        assert_eq!(Some(state_of(&game)), scenario.r#final, "{}", scenario.name);
        played += 1;
    }
    assert_eq!(played, 21);
}

#[test]
fn every_scenario_that_ends_ends_as_each_other_scoring_says() {
    let mut checked = 0;
    for scenario in scenarios().iter().filter(|s| !s.other_scorings.is_empty()) {
        let goff = scenario.r#final.as_ref().expect("a scenario that ends has a final state");
        for scoring in [Scoring::CompleteWin, Scoring::NarrowWin] {
            let ending = &scenario.other_scorings[scoring.code()];
            let state = state_of(&play_steps_under(scenario, scoring));
            let context = format!("{} under {}", scenario.name, scoring.code());
            assert_eq!(Ending { result: state.result, score: state.score, lines: state.lines }, *ending, "{context}");
            assert_eq!(
                (&state.classical, &state.spooky, state.game_over),
                (&goff.classical, &goff.spooky, true),
                "{context}"
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 14);
}

#[test]
fn every_measurement_outcome_of_a_scenario_gives_its_expected_state() {
    let mut checked = 0;
    for scenario in scenarios().iter().filter(|s| !s.measurements.is_empty()) {
        let game = play_steps(scenario);
        assert_eq!(game.pending_collapse().map(|p| p.chooser), Some(Actor::Measurement), "{}", scenario.name);
        for measurement in &scenario.measurements {
            let mut measured = game;
            measured.play(Actor::Measurement, measurement.collapse.action()).expect("a listed outcome is legal");
            assert_eq!(state_of(&measured), measurement.r#final, "{}", scenario.name);
            checked += 1;
        }
    }
    assert_eq!(checked, 6);
}

#[test]
fn the_measurement_reaches_both_listed_outcomes_and_nothing_else() {
    for scenario in scenarios().iter().filter(|s| !s.measurements.is_empty()) {
        let (last, earlier) = scenario.steps.split_last().expect("a scenario has steps");
        let mut seen = vec![0; scenario.measurements.len()];
        for seed in 0..64 {
            let mut rng = StdRng::seed_from_u64(seed);
            let mut game = Game::new(scenario.variant());
            for step in earlier {
                game.play(step.actor(), step.action().unwrap()).unwrap();
            }
            game.play_measured(last.actor(), last.action().unwrap(), &mut rng).unwrap();
            let state = state_of(&game);
            let outcome = scenario
                .measurements
                .iter()
                .position(|m| m.r#final == state)
                .unwrap_or_else(|| panic!("{}: measured into an unlisted state {state:?}", scenario.name));
            seen[outcome] += 1;
        }
        assert!(seen.iter().all(|&count| count > 0), "{}: outcomes seen {seen:?} times", scenario.name);
    }
}

#[test]
fn every_scenario_replays_from_its_log_and_its_transcript() {
    for scenario in scenarios() {
        let game = play_steps(&scenario);
        assert_eq!(Game::replay(game.variant(), game.log()).as_ref(), Ok(&game), "{}", scenario.name);
        let transcript = notation::write(&game);
        let log = notation::parse(&transcript, game.variant()).expect("a written transcript parses");
        assert_eq!(log, game.log(), "{}: {transcript}", scenario.name);
    }
}
