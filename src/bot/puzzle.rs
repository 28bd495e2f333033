//! Puzzles made by the perfect player: positions where one action, up to the
//! board's symmetries, is worth at least half a point more than every other, with
//! the line that follows it to the end against best defence. The solver knows
//! the exact value of every position, so each puzzle is right by construction.
//!
//! The values are the solver's: in the measurement variant, expectations over
//! the measurements. A puzzle's line is one line, so a measurement in it takes
//! the outcome worse for the puzzle's side, as the best defence would.
//!
//! The set that ships with the server is a text file per variant, compiled in
//! ([`shipped`]): a puzzle a line, written by [`write_line`] and read by
//! [`read_line`], `position | solution | theme | rating | source`, the
//! position and its solution as transcripts (the solution goes on from the
//! position, after a `; `) and its first rating ([`starting_rating`]); lines
//! that start with `#` say how the file was made. Make it again with `qttt
//! puzzles generate` after any change to the rules or the solver.

use std::collections::HashSet;
use std::fmt;

use rand::{Rng, RngExt};

use super::perfect::{Solver, after};
use super::random::random_action;
use super::symmetry::{canonical_key, mapping};
use super::value::Value;
use crate::engine::{Action, Actor, Game, LogEntry, Player, RuleError, Variant, notation};

/// How much more, in points of the final score difference, the puzzle's action
/// is worth than every other.
pub(crate) const LEAST_MARGIN: f64 = 0.5;

/// A position with one winning action, and the line it starts.
#[derive(Debug, Clone, PartialEq)]
pub struct Puzzle {
    /// Where the puzzle's side is to act.
    pub position: Game,
    /// The line from `position` to the end of the game: the puzzle's side's
    /// actions, each the only best one up to symmetry, the other side's best
    /// defence, and the measurements.
    pub solution: Vec<LogEntry>,
    /// What the solution turns on.
    pub theme: Theme,
    /// Its rating: before any attempt, how hard the perfect player finds it
    /// (see [`starting_rating`]), as found or read from a puzzle file; as it
    /// stands, as read from the store.
    pub rating: f64,
    /// Where the position came from, in words.
    pub source: String,
}

/// What a puzzle's solution turns on: the first of these that holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Theme {
    /// It ends with two lines of the puzzle's side.
    DoubleLine,
    /// Its first action is a collapse choice.
    CollapseChoice,
    /// Its first action is a move that closes a cycle.
    ClosingCycle,
    /// It reaches the last-square move.
    LastSquare,
    /// None of the above.
    Quiet,
}

impl Theme {
    /// Every theme, in the order they are tried.
    pub const ALL: [Theme; 5] =
        [Theme::DoubleLine, Theme::CollapseChoice, Theme::ClosingCycle, Theme::LastSquare, Theme::Quiet];

    /// The theme named `code`.
    pub(crate) fn of_code(code: &str) -> Option<Theme> {
        Theme::ALL.into_iter().find(|theme| theme.code() == code)
    }

    /// The theme's name, as files and clients write it.
    pub fn code(self) -> &'static str {
        match self {
            Theme::CollapseChoice => "collapse_choice",
            Theme::ClosingCycle => "closing_cycle",
            Theme::DoubleLine => "double_line",
            Theme::LastSquare => "last_square",
            Theme::Quiet => "quiet",
        }
    }
}

impl Puzzle {
    /// The side to act in the position.
    pub fn player(&self) -> Player {
        match self.position.actor_to_act() {
            Some(Actor::Player(player)) => player,
            _ => unreachable!("a puzzle's position waits for a player"),
        }
    }

    /// The game at the end of the solution.
    pub fn end(&self) -> Game {
        self.after(&self.solution)
    }

    /// The position after each step of the solution, in order.
    pub fn solution_positions(&self) -> Vec<Game> {
        let replay = |game: &mut Game, entry: &LogEntry| {
            game.play(entry.actor, entry.action).expect("a puzzle's solution replays");
            Some(*game)
        };
        self.solution.iter().scan(self.position, replay).collect()
    }

    /// The position after `entries`, the first of the solution's.
    fn after(&self, entries: &[LogEntry]) -> Game {
        let mut game = self.position;
        for entry in entries {
            game.play(entry.actor, entry.action).expect("a puzzle's solution replays");
        }
        game
    }

    /// The position and the solution as transcripts, the solution's going on
    /// from the position's, as [`Puzzle::from_transcripts`] reads them.
    pub fn transcripts(&self) -> (String, String) {
        (notation::write(&self.position), self.line_of(&self.end()))
    }

    /// The key of the position, the same for all its symmetric images.
    pub fn key(&self) -> u64 {
        canonical_key(&self.position).0
    }

    /// How many actions of the puzzle's side its solution takes: the deeper, the harder.
    pub fn depth(&self) -> usize {
        let player = Actor::Player(self.player());
        self.solution.iter().filter(|entry| entry.actor == player).count()
    }

    /// The puzzle of `variant` whose position and solution these transcripts
    /// are, the solution's going on from the position's.
    ///
    /// # Errors
    /// A transcript that does not read or replay; a position where nobody is
    /// to act; a solution that stops before the end.
    pub(crate) fn from_transcripts(
        variant: Variant,
        position: &str,
        solution: &str,
        theme: Theme,
        rating: f64,
        source: &str,
    ) -> Result<Puzzle, String> {
        let position = replay(variant, position)?;
        let end = replay_from(&position, solution)?;
        if !matches!(position.actor_to_act(), Some(Actor::Player(_))) {
            return Err("nobody is to act in the position".into());
        }
        if !end.is_over() {
            return Err("the solution stops before the end of the game".into());
        }
        let solution = end.log()[position.log().len()..].to_vec();
        Ok(Puzzle { position, solution, theme, rating, source: source.to_string() })
    }

    /// The game of an attempt at the puzzle that has played `line`, a
    /// transcript going on from the position ([`Puzzle::line_of`] writes it).
    ///
    /// # Errors
    /// A line that does not read or replay.
    pub fn attempt(&self, line: &str) -> Result<Game, String> {
        if line.is_empty() {
            return Ok(self.position);
        }
        replay_from(&self.position, line)
    }

    /// The transcript of what an attempt that reached `game` played from the position.
    pub(crate) fn line_of(&self, game: &Game) -> String {
        notation::write_from(game, self.position.log().len())
    }

    /// `action`, the puzzle's side's in `attempt`, the game of an attempt that
    /// has played only what [`Puzzle::step`] answered so far: the game after
    /// it (and after the reply, when it is right), and whether it was.
    ///
    /// An action is right when it reaches the position the solution's does,
    /// up to symmetry; the reply is the solution's, seen through the same
    /// symmetry, so that a mirrored answer is answered in its mirror.
    ///
    /// # Errors
    /// An action the rules do not allow, or none at all when the puzzle's side
    /// is not to act.
    pub fn step(&self, attempt: &Game, action: Action) -> Result<(Game, Step), RuleError> {
        let actor = Actor::Player(self.player());
        let played = attempt.log().len() - self.position.log().len();
        let mut after = *attempt;
        after.play(actor, action)?;
        if !self.solution.get(played).is_some_and(|entry| entry.actor == actor) {
            return Ok((after, Step::Wrong));
        }
        let Some(symmetry) = mapping(&self.after(&self.solution[..=played]), &after) else {
            return Ok((after, Step::Wrong));
        };
        let rest = &self.solution[played + 1..];
        let reply_length = rest.iter().position(|entry| entry.actor == actor).unwrap_or(rest.len());
        let mut reply = Vec::with_capacity(reply_length);
        for entry in &rest[..reply_length] {
            let entry = LogEntry { actor: entry.actor, action: symmetry.apply(entry.action) };
            after.play(entry.actor, entry.action).expect("the solution's reply replays in its mirror");
            reply.push(entry);
        }
        Ok((after, Step::Right { reply, solved: reply_length == rest.len() }))
    }
}

/// What an action in an attempt at a puzzle was.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// Not the solution's, up to symmetry: the attempt fails.
    Wrong,
    /// The solution's, up to symmetry.
    Right {
        /// The other side's defence and the measurements after the action, up
        /// to the puzzle's side's next turn or the end.
        reply: Vec<LogEntry>,
        /// Whether that was the end: the puzzle is solved.
        solved: bool,
    },
}

/// The game of `variant` whose transcript `text` is.
fn replay(variant: Variant, text: &str) -> Result<Game, String> {
    let log = notation::parse(text, variant).map_err(|error| error.to_string())?;
    Game::replay(variant, &log).map_err(|error| error.to_string())
}

/// The game that `text`, a transcript going on from `position`, reaches.
fn replay_from(position: &Game, text: &str) -> Result<Game, String> {
    replay(position.variant(), &format!("{}; {text}", notation::write(position)))
}

/// One class of a position's actions, those that reach the same position up to
/// symmetry: one of them, and what it is worth.
#[derive(Debug, Clone, Copy)]
struct Choice {
    /// An action of the class.
    action: Action,
    /// The key of the position it reaches.
    reaches: u64,
    /// What the position it reaches is worth, X minus O.
    value: Value,
}

/// Every class of the actions of `player`, who is to act in `game`, best first
/// for `player` (by points, then by haste).
fn choices(game: &Game, player: Player, solver: &mut Solver) -> Vec<Choice> {
    let mut choices: Vec<Choice> = Vec::new();
    for action in game.legal_actions() {
        let next = after(game, Actor::Player(player), action);
        let reaches = canonical_key(&next).0;
        if choices.iter().any(|choice| choice.reaches == reaches) {
            continue;
        }
        choices.push(Choice { action, reaches, value: value_of(&next, solver) });
    }
    let sign = for_player(player);
    choices.sort_by(|a, b| {
        let worth = |choice: &Choice| (sign * choice.value.points, sign * choice.value.haste);
        let ((a_points, a_haste), (b_points, b_haste)) = (worth(a), worth(b));
        b_points.total_cmp(&a_points).then(b_haste.total_cmp(&a_haste))
    });
    choices
}

/// The puzzle whose position is `game`, if it is one: a player is to act, one
/// class of their actions is worth at least [`LEAST_MARGIN`] more than every
/// other, and at each later turn of theirs in the line one class is worth more
/// than every other.
pub fn find(game: &Game, source: &str, solver: &mut Solver) -> Option<Puzzle> {
    let Some(Actor::Player(player)) = game.actor_to_act() else { return None };
    let choices = choices(game, player, solver);
    let sign = for_player(player);
    let [best, next, ..] = choices.as_slice() else { return None };
    if sign * (best.value.points - next.value.points) < LEAST_MARGIN {
        return None;
    }
    let end = line(game, player, best.action, solver)?;
    let solution = end.log()[game.log().len()..].to_vec();
    let theme = theme_of(game, player, best.action, &end);
    let mut puzzle = Puzzle { position: *game, solution, theme, rating: 0.0, source: source.to_string() };
    puzzle.rating = starting_rating(&choices, player, puzzle.depth());
    Some(puzzle)
}

/// A puzzle's rating before any attempt, from how hard the perfect player
/// finds it, with `choices` the classes of its first action, best first, and
/// `depth` its solution's actions: 700; 150 for each doubling of the classes
/// to choose from; up to 300 more as the wrong ones give away less, 150 for
/// each point of their mean loss under 2 (a subtle mistake is harder to see);
/// and 150 for each further action of the solution. Rounded to a whole number.
fn starting_rating(choices: &[Choice], player: Player, depth: usize) -> f64 {
    let sign = for_player(player);
    let best = choices.first().map_or(0.0, |best| sign * best.value.points);
    let wrong = &choices[1.min(choices.len())..];
    let mean_loss =
        wrong.iter().map(|choice| best - sign * choice.value.points).sum::<f64>() / wrong.len().max(1) as f64;
    let choosing = 150.0 * (choices.len().max(1) as f64).log2();
    let subtlety = 150.0 * (2.0 - mean_loss).clamp(0.0, 2.0);
    let further = 150.0 * depth.saturating_sub(1) as f64;
    (700.0 + choosing + subtlety + further).round()
}

/// The game at the end of the line that `first`, `player`'s action in `game`,
/// starts: against the best defence, each measurement taking the outcome worse
/// for `player`; `None` when a later turn of `player`'s has more than one best
/// class of actions, which would make the puzzle's answer ambiguous.
fn line(game: &Game, player: Player, first: Action, solver: &mut Solver) -> Option<Game> {
    let sign = for_player(player);
    let mut position = after(game, Actor::Player(player), first);
    while let Some(actor) = position.actor_to_act() {
        let action = match actor {
            Actor::Measurement => {
                let outcomes = position.legal_actions();
                let worth = |outcome: Action, solver: &mut Solver| {
                    sign * value_of(&after(&position, Actor::Measurement, outcome), solver).points
                };
                let (first, second) = (worth(outcomes[0], solver), worth(outcomes[1], solver));
                if second < first { outcomes[1] } else { outcomes[0] }
            }
            Actor::Player(to_act) if to_act == player => {
                let choices = choices(&position, player, solver);
                if let [best, next, ..] = choices.as_slice()
                    && best.value.points == next.value.points
                {
                    return None;
                }
                choices[0].action
            }
            Actor::Player(_) => solver.answer(&position).action,
        };
        position.play(actor, action).expect("a legal action is accepted");
    }
    Some(position)
}

/// The theme of the puzzle in `game` whose solution starts with `first` and ends
/// in `end`.
fn theme_of(game: &Game, player: Player, first: Action, end: &Game) -> Theme {
    let played = &end.moves()[game.moves().len()..];
    if end.lines().iter().filter(|line| line.player == player).count() >= 2 {
        Theme::DoubleLine
    } else if matches!(first, Action::Collapse { .. }) {
        Theme::CollapseChoice
    } else if after(game, Actor::Player(player), first).pending_collapse().is_some() {
        Theme::ClosingCycle
    } else if played.iter().any(|placed| placed.squares[0] == placed.squares[1]) {
        Theme::LastSquare
    } else {
        Theme::Quiet
    }
}

/// Plays games of `variant` until `count` puzzles are found, none the same up
/// to symmetry as a position in `seen`, which gains every position tried: each
/// action a best one or, with a chance drawn for each game, a random one, so
/// that the games stray into positions perfect play avoids. Every position
/// where a player is to act is tried; a puzzle's source is `source` and the
/// game's number. Calls `progress(found, games)` after each game.
pub fn generate(
    variant: Variant,
    source: &str,
    count: usize,
    seen: &mut HashSet<u64>,
    rng: &mut dyn Rng,
    mut progress: impl FnMut(usize, usize),
) -> Vec<Puzzle> {
    let mut solver = Solver::default();
    let mut found = Vec::new();
    let mut games = 0;
    while found.len() < count {
        games += 1;
        let straying = rng.random_range(0.2..0.8);
        let (mut game, game_source) = (Game::new(variant), format!("{source}, game {games}"));
        while let Some(Actor::Player(player)) = game.actor_to_act() {
            if let Some(puzzle) = try_position(&game, &game_source, seen, &mut solver)
                && found.len() < count
            {
                found.push(puzzle);
            }
            let action =
                if rng.random_bool(straying) { random_action(&game, rng) } else { solver.answer(&game).action };
            game.play_measured(Actor::Player(player), action, rng).expect("a legal action is accepted");
        }
        if solver.remembered() > SOLVER_LIMIT {
            solver = Solver::default();
        }
        progress(found.len(), games);
    }
    found
}

/// The puzzles among the positions of `game`, a game played, where a player was
/// to act, none the same up to symmetry as a position in `seen`, which gains
/// every position tried.
pub(crate) fn find_in_game(game: &Game, source: &str, seen: &mut HashSet<u64>, solver: &mut Solver) -> Vec<Puzzle> {
    let mut position = Game::new(game.variant());
    let mut found = Vec::new();
    for entry in game.log() {
        found.extend(try_position(&position, source, seen, solver));
        position.play(entry.actor, entry.action).expect("a game's own log replays");
    }
    found
}

/// The puzzle of `game`, if it is one and its position is not in `seen`, which
/// gains it.
fn try_position(game: &Game, source: &str, seen: &mut HashSet<u64>, solver: &mut Solver) -> Option<Puzzle> {
    if !matches!(game.actor_to_act(), Some(Actor::Player(_))) || !seen.insert(canonical_key(game).0) {
        return None;
    }
    find(game, source, solver)
}

/// The most positions the generator's solver remembers before it starts afresh.
const SOLVER_LIMIT: usize = 5_000_000;

/// `puzzle` as a line of a puzzle file.
pub fn write_line(puzzle: &Puzzle) -> String {
    let (position, solution) = puzzle.transcripts();
    format!("{position} | {solution} | {} | {} | {}", puzzle.theme.code(), puzzle.rating, puzzle.source)
}

/// The puzzle of `variant` that a line of a puzzle file holds. The theme is
/// read as written; [`find`] says whether the puzzle is one.
///
/// # Errors
/// A line that does not read, or whose transcripts do not replay.
pub fn read_line(line: &str, variant: Variant) -> Result<Puzzle, PuzzleFileError> {
    let fail = |reason: String| PuzzleFileError { line: line.to_string(), reason };
    let fields: Vec<&str> = line.split(" | ").collect();
    let [position, solution, theme, rating, source] = fields.as_slice() else {
        return Err(fail("expected five fields: position | solution | theme | rating | source".into()));
    };
    let theme = Theme::of_code(theme).ok_or_else(|| fail(format!("no theme is called {theme:?}")))?;
    let rating = rating.parse().map_err(|_| fail(format!("the rating {rating:?} is not a number")))?;
    Puzzle::from_transcripts(variant, position, solution, theme, rating, source).map_err(fail)
}

static PLAYER_CHOICE: &str = include_str!("../../data/puzzles-player_choice.txt");
static MEASUREMENT: &str = include_str!("../../data/puzzles-measurement.txt");

/// The puzzles of `variant` that ship with the server.
///
/// # Errors
/// The first line of the file that does not read.
pub fn shipped(variant: Variant) -> Result<Vec<Puzzle>, PuzzleFileError> {
    shipped_lines(variant).map(|line| read_line(line, variant)).collect()
}

/// The last of the puzzles of `variant` that ship with the server, read
/// alone: whether a database holds it tells whether it holds the set, which is
/// added in one write.
///
/// # Errors
/// The line that does not read.
pub(crate) fn last_shipped(variant: Variant) -> Result<Option<Puzzle>, PuzzleFileError> {
    shipped_lines(variant).last().map(|line| read_line(line, variant)).transpose()
}

/// The lines of the puzzle file of `variant` that hold puzzles.
fn shipped_lines(variant: Variant) -> impl DoubleEndedIterator<Item = &'static str> {
    let file = match variant {
        Variant::PlayerChoice => PLAYER_CHOICE,
        Variant::Measurement => MEASUREMENT,
    };
    file.lines().filter(|line| !line.starts_with('#'))
}

/// A line of a puzzle file that does not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PuzzleFileError {
    /// The line.
    pub line: String,
    /// What is wrong with it.
    pub reason: String,
}

impl fmt::Display for PuzzleFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.reason, self.line)
    }
}

impl std::error::Error for PuzzleFileError {}

/// +1 for X, who wants the score difference high; -1 for O.
fn for_player(player: Player) -> f64 {
    match player {
        Player::X => 1.0,
        Player::O => -1.0,
    }
}

/// What `game` is worth with perfect play: its score difference once over.
fn value_of(game: &Game, solver: &mut Solver) -> Value {
    match game.actor_to_act() {
        None => Value::of_finished(game),
        Some(_) => solver.answer(game).value,
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::engine::Square;

    /// What each class of the actions in `puzzle`'s position is worth to its
    /// side, by the key of the position it reaches: valued here one action at
    /// a time, apart from [`choices`].
    fn worth_of_classes(puzzle: &Puzzle, solver: &mut Solver) -> HashMap<u64, f64> {
        let player = puzzle.player();
        let mut worth = HashMap::new();
        for action in puzzle.position.legal_actions() {
            let next = after(&puzzle.position, Actor::Player(player), action);
            let points = match next.actor_to_act() {
                None => next.score().x.as_f64() - next.score().o.as_f64(),
                Some(_) => solver.answer(&next).value.points,
            };
            worth.insert(canonical_key(&next).0, for_player(player) * points);
        }
        worth
    }

    #[test]
    fn every_shipped_puzzle_of_player_choice_has_one_best_action_by_half_a_point_and_none_repeats() {
        check_shipped(Variant::PlayerChoice);
    }

    #[test]
    fn every_shipped_puzzle_of_the_measurement_has_one_best_action_by_half_a_point_and_none_repeats() {
        check_shipped(Variant::Measurement);
    }

    /// Checks every shipped puzzle of `variant`: a position that replays, whose
    /// solution's first action is the only best one up to symmetry, by at least
    /// [`LEAST_MARGIN`], with a line to the end, a theme that fits it and the
    /// rating the perfect player measures; no two of them the same up to
    /// symmetry; and ratings that span at least 600 points before any attempt.
    fn check_shipped(variant: Variant) {
        let puzzles = shipped(variant).unwrap();
        assert!(puzzles.len() >= 500, "{variant:?}: {} puzzles", puzzles.len());
        let ratings = puzzles.iter().map(|puzzle| puzzle.rating);
        let (least, most) = ratings.fold((f64::INFINITY, 0.0_f64), |(least, most), r| (least.min(r), most.max(r)));
        assert!(most - least >= 600.0, "{variant:?}: ratings from {least} to {most}");
        let mut solver = Solver::default();
        let mut keys = HashSet::new();
        for puzzle in &puzzles {
            let line = write_line(puzzle);
            assert!(
                keys.insert(canonical_key(&puzzle.position).0),
                "{line}: the same position up to symmetry as another"
            );
            let first = puzzle.solution[0];
            assert_eq!(first.actor, Actor::Player(puzzle.player()), "{line}");
            let answer = canonical_key(&after(&puzzle.position, first.actor, first.action)).0;
            let worth = worth_of_classes(puzzle, &mut solver);
            let others = worth.iter().filter(|&(&key, _)| key != answer);
            let best_other = others.map(|(_, &worth)| worth).fold(f64::NEG_INFINITY, f64::max);
            assert!(worth[&answer] - best_other >= LEAST_MARGIN, "{line}: {worth:?}");
            assert!(puzzle.end().is_over(), "{line}");
            let player = puzzle.player();
            let measured = starting_rating(&choices(&puzzle.position, player, &mut solver), player, puzzle.depth());
            assert_eq!(puzzle.rating, measured, "{line}");
            let closes = after(&puzzle.position, first.actor, first.action).pending_collapse().is_some();
            match puzzle.theme {
                Theme::CollapseChoice => assert!(matches!(first.action, Action::Collapse { .. }), "{line}"),
                Theme::ClosingCycle => assert!(closes, "{line}"),
                Theme::Quiet => assert!(!closes && matches!(first.action, Action::Move { .. }), "{line}"),
                Theme::DoubleLine | Theme::LastSquare => {}
            }
        }
    }

    #[test]
    fn a_line_of_the_shipped_files_reads_back_as_it_is_written() {
        for (variant, file) in [(Variant::PlayerChoice, PLAYER_CHOICE), (Variant::Measurement, MEASUREMENT)] {
            for line in file.lines().filter(|line| !line.starts_with('#')) {
                assert_eq!(write_line(&read_line(line, variant).unwrap()), line);
            }
        }
    }

    #[test]
    fn a_last_move_that_makes_two_lines_whichever_way_its_cycle_lands_is_found() {
        // The eight moves span all nine squares without a cycle, so X9 closes
        // one and O chooses how it lands. X9 in squares 3 and 9 gives X the
        // column 3-6-9 and a diagonal either way, both lines finished by X9:
        // two points. Every other X9 leaves O a choice worth less to X.
        let text = "X1+(1,9); O2+(1,7); X3+(3,6); O4+(2,8); X5+(1,5); O6+(4,5); X7+(3,7); O8+(1,2)";
        let log = notation::parse(text, Variant::PlayerChoice).unwrap();
        let game = Game::replay(Variant::PlayerChoice, &log).unwrap();
        let puzzle = find(&game, "here", &mut Solver::default()).unwrap();
        assert_eq!(puzzle.solution[0].action, Action::Move { squares: [Square::ALL[2], Square::ALL[8]] });
        assert_eq!(puzzle.theme, Theme::DoubleLine);
        assert_eq!(puzzle.end().score().x.as_f64(), 2.0);
        assert_eq!(puzzle.solution.len(), 2, "X9, and O's choice");
    }

    #[test]
    fn every_shipped_solution_played_step_by_step_is_solved() {
        for variant in Variant::ALL {
            for puzzle in &shipped(variant).unwrap() {
                let actor = Actor::Player(puzzle.player());
                let (mut attempt, mut solved) = (puzzle.position, false);
                while !solved {
                    let played = attempt.log().len() - puzzle.position.log().len();
                    let (next, step) = puzzle.step(&attempt, puzzle.solution[played].action).unwrap();
                    let Step::Right { reply, solved: done } = step else { panic!("{}", write_line(puzzle)) };
                    assert!(reply.iter().all(|entry| entry.actor != actor));
                    assert_eq!(&next.log()[attempt.log().len() + 1..], reply.as_slice());
                    assert_eq!(puzzle.attempt(&puzzle.line_of(&next)).unwrap(), next);
                    (attempt, solved) = (next, done);
                }
                assert_eq!(attempt, puzzle.end(), "{}", write_line(puzzle));
            }
        }
    }

    #[test]
    fn a_mirrored_action_in_a_symmetric_position_is_right_and_answered_in_its_mirror() {
        // Every move of the position lies on the diagonal 1-5-9 or across it,
        // so the reflection in it (2 and 4, 3 and 7, 6 and 8 trade places)
        // leaves the position as it is. The solution's O4+(2,5) has a mirror,
        // O4+(4,5), which is as good; after it every answer is mirrored.
        let line = "X1+(1,9); O2+(6,8); X3+(1,9); O4!X3(1) | O4+(2,5); X5+(5,8); O6+(2,5); X7!O6(2); X7+(4,7); \
                    O8+(4,7); X9!O8(4) {X1.0,O0.5} | quiet | 1200 | here";
        let puzzle = read_line(line, Variant::PlayerChoice).unwrap();
        let mut attempt = puzzle.position;
        let mut answers = Vec::new();
        for own in ["O4+(4,5)", "O6+(4,5)", "O8+(2,3)"] {
            let transcript = format!("{}; {own}", notation::write(&attempt));
            let action = notation::parse(&transcript, Variant::PlayerChoice).unwrap().last().unwrap().action;
            let (next, step) = puzzle.step(&attempt, action).unwrap();
            let Step::Right { solved, .. } = step else { panic!("{own} is the mirror of the solution's") };
            answers.push((notation::write_from(&next, attempt.log().len() + 1), solved));
            attempt = next;
        }
        assert_eq!(
            answers,
            [
                ("X5+(5,6)".to_string(), false),
                ("X7!O6(4); X7+(2,3)".to_string(), false),
                ("X9!O8(2) {X1.0,O0.5}".to_string(), true)
            ]
        );
        assert_eq!(attempt.score(), puzzle.end().score());
    }

    #[test]
    fn a_wrong_action_fails_and_one_the_rules_refuse_is_refused() {
        let text = "X1+(1,9); O2+(1,7); X3+(3,6); O4+(2,8); X5+(1,5); O6+(4,5); X7+(3,7); O8+(1,2)";
        let game = Game::replay(Variant::PlayerChoice, &notation::parse(text, Variant::PlayerChoice).unwrap()).unwrap();
        let puzzle = find(&game, "here", &mut Solver::default()).unwrap();
        let squares = |a: usize, b: usize| Action::Move { squares: [Square::ALL[a], Square::ALL[b]] };
        let (after_wrong, wrong) = puzzle.step(&puzzle.position, squares(2, 5)).unwrap();
        assert_eq!(wrong, Step::Wrong);
        assert_eq!(after_wrong.log().len(), puzzle.position.log().len() + 1);
        assert_eq!(puzzle.step(&puzzle.position, squares(4, 4)).unwrap_err(), RuleError::SameSquareTwice);
        let (end, right) = puzzle.step(&puzzle.position, squares(2, 8)).unwrap();
        assert_eq!(right, Step::Right { reply: puzzle.solution[1..].to_vec(), solved: true });
        assert_eq!(end, puzzle.end());
        assert_eq!(puzzle.depth(), 1);
    }

    #[test]
    fn the_opening_is_no_puzzle() {
        let mut solver = Solver::default();
        for variant in Variant::ALL {
            assert_eq!(find(&Game::new(variant), "here", &mut solver), None);
        }
    }

    #[test]
    fn a_line_that_does_not_hold_a_puzzle_is_refused_with_the_reason() {
        let refused = |line: &str| read_line(line, Variant::PlayerChoice).unwrap_err().reason;
        assert_eq!(
            refused("X1+(1,2) | O2+(3,4) | quiet | here"),
            "expected five fields: position | solution | theme | rating | source"
        );
        let short = "X1+(1,2) | O2+(3,4) | quiet | 1200 | here";
        assert_eq!(refused(short), "the solution stops before the end of the game");
        let whole = "X1+(1,9); O2+(1,8); X3+(3,7); O4+(3,8); X5+(3,7); O6!X5(7) | \
                     O6+(2,5); X7+(5,6); O8+(2,5); X9!O8(5) {X1.0,O0.5}";
        assert_eq!(refused(&format!("{whole} | sharp | 1200 | here")), "no theme is called \"sharp\"");
        assert_eq!(refused(&format!("{whole} | quiet | hard | here")), "the rating \"hard\" is not a number");
        assert!(refused("X1+(1,1) | O2+(3,4) | quiet | 1200 | here").contains("same_square_twice"));
    }
}
