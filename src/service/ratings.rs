//! The ratings a client reads (a player's history in a variant, and the
//! leaderboards), and the ratings derived again from the rated games, to
//! check or rebuild what is stored (`qttt ratings`).
//!
//! A player's ratings are a fold of their rated games, as a game's state is of
//! its log. Each game is rated in the order its players' changes are numbered
//! (the order the games' ends were written, which is the order they ended but
//! for a timeout written late), and the games no change names yet after them,
//! in the order they ended. The same arithmetic on the same stored numbers
//! gives the same ratings to the bit, so a check expects no difference at all.

use std::collections::{BTreeMap, HashMap, VecDeque};

use jiff::SignedDuration;

use super::GameService;
use crate::engine::{Player, Variant};
use crate::error::Error;
use crate::rating::{Rating, Standing, rate_game};
use crate::record::{
    NumberedChange, PlayerId, PlayerStanding, RatedGame, RatingChange, RatingsAsStored, StoredPlayer, Username,
};
use crate::store::Store;

/// The most players a leaderboard lists.
pub const LEADERBOARD_SIZE: usize = 100;

/// The players a leaderboard's query reads to find [`LEADERBOARD_SIZE`] whose
/// ratings are not provisional now: some of those that were not when stored
/// have been idle long enough to become so.
const LEADERS_READ: u32 = 1000;

impl GameService {
    /// What the last `most` rated games of the player named `name` in
    /// `variant` numbered below `before` (all when none) did to their rating,
    /// each with its number, the latest first.
    ///
    /// # Errors
    /// [`Error::NotFound`]; database failures.
    pub async fn rating_history(
        &self,
        name: &Username,
        variant: Variant,
        before: Option<i64>,
        most: u32,
    ) -> Result<Vec<(i64, RatingChange)>, Error> {
        let player = self.named(name).await?;
        Ok(self.store.rating_history(player.id, variant, before.unwrap_or(i64::MAX), most).await?)
    }

    /// The [`LEADERBOARD_SIZE`] best players in `variant` whose ratings are
    /// not provisional as they stand now, best first, bots among them; each
    /// with their rating now and how many rated games it counts.
    ///
    /// # Errors
    /// Database failures.
    pub async fn leaderboard(&self, variant: Variant) -> Result<Vec<(StoredPlayer, Rating, i64)>, Error> {
        let (now, period) = (self.now(), self.store.rating_period());
        let leaders = self.store.leaders(variant, LEADERS_READ).await?;
        Ok(leaders
            .into_iter()
            .map(|(player, standing): (StoredPlayer, Standing)| (player, standing.at(now, period), standing.games))
            .filter(|(_, rating, _)| !rating.is_provisional())
            .take(LEADERBOARD_SIZE)
            .collect())
    }
}

/// What a check or a rebuild of the ratings found.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RatingsChecked {
    /// The rated games with a result.
    pub games: usize,
    /// The changes they make, two each.
    pub changes: usize,
    /// Every way in which the stored ratings differ from those derived from
    /// the games, one line each: none, when all is well.
    pub differences: Vec<String>,
}

/// Derives every rating from the rated games of `stored` again, and compares
/// them with those stored.
///
/// # Errors
/// Database failures.
pub async fn check_ratings(store: &Store) -> Result<RatingsChecked, Error> {
    let stored = store.ratings_as_stored().await?;
    Ok(checked(&stored, &replay(&stored, store.rating_period())))
}

/// Rewrites every rating as derived from the rated games; answers how the
/// ratings stored before differed.
///
/// # Errors
/// Database failures.
pub async fn rebuild_ratings(store: &Store) -> Result<RatingsChecked, Error> {
    let period = store.rating_period();
    let stored = store.rebuild_ratings(replay).await?;
    Ok(checked(&stored, &replay(&stored, period)))
}

/// Each player's rated games in a variant, by their indices, in the order
/// they are to be rated.
type Queues = HashMap<(PlayerId, Variant), VecDeque<usize>>;

/// The ratings derived from `stored`'s rated games, with rating periods of
/// length `period`: every change, and every player's rating after the last.
fn replay(stored: &RatingsAsStored, period: SignedDuration) -> (Vec<NumberedChange>, Vec<PlayerStanding>) {
    let games: Vec<(&RatedGame, [PlayerId; 2])> =
        stored.games.iter().filter_map(|game| Some((game, [game.players[0]?, game.players[1]?]))).collect();
    let mut queues = Queues::new();
    for (index, (game, players)) in games.iter().enumerate() {
        for player in players {
            queues.entry((*player, game.variant)).or_default().push_back(index);
        }
    }
    for ((player, _), queue) in &mut queues {
        // A game no change names goes after those that one does.
        queue.make_contiguous().sort_by_key(|&index| {
            let (game, players) = &games[index];
            let number = game.numbers[usize::from(players[0] != *player)];
            (number.is_none(), number, game.ended_at, game.id)
        });
    }
    let first_in_both = |queues: &Queues, index: usize| {
        let (game, players) = &games[index];
        players.iter().all(|player| queues[&(*player, game.variant)].front() == Some(&index))
    };
    let mut standings: BTreeMap<(PlayerId, Variant), Standing> = BTreeMap::new();
    let mut changes = Vec::new();
    let mut done = vec![false; games.len()];
    let mut ready: Vec<usize> = (0..games.len()).filter(|&index| first_in_both(&queues, index)).collect();
    for _ in 0..games.len() {
        // Numbers that contradict each other leave no game ready: the
        // earliest left goes next.
        let earliest = || (0..games.len()).filter(|&index| !done[index]).min_by_key(|&index| games[index].0.ended_at);
        let Some(index) = ready.pop().or_else(earliest) else { break };
        done[index] = true;
        let (game, [x, o]) = games[index];
        let before = [x, o].map(|player| standings.get(&(player, game.variant)).copied().unwrap_or(Standing::NEW));
        if let Some((x_after, o_after)) =
            rate_game(&before[0], &before[1], game.result, game.ended_at, period, game.server_bots)
        {
            for (seat, player, before, after) in
                [(Player::X, x, before[0], x_after), (Player::O, o, before[1], o_after)]
            {
                let change = RatingChange {
                    game_id: game.id,
                    before: before.rating,
                    after: after.rating,
                    rated_at: game.ended_at,
                };
                changes.push(NumberedChange { player, variant: game.variant, number: after.games, seat, change });
                standings.insert((player, game.variant), after);
            }
        }
        for player in [x, o] {
            let queue = queues.get_mut(&(player, game.variant)).expect("each of a game's players has a queue");
            queue.retain(|&other| other != index);
            if let Some(&next) = queue.front()
                && !done[next]
                && !ready.contains(&next)
                && first_in_both(&queues, next)
            {
                ready.push(next);
            }
        }
    }
    changes.sort_by_key(|change| (change.player, change.variant, change.number));
    let ratings = standings
        .into_iter()
        .map(|((player, variant), standing)| PlayerStanding { player, variant, standing })
        .collect();
    (changes, ratings)
}

/// How the ratings `stored` differ from those `derived` from its games.
fn checked(stored: &RatingsAsStored, derived: &(Vec<NumberedChange>, Vec<PlayerStanding>)) -> RatingsChecked {
    let (changes, ratings) = derived;
    let mut differences: Vec<String> = stored
        .games
        .iter()
        .filter(|game| game.players.contains(&None))
        .map(|game| format!("game {} is rated, but a seat of it has no player", game.id))
        .collect();
    let key = |change: &NumberedChange| (change.player, change.variant, change.number);
    let stored_changes: BTreeMap<_, _> = stored.changes.iter().map(|change| (key(change), change)).collect();
    let derived_changes: BTreeMap<_, _> = changes.iter().map(|change| (key(change), change)).collect();
    for (&(player, variant, number), derived) in &derived_changes {
        match stored_changes.get(&(player, variant, number)) {
            None => differences.push(format!(
                "player {player}'s change {number} in {} (game {}) is not stored",
                variant.code(),
                derived.change.game_id
            )),
            Some(stored) if stored != derived => differences.push(format!(
                "player {player}'s change {number} in {}: stored {stored:?}, derived {derived:?}",
                variant.code()
            )),
            Some(_) => {}
        }
    }
    for (&(player, variant, number), stored) in &stored_changes {
        if !derived_changes.contains_key(&(player, variant, number)) {
            differences.push(format!(
                "player {player}'s change {number} in {} (game {}) is stored, but no rated game makes it",
                variant.code(),
                stored.change.game_id
            ));
        }
    }
    let rating_key = |rating: &PlayerStanding| (rating.player, rating.variant);
    let stored_ratings: BTreeMap<_, _> = stored.ratings.iter().map(|rating| (rating_key(rating), rating)).collect();
    let derived_ratings: BTreeMap<_, _> = ratings.iter().map(|rating| (rating_key(rating), rating)).collect();
    for key in stored_ratings.keys().chain(derived_ratings.keys()).collect::<std::collections::BTreeSet<_>>() {
        let (stored, derived) = (stored_ratings.get(key), derived_ratings.get(key));
        if stored != derived {
            let (player, variant) = key;
            differences.push(format!(
                "player {player}'s rating in {}: stored {:?}, derived {:?}",
                variant.code(),
                stored.map(|rating| rating.standing),
                derived.map(|rating| rating.standing)
            ));
        }
    }
    RatingsChecked { games: stored.games.len(), changes: changes.len(), differences }
}

#[cfg(test)]
mod tests {
    use jiff::Timestamp;

    use super::*;
    use crate::engine::GameResult;
    use crate::record::GameId;

    fn game(id: i64, players: [i64; 2], result: GameResult, ended_at: i64, numbers: [Option<i64>; 2]) -> RatedGame {
        RatedGame {
            id: GameId::new(id),
            variant: Variant::PlayerChoice,
            players: players.map(|player| Some(PlayerId::new(player))),
            result,
            ended_at: Timestamp::from_second(ended_at).unwrap(),
            numbers,
            server_bots: [false, false],
        }
    }

    #[test]
    fn games_are_replayed_in_the_order_their_changes_are_numbered_and_unnumbered_ones_after_in_order_of_ending() {
        let week = SignedDuration::from_hours(7 * 24);
        // Game 1 ended last, but its end was written first (a timeout written
        // late ends at its deadline): its changes are numbered 1.
        let games = vec![
            game(1, [1, 2], GameResult::XWins, 2_000_000, [Some(1), Some(1)]),
            game(2, [2, 1], GameResult::XWins, 1_000_000, [Some(2), Some(2)]),
            game(3, [1, 3], GameResult::Draw, 3_000_000, [None, None]),
        ];
        let stored = RatingsAsStored { games, changes: Vec::new(), ratings: Vec::new() };
        let (changes, ratings) = replay(&stored, week);
        let at = |second| Timestamp::from_second(second).unwrap();
        let (one, two) = (Standing::NEW, Standing::NEW);
        let (one, two) = rate_game(&one, &two, GameResult::XWins, at(2_000_000), week, [false, false]).unwrap();
        let (two, one) = rate_game(&two, &one, GameResult::XWins, at(1_000_000), week, [false, false]).unwrap();
        let (one, three) =
            rate_game(&one, &Standing::NEW, GameResult::Draw, at(3_000_000), week, [false, false]).unwrap();
        let standing_of =
            |player| ratings.iter().find(|rating| rating.player == PlayerId::new(player)).unwrap().standing;
        assert_eq!([standing_of(1), standing_of(2), standing_of(3)], [one, two, three]);
        let numbers: Vec<(i64, i64, i64)> =
            changes.iter().map(|change| (change.player.get(), change.number, change.change.game_id.get())).collect();
        assert_eq!(numbers, [(1, 1, 1), (1, 2, 2), (1, 3, 3), (2, 1, 1), (2, 2, 2), (3, 1, 3)]);

        // Stored as derived, a check finds nothing; a change lost, it says so.
        let mut as_derived = RatingsAsStored { changes: changes.clone(), ratings: ratings.clone(), ..stored };
        assert_eq!(checked(&as_derived, &(changes.clone(), ratings.clone())).differences, Vec::<String>::new());
        as_derived.changes.remove(0);
        let differences = checked(&as_derived, &(changes, ratings)).differences;
        assert_eq!(differences, ["player 1's change 1 in player_choice (game 1) is not stored"]);
    }
}
