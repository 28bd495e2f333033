//! Game analysis: every action of a game judged by the perfect player, checked
//! against searches of its own and a plain minimax.

use qttt::bot::{Analysis, Bot, JudgedAction, Solver, book, series};
use qttt::engine::{Action, Actor, Game, Player, Variant, notation};
use rand::SeedableRng;
use rand::rngs::StdRng;

use super::bots::plain_value;

const VARIANTS: [Variant; 2] = [Variant::PlayerChoice, Variant::Measurement];

/// A seeded game of `x` against `o`, to its end.
fn played(variant: Variant, x: Bot, o: Bot, seed: u64) -> Game {
    series::play_game(&mut *x.strategy(), &mut *o.strategy(), variant, &mut StdRng::seed_from_u64(seed))
}

fn analysed(game: &Game) -> Analysis {
    Analysis::of(game, &mut Solver::default())
}

fn final_difference(game: &Game) -> f64 {
    game.score().x.as_f64() - game.score().o.as_f64()
}

/// The game as it stood before the judged action, and after it.
fn around(game: &Game, judged: &JudgedAction) -> (Game, Game) {
    let log = &game.log()[..judged.entry];
    let before = Game::replay(game.variant(), log).unwrap();
    let mut after = before;
    after.play(Actor::Player(judged.player), judged.action).unwrap();
    (before, after)
}

/// The value of `game` by a search apart from the analysis's: plain minimax
/// late in the game, the `reference` solver in the middle, the opening book
/// (which the solver wrote) at the start.
fn value_of(game: &Game, reference: &mut Solver) -> f64 {
    match game.actor_to_act() {
        None => final_difference(game),
        Some(_) if game.moves().len() >= 7 => plain_value(game),
        Some(_) if game.moves().len() > book::BOOK_MOVES => reference.solve(game).value.points,
        Some(_) => reference.answer(game).value.points,
    }
}

/// The value the judged action led to: its `value_after`, or after a
/// measurement the value of the outcome that happened.
fn reached(judged: &JudgedAction) -> f64 {
    match judged.measurement {
        None => judged.value_after,
        Some(measured) => {
            let happened = measured.happened.expect("a played game measured its cycles");
            measured.outcomes.iter().find(|outcome| outcome.square == happened).unwrap().value
        }
    }
}

#[test]
fn the_empty_board_is_worth_half_a_point_to_x_in_player_choice() {
    let game = played(Variant::PlayerChoice, Bot::Random, Bot::Random, 1);
    let analysis = analysed(&game);
    assert_eq!(analysis.actions[0].entry, 0);
    assert_eq!(analysis.actions[0].value_before, 0.5);
}

#[test]
fn each_action_starts_from_the_value_the_one_before_left_unless_a_measurement_lies_between() {
    for variant in VARIANTS {
        for seed in 0..15 {
            let game = played(variant, Bot::Random, Bot::Random, seed);
            let analysis = analysed(&game);
            let transcript = notation::write(&game);
            let players = game.log().iter().filter(|entry| matches!(entry.actor, Actor::Player(_))).count();
            assert_eq!(analysis.actions.len(), players, "{transcript}");
            for (judged, next) in analysis.actions.iter().zip(analysis.actions.iter().skip(1)) {
                assert_eq!(reached(judged), next.value_before, "{transcript}: before {:?}", next.action);
            }
            assert_eq!(reached(analysis.actions.last().unwrap()), final_difference(&game), "{transcript}");
            if variant == Variant::PlayerChoice {
                assert!(analysis.actions.iter().all(|judged| judged.measurement.is_none()));
            }
        }
    }
}

#[test]
fn a_measured_move_is_worth_the_mean_of_its_two_outcomes() {
    let mut measured_moves = 0;
    for seed in 0..15 {
        let game = played(Variant::Measurement, Bot::Random, Bot::Random, seed);
        let mut reference = Solver::default();
        for judged in analysed(&game).actions {
            let (_, after) = around(&game, &judged);
            let Some(measured) = judged.measurement else {
                assert_ne!(after.actor_to_act(), Some(Actor::Measurement));
                continue;
            };
            measured_moves += 1;
            let [first, second] = measured.outcomes;
            assert_eq!(judged.value_after, (first.value + second.value) / 2.0, "{}", notation::write(&game));
            for outcome in measured.outcomes {
                let mut then = after;
                let collapse = Action::Collapse {
                    move_number: after.pending_collapse().unwrap().closing_move,
                    square: outcome.square,
                };
                then.play(Actor::Measurement, collapse).unwrap();
                assert_eq!(outcome.value, value_of(&then, &mut reference), "{}", notation::write(&then));
            }
            let happened = game.log()[judged.entry + 1];
            assert_eq!(
                (happened.actor, happened.action),
                (
                    Actor::Measurement,
                    Action::Collapse {
                        move_number: after.pending_collapse().unwrap().closing_move,
                        square: measured.happened.unwrap(),
                    }
                )
            );
        }
    }
    assert!(measured_moves > 15, "only {measured_moves} measured moves");
}

#[test]
fn an_action_loses_nothing_exactly_when_it_is_as_good_as_the_best() {
    let (mut with_loss, mut without) = (0, 0);
    for variant in VARIANTS {
        // Few games: the checks search every position of the fourth move afresh,
        // which a debug build takes most of a second for.
        for seed in 0..3 {
            let game = played(variant, Bot::Random, Bot::Parasite { mistake_chance: 0.3 }, seed);
            let mut reference = Solver::default();
            for judged in analysed(&game).actions {
                let (before, after) = around(&game, &judged);
                let mut best = before;
                best.play(Actor::Player(judged.player), judged.best).unwrap();
                let (taken, best) = (value_of(&after, &mut reference), value_of(&best, &mut reference));
                let transcript = notation::write(&after);
                assert_eq!(judged.value_before, value_of(&before, &mut reference), "{transcript}");
                assert_eq!(judged.value_before, best, "the best action keeps the value: {transcript}");
                assert_eq!(judged.value_after, taken, "{transcript}");
                let given_away = if judged.player == Player::X { best - taken } else { taken - best };
                assert_eq!(judged.loss, given_away, "{transcript}");
                assert!(judged.loss >= 0.0, "{transcript}");
                assert_eq!(judged.loss == 0.0, taken == best, "{transcript}");
                if judged.action == judged.best {
                    assert_eq!(judged.loss, 0.0);
                }
                if judged.loss > 0.0 { with_loss += 1 } else { without += 1 }
            }
        }
    }
    assert!(with_loss > 5 && without > 5, "{with_loss} actions lost something, {without} nothing");
}

#[test]
fn perfect_play_on_both_sides_loses_nothing() {
    for variant in VARIANTS {
        for seed in 0..3 {
            let game = played(variant, Bot::Perfect, Bot::Perfect, seed);
            let analysis = analysed(&game);
            for player in [Player::X, Player::O] {
                let lost = analysis.loss_of(player);
                assert_eq!((lost.loss, lost.actions_with_loss), (0.0, 0), "{player}: {}", notation::write(&game));
                assert!(lost.actions >= 4);
            }
            assert_eq!(analysis.actions[0].value_before, 0.5);
        }
    }
}

#[test]
fn against_the_perfect_player_only_random_play_loses() {
    for variant in VARIANTS {
        for random_side in [Player::X, Player::O] {
            let mut random_loss = 0.0;
            for seed in 0..8 {
                let (x, o) = match random_side {
                    Player::X => (Bot::Random, Bot::Perfect),
                    Player::O => (Bot::Perfect, Bot::Random),
                };
                let game = played(variant, x, o, seed);
                let analysis = analysed(&game);
                let perfect = analysis.loss_of(random_side.other());
                assert_eq!((perfect.loss, perfect.actions_with_loss), (0.0, 0), "{}", notation::write(&game));
                let random = analysis.loss_of(random_side);
                let summed: f64 = analysis.actions.iter().filter(|j| j.player == random_side).map(|j| j.loss).sum();
                assert_eq!(random.loss, summed);
                assert_eq!(
                    random.actions_with_loss,
                    analysis.actions.iter().filter(|j| j.player == random_side && j.loss > 0.0).count()
                );
                random_loss += random.loss;
            }
            assert!(random_loss > 1.0, "{} as {random_side}: random play lost only {random_loss}", variant.code());
        }
    }
}

#[test]
fn a_transcript_cut_before_its_measurement_shows_both_outcomes_and_none_happened() {
    let log = notation::parse("X1+(1,2); O2+(2,5); X3+(1,5)", Variant::Measurement).unwrap();
    let game = Game::replay(Variant::Measurement, &log).unwrap();
    let analysis = analysed(&game);
    let last = analysis.actions.last().unwrap();
    let measured = last.measurement.unwrap();
    assert_eq!(measured.happened, None);
    assert_eq!(measured.outcomes.map(|outcome| outcome.square.number()), [0, 4]);
    assert_eq!(last.value_after, (measured.outcomes[0].value + measured.outcomes[1].value) / 2.0);
}
