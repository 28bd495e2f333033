//! An arena's pairing, as lichess's arenas pair: the free players, ranked, are
//! matched so that the sum of what each pair costs is least: the distance
//! between their ranks, then between their ratings, and a price on meeting a
//! recent opponent again; the opponent of a player's last game is never
//! met again at once, unless nobody else is there, and two of the server's
//! bots never meet. Pure: the matching itself
//! is Edmonds' blossom algorithm, `integer_blossom`'s.

use crate::engine::Player;
use crate::record::PlayerId;

/// How many free players are matched together, neighbours by rank: the
/// blossom algorithm takes the cube of the players it matches, which a group
/// keeps small; a player left over goes on to the next group.
pub const GROUP: usize = 40;

/// How many of a player's last opponents cost more to meet again.
pub const RECENT: usize = 3;

/// What a rank of distance costs, beside a point of rating.
const RANK_COST: i64 = 100;

/// What meeting one of the [`RECENT`] opponents again costs.
const REPEAT_COST: i64 = 100_000;

/// Beyond what any matching's costs add up to: a matching that pairs more
/// players weighs more, whatever they cost.
const PAIRED: i64 = 1 << 40;

/// A free player, as the pairing sees them.
#[derive(Debug, Clone, PartialEq)]
pub struct Free {
    /// The player.
    pub player: PlayerId,
    /// Whether they are one of the server's bots, which never meet each other.
    pub server_bot: bool,
    /// Their rank in the standings, from 1.
    pub rank: usize,
    /// Their rating in the arena's variant.
    pub rating: f64,
    /// How many more of their arena games they played as X than as O.
    pub x_lead: i64,
    /// Their last opponents, the latest first, at most [`RECENT`].
    pub recent: Vec<PlayerId>,
}

/// The pairs among `free` (ranked, the first first), X's player first; with
/// `alone` (nobody else in the arena could be paired), two who just met may
/// meet again.
pub fn pair(free: &[Free], alone: bool) -> Vec<(PlayerId, PlayerId)> {
    let mut pairs = Vec::new();
    let mut group: Vec<&Free> = Vec::new();
    let mut rest = free.iter();
    loop {
        group.extend(rest.by_ref().take(GROUP - group.len()));
        let mut left = Vec::new();
        for (i, mate) in matched(&group, alone).into_iter().enumerate() {
            match mate {
                Some(j) if i < j => pairs.push(colours(group[i], group[j])),
                Some(_) => {}
                None => left.push(group[i]),
            }
        }
        if rest.len() == 0 {
            return pairs;
        }
        // Those left over go on with the next group, leaving it room to grow.
        left.truncate(GROUP / 2);
        group = left;
    }
}

/// The mate of each of `group`, if it has one, by the least costly matching.
fn matched(group: &[&Free], alone: bool) -> Vec<Option<usize>> {
    let n = group.len();
    let mut weight = vec![0_i64; n * n];
    for i in 0..n {
        for j in i + 1..n {
            if let Some(cost) = cost(group[i], group[j], alone) {
                weight[i * n + j] = PAIRED - cost;
            }
        }
    }
    integer_blossom::max_weight_matching(&weight, n)
}

/// What pairing `a` with `b` costs, `None` when they may not meet: both are
/// the server's bots, or each was the other's last opponent (and not `alone`).
fn cost(a: &Free, b: &Free, alone: bool) -> Option<i64> {
    if a.server_bot && b.server_bot {
        return None;
    }
    let just_met = a.recent.first() == Some(&b.player) || b.recent.first() == Some(&a.player);
    if just_met && !alone {
        return None;
    }
    let ranks = i64::try_from(a.rank.abs_diff(b.rank)).unwrap_or(i64::MAX / 4);
    // A rating is within a few thousand points: the cast is exact.
    #[allow(clippy::cast_possible_truncation)]
    let ratings = (a.rating - b.rating).abs().round() as i64;
    let repeats = a.recent.iter().filter(|&&opponent| opponent == b.player).count()
        + b.recent.iter().filter(|&&opponent| opponent == a.player).count();
    Some(ranks.saturating_mul(RANK_COST) + ratings + REPEAT_COST * i64::try_from(repeats).unwrap_or(0))
}

/// `a` and `b` in the order of their seats: X goes to whoever played X less
/// often, or to the better ranked.
fn colours(a: &Free, b: &Free) -> (PlayerId, PlayerId) {
    let a_plays = if (a.x_lead, a.rank) <= (b.x_lead, b.rank) { Player::X } else { Player::O };
    match a_plays {
        Player::X => (a.player, b.player),
        Player::O => (b.player, a.player),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Players ranked 1 to `n`, rated 1500, each with the last opponents `recent` gives.
    fn ranked(n: i64, recent: impl Fn(i64) -> Vec<i64>) -> Vec<Free> {
        (1..=n)
            .map(|id| Free {
                player: PlayerId::new(id),
                server_bot: false,
                rank: usize::try_from(id).unwrap(),
                rating: 1500.0,
                x_lead: 0,
                recent: recent(id).into_iter().map(PlayerId::new).collect(),
            })
            .collect()
    }

    fn ids(pairs: &[(PlayerId, PlayerId)]) -> Vec<(i64, i64)> {
        let mut ids: Vec<_> = pairs.iter().map(|(x, o)| (x.get(), o.get())).collect();
        ids.sort_unstable();
        ids
    }

    #[test]
    fn neighbours_by_rank_are_paired_the_better_ranked_as_x() {
        assert_eq!(ids(&pair(&ranked(6, |_| vec![]), false)), [(1, 2), (3, 4), (5, 6)]);
    }

    #[test]
    fn the_opponent_of_a_players_last_game_is_not_met_again_at_once() {
        let last = |id: i64| vec![if id % 2 == 1 { id + 1 } else { id - 1 }];
        let pairs = ids(&pair(&ranked(6, last), false));
        assert_eq!(pairs.len(), 3);
        assert!(pairs.iter().all(|&(x, o)| last(x)[0] != o), "{pairs:?}");
        // Two who just met, with nobody else to meet, wait; alone in the arena, they meet again.
        let two = ranked(2, |id| vec![3 - id]);
        assert_eq!(ids(&pair(&two, false)), []);
        assert_eq!(ids(&pair(&two, true)), [(1, 2)]);
    }

    #[test]
    fn two_of_the_servers_bots_never_meet() {
        let mut players = ranked(4, |_| vec![]);
        players[0].server_bot = true;
        players[1].server_bot = true;
        let pairs = ids(&pair(&players, false));
        assert_eq!(pairs.len(), 2);
        assert!(!pairs.contains(&(1, 2)), "{pairs:?}");
        assert_eq!(ids(&pair(&players[..2], true)), []);
    }

    #[test]
    fn x_goes_to_whoever_played_x_less_often() {
        let mut players = ranked(2, |_| vec![]);
        players[0].x_lead = 1;
        assert_eq!(ids(&pair(&players, false)), [(2, 1)]);
    }

    #[test]
    fn a_thousand_free_players_are_all_paired_and_nobody_meets_a_recent_opponent() {
        // Each met the player ranked next to them last, and the one after before.
        let recent = |id: i64| {
            let partner = if id % 2 == 1 { id + 1 } else { id - 1 };
            vec![partner, if id > 2 { id - 2 } else { id + 2 }]
        };
        let players = ranked(1000, recent);
        let pairs = pair(&players, false);
        assert_eq!(pairs.len(), 500);
        let mut seen: Vec<i64> = pairs.iter().flat_map(|(x, o)| [x.get(), o.get()]).collect();
        seen.sort_unstable();
        assert_eq!(seen, (1..=1000).collect::<Vec<_>>(), "everyone once");
        assert!(pairs.iter().all(|(x, o)| !recent(x.get()).contains(&o.get()) && !recent(o.get()).contains(&x.get())));
    }
}
