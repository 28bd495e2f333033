//! A game: a pure fold over its log of moves and collapse outcomes.

use std::fmt;

use rand::Rng;

use super::RuleError;
use super::board::{MAX_MOVES, Mark, MoveNumber, Player, Square};
use super::collapse::Collapse;
use super::graph;
use super::measurement::{self, SquareProbabilities};
use super::moves::{Action, Actor, LogEntry, Move, Rules, Variant};
use super::scoring::{self, GameResult, Line, Score, Scoring};
use super::stack::Stack;

/// A log entry that cannot be replayed: the log is corrupt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReplayError {
    /// The position of the entry in the log, from 0.
    pub entry: usize,
    /// The rule the entry breaks.
    pub error: RuleError,
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "log entry {} breaks a rule: {} ({})", self.entry, self.error, self.error.code())
    }
}

impl std::error::Error for ReplayError {}

/// A game of Quantum Tic-Tac-Toe.
///
/// Every change goes through [`Game::play`], which checks the action against the
/// rules first and changes nothing when it is illegal.
///
/// ```
/// use qttt::engine::{Action, Actor, Game, Player, Square, Variant};
///
/// let square = |s| Square::try_from(s).unwrap();
/// let mut game = Game::new(Variant::PlayerChoice);
/// game.play(Actor::Player(Player::X), Action::Move { squares: [square(0), square(1)] })?;
/// assert_eq!(game.next_to_move(), Some((Player::O, 2)));
/// # Ok::<(), qttt::engine::RuleError>(())
/// ```
///
/// A game is `Copy` and never touches the heap: a search copies positions by the
/// million. Every stack is sized by the rules: nine moves; at most four collapses,
/// since each lands two moves or more; at most thirteen log entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Game {
    rules: Rules,
    /// Every move placed so far; move `n` is at index `n - 1`.
    moves: Stack<Move, 9>,
    /// The move whose classical mark fills each square.
    classical: [Option<MoveNumber>; 9],
    /// Every collapse so far in order; only the last can still be pending.
    collapses: Stack<Collapse, 4>,
    /// Kept rather than recomputed because only a collapse can change them.
    lines: Stack<Line, 8>,
    log: Stack<LogEntry, 13>,
}

impl Game {
    /// An empty board, to be played by `rules` (a variant alone: with Goff's scoring).
    pub fn new(rules: impl Into<Rules>) -> Game {
        Game {
            rules: rules.into(),
            moves: Stack::default(),
            classical: [None; 9],
            collapses: Stack::default(),
            lines: Stack::default(),
            log: Stack::default(),
        }
    }

    /// The game that `log` describes, played entry by entry. Nothing is measured:
    /// a measurement's outcome is an entry of the log.
    ///
    /// # Errors
    /// The first entry that breaks a rule.
    pub fn replay(rules: impl Into<Rules>, log: &[LogEntry]) -> Result<Game, ReplayError> {
        let mut game = Game::new(rules);
        for (entry, logged) in log.iter().enumerate() {
            game.play(logged.actor, logged.action).map_err(|error| ReplayError { entry, error })?;
        }
        Ok(game)
    }

    /// Lets `actor` take `action`.
    ///
    /// # Errors
    /// The rule the action breaks; the game is then unchanged.
    pub fn play(&mut self, actor: Actor, action: Action) -> Result<(), RuleError> {
        if self.is_over() {
            return Err(RuleError::GameOver);
        }
        match action {
            Action::Move { squares } => self.place(actor, squares),
            Action::Collapse { move_number, square } => self.collapse(actor, move_number, square),
        }
    }

    /// Plays `action` as [`Game::play`] does, then, when it closed a cycle in the
    /// measurement variant, measures the cycle and plays the outcome as the
    /// measurement's own log entry.
    ///
    /// # Errors
    /// The rule the action breaks; the game is then unchanged.
    pub fn play_measured(
        &mut self,
        actor: Actor,
        action: Action,
        rng: &mut (impl Rng + ?Sized),
    ) -> Result<(), RuleError> {
        self.play(actor, action)?;
        if let Some(pending) = self.pending_collapse()
            && pending.chooser == Actor::Measurement
        {
            let square = measurement::measure_cycle(&self.moves, pending, rng);
            let closing_move = pending.closing_move;
            self.play(Actor::Measurement, Action::Collapse { move_number: closing_move, square })
                .expect("a measured outcome is one of the pending options");
        }
        Ok(())
    }

    fn place(&mut self, actor: Actor, squares: [Square; 2]) -> Result<(), RuleError> {
        if self.pending_collapse().is_some() {
            return Err(RuleError::CollapsePending);
        }
        let number = self.next_move_number();
        let player = Player::of_move(number);
        if actor != Actor::Player(player) {
            return Err(RuleError::NotYourTurn);
        }
        if squares.iter().any(|square| self.classical[square.index()].is_some()) {
            return Err(RuleError::SquareIsClassical);
        }
        let [a, b] = squares;
        if a == b {
            if self.open_squares().count() != 1 {
                return Err(RuleError::SameSquareTwice);
            }
            // The last open square: both marks there, classical at once.
            self.moves.push(Move { move_number: number, squares, landed: Some(a) });
            self.classical[a.index()] = Some(number);
            self.lines = scoring::completed_lines(&self.classical, self.rules.scoring);
        } else {
            let squares = [a.min(b), a.max(b)];
            let path = graph::path_between(&self.moves, a, b);
            self.moves.push(Move { move_number: number, squares, landed: None });
            if let Some(path) = path {
                let chooser = match self.rules.variant {
                    Variant::PlayerChoice => Actor::Player(player.other()),
                    Variant::Measurement => Actor::Measurement,
                };
                self.collapses.push(Collapse::new(&self.moves, path, chooser));
            }
        }
        self.log
            .push(LogEntry { actor, action: Action::Move { squares: self.moves[usize::from(number) - 1].squares } });
        Ok(())
    }

    fn collapse(&mut self, actor: Actor, move_number: MoveNumber, square: Square) -> Result<(), RuleError> {
        // The pending collapse, borrowed by field so that the board can change
        // beside it.
        let pending = self
            .collapses
            .last_mut()
            .filter(|collapse| collapse.square.is_none())
            .ok_or(RuleError::NoCollapsePending)?;
        if actor != pending.chooser {
            return Err(RuleError::NotTheChooser);
        }
        let option = pending.option_where(move_number, square)?;
        for &(number, landed) in &option.outcome {
            self.moves[usize::from(number) - 1].landed = Some(landed);
            self.classical[landed.index()] = Some(number);
        }
        // Logged by the closing move, whichever cycle move the chooser named: the
        // same outcome always reads the same in the log.
        let canonical = Action::Collapse { move_number: pending.closing_move, square: option.square };
        pending.square = Some(option.square);
        self.log.push(LogEntry { actor, action: canonical });
        self.lines = scoring::completed_lines(&self.classical, self.rules.scoring);
        Ok(())
    }

    /// The rules this game is played by.
    pub fn rules(&self) -> Rules {
        self.rules
    }

    /// The collapse rule of this game.
    pub fn variant(&self) -> Variant {
        self.rules.variant
    }

    /// How this game's lines score.
    pub fn scoring(&self) -> Scoring {
        self.rules.scoring
    }

    /// The log that rebuilds this game through [`Game::replay`]. Entries are in
    /// canonical form: a move's squares ascending, and a collapse named by the
    /// closing move and the square it ends in.
    pub fn log(&self) -> &[LogEntry] {
        &self.log
    }

    /// Every move placed so far, in order.
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// The classical mark in `square`, if any.
    pub fn classical(&self, square: Square) -> Option<Mark> {
        self.classical[square.index()].map(|move_number| Mark { move_number })
    }

    /// The spooky marks in `square`, in move order.
    pub fn spooky(&self, square: Square) -> impl Iterator<Item = Mark> + '_ {
        self.moves
            .iter()
            .filter(move |m| m.landed.is_none() && m.squares.contains(&square))
            .map(|m| Mark { move_number: m.move_number })
    }

    /// The squares without a classical mark.
    pub fn open_squares(&self) -> impl Iterator<Item = Square> + '_ {
        Square::ALL.into_iter().filter(|square| self.classical[square.index()].is_none())
    }

    /// The closed cycle waiting for its collapse to be decided, if any.
    pub fn pending_collapse(&self) -> Option<&Collapse> {
        self.collapses.last().filter(|collapse| collapse.square.is_none())
    }

    /// Every collapse so far, decided or pending, in order.
    pub fn collapses(&self) -> &[Collapse] {
        &self.collapses
    }

    /// The player to place the next move and its number, unless a collapse is
    /// pending or the game is over.
    pub fn next_to_move(&self) -> Option<(Player, MoveNumber)> {
        if self.is_over() || self.pending_collapse().is_some() {
            return None;
        }
        let number = self.next_move_number();
        Some((Player::of_move(number), number))
    }

    /// The number the next move takes: one more than the moves placed.
    pub(crate) fn next_move_number(&self) -> MoveNumber {
        MoveNumber::try_from(self.moves.len()).expect("a game holds at most nine moves") + 1
    }

    /// Who must act next: the chooser of a pending collapse, or the player to move.
    pub fn actor_to_act(&self) -> Option<Actor> {
        match (self.pending_collapse(), self.next_to_move()) {
            (Some(pending), _) => Some(pending.chooser),
            (None, Some((player, _))) => Some(Actor::Player(player)),
            (None, None) => None,
        }
    }

    /// Every legal action of [`Game::actor_to_act`]: both options of a pending
    /// collapse (named by the closing move), or every move, or nothing at the end.
    pub fn legal_actions(&self) -> Stack<Action, 36> {
        if let Some(pending) = self.pending_collapse() {
            return pending
                .options
                .iter()
                .map(|option| Action::Collapse { move_number: pending.closing_move, square: option.square })
                .collect();
        }
        let mut actions = Stack::default();
        if self.is_over() {
            return actions;
        }
        if let Some(squares) = self.forced_squares() {
            actions.push(Action::Move { squares });
            return actions;
        }
        let open: Stack<Square, 9> = self.open_squares().collect();
        for (i, &a) in open.iter().enumerate() {
            for &b in &open[i + 1..] {
                actions.push(Action::Move { squares: [a, b] });
            }
        }
        actions
    }

    /// The last-square move, when it is the only move left: after move 8 one
    /// square alone is open, and X's move 9 puts both marks there. `None` while a
    /// collapse is pending, after the end, and whenever a player has a choice.
    pub fn forced_squares(&self) -> Option<[Square; 2]> {
        self.next_to_move()?;
        let mut open = self.open_squares();
        match (open.next(), open.next()) {
            (Some(last), None) => Some([last, last]),
            _ => None,
        }
    }

    /// True once a collapse made a line, or all nine moves are placed and settled.
    pub fn is_over(&self) -> bool {
        !self.lines.is_empty() || (self.pending_collapse().is_none() && self.moves.len() == usize::from(MAX_MOVES))
    }

    /// Every completed line, scored.
    pub fn lines(&self) -> &[Line] {
        &self.lines
    }

    /// Each player's points so far.
    pub fn score(&self) -> Score {
        scoring::score(&self.lines)
    }

    /// What each square would hold if every unresolved move were measured now.
    /// Once the game is over the spooky marks left no longer matter: a square
    /// without a classical mark stays empty.
    pub fn square_probabilities(&self) -> [SquareProbabilities; 9] {
        if self.is_over() {
            return self.settled_square_probabilities();
        }
        measurement::square_probabilities(&self.moves, &self.classical)
    }

    /// The odds once nothing more will be measured, as at the end of a game: each
    /// classical mark certain, every other square empty.
    pub(crate) fn settled_square_probabilities(&self) -> [SquareProbabilities; 9] {
        measurement::square_probabilities(&[], &self.classical)
    }

    /// Ongoing, or who won.
    pub fn result(&self) -> GameResult {
        if self.is_over() { scoring::result_of_finished(self.score()) } else { GameResult::Ongoing }
    }
}
