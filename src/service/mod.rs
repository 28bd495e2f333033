//! The only orchestrator: load the log, replay it, apply the action, append.
//!
//! Its operations are split by what they do to a game: seating players and
//! creating games (`seating.rs`), acting in them (`acting.rs`), and the server's
//! own writes when a clock runs out or a game waits too long (`timer.rs`).

mod acting;
mod arenas;
mod bots;
mod copy;
mod help;
mod ladder;
mod life;
mod options;
mod pairing;
mod players;
mod presence;
mod puzzles;
mod randomness;
mod ratings;
mod records;
mod searches;
mod seating;
mod time;
mod timer;

use std::sync::Arc;
use std::time::Duration;

use jiff::Timestamp;
use quick_cache::sync::Cache;
use tokio::sync::broadcast;

use crate::bot::{Bot, Stop};
use crate::engine::{Player, Scoring, Variant};
use crate::error::{Error, Fault};
use crate::live::Hub;
use crate::metrics::{BOT_THINKING_SECONDS, GAMES_FINISHED};
use crate::record::{
    ArenaId, ClockSettings, Event, GameId, ListedGame, Page, PlayerEventKind, PlayerId, StoredGame, StoredSeat,
    Summary, Terms, Write,
};
use crate::store::{Notice, Store, StoreError};
use crate::token;
use time::Offset;

pub use arenas::{
    ArenaStanding, DEFAULT_ARENA_DELAY, Free, GROUP, MOST_ARENA_MINUTES, MOST_ARENA_NAME_CHARS, MOST_UPCOMING_ARENAS,
    Outcome, RECENT, Scored, Sheet, new_arena, pair, pairings, standings,
};
pub use copy::{Checked, Copied, as_copied, check_games, copy_games};
pub use help::Hint;
pub use ladder::LADDER_BOTS;
pub use life::ClockState;
pub(crate) use options::{
    DEFAULT_BOT_GAMES_PER_DAY, DEFAULT_CHALLENGE_TIMEOUT, DEFAULT_CLAIM_AFTER, DEFAULT_FIRST_MOVE,
    DEFAULT_MAX_CLOCK_OFFSET, DEFAULT_MOST_OPEN_SEEKS, DEFAULT_REMATCH_WINDOW, DEFAULT_SEEK_TIMEOUT,
    DEFAULT_UNJOINED_RETENTION, default_search_threads,
};
pub use options::{DEFAULT_WAITING_TIMEOUT, ServiceOptions};
pub use pairing::MOST_OPEN_CHALLENGES;
pub use players::{About, EVENTS_AT_ONCE, ListedBot, PlayerEvent, Profile};
pub use presence::{PRESENT_FOR, SEEN_EVERY};
pub use puzzles::{Attempted, ServedPuzzle, add_puzzles, add_shipped_puzzles, puzzles_in_games};
pub use randomness::Randomness;
pub use ratings::{LEADERBOARD_SIZE, RatingsChecked, check_ratings, rebuild_ratings};
pub use records::GameRecord;
pub use searches::Searches;
pub use time::Time;
pub use timer::{RETENTION_BATCH, TIMER_BATCH, TIMER_EVERY};

/// A game to create: what its creation settles, before the database gives it
/// an id and its log its entries.
#[derive(Debug, Clone)]
struct NewGame {
    variant: Variant,
    scoring: Scoring,
    opponent: Option<Bot>,
    hints: bool,
    rated: bool,
    clock: Option<ClockSettings>,
    rematch_of: Option<GameId>,
    arena: Option<ArenaId>,
    invite_hash: Option<Vec<u8>>,
    /// The seats people take, with their tokens' hashes and their holders.
    seats: Vec<StoredSeat>,
}

impl NewGame {
    /// A game paired on `terms` (by `arena`, if one paired it), with `seats`
    /// taken by people and the server's `opponent` in the other, if any.
    fn on_terms(terms: Terms, arena: Option<ArenaId>, opponent: Option<Bot>, seats: Vec<StoredSeat>) -> NewGame {
        NewGame {
            variant: terms.variant,
            scoring: terms.scoring,
            opponent,
            hints: false,
            rated: terms.rated,
            clock: terms.clock,
            rematch_of: None,
            arena,
            invite_hash: None,
            seats,
        }
    }

    /// The game created `now` with `events` for its first entries, each player
    /// given `first_move` for their first move; and the write that stores it.
    ///
    /// # Errors
    /// [`Error::Internal`] when the events break a rule, a bug.
    fn started(
        self,
        events: &[(Event, bool)],
        now: Timestamp,
        first_move: Duration,
    ) -> Result<(GameRecord, Write), Error> {
        GameRecord::replay(self.stored(now), now, first_move)?.with(events, None, now)
    }

    /// The game as stored before its first entry, created `now`.
    fn stored(self, now: Timestamp) -> StoredGame {
        StoredGame {
            // The database gives the id.
            id: GameId::new(0),
            variant: self.variant,
            scoring: self.scoring,
            created_at: now,
            opponent: self.opponent,
            hints: self.hints,
            rated: self.rated,
            clock: self.clock,
            rematch_of: self.rematch_of,
            arena: self.arena,
            summary: Summary::WAITING,
            log: Vec::new(),
            seats: self.seats,
            invite_hash: self.invite_hash,
            ratings: [None; 2],
        }
    }
}

/// A seat and the token that proves it: the token is shown once, at seating.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seat {
    /// The seat's player.
    pub player: Player,
    /// The bearer token that acts for the seat.
    pub token: String,
    /// With the creator's seat of a private game: the game's invite, which
    /// joining it needs, shown once too.
    pub invite: Option<String>,
}

/// How many readings of the database's clock one measurement takes: the one
/// answered soonest is the least off, as the round trip bounds the error.
const CLOCK_READINGS: usize = 5;

/// The games service: every request goes through here.
#[derive(Debug, Clone)]
pub struct GameService {
    store: Store,
    /// Shared by the clones every worker holds, so that a write on one worker
    /// wakes the watchers on all.
    hub: Arc<Hub<GameId>>,
    /// The same for the players' event streams.
    player_hub: Arc<Hub<PlayerId>>,
    /// Shared by all workers: the cores are.
    searches: Arc<Searches>,
    /// Shared by all workers: the instance's clock is.
    offset: Arc<Offset>,
    /// The seat tokens found to hold a seat of their game, by game and token's
    /// hash: see [`GameService::check_seat`].
    known_seats: Arc<Cache<(GameId, Vec<u8>), ()>>,
    options: ServiceOptions,
}

/// How many seat tokens [`GameService::check_seat`] remembers: both seats of
/// 50,000 games, some megabytes.
const KNOWN_SEATS: usize = 100_000;

impl GameService {
    /// A service over `store`, run as `options` say.
    pub fn new(store: Store, options: ServiceOptions) -> GameService {
        let searches = Arc::new(Searches::new(options.search_threads));
        GameService {
            store,
            hub: Arc::default(),
            player_hub: Arc::default(),
            searches,
            offset: Arc::default(),
            known_seats: Arc::new(Cache::new(KNOWN_SEATS)),
            options,
        }
    }

    /// Starts watching game `id`: the receiver hears each of its new versions.
    pub fn watch(&self, id: GameId) -> broadcast::Receiver<i64> {
        self.hub.watch(id)
    }

    /// Starts watching player `id`'s events: the receiver hears that they have
    /// new ones.
    pub(crate) fn watch_player(&self, id: PlayerId) -> broadcast::Receiver<i64> {
        self.player_hub.watch(id)
    }

    /// Passes on news of a change another instance wrote to the watchers here.
    pub fn hear(&self, notice: Notice) {
        match notice {
            Notice::Changed { id, version } => self.hub.publish(id, version),
            Notice::PlayerEvents { id } => self.player_hub.publish_unknown(id),
            Notice::MaybeMissed => {
                self.hub.publish_everywhere();
                self.player_hub.publish_everywhere();
            }
        }
    }

    /// Tells the watchers of the players of `player_events`, just written, that
    /// they have new events.
    fn tell_players(&self, player_events: &[(PlayerId, PlayerEventKind)]) {
        for &(player, _) in player_events {
            self.player_hub.publish_unknown(player);
        }
    }

    /// Tells the watchers of `record`'s game, as a write of an action or an
    /// ending left it, that it changed; when that write ended it, counts it as
    /// ended, and tells the players who hold its seats (their `game_finish`
    /// was written with it).
    fn announce(&self, record: &GameRecord) {
        self.hub.publish(record.stored.id, record.version());
        if let Some(end) = record.end() {
            let (variant, reason) = (record.stored.variant.code(), end.reason.code());
            ::metrics::counter!(GAMES_FINISHED, "variant" => variant, "reason" => reason).increment(1);
            for holder in record.stored.seats.iter().filter_map(|seat| seat.holder.as_ref()) {
                self.player_hub.publish_unknown(holder.id);
            }
        }
    }

    /// Ends every live event stream; for shutting down.
    pub(crate) fn close_live_streams(&self) {
        self.hub.close();
        self.player_hub.close();
    }

    /// Checks that the database answers, and has room to write.
    ///
    /// # Errors
    /// [`Error::Unavailable`] when it does not answer; [`Error::StorageFull`]
    /// from a write that failed for lack of room until a write succeeds.
    pub async fn ready(&self) -> Result<(), Error> {
        // Whatever the failure, the database does not answer as it should.
        self.store.ping().await.map_err(|error| Error::Unavailable(error.to_string()))?;
        if self.store.is_full() {
            return Err(Error::StorageFull);
        }
        if self.offset.strayed() {
            let most_ms = u64::try_from(self.options.max_clock_offset.as_millis()).unwrap_or(u64::MAX);
            return Err(Error::ClockOffset {
                // The offset is what the instance adds to its clock: the opposite of how far ahead it runs.
                ahead_ms: (-self.offset.get()).as_millis().try_into().unwrap_or(i64::MAX),
                most_ms,
            });
        }
        Ok(())
    }

    /// The service's time now, to the millisecond, as the log keeps times: its
    /// clock, set by the database's as measured last.
    pub fn now(&self) -> Timestamp {
        let now = self.options.time.now().checked_add(self.offset.get()).expect("a clock within jiff's range");
        time::timestamp_of_millis(now.as_millisecond())
    }

    /// Measures how far the database's clock is from this instance's, and sets
    /// the service's clock by it: the reading whose round trip was shortest,
    /// taken as read halfway through. Answers the offset; none on SQLite, where
    /// the instance's clock is the only one.
    ///
    /// # Errors
    /// Database failures.
    pub(crate) async fn measure_clock(&self) -> Result<Option<jiff::SignedDuration>, Error> {
        let mut best: Option<(std::time::Duration, jiff::SignedDuration)> = None;
        for _ in 0..CLOCK_READINGS {
            let (sent, started) = (self.options.time.now(), std::time::Instant::now());
            let Some(database) = self.store.database_time().await? else { return Ok(None) };
            let round_trip = started.elapsed();
            let offset = database.duration_since(time::after(sent, round_trip / 2));
            if best.is_none_or(|(fastest, _)| round_trip < fastest) {
                best = Some((round_trip, offset));
            }
        }
        let (_, offset) = best.expect("at least one reading");
        self.offset.set(offset, self.options.max_clock_offset);
        Ok(Some(offset))
    }

    /// Game `id`, replayed from its log, as of now, for a reader with
    /// `credentials`: a private game is read only with a seat's token or its
    /// invite, and to anyone else it is a game that does not exist.
    ///
    /// # Errors
    /// [`Error::NotFound`]; a corrupt log; database failures.
    pub async fn game(&self, id: GameId, credentials: &Credentials) -> Result<GameRecord, Error> {
        let stored = self.store.load_game(id).await?;
        if !credentials.may_read(&stored) {
            return Err(StoreError::NotFound { id }.into());
        }
        let mut record = GameRecord::replay(stored, self.now(), self.options.first_move)?;
        if let Some(seat) = credentials.seat(&record.stored) {
            self.seen_in(&mut record, seat).await;
        }
        Ok(record)
    }

    /// Notes that the holder of seat `player` of `record`'s game is there now,
    /// when the last sighting is [`SEEN_EVERY`] old or more. A sighting that
    /// cannot be written is no reason to refuse what the holder asked for.
    async fn seen_in(&self, record: &mut GameRecord, player: Player) {
        let now = record.now();
        let Some(seat) = record.stored.seats.iter_mut().find(|seat| seat.player == player) else { return };
        if !presence::is_stale(seat.last_seen_at, now) {
            return;
        }
        match self.store.touch_seat(record.stored.id, player, now).await {
            Ok(()) => seat.last_seen_at = Some(now),
            Err(error) => {
                log::debug!("game {}'s seat {player} was seen, and not written down: {error}", record.stored.id)
            }
        }
    }

    /// Game `id`, replayed from its log, as of now, whoever asks: for the
    /// service's own reads, and for a reader let in already.
    ///
    /// # Errors
    /// [`Error::NotFound`]; a corrupt log; database failures.
    pub(crate) async fn record(&self, id: GameId) -> Result<GameRecord, Error> {
        let stored = self.store.load_game(id).await?;
        GameRecord::replay(stored, self.now(), self.options.first_move)
    }

    /// Checks, on a read, that `token` holds a seat of game `id`, before its
    /// action goes to the writer: a made-up token costs a read, which runs
    /// beside the others, and never the writer's turn. A seat's own token,
    /// which holds its seat for as long as the game is kept, is remembered once
    /// found so, and its next actions go to the writer at once: in whole games
    /// at one client the read before every action was a quarter of the
    /// server's CPU. (A player's token is read each time: it may be replaced,
    /// and the old one is then refused as nobody's.)
    ///
    /// Answers the token's hash, which the action's write checks again.
    ///
    /// # Errors
    /// [`Error::NotFound`]; [`Error::Forbidden`] for a token that is no seat of
    /// the game; database failures.
    async fn check_seat(&self, id: GameId, token: &str) -> Result<Vec<u8>, Error> {
        let seat = (id, token::hash(token));
        if self.known_seats.get(&seat).is_some() {
            return Ok(seat.1);
        }
        let stored = self.store.load_game(id).await?;
        match stored.seat_of(&seat.1) {
            Some(_) => {
                if !token.starts_with(token::PLAYER_TOKEN_PREFIX) {
                    self.knows_seat(id, seat.1.clone());
                }
                Ok(seat.1)
            }
            None => Err(self.refusal_of(token).await),
        }
    }

    /// Remembers that the seat token hashing to `token_hash` holds a seat of
    /// game `id`: see [`GameService::check_seat`].
    fn knows_seat(&self, id: GameId, token_hash: Vec<u8>) {
        self.known_seats.insert((id, token_hash), ());
    }

    /// Why `token`, which holds no seat of a game, is refused: a player's token
    /// that is nobody's any more is told as such (its player may have a new
    /// one), any other as a token that holds no seat there.
    async fn refusal_of(&self, token: &str) -> Error {
        if token.starts_with(token::PLAYER_TOKEN_PREFIX) {
            match self.store.player_by_token(&token::hash(token)).await {
                Ok(None) => return unknown_player(),
                Ok(Some(_)) => {}
                Err(error) => return error.into(),
            }
        }
        no_seat()
    }

    /// The player to act in `record`'s game, when the other may claim it
    /// against them, and from when: see [`GameService::claim_victory`].
    pub(crate) fn claimable(&self, record: &GameRecord) -> Option<(Player, Timestamp)> {
        record.claimable(self.claim_after())
    }

    /// `record`, just written, read again if it is rated: its seats' ratings
    /// are read with the game, never written with it, and the answer shows them.
    pub(super) async fn rated_again(&self, record: GameRecord) -> Result<GameRecord, Error> {
        if record.stored.rated { self.record(record.stored.id).await } else { Ok(record) }
    }

    /// How long the player to act in an untimed game must be gone before the
    /// other may claim it.
    pub(crate) fn claim_after(&self) -> Duration {
        self.options.claim_after
    }

    /// Whether nothing more will be written to `record`'s game: it is over, and
    /// no rematch is to be expected any more (one was asked for, the opponent is
    /// a bot, or the rematch window has passed).
    pub(crate) fn is_final(&self, record: &GameRecord) -> bool {
        self.final_at(record).is_some_and(|final_at| self.now() >= final_at)
    }

    /// When nothing more will be written to `record`'s game, once it is over: at
    /// its end when it has a rematch already or is played against a bot, else
    /// when the rematch window closes.
    pub(crate) fn final_at(&self, record: &GameRecord) -> Option<Timestamp> {
        let ended_at = record.ended_at()?;
        if record.rematch().is_some() || record.stored.opponent.is_some() {
            return Some(ended_at);
        }
        Some(time::after(ended_at, self.options.rematch_window))
    }

    /// Runs `work`, the turns of `bot`, off the request threads: a perfect bot's
    /// search among the searches (see [`Searches::run`]), any other bot's cheap
    /// choice on a thread for blocking work.
    ///
    /// # Errors
    /// [`Error::Busy`] when too many searches wait; what `work` fails with.
    async fn for_bot<T: Send + 'static>(
        &self,
        bot: Bot,
        work: impl FnOnce(Stop) -> Result<T, Error> + Send + 'static,
    ) -> Result<T, Error> {
        // Timed on its thread: a search's wait for a thread is not thinking.
        let thinking = move |stop| {
            let started = std::time::Instant::now();
            let answer = work(stop);
            ::metrics::histogram!(BOT_THINKING_SECONDS, "level" => bot.code()).record(started.elapsed());
            answer
        };
        if bot.searches() {
            self.searches.run(thinking).await
        } else {
            off_request_threads("the bot", move || thinking(Stop::default())).await
        }
    }

    /// A page of games, newest first.
    ///
    /// # Errors
    /// Database failures.
    pub async fn list(&self, page: Page) -> Result<Vec<ListedGame>, Error> {
        Ok(self.store.list_games(page).await?)
    }
}

/// Runs `work` on a thread for blocking work, off the threads that serve
/// requests. `what` names the work in the error of a failed thread.
async fn off_request_threads<T: Send + 'static>(
    what: &str,
    work: impl FnOnce() -> Result<T, Error> + Send + 'static,
) -> Result<T, Error> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|error| Error::Internal(Fault::caused_by(format!("{what}'s thread failed"), error)))?
}

/// What a reader of a game presents: a seat's token, the game's invite, both
/// or neither. Only a private game asks for one of them.
#[derive(Debug, Clone, Default)]
pub struct Credentials {
    token_hash: Option<Vec<u8>>,
    invite_hash: Option<Vec<u8>>,
}

impl Credentials {
    /// A reader with `token`, `invite`, both or neither.
    pub fn new(token: Option<&str>, invite: Option<&str>) -> Credentials {
        Credentials { token_hash: token.map(token::hash), invite_hash: invite.map(token::hash) }
    }

    /// Whether these are any credentials at all.
    pub fn is_empty(&self) -> bool {
        self.token_hash.is_none() && self.invite_hash.is_none()
    }

    /// The seat the token holds in `stored`'s game, if it holds one.
    pub fn seat(&self, stored: &StoredGame) -> Option<Player> {
        stored.seat_of(self.token_hash.as_deref()?)
    }

    /// Whether they let their reader read `stored`'s game: a public game
    /// anyone, a private one its seats and whoever has its invite.
    fn may_read(&self, stored: &StoredGame) -> bool {
        stored
            .invite_hash
            .as_ref()
            .is_none_or(|invite| self.invite_hash.as_ref() == Some(invite) || self.seat(stored).is_some())
    }
}

/// The refusal of a token that holds no seat of the game.
fn no_seat() -> Error {
    Error::Forbidden("this token holds no seat of this game".into())
}

/// The seat the token hashing to `token_hash` holds in `record`'s game, when the
/// request is for the version it is at (or for any, without `expected_version`).
///
/// # Errors
/// [`Error::Forbidden`] for a token that is no seat of the game;
/// [`Error::Conflict`] when the game is at another version.
fn seat_of(record: &GameRecord, token_hash: &[u8], expected_version: Option<i64>) -> Result<Player, Error> {
    let player = record.stored.seat_of(token_hash).ok_or_else(no_seat)?;
    let version = record.version();
    if let Some(expected) = expected_version.filter(|&expected| expected != version) {
        return Err(Error::Conflict {
            detail: format!("the request was for version {expected}, and the game is at version {version}"),
            current_version: Some(version),
        });
    }
    Ok(player)
}

/// The refusal of a player's token that is nobody's.
pub(super) fn unknown_player() -> Error {
    Error::Unauthenticated(
        "this token is no player's: it was never given, or a new one replaced it (POST /api/v1/players/me/token)"
            .into(),
    )
}
