//! Invariants of the rules over thousands of seeded random games.

use qttt::engine::{Action, Actor, Game, Player, Square, Variant, notation};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

/// Random games per variant in each property.
const GAMES: u64 = 2000;

/// Plays `GAMES` seeded random games of `variant`, each action picked uniformly
/// from the legal ones, and calls `check(before, after, rng)` after every action.
/// Returns the finished games.
fn random_games(variant: Variant, mut check: impl FnMut(&Game, &Game, &mut StdRng)) -> Vec<Game> {
    (0..GAMES)
        .map(|seed| {
            let mut rng = StdRng::seed_from_u64(seed);
            let mut game = Game::new(variant);
            // Nine moves and at most nine collapse choices: any more is a bug.
            for _ in 0..18 {
                let Some(actor) = game.actor_to_act() else {
                    break;
                };
                let actions = game.legal_actions();
                let action = actions[rng.random_range(0..actions.len())];
                let before = game;
                game.play_measured(actor, action, &mut rng).expect("a legal action is accepted");
                check(&before, &game, &mut rng);
            }
            assert!(game.is_over(), "seed {seed}: not over after 18 actions");
            game
        })
        .collect()
}

const VARIANTS: [Variant; 2] = [Variant::PlayerChoice, Variant::Measurement];

#[test]
fn replaying_the_log_gives_the_game_played_step_by_step() {
    for variant in VARIANTS {
        random_games(variant, |_, game, _| {
            assert_eq!(Game::replay(variant, game.log()).as_ref(), Ok(game));
        });
    }
}

#[test]
fn no_cycle_survives_a_collapse() {
    for variant in VARIANTS {
        random_games(variant, |_, game, _| {
            if game.pending_collapse().is_some() {
                return;
            }
            // Union-find over squares: an unresolved move joining two squares that are
            // already connected would be a cycle.
            let mut root: Vec<usize> = (0..9).collect();
            fn find(root: &mut [usize], mut square: usize) -> usize {
                while root[square] != square {
                    square = root[square];
                }
                square
            }
            for m in game.moves().iter().filter(|m| m.landed.is_none()) {
                let (a, b) = (find(&mut root, m.squares[0].index()), find(&mut root, m.squares[1].index()));
                assert_ne!(a, b, "move {} closes a cycle that was never collapsed", m.move_number);
                root[a] = b;
            }
        });
    }
}

#[test]
fn classical_squares_never_change() {
    for variant in VARIANTS {
        random_games(variant, |before, after, _| {
            for square in Square::ALL {
                if let Some(mark) = before.classical(square) {
                    assert_eq!(after.classical(square), Some(mark));
                    assert_eq!(after.spooky(square).count(), 0);
                }
            }
        });
    }
}

#[test]
fn every_game_ends_within_nine_moves_with_a_result() {
    for variant in VARIANTS {
        for game in random_games(variant, |_, _, _| {}) {
            assert!(game.moves().len() <= 9, "{} moves", game.moves().len());
            assert!(game.next_to_move().is_none() && game.pending_collapse().is_none());
            assert!(game.legal_actions().is_empty());
            assert_ne!(game.result().code(), "ongoing");
        }
    }
}

#[test]
fn scores_are_whole_or_half_points_up_to_two() {
    let mut seen = std::collections::BTreeSet::new();
    for variant in VARIANTS {
        for game in random_games(variant, |_, _, _| {}) {
            let score = game.score();
            assert!(score.x.halves <= 4 && score.o.halves <= 2, "{score:?}");
            assert!([0, 1, 2, 3, 4].contains(&score.x.halves));
            seen.insert(score.x.halves);
            seen.insert(score.o.halves);
            let winner_points = score.x.max(score.o);
            assert!(winner_points.halves == 0 || winner_points.halves >= 2, "a winner has at least 1 point");
        }
    }
    assert_eq!(seen.into_iter().collect::<Vec<_>>(), vec![0, 1, 2, 3, 4], "random play reaches every score");
}

/// Any action at all, legal or not.
fn random_action(rng: &mut StdRng) -> (Actor, Action) {
    let actor = match rng.random_range(0..3) {
        0 => Actor::Player(Player::X),
        1 => Actor::Player(Player::O),
        _ => Actor::Measurement,
    };
    let squares = [Square::ALL[rng.random_range(0..9)], Square::ALL[rng.random_range(0..9)]];
    let action = if rng.random_bool(0.5) {
        Action::Move { squares }
    } else {
        Action::Collapse { move_number: rng.random_range(0..=10_u8), square: squares[0] }
    };
    (actor, action)
}

#[test]
fn the_engine_accepts_exactly_the_legal_actions_and_a_rejection_changes_nothing() {
    let (mut rejected, mut accepted) = (0, 0);
    for variant in VARIANTS {
        random_games(variant, |_, game, rng| {
            for _ in 0..8 {
                let (actor, action) = random_action(rng);
                let mut tried = *game;
                match tried.play(actor, action) {
                    Err(_) => {
                        assert_eq!(&tried, game, "a rejected {action:?} by {actor:?} changed the game");
                        rejected += 1;
                    }
                    Ok(()) => {
                        assert_eq!(Some(actor), game.actor_to_act());
                        // The same action in canonical form is listed as legal and does the same.
                        let canonical = tried.log().last().expect("an accepted action is logged").action;
                        assert!(game.legal_actions().contains(&canonical), "{action:?} is not listed");
                        let mut listed = *game;
                        listed.play(actor, canonical).expect("a listed action is legal");
                        assert_eq!(listed, tried);
                        accepted += 1;
                    }
                }
            }
        });
    }
    assert!(rejected > 10_000 && accepted > 1_000, "rejected {rejected}, accepted {accepted}");
}

#[test]
fn transcripts_round_trip_at_every_step() {
    for variant in VARIANTS {
        random_games(variant, |_, game, _| {
            let transcript = notation::write(game);
            let log = notation::parse(&transcript, variant).unwrap_or_else(|e| panic!("{transcript}: {e}"));
            assert_eq!(log, game.log(), "{transcript}");
        });
    }
}

#[test]
fn each_squares_probabilities_sum_to_one() {
    for variant in VARIANTS {
        random_games(variant, |_, game, _| {
            for (square, odds) in Square::ALL.into_iter().zip(game.square_probabilities()) {
                let total = odds.x + odds.o + odds.empty;
                assert!((total - 1.0).abs() < 1e-9, "square {square}: {odds:?}");
                assert!([odds.x, odds.o, odds.empty].iter().all(|p| (-1e-12..=1.0 + 1e-12).contains(p)));
                if let Some(mark) = game.classical(square) {
                    let certain = if mark.player() == Player::X { odds.x } else { odds.o };
                    assert_eq!(certain, 1.0, "square {square} holds {mark}");
                }
            }
        });
    }
}

#[test]
fn every_decided_collapse_records_where_its_moves_landed() {
    for variant in VARIANTS {
        for game in random_games(variant, |_, _, _| {}) {
            let collapse_entries = game.log().iter().filter(|e| matches!(e.action, Action::Collapse { .. })).count();
            assert_eq!(game.collapses().len(), collapse_entries);
            for collapse in game.collapses() {
                let square = collapse.square.expect("a finished game has no pending collapse");
                let option = collapse.options.iter().find(|o| o.square == square).expect("the decided option");
                assert!(option.outcome.len() >= collapse.cycle_moves.len());
                for &(number, landed) in &option.outcome {
                    assert_eq!(game.moves()[usize::from(number) - 1].landed, Some(landed));
                }
            }
        }
    }
}
