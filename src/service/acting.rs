//! Acting in a game: a player's move or collapse choice and the bot's answer, a
//! resignation, an abort.

use jiff::Timestamp;
use rand::rngs::StdRng;

use super::{GameRecord, GameService, seat_of};
use crate::bot::{Bot, Stop};
use crate::engine::{Action, Actor, Game, MAX_MOVES, Player, RuleError};
use crate::error::{Error, Fault};
use crate::record::{Ending, Event, GameId, Status};

/// A player's action applied to a game as read from its log, with what follows it.
struct Played {
    /// The game as read.
    record: GameRecord,
    /// The rules' game after the action and what followed it.
    game: Game,
    /// When it is written, in milliseconds since the epoch.
    at: Timestamp,
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
    /// [`Error::WaitingForOpponent`] while a seat is free; [`RuleError::GameOver`]
    /// once the game has ended, by the rules or beside them (a clock run out
    /// included); [`Error::Rule`] for an illegal action.
    fn new(
        record: GameRecord,
        player: Player,
        action: Action,
        plays_forced_moves: bool,
        mut rng: StdRng,
    ) -> Result<Played, Error> {
        match record.status() {
            Status::Finished => return Err(Error::Rule(RuleError::GameOver)),
            Status::Waiting => return Err(Error::WaitingForOpponent),
            Status::Ongoing => {}
        }
        let mut game = record.game;
        game.play_measured(Actor::Player(player), action, &mut rng)?;
        let at = record.now();
        let mut played = Played { record, game, at, plays_forced_moves, rng };
        played.play_forced_move();
        Ok(played)
    }

    /// Plays the last-square move for whoever must make it, when the server plays
    /// forced moves. It ends the game: nothing follows it.
    fn play_forced_move(&mut self) {
        if let Some(squares) = self.game.forced_squares().filter(|_| self.plays_forced_moves) {
            self.game
                .play(Actor::Player(Player::of_move(MAX_MOVES)), Action::Move { squares })
                .expect("the forced move is the one legal action");
        }
    }

    /// The game's bot and its seat, when the bot is to act now.
    fn bot_to_answer(&self) -> Option<(Bot, Player)> {
        let (bot, seat) = (self.record.stored.opponent?, self.record.bot_seat()?);
        (self.game.actor_to_act() == Some(Actor::Player(seat))).then_some((bot, seat))
    }

    /// Lets `bot` act for `seat` as long as it is the one to act, then plays the
    /// forced move that may follow, off the request threads: a perfect bot's
    /// search can take a while.
    ///
    /// # Errors
    /// [`Error::Busy`] when too many searches wait; [`Error::Internal`] when the
    /// bot picks an illegal action, a bug.
    async fn answer_bot(mut self, bot: Bot, seat: Player, service: &GameService) -> Result<Played, Error> {
        service
            .for_bot(bot, move |stop| {
                bot_turns(&mut self.game, bot, seat, &mut self.rng, stop)?;
                self.play_forced_move();
                Ok(self)
            })
            .await
    }

    /// The game with the new entries, and the write that logs them after the
    /// version the game was read at.
    fn written(self) -> Result<(GameRecord, crate::record::Write), Error> {
        let logged = self.record.game.log().len();
        let bot = self.record.bot_seat();
        let events: Vec<(Event, bool)> = self.game.log()[logged..]
            .iter()
            .map(|&entry| (Event::Action(entry), bot.is_some_and(|seat| entry.actor == Actor::Player(seat))))
            .collect();
        self.record.with(&events, None, self.at)
    }
}

/// What the store's unit of work on an action decided.
#[expect(clippy::large_enum_variant, reason = "one a request, moved once: a box would cost an allocation")]
enum Decided {
    /// The action is written: the game as it now stands.
    Written(GameRecord),
    /// The game's bot, in its seat, is to answer first; the action is written
    /// with its answer.
    BotToAnswer(Played, Bot, Player),
}

/// Lets `bot` act for `seat` as long as it is the one to act in `game`, giving up
/// its search once `stop` is set.
///
/// # Errors
/// [`Error::Internal`] when the bot picks an illegal action, a bug.
pub(super) fn bot_turns(game: &mut Game, bot: Bot, seat: Player, rng: &mut StdRng, stop: Stop) -> Result<(), Error> {
    let mut strategy = bot.strategy_stopped_by(stop);
    while game.actor_to_act() == Some(Actor::Player(seat)) {
        let action = strategy.choose(game, rng);
        game.play_measured(Actor::Player(seat), action, rng).map_err(|error| {
            Error::Internal(Fault::caused_by(
                format!("the {} bot chose {action:?}, which breaks a rule", bot.code()),
                error,
            ))
        })?;
    }
    Ok(())
}

impl GameService {
    /// Lets the seat holding `token` take `action` in game `id`. In the measurement
    /// variant a move that closes a cycle is measured here and the outcome logged.
    /// With `expected_version`, the action applies only to that version.
    ///
    /// # Errors
    /// [`Error::NotFound`]; [`Error::Forbidden`] for a token that is no seat of the
    /// game; [`Error::WaitingForOpponent`] while a seat is free; [`Error::Rule`] for
    /// an illegal action or one after the end; [`Error::Conflict`] when the game is
    /// not at `expected_version` or another write lands first; database failures.
    pub async fn act(
        &self,
        id: GameId,
        token: &str,
        action: Action,
        expected_version: Option<i64>,
    ) -> Result<GameRecord, Error> {
        let token_hash = self.check_seat(id, token).await?;
        self.play(id, move |record| seat_of(record, &token_hash, expected_version), action, false).await
    }

    /// Lets the player that `seat` finds in game `id` take `action`, then the
    /// game's bot answer (and, with `plays_forced_moves`, the server play a forced
    /// last-square move), and logs it all. Reading, deciding and logging the
    /// player's action are one unit of the store's work; a bot's search would hold
    /// up every other write, so it runs after, and its answer is logged with the
    /// action, after the version the game was read at.
    pub(super) async fn play(
        &self,
        id: GameId,
        seat: impl Fn(&GameRecord) -> Result<Player, Error> + Send + 'static,
        action: Action,
        plays_forced_moves: bool,
    ) -> Result<GameRecord, Error> {
        let (randomness, now, first_move) = (self.options.randomness.clone(), self.now(), self.options.first_move);
        let decided = self.store.update(id, move |stored| {
            let record = GameRecord::replay(stored, now, first_move)?;
            let player = seat(&record)?;
            let played = Played::new(record, player, action, plays_forced_moves, randomness.rng())?;
            if let Some((bot, seat)) = played.bot_to_answer() {
                return Ok((None, Decided::BotToAnswer(played, bot, seat)));
            }
            let (after, write) = played.written()?;
            Ok::<_, Error>((Some(write), Decided::Written(after)))
        });
        let record = match decided.await? {
            Decided::Written(after) => after,
            // The bot answers after the store's unit of work, and its answer is
            // written with the action.
            Decided::BotToAnswer(played, bot, seat) => {
                let (after, write) = played.answer_bot(bot, seat, self).await?.written()?;
                self.store.write(id, write).await?;
                after
            }
        };
        self.announce(&record);
        self.with_ratings(record).await
    }

    /// `record`, just written, read again if it is rated and the write ended
    /// it: its players' ratings changed with its end, and the answer shows them.
    async fn with_ratings(&self, record: GameRecord) -> Result<GameRecord, Error> {
        if record.status() == Status::Finished { self.rated_again(record).await } else { Ok(record) }
    }

    /// Lets the seat holding `token` resign game `id`: the other player wins.
    /// In a rated game before both players have moved, resigning aborts the
    /// game instead, unrated: a rating is not given away without a game.
    ///
    /// # Errors
    /// As [`GameService::act`]: no seat, a free seat, a game already over.
    pub async fn resign(&self, id: GameId, token: &str, expected_version: Option<i64>) -> Result<GameRecord, Error> {
        let token_hash = self.check_seat(id, token).await?;
        self.end(id, move |record| {
            let player = seat_of(record, &token_hash, expected_version)?;
            match record.status() {
                Status::Finished => Err(Error::Rule(RuleError::GameOver)),
                Status::Waiting => Err(Error::WaitingForOpponent),
                Status::Ongoing if record.stored.rated && !record.both_moved() => Ok(Some(Ending::Abort(Some(player)))),
                Status::Ongoing => Ok(Some(Ending::Resign(player))),
            }
        })
        .await
        .map(|ended| ended.expect("a resignation ends the game"))
    }

    /// Lets the seat holding `token` call game `id` off: while it waits for its
    /// second player, or before both players have made their first move.
    ///
    /// # Errors
    /// [`Error::AbortNotAllowed`] once both players have moved; as
    /// [`GameService::act`] otherwise.
    pub async fn abort(&self, id: GameId, token: &str, expected_version: Option<i64>) -> Result<GameRecord, Error> {
        let token_hash = self.check_seat(id, token).await?;
        self.end(id, move |record| {
            let player = seat_of(record, &token_hash, expected_version)?;
            match record.status() {
                Status::Finished => Err(Error::Rule(RuleError::GameOver)),
                Status::Ongoing if record.both_moved() => Err(Error::AbortNotAllowed),
                Status::Waiting | Status::Ongoing => Ok(Some(Ending::Abort(Some(player)))),
            }
        })
        .await
        .map(|ended| ended.expect("an abort ends the game"))
    }

    /// Lets the seat holding `token` claim game `id`, which has no clock, when
    /// the other player is to act and has been gone for the claim's wait
    /// (`CLAIM_AFTER_SECONDS`): the claimant wins, `abandoned`. The game is
    /// read afresh first, so that a sighting of the other player written by
    /// any instance counts.
    ///
    /// # Errors
    /// [`Error::ClaimNotAllowed`] in a game with a clock (its clock ends it),
    /// against a bot, or on the claimant's own turn; [`Error::TooEarly`] while
    /// the other player is present, or not gone long enough; as
    /// [`GameService::act`] otherwise.
    pub(crate) async fn claim_victory(
        &self,
        id: GameId,
        token: &str,
        expected_version: Option<i64>,
    ) -> Result<GameRecord, Error> {
        let token_hash = self.check_seat(id, token).await?;
        self.record(id).await?;
        let claim_after = self.options.claim_after;
        self.end(id, move |record| {
            let player = seat_of(record, &token_hash, expected_version)?;
            match record.status() {
                Status::Finished => return Err(Error::Rule(RuleError::GameOver)),
                Status::Waiting => return Err(Error::WaitingForOpponent),
                Status::Ongoing => {}
            }
            let claimable = record.claimable(claim_after).filter(|&(gone, _)| gone != player);
            let (gone, claim_from) = claimable.ok_or_else(|| {
                Error::ClaimNotAllowed(if record.stored.clock.is_some() {
                    "a game with a clock is not claimed: the clock of a player who walked away runs out".into()
                } else if record.to_act() == Some(player) {
                    "it is your turn: a game is claimed against the player to act".into()
                } else {
                    "a bot never walks away".into()
                })
            })?;
            if record.now() < claim_from {
                return Err(Error::TooEarly(format!(
                    "{gone} is {}; the game can be claimed from {}",
                    if record.is_present(gone) { "here" } else { "gone, not long enough" },
                    crate::record::stamp(claim_from)
                )));
            }
            Ok(Some(Ending::Abandon(gone)))
        })
        .await
        .map(|ended| ended.expect("a claim granted ends the game"))
    }

    /// Ends game `id` as `ending` decides from the game as read (or leaves it as
    /// it is, when that says none), and logs it; answers the game if it ended it.
    pub(super) async fn end(
        &self,
        id: GameId,
        ending: impl Fn(&GameRecord) -> Result<Option<Ending>, Error> + Send + 'static,
    ) -> Result<Option<GameRecord>, Error> {
        self.log(id, move |record| Ok(ending(record)?.map(Event::Ended))).await
    }

    /// Logs the event `decide` decides from game `id` as read (nothing, when it
    /// says none); answers the game if it logged one.
    async fn log(
        &self,
        id: GameId,
        decide: impl Fn(&GameRecord) -> Result<Option<Event>, Error> + Send + 'static,
    ) -> Result<Option<GameRecord>, Error> {
        let (now, first_move) = (self.now(), self.options.first_move);
        let logged = self
            .store
            .update(id, move |stored| {
                let record = GameRecord::replay(stored, now, first_move)?;
                let Some(event) = decide(&record)? else { return Ok((None, None)) };
                let (after, write) = record.with(&[(event, false)], None, now)?;
                Ok::<_, Error>((Some(write), Some(after)))
            })
            .await?;
        let Some(record) = logged else { return Ok(None) };
        self.announce(&record);
        self.with_ratings(record).await.map(Some)
    }

    /// Lets the seat holding `token` offer a draw in game `id`, or, when the
    /// other player's offer stands, accept it: the game is drawn, `agreement`.
    /// An offer of one's own that stands already changes nothing.
    ///
    /// # Errors
    /// [`Error::DrawNotAllowed`] against a bot; as [`GameService::act`] otherwise.
    pub(crate) async fn offer_draw(
        &self,
        id: GameId,
        token: &str,
        expected_version: Option<i64>,
    ) -> Result<GameRecord, Error> {
        self.answer_draw(id, token, expected_version, true).await
    }

    /// Lets the seat holding `token` decline the other player's offer of a draw
    /// in game `id`.
    ///
    /// # Errors
    /// [`Error::DrawNotAllowed`] with no offer of the other player's standing;
    /// as [`GameService::act`] otherwise.
    pub(crate) async fn decline_draw(
        &self,
        id: GameId,
        token: &str,
        expected_version: Option<i64>,
    ) -> Result<GameRecord, Error> {
        self.answer_draw(id, token, expected_version, false).await
    }

    /// Offers (`agree`) or declines a draw for the seat holding `token`, as
    /// [`draw_step`] decides.
    async fn answer_draw(
        &self,
        id: GameId,
        token: &str,
        expected_version: Option<i64>,
        agree: bool,
    ) -> Result<GameRecord, Error> {
        let token_hash = self.check_seat(id, token).await?;
        let logged = self
            .log(id, move |record| draw_step(record, seat_of(record, &token_hash, expected_version)?, agree))
            .await?;
        match logged {
            Some(record) => Ok(record),
            None => self.record(id).await,
        }
    }

    /// Plays `action` in the original app's game for the side to move (and the
    /// bot's answer against the computer). A forced last-square move that follows
    /// is played too, for whoever must make it: the original frontend cannot send
    /// one, and would be stuck.
    ///
    /// # Errors
    /// [`Error::Rule`] for an illegal action; [`Error::Conflict`] when another
    /// write lands first; database failures.
    pub(crate) async fn move_in_original_app_game(&self, action: Action) -> Result<(GameRecord, Player), Error> {
        // The game is read once, where the move is decided.
        let (id, play_as) = self.original_app_game_id().await?;
        let side_to_move = |record: &GameRecord| Ok(record.game.next_to_move().map_or(Player::X, |(player, _)| player));
        Ok((self.play(id, side_to_move, action, true).await?, play_as))
    }
}

/// What `player`'s offer of a draw (`agree`) or decline writes in `record`'s
/// game: an offer; the end, `agreement`, when the other player's offer stands;
/// nothing when the player's own stands; a decline of the other's offer.
fn draw_step(record: &GameRecord, player: Player, agree: bool) -> Result<Option<Event>, Error> {
    match record.status() {
        Status::Finished => return Err(Error::Rule(RuleError::GameOver)),
        Status::Waiting => return Err(Error::WaitingForOpponent),
        Status::Ongoing => {}
    }
    if record.bot_seat().is_some() {
        return Err(Error::DrawNotAllowed("a bot plays every game to its end: it takes no draw".into()));
    }
    let standing = record.draw_offer();
    match (agree, standing) {
        (true, Some(offered)) if offered == player => Ok(None),
        (true, Some(_)) => Ok(Some(Event::Ended(Ending::Agreement(player)))),
        (true, None) => Ok(Some(Event::DrawOffer(player))),
        (false, Some(offered)) if offered != player => Ok(Some(Event::DrawDecline(player))),
        (false, _) => Err(Error::DrawNotAllowed("there is no offer of a draw by the other player to decline".into())),
    }
}
