//! The only orchestrator: load the log, replay it, apply the action, append.

mod randomness;
mod records;

use std::sync::Arc;

use rand::rngs::StdRng;
use tokio::sync::broadcast;

use crate::bot::{Bot, Solution, Solver};
use crate::engine::{Action, Actor, Game, LogEntry, Player, RuleError, Variant};
use crate::error::Error;
use crate::live::Hub;
use crate::store::{NewEntry, NewGame, Notice, Store, Write};
use crate::token;

pub use randomness::Randomness;
pub use records::{Event, GameRecord, GameSettings, ListedGame, Page, Status, StoredEntry, StoredGame, Summary};
use records::{bot_seat, open_seats, summary};

/// A player's action applied to a game as read from its log, with what follows it.
struct Played {
    stored: StoredGame,
    game: Game,
    /// The engine's log entries the stored log already holds.
    logged: usize,
    open_seats: Vec<Player>,
    /// The game's summary before the action.
    before: Summary,
    /// Whether the server plays a forced last-square move itself, for a client that
    /// cannot send one (the original app's frontend sends two different squares).
    plays_forced_moves: bool,
    /// For the measurements and the bot's choices.
    rng: StdRng,
}

impl Played {
    /// `player`'s `action` in the game of `record`, and the forced move after it
    /// when the server plays those.
    ///
    /// # Errors
    /// [`Error::Rule`] for an illegal action.
    fn new(
        record: GameRecord,
        player: Player,
        action: Action,
        plays_forced_moves: bool,
        mut rng: StdRng,
    ) -> Result<Played, Error> {
        let GameRecord { stored, mut game } = record;
        let logged = game.log().len();
        let open_seats = open_seats(&stored.log);
        let before = summary(&game, &open_seats);
        game.play_measured(Actor::Player(player), action, &mut rng)?;
        let mut played = Played { stored, game, logged, open_seats, before, plays_forced_moves, rng };
        played.play_forced_move();
        Ok(played)
    }

    /// Plays the last-square move for whoever must make it, when the server plays
    /// forced moves. It ends the game: nothing follows it.
    fn play_forced_move(&mut self) {
        if let Some(squares) = self.game.forced_squares().filter(|_| self.plays_forced_moves) {
            let player = Player::of_move(crate::engine::MAX_MOVES);
            self.game
                .play(Actor::Player(player), Action::Move { squares })
                .expect("the forced move is the one legal action");
        }
    }

    /// The game's bot and its seat, when the bot is to act now.
    fn bot_to_answer(&self) -> Option<(Bot, Player)> {
        let (bot, seat) = (self.stored.opponent?, bot_seat(&self.stored.log)?);
        (self.game.actor_to_act() == Some(Actor::Player(seat))).then_some((bot, seat))
    }

    /// Lets the bot act as long as it is the one to act, then plays the forced
    /// move that may follow, off the request threads: a perfect bot's search can
    /// take a while.
    ///
    /// # Errors
    /// [`Error::Internal`] when the bot picks an illegal action, a bug.
    async fn answer_bot(mut self) -> Result<Played, Error> {
        off_request_threads("the bot", move || {
            if let Some((bot, seat)) = self.bot_to_answer() {
                bot_turns(&mut self.game, bot, seat, &mut self.rng)?;
            }
            self.play_forced_move();
            Ok(self)
        })
        .await
    }

    /// The write that logs the new entries after the version the game was read at.
    fn write(&self) -> Write {
        let after = summary(&self.game, &self.open_seats);
        Write {
            after: self.stored.version(),
            seat: None,
            entries: new_entries(&self.game.log()[self.logged..], bot_seat(&self.stored.log)).collect(),
            new_summary: (after != self.before).then_some(after),
        }
    }

    /// The game with `written`, the entries as stored, in its log.
    fn into_record(self, written: Vec<StoredEntry>) -> GameRecord {
        let Played { mut stored, game, .. } = self;
        stored.log.extend(written);
        GameRecord { stored, game }
    }
}

/// The engine's new log entries as entries to store, those of the bot's seat
/// marked as the bot's.
fn new_entries(entries: &[LogEntry], bot_seat: Option<Player>) -> impl Iterator<Item = NewEntry> + '_ {
    entries.iter().map(move |&entry| NewEntry {
        event: Event::Action(entry),
        by_bot: bot_seat.is_some_and(|seat| entry.actor == Actor::Player(seat)),
    })
}

/// Lets `bot` act for `seat` as long as it is the one to act in `game`.
///
/// # Errors
/// [`Error::Internal`] when the bot picks an illegal action, a bug.
fn bot_turns(game: &mut Game, bot: Bot, seat: Player, rng: &mut StdRng) -> Result<(), Error> {
    let mut strategy = bot.strategy();
    while game.actor_to_act() == Some(Actor::Player(seat)) {
        let action = strategy.choose(game, rng);
        game.play_measured(Actor::Player(seat), action, rng).map_err(|error| {
            Error::Internal(format!("the {} bot chose {action:?}, which breaks a rule: {error}", bot.code()))
        })?;
    }
    Ok(())
}

/// Runs `work` on a thread for blocking work, off the threads that serve requests:
/// a search can take a while. `what` names the work in the error of a failed thread.
async fn off_request_threads<T: Send + 'static>(
    what: &str,
    work: impl FnOnce() -> Result<T, Error> + Send + 'static,
) -> Result<T, Error> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|error| Error::Internal(format!("{what}'s thread failed: {error}")))?
}

/// What perfect play makes of a position: the best action for the side to act.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hint {
    /// The game's collapse rule, which says whether the value is sure or expected.
    pub variant: Variant,
    /// The player to act: a measurement never waits to be asked.
    pub player: Player,
    /// The best action and the final score difference X minus O it leads to.
    pub solution: Solution,
}

/// A seat and the token that proves it: the token is shown once, at seating.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seat {
    /// The seat's player.
    pub player: Player,
    /// The bearer token that acts for the seat.
    pub token: String,
}

/// The games service: every request goes through here.
#[derive(Debug, Clone)]
pub struct GameService {
    store: Store,
    /// Shared by the clones every worker holds, so that a write on one worker
    /// wakes the watchers on all.
    hub: Arc<Hub>,
    randomness: Randomness,
}

impl GameService {
    /// A service over `store`, measuring and letting bots choose with `randomness`.
    pub fn new(store: Store, randomness: Randomness) -> GameService {
        GameService { store, hub: Arc::default(), randomness }
    }

    /// Starts watching game `id`: the receiver hears each of its new versions.
    pub fn watch(&self, id: i64) -> broadcast::Receiver<i64> {
        self.hub.watch(id)
    }

    /// Passes on news of a change another instance wrote to the watchers here.
    pub fn hear(&self, notice: Notice) {
        match notice {
            Notice::Changed { id, version } => self.hub.publish(id, version),
            Notice::MaybeMissed => self.hub.publish_everywhere(),
        }
    }

    /// Ends every live event stream; for shutting down.
    pub fn close_live_streams(&self) {
        self.hub.close();
    }

    /// Checks that the database answers.
    ///
    /// # Errors
    /// [`Error::Unavailable`] when it does not.
    pub async fn ready(&self) -> Result<(), Error> {
        // Whatever the failure, the database does not answer as it should.
        self.store.ping().await.map_err(|error| Error::Unavailable(error.to_string()))
    }

    /// Creates a game as `settings` say, with the caller in the seat of `play_as`;
    /// with an opponent, a bot takes the other seat and opens when it is X.
    ///
    /// # Errors
    /// When the database fails.
    pub async fn create_game(&self, settings: GameSettings) -> Result<(GameRecord, Seat), Error> {
        let GameSettings { variant, play_as, opponent, hints } = settings;
        let token = token::new_token();
        let mut game = Game::new(variant);
        let mut opening = Vec::new();
        let mut open_seats = vec![play_as.other()];
        if let Some(bot) = opponent {
            let seat = play_as.other();
            opening.push(NewEntry { event: Event::SeatTaken(seat), by_bot: true });
            let mut rng = self.randomness.rng();
            game = off_request_threads("the bot", move || {
                bot_turns(&mut game, bot, seat, &mut rng)?;
                Ok(game)
            })
            .await?;
            opening.extend(new_entries(game.log(), Some(seat)));
            open_seats.clear();
        }
        let new = NewGame {
            variant,
            play_as,
            token_hash: token::hash(&token),
            opponent,
            hints: hints.unwrap_or(opponent.is_some()),
            opening,
            summary: summary(&game, &open_seats),
        };
        let stored = self.store.create_game(new).await?;
        self.hub.publish(stored.id, stored.version());
        Ok((GameRecord { stored, game }, Seat { player: play_as, token }))
    }

    /// Seats the caller in the free seat of game `id` (X first).
    ///
    /// # Errors
    /// [`Error::NotFound`]; [`Error::Conflict`] when both seats are taken or the game
    /// is over; database failures.
    pub async fn join(&self, id: i64) -> Result<(GameRecord, Seat), Error> {
        let token = token::new_token();
        let token_hash = token::hash(&token);
        let seat_hash = token_hash.clone();
        let decided = self.store.update(id, move |stored| {
            let GameRecord { stored, game } = GameRecord::replay(stored)?;
            // A bot's seat is logged as taken like any other.
            let Some(&player) = open_seats(&stored.log).first() else {
                return Err(Error::Conflict {
                    detail: "both seats of this game are taken".into(),
                    current_version: None,
                });
            };
            if game.is_over() {
                return Err(Error::Conflict { detail: "this game is over".into(), current_version: None });
            }
            let write = Write {
                after: stored.version(),
                seat: Some((player, seat_hash)),
                entries: vec![NewEntry { event: Event::SeatTaken(player), by_bot: false }],
                new_summary: Some(summary(&game, &[])),
            };
            Ok((Some(write), (stored, game, player)))
        });
        let (written, (mut stored, game, player)) = decided.await?;
        stored.log.extend(written);
        stored.token_hashes.push((player, token_hash));
        self.hub.publish(id, stored.version());
        Ok((GameRecord { stored, game }, Seat { player, token }))
    }

    /// Game `id`, replayed from its log.
    ///
    /// # Errors
    /// [`Error::NotFound`]; a corrupt log; database failures.
    pub async fn game(&self, id: i64) -> Result<GameRecord, Error> {
        let stored = self.store.load_game(id).await?;
        GameRecord::replay(stored)
    }

    /// Lets the seat holding `token` take `action` in game `id`. In the measurement
    /// variant a move that closes a cycle is measured here and the outcome logged.
    /// With `expected_version`, the action applies only to that version.
    ///
    /// # Errors
    /// [`Error::NotFound`]; [`Error::Forbidden`] for a token that is no seat of the
    /// game; [`Error::Rule`] for an illegal action; [`Error::Conflict`] when the game
    /// is not at `expected_version` or another write lands first; database failures.
    pub async fn act(
        &self,
        id: i64,
        token: &str,
        action: Action,
        expected_version: Option<i64>,
    ) -> Result<GameRecord, Error> {
        let token_hash = token::hash(token);
        let seat = move |record: &GameRecord| {
            let player = record
                .stored
                .seat_of(&token_hash)
                .ok_or_else(|| Error::Forbidden("this token holds no seat of this game".into()))?;
            let version = record.version();
            if let Some(expected) = expected_version.filter(|&expected| expected != version) {
                return Err(Error::Conflict {
                    detail: format!("the request was for version {expected}, and the game is at version {version}"),
                    current_version: Some(version),
                });
            }
            Ok(player)
        };
        self.play(id, seat, action, false).await
    }

    /// Lets the player that `seat` finds in game `id` take `action`, then the
    /// game's bot answer (and, with `plays_forced_moves`, the server play a forced
    /// last-square move), and logs it all. Reading, deciding and logging the
    /// player's action are one unit of the store's work; a bot's search would hold
    /// up every other write, so it runs after, and its answer is logged with the
    /// action, after the version the game was read at.
    async fn play(
        &self,
        id: i64,
        seat: impl FnOnce(&GameRecord) -> Result<Player, Error> + Send + 'static,
        action: Action,
        plays_forced_moves: bool,
    ) -> Result<GameRecord, Error> {
        let rng = self.randomness.rng();
        let decided = self.store.update(id, move |stored| {
            let record = GameRecord::replay(stored)?;
            let player = seat(&record)?;
            let played = Played::new(record, player, action, plays_forced_moves, rng)?;
            let write = played.bot_to_answer().is_none().then(|| played.write());
            Ok::<_, Error>((write, played))
        });
        let (mut written, mut played) = decided.await?;
        if played.bot_to_answer().is_some() {
            played = played.answer_bot().await?;
            written = self.store.write(id, played.write()).await?;
        }
        let record = played.into_record(written);
        self.hub.publish(id, record.version());
        Ok(record)
    }

    /// The one game the original app's routes play, and the seat its player chose;
    /// a measurement game against the parasite bot, the player X, the first time.
    ///
    /// # Errors
    /// A corrupt log; database failures.
    pub async fn shared_game(&self) -> Result<(GameRecord, Player), Error> {
        let (id, play_as) = self.shared_game_id().await?;
        Ok((self.game(id).await?, play_as))
    }

    /// The id of the original app's game and its player's mark, the game created
    /// as [`GameService::shared_game`] says the first time.
    async fn shared_game_id(&self) -> Result<(i64, Player), Error> {
        match self.store.shared_game().await? {
            Some(shared) => Ok(shared),
            None => {
                let (record, play_as) = self.reset_shared_game(true, Player::X).await?;
                Ok((record.stored.id, play_as))
            }
        }
    }

    /// Points the original app's routes at a new measurement game: against the
    /// parasite bot holding the other mark when `against_bot`, else two players
    /// taking turns at one screen.
    ///
    /// # Errors
    /// Database failures.
    pub async fn reset_shared_game(&self, against_bot: bool, play_as: Player) -> Result<(GameRecord, Player), Error> {
        let opponent = against_bot.then_some(Bot::Parasite { mistake_chance: Bot::DEFAULT_MISTAKE_CHANCE });
        let settings = GameSettings { variant: Variant::Measurement, play_as, opponent, hints: None };
        let (record, _) = self.create_game(settings).await?;
        self.store.set_shared_game(record.stored.id, play_as).await?;
        Ok((record, play_as))
    }

    /// Plays `action` in the original app's game for the side to move (and the
    /// bot's answer against the computer). A forced last-square move that follows
    /// is played too, for whoever must make it: the original frontend cannot send
    /// one, and would be stuck.
    ///
    /// # Errors
    /// [`Error::Rule`] for an illegal action; [`Error::Conflict`] when another
    /// write lands first; database failures.
    pub async fn move_in_shared_game(&self, action: Action) -> Result<(GameRecord, Player), Error> {
        // The game is read once, where the move is decided.
        let (id, play_as) = self.shared_game_id().await?;
        let side_to_move = |record: &GameRecord| Ok(record.game.next_to_move().map_or(Player::X, |(player, _)| player));
        Ok((self.play(id, side_to_move, action, true).await?, play_as))
    }

    /// The best action of game `id` for the side to act, by exact search.
    ///
    /// # Errors
    /// [`Error::NotFound`]; [`RuleError::GameOver`] when nobody is to act; a corrupt
    /// log; database failures.
    pub async fn hint(&self, id: i64) -> Result<(GameRecord, Hint), Error> {
        let record = self.game(id).await?;
        let Some(Actor::Player(player)) = record.game.actor_to_act() else {
            return Err(Error::Rule(RuleError::GameOver));
        };
        if !record.stored.hints {
            return Err(Error::HintsDisabled);
        }
        let game = record.game;
        let solution = off_request_threads("the search", move || Ok(Solver::default().answer(&game))).await?;
        let hint = Hint { variant: record.game.variant(), player, solution };
        Ok((record, hint))
    }

    /// A page of games, newest first: up to `limit`, older than `before` if given,
    /// with `status` if given.
    ///
    /// # Errors
    /// Database failures.
    pub async fn list(&self, page: Page) -> Result<Vec<ListedGame>, Error> {
        Ok(self.store.list_games(page).await?)
    }
}
