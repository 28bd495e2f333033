//! How long an arena's pairing takes for many free players: the pure
//! decision alone, no database.
//!
//! `cargo bench --bench arena -- [--players N] [--rounds R]`
//!
//! N free players (1,000 by default), ranked, each with the two players ranked
//! beside them as their recent opponents, are paired R times (20 by default);
//! it prints p50, p99 and max, and checks that everyone was paired with
//! nobody they met lately.

use std::time::{Duration, Instant};

use qttt::record::PlayerId;
use qttt::service::{Free, pair};

mod stats;
use stats::percentile;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |flag: &str| args.iter().position(|a| a == flag).and_then(|i| args.get(i + 1)).cloned();
    let players: i64 = value("--players").map_or(1000, |n| n.parse().expect("--players takes a number"));
    let rounds: usize = value("--rounds").map_or(20, |n| n.parse().expect("--rounds takes a number"));
    let recent = |id: i64| {
        let partner = if id % 2 == 1 { id + 1 } else { id - 1 };
        vec![PlayerId::new(partner), PlayerId::new(if id > 2 { id - 2 } else { id + 2 })]
    };
    let free: Vec<Free> = (1..=players)
        .map(|id| Free {
            player: PlayerId::new(id),
            server_bot: false,
            rank: usize::try_from(id).expect("a rank"),
            rating: 1500.0 + (id % 400) as f64,
            x_lead: id % 3 - 1,
            recent: recent(id),
        })
        .collect();
    let mut times: Vec<Duration> = Vec::new();
    let mut pairs = Vec::new();
    for _ in 0..rounds {
        let started = Instant::now();
        pairs = pair(&free, false);
        times.push(started.elapsed());
    }
    let met_lately = pairs.iter().filter(|(x, o)| recent(x.get()).contains(o) || recent(o.get()).contains(x)).count();
    times.sort();
    println!(
        "{players} free players: {} pairs, {met_lately} of them met lately; p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms ({rounds} rounds)",
        pairs.len(),
        ms(percentile(&times, 0.5)),
        ms(percentile(&times, 0.99)),
        ms(*times.last().expect("a round")),
    );
}

fn ms(time: Duration) -> f64 {
    time.as_secs_f64() * 1000.0
}
