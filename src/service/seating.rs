//! Seating players: creating a game, joining it, a rematch, and the original
//! app's one game.

use super::acting::bot_turns;
use super::bots::Side;
use super::seat_of;
use super::{GameRecord, GameService, NewGame, Seat};
use crate::bot::Bot;
use crate::engine::{Game, Player, Rules, Scoring, Variant};
use crate::error::Error;
use crate::record::{Ending, Event, GameId, GameSettings, Holder, RematchOf, Status, StoredSeat};
use crate::token;

/// Who takes a seat.
enum Seating {
    /// Anyone joining a game, with the invite's hash a private game needs.
    Join { invite_hash: Option<Vec<u8>> },
    /// The other player of a finished game, taking the seat its rematch keeps.
    Rematch { kept_for: Player },
}

/// A seat for the caller: a new token, and the player who takes it, if one does.
pub(super) fn new_seat(player: Player, holder: Option<Holder>) -> (StoredSeat, String) {
    let token = token::new_token();
    (StoredSeat { player, token_hash: token::hash(&token), holder, last_seen_at: None }, token)
}

impl GameService {
    /// Creates a game as `settings` say, with the caller in the seat of `play_as`;
    /// with an opponent, a bot takes the other seat and opens when it is X.
    ///
    /// # Errors
    /// When the database fails.
    pub async fn create_game(&self, settings: GameSettings) -> Result<(GameRecord, Seat), Error> {
        self.create_game_by(settings, None).await
    }

    /// Creates a game as [`GameService::create_game`] does, its seat held by
    /// `creator` when a player creates it.
    ///
    /// # Errors
    /// When the database fails.
    pub(crate) async fn create_game_by(
        &self,
        settings: GameSettings,
        creator: Option<Holder>,
    ) -> Result<(GameRecord, Seat), Error> {
        self.create(settings, None, creator).await
    }

    /// Creates a game as [`GameService::create_game`] does; with `rematch`, as the
    /// rematch of another, whose log says so in the same transaction.
    ///
    /// # Errors
    /// [`Error::Conflict`] when the other game's log already holds the rematch's
    /// place; when the database fails.
    async fn create(
        &self,
        settings: GameSettings,
        rematch: Option<RematchOf>,
        creator: Option<Holder>,
    ) -> Result<(GameRecord, Seat), Error> {
        let GameSettings { variant, scoring, play_as, opponent, hints, clock, private, rated } = settings;
        if rated && creator.is_none() {
            return Err(Error::Unauthenticated(
                "a rated game is between players: create it with your player token as the bearer".into(),
            ));
        }
        rated_by_goff(rated, scoring)?;
        if rated && hints == Some(true) {
            return Err(Error::RatedGame(
                "a rated game gives no hints: leave out \"hints\", or make the game casual".into(),
            ));
        }
        if rated && opponent.is_some_and(|bot| bot.rated().is_none()) {
            return Err(Error::RatedGame(format!(
                "a rated game against the parasite bot is against its rated level, whose mistake_chance is {}",
                Bot::DEFAULT_MISTAKE_CHANCE
            )));
        }
        if opponent.is_some() {
            let creator_side = creator.as_ref().map_or(Side::Person, Side::held_by);
            self.admit_bot_game(rated, [creator_side, Side::ServerBot]).await?;
        }
        let invite = private.then(token::new_token);
        let (seat, token) = new_seat(play_as, creator);
        let token_hash = seat.token_hash.clone();
        let mut events = vec![(Event::SeatTaken(play_as), false)];
        if let Some(bot) = opponent {
            events.extend(self.bot_seated(Rules { variant, scoring }, bot, play_as.other()).await?);
        }
        let new = NewGame {
            variant,
            scoring,
            opponent,
            hints: !rated && hints.unwrap_or(opponent.is_some()),
            rated,
            clock,
            rematch_of: rematch.map(|rematch| rematch.game_id),
            arena: None,
            invite_hash: invite.as_deref().map(token::hash),
            seats: vec![seat],
        };
        let record = self.insert(new, &events, rematch).await?;
        self.knows_seat(record.stored.id, token_hash);
        Ok((self.rated_again(record).await?, Seat { player: play_as, token, invite }))
    }

    /// The events of `bot` taking `seat` of a new game played by `rules`: its
    /// seat, and its opening when it plays first (else nothing is its to do yet).
    ///
    /// # Errors
    /// When the bot's search fails.
    pub(super) async fn bot_seated(&self, rules: Rules, bot: Bot, seat: Player) -> Result<Vec<(Event, bool)>, Error> {
        let mut events = vec![(Event::SeatTaken(seat), true)];
        if seat == Player::X {
            let mut rng = self.options.randomness.rng();
            let opening = self
                .for_bot(bot, move |stop| {
                    let mut game = Game::new(rules);
                    bot_turns(&mut game, bot, seat, &mut rng, stop)?;
                    Ok(game)
                })
                .await?;
            events.extend(opening.log().iter().map(|&entry| (Event::Action(entry), true)));
        }
        Ok(events)
    }

    /// Writes `new` with `events` for its log, as of now, and `rematch`'s entry
    /// in the game it follows; answers the game as written, and tells its
    /// watchers, and the players it seats, of it.
    ///
    /// # Errors
    /// [`Error::Conflict`] when the other game's log already holds the rematch's
    /// place; when the database fails.
    async fn insert(
        &self,
        new: NewGame,
        events: &[(Event, bool)],
        rematch: Option<RematchOf>,
    ) -> Result<GameRecord, Error> {
        let (now, first_move) = (self.now(), self.options.first_move);
        let (mut record, write) = new.started(events, now, first_move)?;
        record.stored.id = self.store.create_game(record.stored.clone(), rematch, write.player_events.clone()).await?;
        crate::metrics::games_created(record.stored.variant).increment(1);
        self.hub.publish(record.stored.id, record.version());
        self.tell_players(&write.player_events);
        if let Some(rematch) = rematch {
            self.hub.publish(rematch.game_id, rematch.seq);
        }
        Ok(record)
    }

    /// Seats the caller in the free seat of game `id` (X first); a private game
    /// only with its `invite`.
    ///
    /// # Errors
    /// [`Error::NotFound`]; [`Error::Forbidden`] for a private game without its
    /// invite; [`Error::Conflict`] when both seats are taken, the game is over, or
    /// it is a rematch, whose seat is kept; database failures.
    pub async fn join(&self, id: GameId, invite: Option<&str>) -> Result<(GameRecord, Seat), Error> {
        self.join_by(id, invite, None).await
    }

    /// Seats the caller as [`GameService::join`] does, the seat held by
    /// `joiner` when a player joins.
    ///
    /// # Errors
    /// As [`GameService::join`]; [`Error::Conflict`] when `joiner` holds the
    /// other seat.
    pub(crate) async fn join_by(
        &self,
        id: GameId,
        invite: Option<&str>,
        joiner: Option<Holder>,
    ) -> Result<(GameRecord, Seat), Error> {
        self.take_seat(id, Seating::Join { invite_hash: invite.map(token::hash) }, joiner).await
    }

    /// Seats the caller, as `holder` when a player takes it, in the free seat of
    /// game `id`, as `seating` says.
    async fn take_seat(
        &self,
        id: GameId,
        seating: Seating,
        holder: Option<Holder>,
    ) -> Result<(GameRecord, Seat), Error> {
        if let Some(joiner) = holder.as_ref().filter(|holder| holder.bot_account) {
            let record = self.record(id).await?;
            if let Some(other) = record.stored.seats.iter().find_map(|seat| seat.holder.as_ref()) {
                self.admit_bot_game(record.stored.rated, [Side::held_by(other), Side::held_by(joiner)]).await?;
            }
        }
        let token = token::new_token();
        let seat_hash = token::hash(&token);
        let token_hash = seat_hash.clone();
        let (now, first_move) = (self.now(), self.options.first_move);
        let conflict = |detail: String| Error::Conflict { detail, current_version: None };
        let record = self
            .store
            .update(id, move |stored| {
                let record = GameRecord::replay(stored, now, first_move)?;
                let kept_for = match &seating {
                    Seating::Join { invite_hash } => {
                        if record.stored.invite_hash.as_ref().is_some_and(|needed| invite_hash.as_ref() != Some(needed))
                        {
                            return Err(Error::Forbidden(
                                "this game is private: joining it needs the invite its creator was given, \
                                 sent as {\"invite\": \"...\"}"
                                    .into(),
                            ));
                        }
                        None
                    }
                    Seating::Rematch { kept_for } => Some(*kept_for),
                };
                if record.status() == Status::Finished {
                    return Err(conflict("this game is over".into()));
                }
                if record.stored.rated && holder.is_none() {
                    return Err(Error::Unauthenticated(
                        "a rated game is between players: join it with your player token as the bearer".into(),
                    ));
                }
                // A bot's seat is logged as taken like any other.
                let Some(&player) = record.open_seats().first() else {
                    return Err(conflict("both seats of this game are taken".into()));
                };
                if let Some(first) = record.stored.rematch_of.filter(|_| kept_for != Some(player)) {
                    return Err(conflict(format!(
                        "this game is the rematch of game {first}: its seat is kept for that game's other player, \
                         who takes it with POST /api/v1/games/{first}/rematch"
                    )));
                }
                let holder_id = holder.as_ref().map(|holder| holder.id);
                let held_by = |seat: &StoredSeat| seat.holder.as_ref().map(|holder| holder.id);
                if holder_id.is_some() && record.stored.seats.iter().any(|seat| held_by(seat) == holder_id) {
                    return Err(conflict("you hold the other seat of this game".into()));
                }
                let seat =
                    StoredSeat { player, token_hash: seat_hash.clone(), holder: holder.clone(), last_seen_at: None };
                let (after, write) = record.with(&[(Event::SeatTaken(player), false)], Some(seat), now)?;
                Ok::<_, Error>((Some(write.clone()), (after, write)))
            })
            .await?;
        let (record, write) = record;
        self.hub.publish(id, record.version());
        self.tell_players(&write.player_events);
        let player = record.stored.seat_of(&token_hash).expect("the seat just taken");
        self.knows_seat(id, token_hash);
        Ok((self.rated_again(record).await?, Seat { player, token, invite: None }))
    }

    /// A rematch of finished game `id` for the seat holding `token`: the first of
    /// its players to ask gets a new game with the same settings and the colours
    /// swapped; the other, asking too, takes the other seat of that same game.
    ///
    /// # Errors
    /// [`Error::NotFound`]; [`Error::Forbidden`]; [`Error::GameNotOver`] while the
    /// game goes on; [`Error::AlreadyRematched`] when the caller holds a seat of
    /// the rematch already; [`Error::Conflict`] when the game is not at
    /// `expected_version`; database failures.
    pub async fn rematch(
        &self,
        id: GameId,
        token: &str,
        expected_version: Option<i64>,
    ) -> Result<(GameRecord, Seat), Error> {
        let token_hash = token::hash(token);
        // Twice at most: the other player may ask at the same moment and win.
        let mut attempts = 2;
        loop {
            attempts -= 1;
            let record = self.record(id).await?;
            if record.stored.seat_of(&token_hash).is_none() {
                return Err(self.refusal_of(token).await);
            }
            let player = seat_of(&record, &token_hash, expected_version)?;
            if record.status() != Status::Finished {
                return Err(Error::GameNotOver);
            }
            if let Some((asked_by, new_id)) = record.rematch_request() {
                // The other seat of the rematch is kept for this game's other
                // player: taken, it is theirs.
                if asked_by == player || self.record(new_id).await?.open_seats().is_empty() {
                    return Err(Error::AlreadyRematched(new_id));
                }
                let holder = record.stored.seat(player).and_then(|seat| seat.holder.clone());
                return self.take_seat(new_id, Seating::Rematch { kept_for: player.other() }, holder).await;
            }
            let stored = &record.stored;
            let settings = GameSettings {
                variant: stored.variant,
                scoring: stored.scoring,
                play_as: player.other(),
                opponent: stored.opponent,
                hints: Some(stored.hints),
                clock: stored.clock,
                // The other seat is kept for the other player: a rematch of a
                // private game is no more listed than its first game.
                private: stored.invite_hash.is_some(),
                rated: stored.rated,
            };
            let rematch = RematchOf { game_id: id, seq: record.version() + 1, player };
            let holder = record.stored.seat(player).and_then(|seat| seat.holder.clone());
            match self.create(settings, Some(rematch), holder).await {
                Err(Error::Conflict { .. }) if attempts > 0 => {}
                created => return created,
            }
        }
    }

    /// Declines the rematch of finished game `id` that its other player asked
    /// for, for the seat holding `token`: the rematch, which waits for the
    /// caller, is aborted in the name of the seat kept for them. Answers the
    /// rematch as it stands.
    ///
    /// # Errors
    /// [`Error::NotOpen`] when the other player asked for no rematch, or it
    /// began; as [`GameService::rematch`] otherwise.
    pub async fn decline_rematch(
        &self,
        id: GameId,
        token: &str,
        expected_version: Option<i64>,
    ) -> Result<GameRecord, Error> {
        let token_hash = self.check_seat(id, token).await?;
        let record = self.record(id).await?;
        let player = seat_of(&record, &token_hash, expected_version)?;
        let not_open = |detail: &str| Error::NotOpen(detail.into());
        let Some((_, rematch)) = record.rematch_request().filter(|&(asked_by, _)| asked_by != player) else {
            return Err(not_open("the other player has asked for no rematch of this game"));
        };
        // The seat of the rematch kept for this player: the colours swap.
        let kept = player.other();
        let declined = self
            .end(rematch, move |rematch| match rematch.status() {
                Status::Waiting if rematch.open_seats() == [kept] => Ok(Some(Ending::Abort(Some(kept)))),
                Status::Finished => Ok(None),
                Status::Waiting | Status::Ongoing => Err(not_open("the rematch has begun")),
            })
            .await?;
        match declined {
            Some(declined) => Ok(declined),
            None => self.record(rematch).await,
        }
    }

    /// The one game the original app's routes play, and the seat its player chose;
    /// a measurement game against the parasite bot, the player X, the first time.
    ///
    /// # Errors
    /// A corrupt log; database failures.
    pub async fn original_app_game(&self) -> Result<(GameRecord, Player), Error> {
        let (id, play_as) = self.original_app_game_id().await?;
        Ok((self.record(id).await?, play_as))
    }

    /// The id of the original app's game and its player's mark, the game created
    /// as [`GameService::original_app_game`] says the first time.
    pub(super) async fn original_app_game_id(&self) -> Result<(GameId, Player), Error> {
        match self.store.original_app_game().await? {
            Some(shared) => Ok(shared),
            None => {
                let (record, play_as) = self.reset_original_app_game(true, Player::X).await?;
                Ok((record.stored.id, play_as))
            }
        }
    }

    /// Points the original app's routes at a new measurement game: against the
    /// parasite bot holding the other mark when `against_bot`, else two players
    /// taking turns at one screen, both seated at once.
    ///
    /// # Errors
    /// Database failures.
    pub(crate) async fn reset_original_app_game(
        &self,
        against_bot: bool,
        play_as: Player,
    ) -> Result<(GameRecord, Player), Error> {
        let opponent = against_bot.then_some(Bot::Parasite { mistake_chance: Bot::DEFAULT_MISTAKE_CHANCE });
        let settings = GameSettings {
            variant: Variant::Measurement,
            scoring: Scoring::Goff,
            play_as,
            opponent,
            hints: None,
            clock: None,
            private: false,
            rated: false,
        };
        let (mut record, _) = self.create_game(settings).await?;
        if !against_bot {
            // The original app's routes need no tokens: both players play at one screen.
            (record, _) = self.join(record.stored.id, None).await?;
        }
        self.store.set_original_app_game(record.stored.id, play_as).await?;
        Ok((record, play_as))
    }
}

/// Refuses a rated game under a scoring other than Goff's: the ratings are
/// Goff's (docs/RULES.md says why).
///
/// # Errors
/// [`Error::RatedGame`] for a rated game of another scoring.
pub(super) fn rated_by_goff(rated: bool, scoring: Scoring) -> Result<(), Error> {
    if rated && scoring != Scoring::Goff {
        return Err(Error::RatedGame(format!(
            "a rated game is scored by Goff's rule, whose ratings these are: make a {} game casual",
            scoring.code()
        )));
    }
    Ok(())
}
