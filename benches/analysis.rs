//! How long a whole game's analysis takes, over many random finished games.
//!
//! `cargo bench --bench analysis -- [--games N] [--variant player_choice|measurement]`
//!
//! For each variant, it plays N seeded games of random play to their end and
//! analyses each with a fresh solver, as a request does (the opening book first,
//! then the search), and prints p50, p99 and max, and the slowest game.

use std::time::{Duration, Instant};

use qttt::bot::{Analysis, RandomBot, Solver, series};
use qttt::engine::{Variant, notation};
use rand::SeedableRng;
use rand::rngs::StdRng;

mod stats;
use stats::percentile;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |flag: &str| args.iter().position(|a| a == flag).and_then(|i| args.get(i + 1)).cloned();
    let games: u64 = value("--games").map_or(1000, |n| n.parse().expect("--games takes a number"));
    let variants = match value("--variant").as_deref() {
        None => vec![Variant::PlayerChoice, Variant::Measurement],
        Some("player_choice") => vec![Variant::PlayerChoice],
        Some("measurement") => vec![Variant::Measurement],
        Some(other) => panic!("unknown variant {other}"),
    };
    println!("{games} random finished games per variant, each analysed with a fresh solver");
    println!("{:<14} {:>8} {:>8} {:>8} {:>8} {:>10}", "variant", "p50 ms", "p99 ms", "max ms", "mean ms", "actions");
    for variant in variants {
        let mut times = Vec::new();
        let mut actions = 0;
        let mut slowest = (Duration::ZERO, String::new());
        for seed in 0..games {
            let mut rng = StdRng::seed_from_u64(seed);
            let game = series::play_game(&mut RandomBot, &mut RandomBot, variant, &mut rng);
            let started = Instant::now();
            let analysis = Analysis::of(&game, &mut Solver::default());
            let took = started.elapsed();
            actions += analysis.actions.len();
            if took > slowest.0 {
                slowest = (took, notation::write(&game));
            }
            times.push(took);
        }
        let mean = times.iter().sum::<Duration>() / u32::try_from(times.len()).expect("fewer than 2^32 games");
        times.sort_unstable();
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        println!(
            "{:<14} {:>8.2} {:>8.2} {:>8.2} {:>8.2} {:>10.1}",
            variant.code(),
            ms(percentile(&times, 0.5)),
            ms(percentile(&times, 0.99)),
            ms(*times.last().expect("at least one game")),
            ms(mean),
            actions as f64 / times.len() as f64
        );
        println!("  slowest: {}", slowest.1);
    }
}
