//! Percentiles of measured times, shared by the benchmarks that report them.

use std::time::Duration;

/// The time below which `share` (0-1) of the `sorted` times lie: the nearest-rank
/// percentile.
pub fn percentile(sorted: &[Duration], share: f64) -> Duration {
    #[expect(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "a share of a length: a whole number from 0 to the length"
    )]
    let rank = (sorted.len() as f64 * share).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}
