//! Seating players: creating a game, joining it, a rematch, and the original
//! app's one game.

use super::acting::bot_turns;
use super::seat_of;
use super::{GameRecord, GameService, Seat};
use crate::bot::Bot;
use crate::engine::{Game, GameResult, Player, Variant};
use crate::error::Error;
use crate::metrics::GAMES_CREATED;
use crate::record::{Event, GameId, GameSettings, Status, StoredGame, Summary};
use crate::store::RematchOf;
use crate::token;

/// Who takes a seat.
enum Seating {
    /// Anyone joining a game, with the invite's hash a private game needs.
    Join { invite_hash: Option<Vec<u8>> },
    /// The other player of a finished game, taking the seat its rematch keeps.
    Rematch { kept_for: Player },
}

impl GameService {
    /// Creates a game as `settings` say, with the caller in the seat of `play_as`;
    /// with an opponent, a bot takes the other seat and opens when it is X.
    ///
    /// # Errors
    /// When the database fails.
    pub async fn create_game(&self, settings: GameSettings) -> Result<(GameRecord, Seat), Error> {
        self.create(settings, None).await
    }

    /// Creates a game as [`GameService::create_game`] does; with `rematch`, as the
    /// rematch of another, whose log says so in the same transaction.
    ///
    /// # Errors
    /// [`Error::Conflict`] when the other game's log already holds the rematch's
    /// place; when the database fails.
    async fn create(&self, settings: GameSettings, rematch: Option<RematchOf>) -> Result<(GameRecord, Seat), Error> {
        let GameSettings { variant, play_as, opponent, hints, clock, private } = settings;
        let invite = private.then(token::new_token);
        let now = self.now();
        let mut events = vec![(Event::SeatTaken(play_as), false)];
        if let Some(bot) = opponent {
            let seat = play_as.other();
            events.push((Event::SeatTaken(seat), true));
            // It opens the game when it plays first; else nothing is its to do yet.
            if seat == Player::X {
                let mut rng = self.options.randomness.rng();
                let opening = self
                    .for_bot(bot, move |stop| {
                        let mut game = Game::new(variant);
                        bot_turns(&mut game, bot, seat, &mut rng, stop)?;
                        Ok(game)
                    })
                    .await?;
                events.extend(opening.log().iter().map(|&entry| (Event::Action(entry), true)));
            }
        }
        let new = StoredGame {
            // The database gives the id.
            id: GameId::new(0),
            variant,
            created_at: now,
            opponent,
            hints: hints.unwrap_or(opponent.is_some()),
            clock,
            rematch_of: rematch.map(|rematch| rematch.game_id),
            summary: Summary {
                status: Status::Waiting,
                result: GameResult::Ongoing,
                end: None,
                deadline: None,
                ended_at: None,
            },
            log: Vec::new(),
            token_hashes: Vec::new(),
            invite_hash: invite.as_deref().map(token::hash),
        };
        let token = token::new_token();
        let seat = Some((play_as, token::hash(&token)));
        let (mut record, _) = GameRecord::replay(new, now)?.with(&events, seat, now)?;
        record.stored.id = self.store.create_game(record.stored.clone(), rematch).await?;
        ::metrics::counter!(GAMES_CREATED, "variant" => variant.code()).increment(1);
        self.hub.publish(record.stored.id, record.version());
        if let Some(rematch) = rematch {
            self.hub.publish(rematch.game_id, rematch.seq);
        }
        Ok((record, Seat { player: play_as, token, invite }))
    }

    /// Seats the caller in the free seat of game `id` (X first); a private game
    /// only with its `invite`.
    ///
    /// # Errors
    /// [`Error::NotFound`]; [`Error::Forbidden`] for a private game without its
    /// invite; [`Error::Conflict`] when both seats are taken, the game is over, or
    /// it is a rematch, whose seat is kept; database failures.
    pub async fn join(&self, id: GameId, invite: Option<&str>) -> Result<(GameRecord, Seat), Error> {
        self.take_seat(id, Seating::Join { invite_hash: invite.map(token::hash) }).await
    }

    /// Seats the caller in the free seat of game `id`, as `seating` says.
    async fn take_seat(&self, id: GameId, seating: Seating) -> Result<(GameRecord, Seat), Error> {
        let token = token::new_token();
        let seat_hash = token::hash(&token);
        let now = self.now();
        let conflict = |detail: String| Error::Conflict { detail, current_version: None };
        let record = self
            .store
            .update(id, move |stored| {
                let record = GameRecord::replay(stored, now)?;
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
                let seat = Some((player, seat_hash.clone()));
                let (after, write) = record.with(&[(Event::SeatTaken(player), false)], seat, now)?;
                Ok::<_, Error>((Some(write), after))
            })
            .await?;
        self.hub.publish(id, record.version());
        let player = record.stored.seat_of(&token::hash(&token)).expect("the seat just taken");
        Ok((record, Seat { player, token, invite: None }))
    }

    /// A rematch of finished game `id` for the seat holding `token`: the first of
    /// its players to ask gets a new game with the same settings and the colours
    /// swapped; the other, asking too, takes the other seat of that same game.
    ///
    /// # Errors
    /// [`Error::NotFound`]; [`Error::Forbidden`]; [`Error::GameNotOver`] while the
    /// game goes on; [`Error::Conflict`] when the caller asked already, or the
    /// game is not at `expected_version`; database failures.
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
            let player = seat_of(&record, &token_hash, expected_version)?;
            if record.status() != Status::Finished {
                return Err(Error::GameNotOver);
            }
            if let Some((asked_by, new_id)) = record.rematch_request() {
                if asked_by == player {
                    return Err(Error::Conflict {
                        detail: format!("you asked for this rematch already: it is game {new_id}"),
                        current_version: Some(record.version()),
                    });
                }
                return self.take_seat(new_id, Seating::Rematch { kept_for: player.other() }).await;
            }
            let stored = &record.stored;
            let settings = GameSettings {
                variant: stored.variant,
                play_as: player.other(),
                opponent: stored.opponent,
                hints: Some(stored.hints),
                clock: stored.clock,
                // The other seat is kept for the other player: a rematch of a
                // private game is no more listed than its first game.
                private: stored.invite_hash.is_some(),
            };
            let rematch = RematchOf { game_id: id, seq: record.version() + 1, player };
            match self.create(settings, Some(rematch)).await {
                Err(Error::Conflict { .. }) if attempts > 0 => {}
                created => return created,
            }
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
    pub async fn reset_original_app_game(
        &self,
        against_bot: bool,
        play_as: Player,
    ) -> Result<(GameRecord, Player), Error> {
        let opponent = against_bot.then_some(Bot::Parasite { mistake_chance: Bot::DEFAULT_MISTAKE_CHANCE });
        let settings =
            GameSettings { variant: Variant::Measurement, play_as, opponent, hints: None, clock: None, private: false };
        let (mut record, _) = self.create_game(settings).await?;
        if !against_bot {
            // The original app's routes need no tokens: both players play at one screen.
            (record, _) = self.join(record.stored.id, None).await?;
        }
        self.store.set_original_app_game(record.stored.id, play_as).await?;
        Ok((record, play_as))
    }
}
