//! How long the perfect bot takes to answer, from random positions at each depth.
//!
//! `cargo bench --bench bot -- [--positions N] [--from MOVES] [--variant player_choice|measurement]`
//!
//! For each number of moves already played, it answers N seeded random positions
//! with a fresh solver each, as a request does (the opening book first, then the
//! search), and prints p50, p99 and max.

use std::time::{Duration, Instant};

use qttt::bot::Solver;
use qttt::engine::{Game, Variant};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

mod stats;
use stats::percentile;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |flag: &str| args.iter().position(|a| a == flag).and_then(|i| args.get(i + 1)).cloned();
    let positions: usize = value("--positions").map_or(50, |n| n.parse().expect("--positions takes a number"));
    let from: usize = value("--from").map_or(0, |n| n.parse().expect("--from takes a number"));
    let variant = match value("--variant").as_deref() {
        None | Some("player_choice") => Variant::PlayerChoice,
        Some("measurement") => Variant::Measurement,
        Some(other) => panic!("unknown variant {other}"),
    };
    println!("{} positions per depth, {}", positions, variant.code());
    println!("{:>6} {:>10} {:>10} {:>10} {:>12}", "moves", "p50 ms", "p99 ms", "max ms", "mean nodes");
    for moves in from..=8 {
        let mut times = Vec::new();
        let mut nodes = 0;
        let mut seed = 0;
        while times.len() < positions && seed < positions as u64 * 20 {
            seed += 1;
            let Some(game) = random_position(variant, moves, seed) else { continue };
            let mut solver = Solver::default();
            let started = Instant::now();
            solver.answer(&game);
            times.push(started.elapsed());
            nodes += solver.nodes;
        }
        if times.is_empty() {
            continue;
        }
        times.sort_unstable();
        let at = |share: f64| percentile(&times, share);
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        println!(
            "{moves:>6} {:>10.2} {:>10.2} {:>10.2} {:>12}",
            ms(at(0.5)),
            ms(at(0.99)),
            ms(*times.last().unwrap()),
            nodes / times.len() as u64
        );
    }
}

/// A seeded position after `moves` moves placed at random, with any collapse
/// they close decided at random, and someone still to act.
fn random_position(variant: Variant, moves: usize, seed: u64) -> Option<Game> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut game = Game::new(variant);
    while game.moves().len() < moves || game.pending_collapse().is_some() {
        let actor = game.actor_to_act()?;
        let actions = game.legal_actions();
        game.play_measured(actor, actions[rng.random_range(0..actions.len())], &mut rng).ok()?;
    }
    game.actor_to_act().map(|_| game)
}
