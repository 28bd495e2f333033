//! Benchmarks of the rules engine: replay, collapse, legal actions, measurement.

use std::hint::black_box;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use qttt::bot::Solver;
use qttt::engine::{Actor, Game, Player, Variant, notation};
use rand::SeedableRng;
use rand::rngs::StdRng;

/// Nine moves and three collapses; the last collapse gives X a line and a half.
const WHOLE_GAME: &str = "X1+(4,5); O2+(4,5); X3!O2(5); X3+(1,7); O4+(6,8); X5+(1,2); O6+(8,9); \
                          X7+(2,3); O8+(6,9); X9!O8(9); X9+(3,7); O10!X9(3)";

/// Eight moves along a path through all nine squares, then the move that closes it.
const PATH_GAME: &str = "X1+(1,2); O2+(2,3); X3+(3,4); O4+(4,5); X5+(5,6); O6+(6,7); X7+(7,8); O8+(8,9); X9+(1,9)";

fn engine(c: &mut Criterion) {
    let log = notation::parse(WHOLE_GAME, Variant::PlayerChoice).expect("the benchmark game parses");
    let finished = Game::replay(Variant::PlayerChoice, &log).expect("the benchmark game is legal");
    assert_eq!(finished.score().x.halves, 3, "the benchmark game is the one described");

    c.bench_function("replay a whole game (9 moves, 3 collapses)", |b| {
        b.iter(|| Game::replay(Variant::PlayerChoice, black_box(&log)))
    });

    let (last, before_last) = log.split_last().expect("the game has entries");
    let pending = Game::replay(Variant::PlayerChoice, before_last).expect("a prefix replays");
    c.bench_function("apply one collapse (4-cycle with a stem)", |b| {
        b.iter_batched_ref(|| pending, |game| game.play(last.actor, black_box(last.action)), BatchSize::SmallInput)
    });

    let opening = Game::new(Variant::PlayerChoice);
    c.bench_function("legal actions of the opening (36 moves)", |b| b.iter(|| black_box(&opening).legal_actions()));
    let mid_game = Game::replay(Variant::PlayerChoice, &log[..5]).expect("a prefix replays");
    c.bench_function("legal actions after 4 moves and a collapse", |b| b.iter(|| black_box(&mid_game).legal_actions()));

    let measured_log = notation::parse(WHOLE_GAME, Variant::Measurement).expect("the benchmark game parses");
    let before_closing = Game::replay(Variant::Measurement, &measured_log[..10]).expect("a prefix replays");
    let closing = measured_log[10].action;
    let mut rng = StdRng::seed_from_u64(0);
    c.bench_function("close and measure a cycle (measurement variant)", |b| {
        b.iter_batched_ref(
            || before_closing,
            |game| game.play_measured(Actor::Player(Player::X), black_box(closing), &mut rng),
            BatchSize::SmallInput,
        )
    });

    // The load test's game: a path of eight moves through all nine squares, which
    // move 9 closes into the largest cycle there is.
    let path = notation::parse(PATH_GAME, Variant::Measurement).expect("the path game parses");
    let before_largest = Game::replay(Variant::Measurement, &path[..8]).expect("a prefix replays");
    c.bench_function("close and measure the 9-move cycle (measurement variant)", |b| {
        b.iter_batched_ref(
            || before_largest,
            |game| game.play_measured(Actor::Player(Player::X), black_box(path[8].action), &mut rng),
            BatchSize::SmallInput,
        )
    });

    let entangled = Game::replay(Variant::PlayerChoice, &log[..8]).expect("a prefix replays");
    c.bench_function("square probabilities with 4 spooky moves", |b| {
        b.iter(|| black_box(&entangled).square_probabilities())
    });
    c.bench_function("square probabilities with 8 spooky moves", |b| {
        b.iter(|| black_box(&before_largest).square_probabilities())
    });
}

fn perfect_bot(c: &mut Criterion) {
    let position = |text: &str| {
        Game::replay(Variant::PlayerChoice, &notation::parse(text, Variant::PlayerChoice).unwrap()).unwrap()
    };
    let opening = Game::new(Variant::PlayerChoice);
    c.bench_function("perfect answer from the opening (book)", |b| {
        b.iter(|| Solver::default().answer(black_box(&opening)))
    });
    let mut group = c.benchmark_group("perfect answer by search");
    group.sample_size(20);
    for (name, text) in [
        ("after 4 moves", "X1+(1,2); O2+(3,4); X3+(5,6); O4+(7,8)"),
        ("after 6 moves", "X1+(1,2); O2+(3,4); X3+(5,6); O4+(7,8); X5+(1,9); O6+(2,5)"),
    ] {
        let game = position(text);
        group.bench_function(name, |b| b.iter(|| Solver::default().answer(black_box(&game))));
    }
    group.finish();
}

criterion_group!(benches, engine, perfect_bot);
criterion_main!(benches);
