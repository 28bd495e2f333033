//! Glicko-2 ratings, pure: what a rated game does to its two players' ratings.
//!
//! The arithmetic is the `skillratings` crate's; this module decides how qttt
//! uses it. Each rated game is a rating period of its own for its two players,
//! its outcome the game's result (a win, a draw or a loss, whatever the
//! points). Between a player's rated games their deviation grows as Glicko-2
//! has it grow over a period without games, once for every whole rating period
//! (`RATING_PERIOD_DAYS`) since their last one. Everything here depends on the
//! ratings as stored and the moments the games ended alone, so that the store
//! computes a rating as a game ends and `qttt ratings check` computes it again,
//! to the bit, from the rated games.

use jiff::{SignedDuration, Timestamp};
use skillratings::Outcomes;
use skillratings::glicko2::{Glicko2Config, Glicko2Rating, decay_deviation, glicko2_rating_period};

use crate::engine::{GameResult, Player};

/// The system constant τ, which bounds how fast the volatility changes:
/// Glickman suggests 0.3 to 1.2.
pub(crate) const TAU: f64 = 0.5;

/// A Glicko-2 rating on the Glicko scale.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rating {
    /// The rating itself.
    pub rating: f64,
    /// Its deviation: how sure it is (lower is surer).
    pub deviation: f64,
    /// Its volatility: how much the player's strength is expected to vary.
    pub volatility: f64,
}

impl Rating {
    /// Every player's rating before their first rated game in a variant.
    pub(crate) const START: Rating = Rating { rating: 1500.0, deviation: 350.0, volatility: 0.06 };

    /// The deviation from which a rating is provisional (lichess's threshold):
    /// shown with a "?", and left off the leaderboards.
    pub(crate) const PROVISIONAL_DEVIATION: f64 = 110.0;

    /// Whether the rating is still provisional.
    pub fn is_provisional(&self) -> bool {
        self.deviation >= Rating::PROVISIONAL_DEVIATION
    }

    /// The rating after `periods` rating periods without a game.
    #[must_use]
    pub fn idle(self, periods: u64) -> Rating {
        (0..periods.min(Rating::MOST_IDLE_PERIODS)).fold(self, |rating, _| decay_deviation(&rating.into()).into())
    }

    /// The empty periods after which any deviation has grown back to the
    /// start's (350, where it stops): at the least volatility a rating can
    /// keep, hundreds of years of weekly periods; counting further changes nothing.
    const MOST_IDLE_PERIODS: u64 = 100_000;

    /// The range a rating is kept in (lichess's): results far from what
    /// the ratings expect, repeated thousands of times, would take it anywhere.
    const RANGE: (f64, f64) = (400.0, 4000.0);

    /// The most volatility a rating keeps (lichess's).
    const MOST_VOLATILITY: f64 = 0.1;

    /// The rating after one rating period in which the player played `games`,
    /// each against an opponent of that rating with that outcome; unchanged
    /// but for its deviation's growth when they played none. Kept within
    /// Glicko-2's bounds: a deviation of at most the start's, which games a
    /// player was sure to lose would otherwise grow period after period (so
    /// that one win then moved them thousands of points), a volatility of at
    /// most [`Rating::MOST_VOLATILITY`], a rating within [`Rating::RANGE`].
    #[must_use]
    pub(crate) fn after_period(self, games: &[(Rating, Score)]) -> Rating {
        let config = Glicko2Config { tau: TAU, ..Glicko2Config::new() };
        let games: Vec<(Glicko2Rating, Outcomes)> =
            games.iter().map(|&(opponent, score)| (opponent.into(), score.into())).collect();
        let after: Rating = glicko2_rating_period(&self.into(), &games, &config).into();
        Rating {
            rating: after.rating.clamp(Rating::RANGE.0, Rating::RANGE.1),
            deviation: after.deviation.min(Rating::START.deviation),
            volatility: after.volatility.min(Rating::MOST_VOLATILITY),
        }
    }
}

impl From<Rating> for Glicko2Rating {
    fn from(rating: Rating) -> Glicko2Rating {
        Glicko2Rating { rating: rating.rating, deviation: rating.deviation, volatility: rating.volatility }
    }
}

impl From<Glicko2Rating> for Rating {
    fn from(rating: Glicko2Rating) -> Rating {
        Rating { rating: rating.rating, deviation: rating.deviation, volatility: rating.volatility }
    }
}

/// A game's outcome for one of its players.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Score {
    /// They won.
    Win,
    /// Neither did.
    Draw,
    /// They lost.
    Loss,
}

impl From<Score> for Outcomes {
    fn from(score: Score) -> Outcomes {
        match score {
            Score::Win => Outcomes::WIN,
            Score::Draw => Outcomes::DRAW,
            Score::Loss => Outcomes::LOSS,
        }
    }
}

impl Score {
    /// Player `player`'s outcome of a game with `result`; `None` when the game
    /// has no winner or draw to rate (it goes on, or was aborted).
    pub fn of(result: GameResult, player: Player) -> Option<Score> {
        let winner = match result {
            GameResult::XWins => Player::X,
            GameResult::OWins => Player::O,
            GameResult::Draw => return Some(Score::Draw),
            GameResult::Ongoing | GameResult::Aborted => return None,
        };
        Some(if winner == player { Score::Win } else { Score::Loss })
    }
}

/// A player's rating in a variant as stored: as of their last rated game, and
/// when that game ended; the start's, with no moment, before their first.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Standing {
    /// The rating as of the last rated game.
    pub rating: Rating,
    /// How many rated games it counts.
    pub games: i64,
    /// When the last of them ended.
    pub rated_at: Option<Timestamp>,
}

impl Standing {
    /// A player's standing before their first rated game.
    pub const NEW: Standing = Standing { rating: Rating::START, games: 0, rated_at: None };

    /// The rating as it stands at `at`: its deviation grown by the whole rating
    /// periods of length `period` since the last rated game.
    pub fn at(&self, at: Timestamp, period: SignedDuration) -> Rating {
        let Some(since) = self.rated_at else { return self.rating };
        let periods = at.duration_since(since).as_secs().max(0) / period.as_secs().max(1);
        self.rating.idle(periods.unsigned_abs())
    }
}

/// The standings of a rated game's two players once it ended at `at` with
/// `result`, each a rating period of its own: each player's rating as it
/// stands at `at`, changed by the one game against the other's as it stands.
/// A side that `server_bots` marks as one of the server's bots counts the game
/// but keeps its rating as it stands unless the other side is a bot too or
/// its rating is not provisional: no one player, nor a crowd of new ones,
/// moves a bot's rating, which the ladder and established players set.
/// `None` when the result rates nothing (an abort).
pub fn rate_game(
    x: &Standing,
    o: &Standing,
    result: GameResult,
    at: Timestamp,
    period: SignedDuration,
    server_bots: [bool; 2],
) -> Option<(Standing, Standing)> {
    let (x_now, o_now) = (x.at(at, period), o.at(at, period));
    let after = |standing: &Standing, now: Rating, opponent: Rating, player: Player, bots: [bool; 2]| {
        let score = Score::of(result, player)?;
        let moves = !bots[0] || bots[1] || !opponent.is_provisional();
        let rating = if moves { now.after_period(&[(opponent, score)]) } else { now };
        Some(Standing { rating, games: standing.games + 1, rated_at: Some(at) })
    };
    let [x_bot, o_bot] = server_bots;
    Some((after(x, x_now, o_now, Player::X, [x_bot, o_bot])?, after(o, o_now, x_now, Player::O, [o_bot, x_bot])?))
}

/// A player's puzzle standing and a puzzle's rating once the player's rated
/// attempt at it ended at `at`, a rating period of its own for each: a win
/// for the player when they solved it, a loss when not (the puzzle's the
/// other way round). The player's deviation first grows over their idle
/// periods, as in games; a puzzle's does not, as its strength does not change
/// while nobody tries it.
pub(crate) fn rate_attempt(
    player: &Standing,
    puzzle: Rating,
    solved: bool,
    at: Timestamp,
    period: SignedDuration,
) -> (Standing, Rating) {
    let player_now = player.at(at, period);
    let (score, puzzle_score) = if solved { (Score::Win, Score::Loss) } else { (Score::Loss, Score::Win) };
    let player_after = player_now.after_period(&[(puzzle, score)]);
    (
        Standing { rating: player_after, games: player.games + 1, rated_at: Some(at) },
        puzzle.after_period(&[(player_now, puzzle_score)]),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rating(rating: f64, deviation: f64) -> Rating {
        Rating { rating, deviation, volatility: 0.06 }
    }

    #[test]
    fn glickmans_worked_example_comes_out_as_his_paper_gives_it() {
        // "Example of the Glicko-2 system", Glickman: τ = 0.5, one period of three games.
        let after = rating(1500.0, 200.0).after_period(&[
            (rating(1400.0, 30.0), Score::Win),
            (rating(1550.0, 100.0), Score::Loss),
            (rating(1700.0, 300.0), Score::Loss),
        ]);
        // The paper rounds as it goes (μ' = -0.2069, so 1464.06) and cuts the
        // volatility at five places; computed without rounding, this is
        // 1464.0507 / 151.5165 / 0.059996, within those figures' last place.
        let off = |value: f64, paper: f64| (value - paper).abs();
        assert!(off(after.rating, 1464.06) < 0.01, "{after:?}");
        assert!(off(after.deviation, 151.52) < 0.005, "{after:?}");
        assert!(off(after.volatility, 0.05999) < 0.000_01, "{after:?}");
    }

    #[test]
    fn a_rated_game_is_a_period_of_its_own_for_each_player_after_their_idle_periods() {
        let week = SignedDuration::from_hours(24 * 7);
        let start = Timestamp::from_second(1_800_000_000).unwrap();
        let x = Standing { rating: rating(1600.0, 80.0), games: 12, rated_at: Some(start) };
        let o = Standing::NEW;
        // Three weeks and a day later: three idle periods for X.
        let at = start + SignedDuration::from_hours(24 * 22);
        let (x_after, o_after) = rate_game(&x, &o, GameResult::OWins, at, week, [false, false]).unwrap();
        let x_now = x.rating.idle(3);
        assert!(x_now.deviation > 81.0 && x_now.deviation < 83.0, "{x_now:?}");
        assert_eq!(x_after.rating, x_now.after_period(&[(Rating::START, Score::Loss)]));
        assert_eq!(o_after.rating, Rating::START.after_period(&[(x_now, Score::Win)]));
        assert_eq!((x_after.games, o_after.games), (13, 1));
        assert_eq!((x_after.rated_at, o_after.rated_at), (Some(at), Some(at)));
        assert!(x_after.rating.rating < 1600.0 && o_after.rating.rating > 1500.0);
        // A draw, and an abort, which rates nothing.
        let (x_drew, _) = rate_game(&x, &o, GameResult::Draw, start, week, [false, false]).unwrap();
        assert_eq!(x_drew.rating, x.rating.after_period(&[(Rating::START, Score::Draw)]));
        assert_eq!(rate_game(&x, &o, GameResult::Aborted, at, week, [false, false]), None);
    }

    #[test]
    fn a_solved_puzzle_is_a_win_against_it_and_a_failed_one_a_loss() {
        let week = SignedDuration::from_hours(24 * 7);
        let start = Timestamp::from_second(1_800_000_000).unwrap();
        let player = Standing { rating: rating(1500.0, 100.0), games: 4, rated_at: Some(start) };
        let puzzle = Rating { rating: 1300.0, ..Rating::START };
        let at = start + SignedDuration::from_hours(24 * 15);
        let (solver, solved) = rate_attempt(&player, puzzle, true, at, week);
        let player_now = player.rating.idle(2);
        assert_eq!(solver.rating, player_now.after_period(&[(puzzle, Score::Win)]));
        assert_eq!(solved, puzzle.after_period(&[(player_now, Score::Loss)]));
        assert_eq!((solver.games, solver.rated_at), (5, Some(at)));
        assert!(solver.rating.rating > 1500.0 && solved.rating < 1300.0);
        let (failer, failed) = rate_attempt(&player, puzzle, false, at, week);
        assert!(failer.rating.rating < 1500.0 && failed.rating > 1300.0);
    }

    #[test]
    fn thousands_of_sure_losses_leave_a_rating_in_its_bounds_and_a_win_then_moves_it_as_a_new_ones() {
        let week = SignedDuration::from_hours(24 * 7);
        let start = Timestamp::from_second(1_800_000_000).unwrap();
        let (mut loser, mut winner) = (Standing::NEW, Standing::NEW);
        for second in 0..5_000 {
            let at = start + SignedDuration::from_secs(second);
            (loser, winner) = rate_game(&loser, &winner, GameResult::OWins, at, week, [false, false]).unwrap();
            assert!(loser.rating.deviation <= 350.0 && winner.rating.deviation <= 350.0, "{loser:?} {winner:?}");
        }
        // Unbounded, the loser stood at 133 with a deviation of 467, the winner at 2867.
        assert_eq!(loser.rating.rating, 400.0);
        assert!(winner.rating.rating < 4000.0, "{winner:?}");
        let at = start + SignedDuration::from_hours(2);
        let (won, _) = rate_game(&loser, &winner, GameResult::XWins, at, week, [false, false]).unwrap();
        // As much as a first game moves a new rating (unbounded: +700, and
        // +21,177 after 60,000 losses as found in use).
        assert!(won.rating.deviation <= 350.0 && won.rating.rating - loser.rating.rating < 500.0, "{won:?}");
    }

    #[test]
    fn a_bot_keeps_its_rating_against_a_provisional_player_and_moves_against_others() {
        let week = SignedDuration::from_hours(24 * 7);
        let at = Timestamp::from_second(1_800_000_000).unwrap();
        let bot = Standing { rating: rating(1500.0, 60.0), games: 400, rated_at: Some(at) };
        let (new, established) =
            (Standing::NEW, Standing { rating: rating(1500.0, 80.0), games: 40, rated_at: Some(at) });
        // A new player loses to the bot: theirs moves, the bot's does not, and it counts the game.
        let (player, kept) = rate_game(&new, &bot, GameResult::OWins, at, week, [false, true]).unwrap();
        assert_eq!((kept.rating, kept.games, kept.rated_at), (bot.rating, 401, Some(at)));
        assert_eq!(player.rating, Rating::START.after_period(&[(bot.rating, Score::Loss)]));
        // An established player's loss moves it, as another bot's does.
        let (_, moved) = rate_game(&established, &bot, GameResult::OWins, at, week, [false, true]).unwrap();
        assert_eq!(moved.rating, bot.rating.after_period(&[(established.rating, Score::Win)]));
        let (_, against_bot) = rate_game(&new, &bot, GameResult::OWins, at, week, [true, true]).unwrap();
        assert_eq!(against_bot.rating, bot.rating.after_period(&[(Rating::START, Score::Win)]));
    }

    #[test]
    fn a_deviation_grows_back_to_the_start_and_no_further() {
        let long_idle = rating(1500.0, 50.0).idle(u64::MAX);
        assert_eq!(long_idle.deviation, 350.0);
        assert!(!rating(1500.0, 109.9).is_provisional());
        assert!(rating(1500.0, 110.0).is_provisional());
    }
}
