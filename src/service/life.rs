//! The life of a game around its rules: seats taken, clocks, and the endings the
//! rules do not know (a resignation, a timeout, an abort), folded from the log
//! entry by entry with the times they were written. Pure: the time now is an
//! argument, so that the arithmetic is tested with chosen times.

use std::time::Duration;

use jiff::Timestamp;

use super::time::timestamp_of_millis;
use crate::engine::{Actor, Game, GameResult, Player};
use crate::record::{ClockSettings, End, EndReason, Ending};

/// Each player's clock as of a moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClockState {
    /// The clock's settings.
    pub settings: ClockSettings,
    /// X's and O's time left, in milliseconds; never below zero.
    pub remaining_ms: [i64; 2],
    /// The player whose clock runs: the one to act, once both players made
    /// their first move (never a bot); none before, between and after.
    pub running: Option<Player>,
    /// When the game ends if the player to act does not act: when the running
    /// clock reaches zero, or, before both first moves, when the first move's
    /// time is up.
    pub deadline: Option<Timestamp>,
}

impl ClockState {
    /// The time left to `player`.
    pub(crate) fn remaining(&self, player: Player) -> i64 {
        self.remaining_ms[seat(player)]
    }
}

/// The milliseconds spent from `since` to `now`: never less than none, though the
/// clocks of several instances that stamp the log may disagree by a little.
fn spent(since: Timestamp, now: Timestamp) -> i64 {
    (now.as_millisecond() - since.as_millisecond()).max(0)
}

/// Whether both players have made their first move in `game`: from then on the
/// clocks run, nobody may abort it, and a rated game is rated.
pub(crate) fn both_moved(game: &Game) -> bool {
    game.moves().len() >= 2
}

fn seat(player: Player) -> usize {
    match player {
        Player::X => 0,
        Player::O => 1,
    }
}

/// The life of a game, folded from its log: feed it each entry in order with the
/// engine's game right after it, then ask how the game stands at a moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Life {
    clock: Option<ClockSettings>,
    /// The bot's seat: its actions take no time of anyone's.
    bot: Option<Player>,
    seated: [bool; 2],
    /// How long a player has for their first move, from when it is theirs.
    first_move: Duration,
    /// The person who owes the game a first move, and since when.
    first_move_due: Option<(Player, Timestamp)>,
    /// Each player's time left when their clock last stopped or started.
    remaining_ms: [i64; 2],
    /// The player whose clock runs, and since when.
    running: Option<(Player, Timestamp)>,
    ended: Option<Ending>,
}

impl Life {
    /// The life of a game with `clock`, before anyone took a seat, in which
    /// each player has `first_move` for their first move once it is theirs.
    pub fn new(clock: Option<ClockSettings>, first_move: Duration) -> Life {
        let initial = clock.map_or(0, |clock| clock.initial_ms);
        Life {
            clock,
            bot: None,
            seated: [false; 2],
            first_move,
            first_move_due: None,
            remaining_ms: [initial; 2],
            running: None,
            ended: None,
        }
    }

    /// Takes in that `player`, the game's bot when `by_bot`, took a seat at
    /// `at`; `game` is the game then.
    pub(crate) fn seat_taken(&mut self, player: Player, by_bot: bool, game: &Game, at: Timestamp) {
        self.seated[seat(player)] = true;
        if by_bot {
            self.bot = Some(player);
        }
        self.after_entry(None, game, at);
    }

    /// Takes in an action of the rules by `actor` at `at`; `game` is the game
    /// right after it.
    pub(crate) fn acted(&mut self, actor: Actor, game: &Game, at: Timestamp) {
        self.after_entry(Some(actor), game, at);
    }

    /// Takes in `ending`, written at `at`.
    pub fn ended(&mut self, ending: Ending, game: &Game, at: Timestamp) {
        self.ended = Some(ending);
        self.after_entry(None, game, at);
    }

    /// Stops the running clock at `at`, charging its player, and gives them
    /// the increment when they acted on it; then starts the clock of whoever
    /// acts now, once both players made their first move, or before that gives
    /// them the time of a first move.
    fn after_entry(&mut self, actor: Option<Actor>, game: &Game, at: Timestamp) {
        let Some(clock) = self.clock else { return };
        if let Some((player, since)) = self.running.take() {
            let left = &mut self.remaining_ms[seat(player)];
            *left = (*left - spent(since, at)).max(0);
            if actor == Some(Actor::Player(player)) {
                *left += clock.increment_ms;
            }
        }
        // Before both first moves, the player to act is the one who has not moved.
        let (to_act, started) = (self.player_to_act(game), both_moved(game));
        self.first_move_due = to_act.filter(|_| !started).map(|player| (player, at));
        self.running = to_act.filter(|_| started).map(|player| (player, at));
    }

    /// Whether the game is over by an entry or by the rules (a clock that ran
    /// out counts once the server has written it down).
    pub fn is_over(&self, game: &Game) -> bool {
        self.ended.is_some() || game.is_over()
    }

    /// The person whose clock runs in `game`: the one to act once both seats are
    /// taken and while nothing has ended it; never the bot nor the measurement.
    fn player_to_act(&self, game: &Game) -> Option<Player> {
        match game.actor_to_act() {
            Some(Actor::Player(player))
                if self.seated == [true; 2] && !self.is_over(game) && Some(player) != self.bot =>
            {
                Some(player)
            }
            _ => None,
        }
    }

    /// How long each player has for their first move.
    pub(super) fn first_move(&self) -> Duration {
        self.first_move
    }

    /// The seat the game's bot took, if it has one.
    pub fn bot(&self) -> Option<Player> {
        self.bot
    }

    /// Whether both seats are taken.
    pub(crate) fn both_seated(&self) -> bool {
        self.seated == [true; 2]
    }

    /// The clocks as of `now`, in a clocked game.
    pub fn clock(&self, now: Timestamp) -> Option<ClockState> {
        let settings = self.clock?;
        let mut remaining_ms = self.remaining_ms;
        if let Some((player, since)) = self.running {
            let left = &mut remaining_ms[seat(player)];
            *left = (*left - spent(since, now)).max(0);
        }
        let running = self.running.map(|(player, _)| player);
        let deadline = self.overdue_at().map(|(_, at)| timestamp_of_millis(at));
        Some(ClockState { settings, remaining_ms, running, deadline })
    }

    /// The ending that time brings if the player to act does not act, and the
    /// moment (in milliseconds after the epoch) it comes: a timeout when their
    /// clock runs out, or before both first moves, an abort when their first
    /// move's time is up.
    fn overdue_at(&self) -> Option<(Ending, i64)> {
        if let Some((player, since)) = self.running {
            return Some((Ending::Timeout(player), since.as_millisecond() + self.remaining_ms[seat(player)]));
        }
        let (player, since) = self.first_move_due?;
        let first_move_ms = i64::try_from(self.first_move.as_millis()).unwrap_or(i64::MAX);
        Some((Ending::NoFirstMove(player), since.as_millisecond().saturating_add(first_move_ms)))
    }

    /// The ending that time brought by `now`, before any entry says so.
    pub fn overdue(&self, now: Timestamp) -> Option<Ending> {
        self.overdue_at().filter(|&(_, at)| now.as_millisecond() >= at).map(|(ending, _)| ending)
    }

    /// How the game ended as of `now`, if it has: by an entry of its life, by
    /// the rules, or by a clock that ran out, which the server writes down soon.
    pub fn end(&self, game: &Game, now: Timestamp) -> Option<End> {
        if let Some(ending) = self.ended {
            return Some(ending.end());
        }
        if game.is_over() {
            let reason = if game.lines().is_empty() { EndReason::FullBoard } else { EndReason::Lines };
            return Some(End { reason, player: None });
        }
        self.overdue(now).map(Ending::end)
    }

    /// The result as of `now`: a resignation, a timeout or a game walked away
    /// from is a win for the other player whatever the board's points; an abort,
    /// or a first move not made, decides nothing.
    pub fn result(&self, game: &Game, now: Timestamp) -> GameResult {
        let win_for = |player: Player| match player {
            Player::X => GameResult::XWins,
            Player::O => GameResult::OWins,
        };
        match self.end(game, now) {
            Some(End {
                reason: EndReason::Resignation | EndReason::Timeout | EndReason::Abandoned,
                player: Some(player),
            }) => win_for(player.other()),
            Some(End { reason: EndReason::Aborted | EndReason::NoFirstMove, .. }) => GameResult::Aborted,
            Some(End { reason: EndReason::Agreement, .. }) => GameResult::Draw,
            _ => game.result(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Action, Square, Variant};

    /// The moment `at` milliseconds after the epoch, as these tests count time.
    fn ms(at: i64) -> Timestamp {
        timestamp_of_millis(at)
    }

    const CLOCK: ClockSettings = ClockSettings { initial_ms: 10_000, increment_ms: 2_000 };

    /// The time of a first move in these tests.
    const FIRST_MOVE: Duration = Duration::from_secs(30);

    fn squares(a: usize, b: usize) -> Action {
        Action::Move { squares: [Square::ALL[a], Square::ALL[b]] }
    }

    /// Plays `moves` (each with the time it was made, milliseconds after the game
    /// was created at 0) by X and O in turn, both seated at `seated_at`.
    fn life_of(moves: &[(i64, Action)], seated_at: i64, bot: Option<Player>) -> (Life, Game) {
        let mut game = Game::new(Variant::PlayerChoice);
        let mut life = Life::new(Some(CLOCK), FIRST_MOVE);
        life.seat_taken(Player::X, bot == Some(Player::X), &game, ms(0));
        life.seat_taken(Player::O, bot == Some(Player::O), &game, ms(seated_at));
        for &(at, action) in moves {
            let actor = game.actor_to_act().unwrap();
            game.play(actor, action).unwrap();
            life.acted(actor, &game, ms(at));
        }
        (life, game)
    }

    #[test]
    fn the_clocks_start_once_both_players_made_their_first_move_and_an_action_gains_the_increment() {
        // First moves at 4 s and 4.5 s cost nothing; X's clock runs from 4.5 s.
        let moves = [(4_000, squares(0, 1)), (4_500, squares(2, 3)), (6_000, squares(4, 5))];
        let (life, game) = life_of(&moves, 1_000, None);
        let clock = life.clock(ms(7_000)).unwrap();
        assert_eq!(clock.running, Some(Player::O));
        // X: 10 - 1.5 + 2 = 10.5 s; O: 1 s on its clock since X's move at 6 s.
        assert_eq!(clock.remaining_ms, [10_500, 9_000]);
        assert_eq!(clock.deadline, Some(ms(6_000 + 10_000)));
        assert_eq!(life.end(&game, ms(7_000)), None);
        assert_eq!(life.clock(ms(700_000)).unwrap().remaining_ms, [10_500, 0], "never below zero");
    }

    #[test]
    fn before_both_seats_are_taken_no_clock_runs_and_no_first_move_is_owed() {
        let mut life = Life::new(Some(CLOCK), FIRST_MOVE);
        let game = Game::new(Variant::PlayerChoice);
        life.seat_taken(Player::X, false, &game, ms(0));
        let clock = life.clock(ms(60_000)).unwrap();
        assert_eq!((clock.running, clock.deadline, clock.remaining_ms), (None, None, [10_000, 10_000]));
        assert_eq!(life.overdue(ms(600_000)), None);
    }

    #[test]
    fn a_first_move_not_made_in_time_aborts_the_game_and_decides_nothing() {
        // Seated at 1 s: X owes a first move until 31 s.
        let (life, game) = life_of(&[], 1_000, None);
        let clock = life.clock(ms(20_000)).unwrap();
        assert_eq!((clock.running, clock.deadline, clock.remaining_ms), (None, Some(ms(31_000)), [10_000, 10_000]));
        assert_eq!(life.overdue(ms(30_999)), None);
        assert_eq!(life.overdue(ms(31_000)), Some(Ending::NoFirstMove(Player::X)));
        assert_eq!(life.end(&game, ms(31_000)), Some(End { reason: EndReason::NoFirstMove, player: Some(Player::X) }));
        assert_eq!(life.result(&game, ms(31_000)), GameResult::Aborted);
        // X's first move at 20 s gives O until 50 s for theirs.
        let (life, game) = life_of(&[(20_000, squares(0, 1))], 1_000, None);
        assert_eq!(life.clock(ms(20_000)).unwrap().deadline, Some(ms(50_000)));
        assert_eq!(life.end(&game, ms(50_000)), Some(End { reason: EndReason::NoFirstMove, player: Some(Player::O) }));
    }

    #[test]
    fn a_clock_that_runs_out_ends_the_game_for_the_other_player() {
        let (life, game) = life_of(&[(1_000, squares(0, 1)), (2_000, squares(2, 3))], 0, None);
        // X to move since 2 s, with 10 s: out at 12 s.
        assert_eq!(life.clock(ms(0)).unwrap().deadline, Some(ms(12_000)));
        assert_eq!(life.overdue(ms(11_999)), None);
        assert_eq!(life.overdue(ms(12_000)), Some(Ending::Timeout(Player::X)));
        assert_eq!(life.end(&game, ms(12_000)), Some(End { reason: EndReason::Timeout, player: Some(Player::X) }));
        assert_eq!(life.result(&game, ms(12_000)), GameResult::OWins);
    }

    #[test]
    fn an_entry_stamped_before_the_last_takes_no_time_and_gives_none() {
        // X's second move stamped 0.3 s before O's first, by another instance's clock.
        let moves = [(1_000, squares(0, 1)), (5_000, squares(2, 3)), (4_700, squares(4, 5))];
        let (life, _) = life_of(&moves, 0, None);
        assert_eq!(life.clock(ms(4_700)).unwrap().remaining_ms, [12_000, 10_000]);
    }

    #[test]
    fn the_chooser_of_a_pending_collapse_is_the_one_whose_clock_runs() {
        // O2 closes the 2-cycle at 3 s: X chooses.
        let (life, game) = life_of(&[(1_000, squares(0, 1)), (3_000, squares(0, 1))], 0, None);
        assert!(game.pending_collapse().is_some());
        assert_eq!(life.clock(ms(4_000)).unwrap().running, Some(Player::X));
    }

    #[test]
    fn against_a_bot_only_the_persons_clock_runs() {
        // The bot is O: its moves take no time of anyone's and gain nothing.
        let moves = [(1_000, squares(0, 1)), (9_000, squares(2, 3)), (10_000, squares(4, 5)), (10_500, squares(6, 7))];
        let (life, _) = life_of(&moves, 0, Some(Player::O));
        let clock = life.clock(ms(10_500)).unwrap();
        assert_eq!(clock.remaining_ms, [11_000, 10_000], "X: 10 - 1 + 2; the bot's clock stands");
        assert_eq!(clock.running, Some(Player::X));
    }

    #[test]
    fn a_resignation_wins_for_the_other_player_whatever_the_points_and_stops_the_clocks() {
        let (mut life, game) = life_of(&[(1_000, squares(0, 1)), (2_000, squares(2, 3))], 0, None);
        life.ended(Ending::Resign(Player::O), &game, ms(5_000));
        assert_eq!(life.end(&game, ms(6_000)), Some(End { reason: EndReason::Resignation, player: Some(Player::O) }));
        assert_eq!(life.result(&game, ms(6_000)), GameResult::XWins);
        let clock = life.clock(ms(99_000)).unwrap();
        assert_eq!((clock.running, clock.deadline, clock.remaining_ms), (None, None, [7_000, 10_000]));
        assert!(life.is_over(&game));
    }

    #[test]
    fn an_abort_decides_nothing() {
        let mut life = Life::new(None, FIRST_MOVE);
        let game = Game::new(Variant::Measurement);
        life.seat_taken(Player::X, false, &game, ms(0));
        life.ended(Ending::Abort(None), &game, ms(3_600_000));
        assert_eq!(life.end(&game, ms(0)), Some(End { reason: EndReason::Aborted, player: None }));
        assert_eq!(life.result(&game, ms(0)), GameResult::Aborted);
        assert_eq!(life.clock(ms(0)), None, "an unclocked game has no clock");
    }

    /// Random whole games with random times: `check` sees the life after each
    /// entry, the moment both first moves were made, and the moment now.
    fn random_lives(check: impl Fn(&Life, &Game, Option<i64>, i64)) {
        use rand::rngs::StdRng;
        use rand::{RngExt, SeedableRng};
        let mut rng = StdRng::seed_from_u64(17);
        for _ in 0..300 {
            let mut game = Game::new(Variant::PlayerChoice);
            let mut life = Life::new(Some(CLOCK), FIRST_MOVE);
            let mut at = rng.random_range(0..5_000);
            life.seat_taken(Player::X, false, &game, ms(0));
            life.seat_taken(Player::O, false, &game, ms(at));
            let mut started = None;
            while let Some(actor) = game.actor_to_act() {
                let actions = game.legal_actions();
                // At most the increment per action: no clock runs dry.
                at += rng.random_range(0..=CLOCK.increment_ms);
                game.play(actor, actions[rng.random_range(0..actions.len())]).unwrap();
                life.acted(actor, &game, ms(at));
                if started.is_none() && actor == Actor::Player(Player::O) {
                    started = Some(at);
                }
                check(&life, &game, started, at);
            }
        }
    }

    #[test]
    fn time_left_never_grows_but_by_increments() {
        random_lives(|life, _, _, at| {
            let (now, later) = (life.clock(ms(at)).unwrap(), life.clock(ms(at + 1_500)).unwrap());
            for player in [Player::X, Player::O] {
                assert!(later.remaining(player) <= now.remaining(player), "{now:?} then {later:?}");
            }
        });
    }

    #[test]
    fn the_time_both_players_spent_is_the_time_since_both_first_moves() {
        random_lives(|life, game, started, at| {
            let clock = life.clock(ms(at)).unwrap();
            let actions = game.log().iter().filter(|entry| matches!(entry.actor, Actor::Player(_))).count();
            // The two first moves gain nothing.
            let gained = i64::try_from(actions.saturating_sub(2)).unwrap() * CLOCK.increment_ms;
            let spent = 2 * CLOCK.initial_ms + gained - clock.remaining_ms[0] - clock.remaining_ms[1];
            // Every moment since both first moves is on one clock or the other.
            assert_eq!(spent, started.map_or(0, |started| at - started), "{clock:?}");
        });
    }
}
