//! The store's operations on players: who they are, their games and events,
//! the challenges they send each other and the seeks that pair them. Each is
//! one unit of the database's work, on either backend.

use jiff::Timestamp;

use super::{Backend, Store, StoreError, counted};
use crate::engine::Player;
use crate::record::{
    ChallengeId, ChallengeStatus, GameId, Holder, ListedGame, NewChallenge, Page, PlayerEventKind, PlayerId,
    RatingRange, Results, SeekId, StoredChallenge, StoredGame, StoredPlayer, StoredPlayerEvent, StoredSeek, Terms,
    Username, stamp,
};

/// A new seek, before the database gives it an id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NewSeek {
    /// Whose it is.
    pub player: PlayerId,
    /// The game it asks for.
    pub terms: Terms,
    /// The ratings it pairs with, if it limits them.
    pub rating_range: Option<RatingRange>,
    /// When it is made.
    pub created_at: Timestamp,
    /// When it expires.
    pub expires_at: Timestamp,
}

/// What became of a seek.
#[derive(Debug, Clone, PartialEq)]
pub enum Sought {
    /// Its player has as many open seeks as they may: nothing was written.
    TooMany,
    /// No open seek matched it: it waits.
    Waiting(SeekId),
    /// It was paired with the oldest open seek that matched it, into `game`.
    Paired {
        /// The seek.
        seek: SeekId,
        /// The game both seeks were paired into, as written.
        game: Box<StoredGame>,
    },
}

/// A game that a pairing or an accepted challenge starts, and what it tells
/// its players, decided by the caller on what the store found.
pub type Started = (StoredGame, Vec<(PlayerId, PlayerEventKind)>);

impl Store {
    /// Creates a player named `name` (unique regardless of case) with the
    /// token hashing to `token_hash`.
    ///
    /// # Errors
    /// [`StoreError::NameTaken`]; when the database fails.
    pub async fn create_player(
        &self,
        name: &Username,
        token_hash: Vec<u8>,
        at: Timestamp,
    ) -> Result<PlayerId, StoreError> {
        let (name, key, at) = (name.as_str().to_string(), name.key(), stamp(at));
        self.wrote(async {
            match &self.backend {
                Backend::Sqlite(store) => store.create_player(name, key, token_hash, at).await,
                Backend::Postgres(store) => Box::pin(store.create_player(name, key, token_hash, at)).await,
            }
        })
        .await
    }

    /// The player whose token hashes to `token_hash`, and when they were last seen.
    ///
    /// # Errors
    /// When the database fails.
    pub async fn player_by_token(
        &self,
        token_hash: &[u8],
    ) -> Result<Option<(StoredPlayer, Option<Timestamp>)>, StoreError> {
        let token_hash = token_hash.to_vec();
        counted(match &self.backend {
            Backend::Sqlite(store) => store.player_by_token(token_hash).await,
            Backend::Postgres(store) => Box::pin(store.player_by_token(token_hash)).await,
        })
    }

    /// The player named `name`, in any case.
    ///
    /// # Errors
    /// When the database fails.
    pub async fn player_by_name(&self, name: &Username) -> Result<Option<StoredPlayer>, StoreError> {
        let key = name.key();
        counted(match &self.backend {
            Backend::Sqlite(store) => store.player_by_name(key).await,
            Backend::Postgres(store) => Box::pin(store.player_by_name(key)).await,
        })
    }

    /// Player `id` as created.
    ///
    /// # Errors
    /// When the database fails.
    pub async fn player(&self, id: PlayerId) -> Result<Option<StoredPlayer>, StoreError> {
        counted(match &self.backend {
            Backend::Sqlite(store) => store.player(id).await,
            Backend::Postgres(store) => Box::pin(store.player(id)).await,
        })
    }

    /// Gives player `id` the token hashing to `token_hash`: the old one stops
    /// working with this write.
    ///
    /// # Errors
    /// When the database fails.
    pub async fn set_player_token(&self, id: PlayerId, token_hash: Vec<u8>) -> Result<(), StoreError> {
        self.wrote(async {
            match &self.backend {
                Backend::Sqlite(store) => store.set_player_token(id, token_hash).await,
                Backend::Postgres(store) => Box::pin(store.set_player_token(id, token_hash)).await,
            }
        })
        .await
    }

    /// Notes that player `id` was seen at `at`.
    ///
    /// # Errors
    /// When the database fails.
    pub async fn touch_player(&self, id: PlayerId, at: Timestamp) -> Result<(), StoreError> {
        let at = stamp(at);
        self.wrote(async {
            match &self.backend {
                Backend::Sqlite(store) => store.touch_player(id, at).await,
                Backend::Postgres(store) => Box::pin(store.touch_player(id, at)).await,
            }
        })
        .await
    }

    /// Notes that the holder of seat `seat` of game `game` was seen there at `at`.
    ///
    /// # Errors
    /// When the database fails.
    pub async fn touch_seat(&self, game: GameId, seat: Player, at: Timestamp) -> Result<(), StoreError> {
        let (seat, at) = (seat.to_string(), stamp(at));
        self.wrote(async {
            match &self.backend {
                Backend::Sqlite(store) => store.touch_seat(game, seat, at).await,
                Backend::Postgres(store) => Box::pin(store.touch_seat(game, seat, at)).await,
            }
        })
        .await
    }

    /// The games of `page` in which player `id` holds a seat, newest first,
    /// private ones too.
    ///
    /// # Errors
    /// When the database fails.
    pub async fn player_games(&self, id: PlayerId, page: Page) -> Result<Vec<ListedGame>, StoreError> {
        counted(match &self.backend {
            Backend::Sqlite(store) => store.player_games(id, page).await,
            Backend::Postgres(store) => Box::pin(store.player_games(id, page)).await,
        })
    }

    /// The games of `ids` that are still there, as a listing shows them.
    ///
    /// # Errors
    /// When the database fails.
    pub async fn listed_games(&self, ids: Vec<GameId>) -> Result<Vec<ListedGame>, StoreError> {
        counted(match &self.backend {
            Backend::Sqlite(store) => store.listed_games(ids).await,
            Backend::Postgres(store) => Box::pin(store.listed_games(ids)).await,
        })
    }

    /// How player `id`'s finished games ended for them.
    ///
    /// # Errors
    /// When the database fails.
    pub async fn player_results(&self, id: PlayerId) -> Result<Results, StoreError> {
        counted(match &self.backend {
            Backend::Sqlite(store) => store.player_results(id).await,
            Backend::Postgres(store) => Box::pin(store.player_results(id)).await,
        })
    }

    /// At most `most` of player `id`'s events after number `after`, in order.
    ///
    /// # Errors
    /// When the database fails.
    pub async fn player_events(
        &self,
        id: PlayerId,
        after: i64,
        most: u32,
    ) -> Result<Vec<StoredPlayerEvent>, StoreError> {
        counted(match &self.backend {
            Backend::Sqlite(store) => store.player_events(id, after, most).await,
            Backend::Postgres(store) => Box::pin(store.player_events(id, after, most)).await,
        })
    }

    /// Creates `new`, with `tell` (each player's event about it), unless its
    /// challenger has `most_open` challenges open at its creation already:
    /// then answers none, writing nothing.
    ///
    /// # Errors
    /// When the database fails.
    pub async fn create_challenge(
        &self,
        new: NewChallenge,
        most_open: u32,
        tell: Vec<(PlayerId, PlayerEventKind)>,
    ) -> Result<Option<ChallengeId>, StoreError> {
        self.wrote(async {
            match &self.backend {
                Backend::Sqlite(store) => store.create_challenge(new, most_open, tell).await,
                Backend::Postgres(store) => Box::pin(store.create_challenge(new, most_open, tell)).await,
            }
        })
        .await
    }

    /// Challenge `id`.
    ///
    /// # Errors
    /// When the database fails.
    pub async fn challenge(&self, id: ChallengeId) -> Result<Option<StoredChallenge>, StoreError> {
        counted(match &self.backend {
            Backend::Sqlite(store) => store.challenge(id).await,
            Backend::Postgres(store) => Box::pin(store.challenge(id)).await,
        })
    }

    /// The challenges player `id` sent or was sent that are open at `now`, newest first.
    ///
    /// # Errors
    /// When the database fails.
    pub async fn open_challenges(&self, id: PlayerId, now: Timestamp) -> Result<Vec<StoredChallenge>, StoreError> {
        let now = stamp(now);
        counted(match &self.backend {
            Backend::Sqlite(store) => store.open_challenges(id, now).await,
            Backend::Postgres(store) => Box::pin(store.open_challenges(id, now)).await,
        })
    }

    /// Answers challenge `id` with `status` (declined, perhaps with `reason`, or
    /// cancelled) at `at`, with `tell`, if it is still open then; answers whether it was.
    ///
    /// # Errors
    /// When the database fails.
    pub async fn close_challenge(
        &self,
        id: ChallengeId,
        status: ChallengeStatus,
        reason: Option<String>,
        at: Timestamp,
        tell: Vec<(PlayerId, PlayerEventKind)>,
    ) -> Result<bool, StoreError> {
        self.wrote(async {
            match &self.backend {
                Backend::Sqlite(store) => store.close_challenge(id, status, reason, at, tell).await,
                Backend::Postgres(store) => Box::pin(store.close_challenge(id, status, reason, at, tell)).await,
            }
        })
        .await
    }

    /// Accepts challenge `id` at `at`, if it is still open then: creates the
    /// game `started` decides, with its events, and `tell` about the challenge,
    /// in one transaction; answers the game's id.
    ///
    /// # Errors
    /// When the database fails.
    pub async fn accept_challenge(
        &self,
        id: ChallengeId,
        at: Timestamp,
        started: Started,
        tell: Vec<(PlayerId, PlayerEventKind)>,
    ) -> Result<Option<GameId>, StoreError> {
        self.wrote(async {
            match &self.backend {
                Backend::Sqlite(store) => store.accept_challenge(id, at, started, tell).await,
                Backend::Postgres(store) => Box::pin(store.accept_challenge(id, at, started, tell)).await,
            }
        })
        .await
    }

    /// Makes seek `new`, unless its player has `most_open` open seeks already;
    /// pairs it with the oldest open seek of the same terms and another
    /// player's, if there is one, into the game that `pair` decides for that
    /// seek and its player. Seeks of the same terms are made one after the
    /// other, on any instance: a seek is paired once, and never missed by one
    /// made at the same moment.
    ///
    /// # Errors
    /// What `pair` returns; when the database fails.
    pub async fn seek<E: From<StoreError> + Send + 'static>(
        &self,
        new: NewSeek,
        most_open: u32,
        pair: impl FnOnce(&StoredSeek, Holder) -> Result<Started, E> + Send + 'static,
    ) -> Result<Sought, E> {
        let sought = self
            .wrote(async {
                match &self.backend {
                    Backend::Sqlite(store) => store.seek(new, most_open, pair).await,
                    Backend::Postgres(store) => Box::pin(store.seek(new, most_open, pair)).await,
                }
            })
            .await;
        sought.map_err(E::from)?
    }

    /// Seek `id`.
    ///
    /// # Errors
    /// When the database fails.
    pub async fn seek_by_id(&self, id: SeekId) -> Result<Option<StoredSeek>, StoreError> {
        counted(match &self.backend {
            Backend::Sqlite(store) => store.seek_by_id(id).await,
            Backend::Postgres(store) => Box::pin(store.seek_by_id(id)).await,
        })
    }

    /// Cancels seek `id` if it is open; answers whether it was.
    ///
    /// # Errors
    /// When the database fails.
    pub async fn cancel_seek(&self, id: SeekId) -> Result<bool, StoreError> {
        self.wrote(async {
            match &self.backend {
                Backend::Sqlite(store) => store.cancel_seek(id).await,
                Backend::Postgres(store) => Box::pin(store.cancel_seek(id)).await,
            }
        })
        .await
    }
}
