//! Pairing players: a challenge from one player to another, which starts a game
//! when it is accepted, and seeks, which the server pairs with the oldest open
//! seek of the same terms. A game that either starts has both seats taken by
//! players, and tells both that it started.

use jiff::Timestamp;
use rand::RngExt;

use super::bots::Side;
use super::seating::{new_seat, rated_by_goff};
use super::time::after;
use super::{GameRecord, GameService, NewGame, Seat};
use crate::bot::Bot;
use crate::engine::Player;
use crate::error::Error;
use crate::record::{
    ArenaId, ChallengeId, ChallengeStatus, Closing, Colour, Event, Holder, NewChallenge, NewSeek, PlayerEventKind,
    PlayerId, RatingRange, SeekId, SeekStatus, Sought, StoredChallenge, StoredGame, StoredSeek, Terms, TooMany,
    Username,
};

/// The most challenges a player may have sent that wait for an answer.
pub const MOST_OPEN_CHALLENGES: u32 = 20;

/// The most challenges open to one player: a flood of them from many players
/// waits until some are answered or expire.
pub const MOST_RECEIVED_CHALLENGES: u32 = 50;

/// What a write tells the players it is about.
type PlayerEvents = Vec<(PlayerId, PlayerEventKind)>;

/// A game between two players, as `x` and `o`, on `terms` (in `arena`, if
/// one paired them), as it stands once created at `now`; what its creation
/// tells them, and the tokens of its two seats, X's and O's.
pub(super) fn between(
    terms: Terms,
    arena: Option<ArenaId>,
    x: Holder,
    o: Holder,
    now: Timestamp,
    first_move: std::time::Duration,
) -> Result<(GameRecord, PlayerEvents, [String; 2]), Error> {
    let seats = [(Player::X, x), (Player::O, o)].map(|(player, holder)| new_seat(player, Some(holder)));
    let [(x_seat, x_token), (o_seat, o_token)] = seats;
    let new = NewGame::on_terms(terms, arena, None, vec![x_seat, o_seat]);
    let events = [(Event::SeatTaken(Player::X), false), (Event::SeatTaken(Player::O), false)];
    let (record, write) = new.started(&events, now, first_move)?;
    Ok((record, write.player_events, [x_token, o_token]))
}

/// A game on `terms` (in `arena`, if one paired them) between `holder`, as
/// `holder_plays`, and the server's `bot` in the other seat, whose
/// `bot_events` (its seat, and its opening when it is X) follow the holder's
/// seat; as it stands once created at `now`, and what its creation tells the holder.
pub(super) fn against_bot(
    terms: Terms,
    arena: Option<ArenaId>,
    (holder, holder_plays): (Holder, Player),
    (bot, bot_events): (Bot, &[(Event, bool)]),
    now: Timestamp,
    first_move: std::time::Duration,
) -> Result<(GameRecord, PlayerEvents), Error> {
    let (seat, _) = new_seat(holder_plays, Some(holder));
    let mut events = vec![(Event::SeatTaken(holder_plays), false)];
    events.extend_from_slice(bot_events);
    let new = NewGame::on_terms(terms, arena, Some(bot), vec![seat]);
    let (record, write) = new.started(&events, now, first_move)?;
    Ok((record, write.player_events))
}

impl GameService {
    /// Sends a challenge from `challenger` to the player named `challenged`, for
    /// a game on `terms` with the challenger as `colour`. One of the server's
    /// bots accepts it at once: its game has started when this answers.
    ///
    /// # Errors
    /// [`Error::NotFound`] for a name that is nobody's; [`Error::SelfChallenge`];
    /// [`Error::TooManyOpen`] when the challenger has [`MOST_OPEN_CHALLENGES`]
    /// waiting already, or the player challenged [`MOST_RECEIVED_CHALLENGES`];
    /// database failures.
    pub async fn challenge(
        &self,
        challenger: &Holder,
        challenged: &Username,
        terms: Terms,
        colour: Colour,
    ) -> Result<StoredChallenge, Error> {
        let challenged = self.named(challenged).await?;
        if challenged.id == challenger.id {
            return Err(Error::SelfChallenge);
        }
        rated_by_goff(terms.rated, terms.scoring)?;
        self.admit_bot_game(terms.rated, [Side::held_by(challenger), Side::of(&challenged)]).await?;
        let now = self.now();
        let new = NewChallenge {
            challenger: challenger.id,
            challenged: challenged.id,
            terms,
            colour,
            created_at: now,
            expires_at: after(now, self.options.challenge_timeout),
        };
        // The server's bots answer at once, and hear nothing.
        let tell =
            if challenged.server_bot.is_some() { vec![] } else { vec![(challenged.id, PlayerEventKind::Challenge)] };
        let most = [MOST_OPEN_CHALLENGES, MOST_RECEIVED_CHALLENGES];
        let id = self.store.create_challenge(new, most, tell.clone()).await?.map_err(|too_many| {
            Error::TooManyOpen(match too_many {
                TooMany::Sent => format!(
                    "you have {MOST_OPEN_CHALLENGES} challenges waiting for an answer, the most you may; cancel one first"
                ),
                TooMany::Received => format!(
                    "{} has {MOST_RECEIVED_CHALLENGES} challenges waiting for an answer, the most a player may; \
                     try again later",
                    challenged.name
                ),
            })
        })?;
        self.tell_players(&tell);
        if let Some(bot) = challenged.server_bot {
            self.bot_accepts(id, challenger, bot, terms, colour).await?;
        }
        self.challenge_by_id(id).await
    }

    /// Accepts challenge `id` from `challenger` to the server's bot `bot`, on
    /// `terms` with the challenger as `colour`: starts its game, the bot in
    /// the other seat, as a game created against it starts.
    ///
    /// # Errors
    /// When the bot's search or the database fails.
    async fn bot_accepts(
        &self,
        id: ChallengeId,
        challenger: &Holder,
        bot: Bot,
        terms: Terms,
        colour: Colour,
    ) -> Result<(), Error> {
        let challenger_plays = self.colour_of(colour);
        let bot_events = self.bot_seated(terms.rules(), bot, challenger_plays.other()).await?;
        let now = self.now();
        let (record, game_events) = against_bot(
            terms,
            None,
            (challenger.clone(), challenger_plays),
            (bot, &bot_events),
            now,
            self.options.first_move,
        )?;
        let tell = vec![(challenger.id, PlayerEventKind::ChallengeAccepted)];
        let game_id = self.store.accept_challenge(id, now, (record.stored, game_events.clone()), tell.clone()).await?;
        let game_id = game_id.ok_or_else(|| Error::NotOpen("this challenge was answered before the bot".into()))?;
        self.started(&self.record(game_id).await?, &game_events);
        self.tell_players(&tell);
        Ok(())
    }

    /// Challenge `id`.
    ///
    /// # Errors
    /// [`Error::NotFound`]; database failures.
    async fn challenge_by_id(&self, id: ChallengeId) -> Result<StoredChallenge, Error> {
        self.store.challenge(id).await?.ok_or_else(|| Error::NotFound(format!("there is no challenge {id}")))
    }

    /// Challenge `id`, for `caller`, who sent it or was sent it.
    ///
    /// # Errors
    /// [`Error::NotFound`]; [`Error::Forbidden`] for anyone else; database failures.
    pub(crate) async fn challenge_for(&self, caller: &Holder, id: ChallengeId) -> Result<StoredChallenge, Error> {
        let challenge = self.challenge_by_id(id).await?;
        if ![challenge.challenger.id, challenge.challenged.id].contains(&caller.id) {
            return Err(Error::Forbidden("this challenge is between other players".into()));
        }
        Ok(challenge)
    }

    /// The challenges `caller` sent or was sent that wait for an answer, newest first.
    ///
    /// # Errors
    /// Database failures.
    pub(crate) async fn open_challenges(
        &self,
        caller: &Holder,
        before: Option<ChallengeId>,
        most: u32,
    ) -> Result<Vec<StoredChallenge>, Error> {
        let before = before.unwrap_or(ChallengeId::new(i64::MAX));
        Ok(self.store.open_challenges(caller.id, self.now(), before, most).await?)
    }

    /// Accepts challenge `id` for `caller`, the challenged player: starts its
    /// game, the colours as the challenger asked (a random colour drawn now),
    /// both seats taken; answers it and the caller's seat.
    ///
    /// # Errors
    /// [`Error::NotFound`]; [`Error::Forbidden`] for anyone but the challenged
    /// player; [`Error::NotOpen`] for a challenge answered or expired; database failures.
    pub(crate) async fn accept_challenge(&self, caller: &Holder, id: ChallengeId) -> Result<(GameRecord, Seat), Error> {
        let challenge = self.answerable(caller, id, |challenge| challenge.challenged.id).await?;
        self.admit_bot_game(challenge.terms.rated, [Side::of(&challenge.challenger), Side::held_by(caller)]).await?;
        let challenger_plays = self.colour_of(challenge.colour);
        let now = self.now();
        let challenger = Holder {
            id: challenge.challenger.id,
            name: challenge.challenger.name.clone(),
            // Known to the store, which the game is read back from.
            token_hash: Vec::new(),
            last_seen_at: None,
            bot_account: challenge.challenger.bot_account(),
        };
        let (x, o) = match challenger_plays {
            Player::X => (challenger, caller.clone()),
            Player::O => (caller.clone(), challenger),
        };
        let (record, game_events, tokens) = between(challenge.terms, None, x, o, now, self.options.first_move)?;
        let tell = vec![(challenge.challenger.id, PlayerEventKind::ChallengeAccepted)];
        let Some(game_id) =
            self.store.accept_challenge(id, now, (record.stored, game_events.clone()), tell.clone()).await?
        else {
            return Err(self.not_open(id).await);
        };
        let record = self.record(game_id).await?;
        self.started(&record, &game_events);
        self.tell_players(&tell);
        let seat = challenger_plays.other();
        let [x_token, o_token] = tokens;
        let token = if seat == Player::X { x_token } else { o_token };
        Ok((record, Seat { player: seat, token, invite: None }))
    }

    /// Declines challenge `id` for `caller`, the challenged player, perhaps saying why.
    ///
    /// # Errors
    /// As [`GameService::accept_challenge`].
    pub(crate) async fn decline_challenge(
        &self,
        caller: &Holder,
        id: ChallengeId,
        reason: Option<String>,
    ) -> Result<StoredChallenge, Error> {
        let challenge = self.answerable(caller, id, |challenge| challenge.challenged.id).await?;
        let tell = (challenge.challenger.id, PlayerEventKind::ChallengeDeclined);
        self.close(id, Closing::Decline(reason), tell).await
    }

    /// Cancels challenge `id` for `caller`, the challenger.
    ///
    /// # Errors
    /// As [`GameService::accept_challenge`], for anyone but the challenger.
    pub(crate) async fn cancel_challenge(&self, caller: &Holder, id: ChallengeId) -> Result<StoredChallenge, Error> {
        let challenge = self.answerable(caller, id, |challenge| challenge.challenger.id).await?;
        let tell = (challenge.challenged.id, PlayerEventKind::ChallengeCancelled);
        self.close(id, Closing::Cancel, tell).await
    }

    /// Challenge `id`, which `caller` is about to answer as the player `who`
    /// names, while it is open.
    ///
    /// # Errors
    /// As [`GameService::accept_challenge`].
    async fn answerable(
        &self,
        caller: &Holder,
        id: ChallengeId,
        who: impl Fn(&StoredChallenge) -> PlayerId,
    ) -> Result<StoredChallenge, Error> {
        let challenge = self.challenge_for(caller, id).await?;
        if who(&challenge) != caller.id {
            let whose =
                if challenge.challenger.id == caller.id { "the challenged player's" } else { "the challenger's" };
            return Err(Error::Forbidden(format!("that answer to this challenge is {whose}")));
        }
        if challenge.status_at(self.now()) != ChallengeStatus::Open {
            return Err(not_open(&challenge, self.now()));
        }
        Ok(challenge)
    }

    /// Closes challenge `id` as `closing` says, telling `tell`'s player; answers it as it now stands.
    async fn close(
        &self,
        id: ChallengeId,
        closing: Closing,
        tell: (PlayerId, PlayerEventKind),
    ) -> Result<StoredChallenge, Error> {
        let (status, reason) = match closing {
            Closing::Decline(reason) => (ChallengeStatus::Declined, reason),
            Closing::Cancel => (ChallengeStatus::Cancelled, None),
        };
        if !self.store.close_challenge(id, status, reason, self.now(), vec![tell]).await? {
            return Err(self.not_open(id).await);
        }
        self.tell_players(&[tell]);
        self.challenge_by_id(id).await
    }

    /// Why challenge `id`, which another request answered first, is no longer open.
    async fn not_open(&self, id: ChallengeId) -> Error {
        match self.challenge_by_id(id).await {
            Ok(challenge) => not_open(&challenge, self.now()),
            Err(error) => error,
        }
    }

    /// Makes a seek for `seeker` on `terms`, and pairs it with the oldest open
    /// seek of the same terms and another player's, each player's rating
    /// inside the other's `rating_range`, if there is one: their game starts,
    /// with the colours drawn. Answers the seek as it stands.
    ///
    /// # Errors
    /// [`Error::TooManyOpen`] when the seeker has as many seeks open as they
    /// may; database failures.
    pub async fn seek(
        &self,
        seeker: &Holder,
        terms: Terms,
        rating_range: Option<RatingRange>,
    ) -> Result<StoredSeek, Error> {
        if rating_range.is_some() && !terms.rated {
            return Err(Error::RatedGame(
                "a casual seek pairs with any player: rating_range is for rated seeks".into(),
            ));
        }
        rated_by_goff(terms.rated, terms.scoring)?;
        // Whoever it pairs with may be a bot.
        self.admit_bot_game(terms.rated, [Side::held_by(seeker), Side::ServerBot]).await?;
        let (now, first_move) = (self.now(), self.options.first_move);
        let expires_at = after(now, self.options.seek_timeout);
        let new = NewSeek { player: seeker.id, terms, rating_range, created_at: now, expires_at };
        let seeker_plays = self.draw_colour();
        let holder = seeker.clone();
        let pair = move |_: &StoredSeek, partner: Holder| {
            let (x, o) = match seeker_plays {
                Player::X => (holder.clone(), partner),
                Player::O => (partner, holder.clone()),
            };
            let (record, game_events, _) = between(terms, None, x, o, now, first_move)?;
            Ok::<_, Error>((record.stored, game_events))
        };
        let id = match self.store.seek(new, self.options.most_open_seeks, pair).await? {
            Sought::TooMany => {
                return Err(Error::TooManyOpen(format!(
                    "you have {} seeks open, the most you may; cancel one first",
                    self.options.most_open_seeks
                )));
            }
            Sought::Waiting(id) => id,
            Sought::Paired { seek, game } => {
                self.started_pairing(*game, now)?;
                seek
            }
        };
        self.seek_by_id(id).await
    }

    /// Seek `id`.
    async fn seek_by_id(&self, id: SeekId) -> Result<StoredSeek, Error> {
        self.store.seek_by_id(id).await?.ok_or_else(|| Error::NotFound(format!("there is no seek {id}")))
    }

    /// Seek `id`, for `caller`, whose it is.
    ///
    /// # Errors
    /// [`Error::NotFound`]; [`Error::Forbidden`] for anyone else's; database failures.
    pub(crate) async fn seek_for(&self, caller: &Holder, id: SeekId) -> Result<StoredSeek, Error> {
        let seek = self.seek_by_id(id).await?;
        if seek.player != caller.id {
            return Err(Error::Forbidden("this seek is another player's".into()));
        }
        Ok(seek)
    }

    /// Cancels seek `id` for `caller`, whose it is, while it is open.
    ///
    /// # Errors
    /// As [`GameService::seek_for`]; [`Error::NotOpen`] for a seek paired,
    /// cancelled or expired; database failures.
    pub(crate) async fn cancel_seek(&self, caller: &Holder, id: SeekId) -> Result<StoredSeek, Error> {
        let seek = self.seek_for(caller, id).await?;
        if seek.status_at(self.now()) != SeekStatus::Open || !self.store.cancel_seek(id).await? {
            let seek = self.seek_by_id(id).await?;
            return Err(Error::NotOpen(format!("this seek is {}", seek.status_at(self.now()).code())));
        }
        self.seek_by_id(id).await
    }

    /// A colour at random, from the service's randomness.
    fn draw_colour(&self) -> Player {
        if self.options.randomness.rng().random_bool(0.5) { Player::X } else { Player::O }
    }

    /// The seat a challenger who asked for `colour` plays: a random one drawn now.
    fn colour_of(&self, colour: Colour) -> Player {
        match colour {
            Colour::X => Player::X,
            Colour::O => Player::O,
            Colour::Random => self.draw_colour(),
        }
    }

    /// Tells the watchers of `game`, just paired and written at `now`, and its players.
    ///
    /// # Errors
    /// [`Error::Internal`] when its log does not replay, a bug.
    pub(super) fn started_pairing(&self, game: StoredGame, now: Timestamp) -> Result<(), Error> {
        let record = GameRecord::replay(game, now, self.options.first_move)?;
        let events: Vec<_> = record
            .stored
            .seats
            .iter()
            .filter_map(|seat| Some((seat.holder.as_ref()?.id, PlayerEventKind::GameStart)))
            .collect();
        self.started(&record, &events);
        Ok(())
    }

    /// Tells the watchers of `record`'s game, just started, and its players.
    fn started(&self, record: &GameRecord, game_events: &[(PlayerId, PlayerEventKind)]) {
        self.hub.publish(record.stored.id, record.version());
        crate::metrics::games_created(record.stored.variant).increment(1);
        self.tell_players(game_events);
    }
}

/// The refusal of an answer to `challenge`, no longer open at `now`.
fn not_open(challenge: &StoredChallenge, now: Timestamp) -> Error {
    Error::NotOpen(format!("this challenge is {}", challenge.status_at(now).code()))
}
