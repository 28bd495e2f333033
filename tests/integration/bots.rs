//! The bots: legal play from both seats in both variants, and the perfect player's
//! values against a plain minimax.

use qttt::bot::{Bot, Solver, Stop, series};
use qttt::engine::{Action, Actor, Game, GameResult, Player, Rules, Scoring, Variant, notation};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

const VARIANTS: [Variant; 2] = [Variant::PlayerChoice, Variant::Measurement];

/// Plays `games` seeded games with `bot` in `seat` and random play in the other;
/// every action of the bot must be legal.
fn bot_plays_legally(bot: Bot, seat: Player, variant: Variant, games: u64) {
    let mut strategy = bot.strategy();
    let mut opponent = Bot::Random.strategy();
    for seed in 0..games {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut game = Game::new(variant);
        while let Some(Actor::Player(player)) = game.actor_to_act() {
            let playing = if player == seat { &mut strategy } else { &mut opponent };
            let action = playing.choose(&game, &mut rng);
            if player == seat {
                assert!(
                    game.legal_actions().contains(&action),
                    "{} as {seat} in {}: {action:?} is not legal in {}",
                    bot.code(),
                    variant.code(),
                    notation::write(&game)
                );
            }
            game.play_measured(Actor::Player(player), action, &mut rng).expect("a legal action is played");
        }
    }
}

#[test]
fn the_parasite_bot_plays_only_legal_actions_from_both_seats() {
    for variant in VARIANTS {
        for seat in [Player::X, Player::O] {
            bot_plays_legally(Bot::Parasite { mistake_chance: 0.1 }, seat, variant, 1000);
        }
    }
}

#[test]
fn the_perfect_bot_plays_only_legal_actions_from_both_seats() {
    for variant in VARIANTS {
        for seat in [Player::X, Player::O] {
            bot_plays_legally(Bot::Perfect, seat, variant, 500);
        }
    }
}

#[test]
fn the_random_bot_picks_every_legal_action_alike() {
    // The opening's 36 moves, and the two options of a pending collapse.
    let pending = position("X1+(1,2); O2+(1,2)");
    for (game, answers) in [(Game::new(Variant::PlayerChoice), 36_000), (pending, 2_000)] {
        let mut random = Bot::Random.strategy();
        let mut counts = std::collections::HashMap::new();
        for seed in 0..answers {
            *counts.entry(random.choose(&game, &mut StdRng::seed_from_u64(seed))).or_insert(0_u64) += 1;
        }
        let legal = game.legal_actions();
        assert_eq!(counts.len(), legal.len(), "{counts:?}");
        let chance = 1.0 / legal.len() as f64;
        let (mean, spread) = (chance * answers as f64, 5.0 * (answers as f64 * chance * (1.0 - chance)).sqrt());
        for action in legal {
            let seen = counts[&action] as f64;
            assert!((seen - mean).abs() <= spread, "{action:?}: {seen} times, expected about {mean}");
        }
    }
}

/// The value of `game` by plain minimax (expectation over measurements): no
/// pruning, no table, no symmetry, to check the solver against.
pub(super) fn plain_value(game: &Game) -> f64 {
    let Some(actor) = game.actor_to_act() else {
        return game.score().x.as_f64() - game.score().o.as_f64();
    };
    let values = game.legal_actions().into_iter().map(|action| {
        let mut next = *game;
        next.play(actor, action).unwrap();
        plain_value(&next)
    });
    match actor {
        Actor::Measurement => values.sum::<f64>() / 2.0,
        Actor::Player(Player::X) => values.fold(f64::NEG_INFINITY, f64::max),
        Actor::Player(Player::O) => values.fold(f64::INFINITY, f64::min),
    }
}

/// A seeded position after `moves` random actions that is not over yet.
fn random_position(variant: Variant, moves: usize, seed: u64) -> Option<Game> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut game = Game::new(variant);
    for _ in 0..moves {
        let actor = game.actor_to_act()?;
        let actions = game.legal_actions();
        game.play_measured(actor, actions[rng.random_range(0..actions.len())], &mut rng).unwrap();
    }
    game.actor_to_act().map(|_| game)
}

#[test]
fn the_solver_agrees_with_plain_minimax_on_late_positions() {
    let mut checked = 0;
    for variant in VARIANTS {
        for seed in 0..40 {
            let Some(game) = random_position(variant, 7, seed) else { continue };
            let solution = Solver::default().solve(&game);
            let plain = plain_value(&game);
            assert_eq!(solution.value.points, plain, "{}: {}", variant.code(), notation::write(&game));
            // The chosen action is worth the position's value.
            let mut after = game;
            after.play(game.actor_to_act().unwrap(), solution.action).unwrap();
            if game.actor_to_act() != Some(Actor::Measurement) {
                assert_eq!(plain_value(&after), plain, "{}", notation::write(&game));
            }
            checked += 1;
        }
    }
    assert!(checked > 40, "only {checked} positions were still open");
}

fn position(transcript: &str) -> Game {
    Game::replay(Variant::PlayerChoice, &notation::parse(transcript, Variant::PlayerChoice).unwrap()).unwrap()
}

#[test]
fn the_perfect_bot_finds_the_collapse_that_wins_for_the_chooser() {
    // Goff's example: O puts X7 in the corner and wins by half a point.
    let game = position("X1+(1,5); O2+(3,9); X3+(1,4); O4+(3,6); X5+(4,7); O6+(5,9); X7+(1,5)");
    let solution = Solver::default().solve(&game);
    assert_eq!(
        solution.action,
        Action::Collapse { move_number: 7, square: qttt::engine::Square::try_from(0).unwrap() }
    );
    assert_eq!(solution.value.points, -0.5);
}

#[test]
fn the_perfect_bot_finds_the_move_worth_a_point_and_a_half_whatever_the_collapse() {
    // Goff's puzzle: X's move 9 that scores 1 1/2 however O collapses it.
    let game =
        position("X1+(4,5); O2+(4,5); X3!O2(5); X3+(1,7); O4+(6,8); X5+(1,2); O6+(8,9); X7+(2,3); O8+(6,9); X9!O8(9)");
    let solution = Solver::default().solve(&game);
    assert_eq!(solution.value.points, 1.5);
    let mut after = game;
    after.play(Actor::Player(Player::X), solution.action).unwrap();
    let outcomes: Vec<f64> = after
        .legal_actions()
        .into_iter()
        .map(|option| {
            let mut collapsed = after;
            collapsed.play(Actor::Player(Player::O), option).unwrap();
            collapsed.score().x.as_f64() - collapsed.score().o.as_f64()
        })
        .collect();
    assert_eq!(outcomes.iter().copied().fold(f64::INFINITY, f64::min), 1.5, "{outcomes:?}");
}

/// How many moves `game` lasts with perfect play from both sides.
fn moves_with_perfect_play(mut game: Game) -> usize {
    while let Some(actor) = game.actor_to_act() {
        game.play(actor, Solver::default().answer(&game).action).unwrap();
    }
    game.moves().len()
}

#[test]
fn the_perfect_bot_prefers_the_quickest_win() {
    // X to make move 7 of six spooky moves: seven moves win a point for X, some
    // of them sooner than others.
    let game = position("X1+(1,6); O2+(3,7); X3+(2,3); O4+(3,8); X5+(6,8); O6+(4,6)");
    let solution = Solver::default().solve(&game);
    assert!(solution.value.points > 0.0, "X wins: {solution:?}");
    // Every move worth as much, and how long the game lasts after it.
    let as_good: Vec<(Action, usize)> = game
        .legal_actions()
        .into_iter()
        .filter_map(|action| {
            let mut after = game;
            after.play(Actor::Player(Player::X), action).unwrap();
            let value = Solver::default().solve(&after).value;
            (value.points == solution.value.points).then(|| (action, moves_with_perfect_play(after)))
        })
        .collect();
    let quickest = as_good.iter().map(|&(_, moves)| moves).min().unwrap();
    let slowest = as_good.iter().map(|&(_, moves)| moves).max().unwrap();
    assert!(quickest < slowest, "some wins take longer than others: {as_good:?}");
    let mut after = game;
    after.play(Actor::Player(Player::X), solution.action).unwrap();
    assert_eq!(moves_with_perfect_play(after), quickest, "{:?} is among the quickest: {as_good:?}", solution.action);
}

#[test]
fn a_series_tallies_every_game() {
    let mut rng = StdRng::seed_from_u64(5);
    let tally = series::play(Bot::Parasite { mistake_chance: 0.0 }, Bot::Random, Variant::PlayerChoice, 200, &mut rng);
    assert_eq!(tally.games, 200);
    assert_eq!(tally.x_wins + tally.draws + tally.o_wins, 200);
    assert!(tally.x_wins > tally.o_wins, "{tally:?}");
    assert!((-1.0..=2.0).contains(&tally.worst_for_x) && (-1.0..=2.0).contains(&tally.best_for_x));
}

/// Every variant with every scoring.
fn all_rules() -> impl Iterator<Item = Rules> {
    VARIANTS.into_iter().flat_map(|variant| Scoring::ALL.map(|scoring| Rules { variant, scoring }))
}

#[test]
fn the_opening_books_are_whole_and_well_formed() {
    use qttt::bot::book;
    assert_eq!(book::check(Variant::PlayerChoice.into()), Ok(6629));
    for rules in all_rules() {
        let entries = book::check(rules).unwrap_or_else(|error| panic!("{error}"));
        assert!(entries > 1000, "{rules:?}: {entries} entries");
    }
    // The empty board's value under each rule: the published ones in player
    // choice (Goff's X by 1/2, complete win a draw, narrow win X), and the
    // expectations of qttt solve in measurement (docs/RULES.md).
    let expected = [0.5, 0.0, 1.0, 0.5, 0.25, 0.5];
    for (rules, value) in all_rules().zip(expected) {
        let opening = book::lookup(&Game::new(rules)).expect("the opening is in every book");
        assert_eq!(opening.value.points, value, "{rules:?}");
    }
}

#[test]
fn the_book_agrees_with_the_search_where_the_search_is_quick() {
    use qttt::bot::{book, bookmaker};
    for rules in all_rules() {
        // A few of the deepest book positions, spread over the book.
        for game in bookmaker::deepest_positions(rules).step_by(997).take(4) {
            let from_book = book::lookup(&game).expect("a book position");
            let searched = Solver::default().solve(&game);
            assert_eq!(from_book.value, searched.value, "{rules:?}: {}", notation::write(&game));
            // The book's action reaches that value too.
            let actor = game.actor_to_act().unwrap();
            let mut after = game;
            after.play(actor, from_book.action).unwrap();
            let reached = Solver::default().solve(&after).value;
            assert_eq!(reached, from_book.value, "{}", notation::write(&game));
        }
    }
}

#[test]
fn the_perfect_bot_never_ends_worse_than_the_games_value() {
    let mut rng = StdRng::seed_from_u64(11);
    for opponent in [Bot::Random, Bot::Parasite { mistake_chance: 0.1 }] {
        let as_x = series::play(Bot::Perfect, opponent, Variant::PlayerChoice, 8, &mut rng);
        assert!(as_x.worst_for_x >= 0.5, "as X against {}: {as_x:?}", opponent.code());
        let as_o = series::play(opponent, Bot::Perfect, Variant::PlayerChoice, 8, &mut rng);
        assert!(as_o.best_for_x <= 0.5, "as O against {}: {as_o:?}", opponent.code());
    }
}

#[test]
fn the_perfect_player_against_itself_ends_as_each_scoring_is_proved_to() {
    // Goff's: X by 1/2 (Kumar, Ang and Chai); complete win: a draw; narrow win: X,
    // with all nine marks (Ishizeki and Matsuura).
    for (scoring, result, difference) in [
        (Scoring::Goff, GameResult::XWins, 0.5),
        (Scoring::CompleteWin, GameResult::Draw, 0.0),
        (Scoring::NarrowWin, GameResult::XWins, 1.0),
    ] {
        let mut game = Game::new(Rules { variant: Variant::PlayerChoice, scoring });
        let mut perfect = Bot::Perfect.strategy();
        let mut rng = StdRng::seed_from_u64(3);
        while let Some(actor) = game.actor_to_act() {
            let action = perfect.choose(&game, &mut rng);
            game.play(actor, action).unwrap();
        }
        let score = game.score();
        assert_eq!((game.result(), score.x.as_f64() - score.o.as_f64()), (result, difference), "{scoring:?}");
        if scoring == Scoring::NarrowWin {
            assert_eq!(game.moves().len(), 9, "{}", notation::write(&game));
        }
    }
}

#[test]
fn a_stopped_search_gives_up_within_a_look_at_the_stop() {
    // The opening, searched without the book, takes minutes. Stopped before it
    // starts, the search sees the stop at its first look (every 1,024
    // positions) and unwinds: each position still on its path returns at once.
    let stop = Stop::default();
    stop.set();
    let mut solver = Solver::stopped_by(stop);
    solver.solve(&Game::new(Variant::Measurement));
    assert!((1024..2048).contains(&solver.nodes), "it searched {} positions", solver.nodes);
}
