//! The only orchestrator: load the log, replay it, apply the action, append.

use crate::engine::{Action, Actor, Game, Player, Variant};
use crate::error::Error;
use crate::store::{
    Event, ListedGame, SeatRefusal, Status, Store, StoredEntry, StoredGame, Summary,
};
use crate::token;

/// A game as a request sees it: what is stored, and the state its log rebuilds.
#[derive(Debug, Clone)]
pub struct GameRecord {
    /// The stored game and its whole log.
    pub stored: StoredGame,
    /// The state, replayed from the log.
    pub game: Game,
}

impl GameRecord {
    /// Rebuilds the game from its stored log.
    ///
    /// # Errors
    /// [`Error::Internal`] when the log breaks a rule: it is corrupt, and it is never
    /// silently repaired.
    fn replay(stored: StoredGame) -> Result<GameRecord, Error> {
        let actions: Vec<_> = stored
            .log
            .iter()
            .filter_map(|entry| match entry.event {
                Event::Action(action) => Some(action),
                Event::SeatTaken(_) => None,
            })
            .collect();
        let game = Game::replay(stored.variant, &actions).map_err(|error| {
            Error::Internal(format!("game {}: corrupt log: {error}", stored.id))
        })?;
        Ok(GameRecord { stored, game })
    }

    /// The game's version: the sequence number of its last log entry.
    pub fn version(&self) -> i64 {
        self.stored.version()
    }

    /// The seats nobody has taken yet.
    pub fn open_seats(&self) -> Vec<Player> {
        open_seats(&self.stored.log)
    }

    /// Waiting for a player, ongoing, or finished.
    pub fn status(&self) -> Status {
        summary(&self.game, &self.open_seats()).status
    }
}

fn open_seats(log: &[StoredEntry]) -> Vec<Player> {
    [Player::X, Player::O]
        .into_iter()
        .filter(|&player| {
            !log.iter()
                .any(|entry| entry.event == Event::SeatTaken(player))
        })
        .collect()
}

fn summary(game: &Game, open_seats: &[Player]) -> Summary {
    let status = if game.is_over() {
        Status::Finished
    } else if open_seats.is_empty() {
        Status::Ongoing
    } else {
        Status::Waiting
    };
    Summary {
        status,
        result: game.result(),
    }
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
}

impl GameService {
    /// A service over `store`.
    pub fn new(store: Store) -> GameService {
        GameService { store }
    }

    /// Checks that the database answers.
    ///
    /// # Errors
    /// [`Error::Unavailable`] when it does not.
    pub async fn ready(&self) -> Result<(), Error> {
        self.store.ping().await.map_err(|error| match error {
            Error::Internal(detail) => Error::Unavailable(detail),
            other => other,
        })
    }

    /// Creates a game of `variant` with the caller in the seat of `play_as`.
    ///
    /// # Errors
    /// When the database fails.
    pub async fn create_game(
        &self,
        variant: Variant,
        play_as: Player,
    ) -> Result<(GameRecord, Seat), Error> {
        let token = token::new_token();
        let game = Game::new(variant);
        let open_seats = [play_as.other()];
        let stored = self
            .store
            .create_game(
                variant,
                play_as,
                &token::hash(&token),
                summary(&game, &open_seats),
            )
            .await?;
        Ok((
            GameRecord { stored, game },
            Seat {
                player: play_as,
                token,
            },
        ))
    }

    /// Seats the caller in the free seat of game `id`.
    ///
    /// # Errors
    /// [`Error::NotFound`]; [`Error::Conflict`] when both seats are taken or the game
    /// is over; database failures.
    pub async fn join(&self, id: i64) -> Result<(GameRecord, Seat), Error> {
        let token = token::new_token();
        let player = match self.store.take_free_seat(id, &token::hash(&token)).await? {
            Ok(player) => player,
            Err(SeatRefusal::NoSuchGame) => return Err(not_found(id)),
            Err(SeatRefusal::SeatsTaken) => {
                return Err(Error::Conflict {
                    detail: "both seats of this game are taken".into(),
                    current_version: None,
                });
            }
            Err(SeatRefusal::GameOver) => {
                return Err(Error::Conflict {
                    detail: "this game is over".into(),
                    current_version: None,
                });
            }
        };
        Ok((self.game(id).await?, Seat { player, token }))
    }

    /// Game `id`, replayed from its log.
    ///
    /// # Errors
    /// [`Error::NotFound`]; a corrupt log; database failures.
    pub async fn game(&self, id: i64) -> Result<GameRecord, Error> {
        let stored = self
            .store
            .load_game(id)
            .await?
            .ok_or_else(|| not_found(id))?;
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
        let record = self.game(id).await?;
        let player = self
            .store
            .seat_of(id, &token::hash(token))
            .await?
            .ok_or_else(|| Error::Forbidden("this token holds no seat of this game".into()))?;
        let version = record.version();
        if let Some(expected) = expected_version.filter(|&expected| expected != version) {
            return Err(Error::Conflict {
                detail: format!(
                    "the request was for version {expected}, and the game is at version {version}"
                ),
                current_version: Some(version),
            });
        }
        let GameRecord {
            mut stored,
            mut game,
        } = record;
        let logged = game.log().len();
        game.play_measured(Actor::Player(player), action, &mut rand::rng())?;
        let events: Vec<Event> = game.log()[logged..]
            .iter()
            .copied()
            .map(Event::Action)
            .collect();
        let written = self
            .store
            .append(
                id,
                version,
                &events,
                summary(&game, &open_seats(&stored.log)),
            )
            .await?;
        stored.log.extend(written);
        Ok(GameRecord { stored, game })
    }

    /// A page of games, newest first: up to `limit`, older than `before` if given,
    /// with `status` if given.
    ///
    /// # Errors
    /// Database failures.
    pub async fn list(
        &self,
        status: Option<Status>,
        before: Option<i64>,
        limit: u32,
    ) -> Result<Vec<ListedGame>, Error> {
        self.store.list_games(status, before, limit).await
    }
}

fn not_found(id: i64) -> Error {
    Error::NotFound(format!("there is no game {id}"))
}
