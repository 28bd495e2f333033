//! The store's operations on challenges, each written once over [`Tx`]: one
//! player's invitation to another to a game on given terms, open until it is
//! answered or expires. A new one holds its challenger's row while it counts
//! their open ones, so that two instances never both let one too many in.

use std::sync::LazyLock;

use jiff::Timestamp;

use super::games::create;
use super::players::{player_columns, player_from_row};
use super::rows::{corrupt, terms_from_row};
use super::sql::Sql;
use super::tx::{Row, Tx};
use super::write::insert_player_events;
use super::{Store, StoreError, counted};
use crate::record::{
    ChallengeId, ChallengeStatus, Colour, GameId, NewChallenge, PlayerEventKind, PlayerId, Started, StoredChallenge,
    Subject, TooMany,
};

/// Holds the row of player `$1` until the transaction ends: their writes that
/// count before they insert come one after the other.
pub(super) static HOLD_PLAYER: Sql = Sql::new("SELECT id FROM players WHERE id = $1 FOR UPDATE");
static OPEN_CHALLENGES_SENT: Sql = Sql::new(
    "SELECT count(*) AS open FROM challenges WHERE challenger_id = $1 AND status = 'open' AND expires_at > $2",
);
static OPEN_CHALLENGES_RECEIVED: Sql = Sql::new(
    "SELECT count(*) AS open FROM challenges WHERE challenged_id = $1 AND status = 'open' AND expires_at > $2",
);
static INSERT_CHALLENGE: LazyLock<Sql> = LazyLock::new(|| {
    Sql::insert(
        "INSERT INTO challenges (challenger_id, challenged_id, variant, clock_initial_ms, clock_increment_ms, colour, \
         status, created_at, expires_at, rated, scoring) VALUES ($1, $2, $3, $4, $5, $6, 'open', $7, $8, $9, $10)",
    )
});
/// A challenge with its two players, found by `condition`.
fn challenges_where(condition: &str) -> Sql {
    Sql::built(format!(
        "SELECT challenges.id, {}, {}, challenges.variant, challenges.clock_initial_ms, \
         challenges.clock_increment_ms, challenges.colour, challenges.status, challenges.decline_reason, \
         challenges.game_id, challenges.created_at, challenges.expires_at, challenges.answered_at, challenges.rated, \
         challenges.scoring \
         FROM challenges JOIN players challenger ON challenger.id = challenges.challenger_id \
         JOIN players challenged ON challenged.id = challenges.challenged_id WHERE {condition}",
        player_columns("challenger", "challenger_"),
        player_columns("challenged", "challenged_"),
    ))
}
static CHALLENGE: LazyLock<Sql> = LazyLock::new(|| challenges_where("challenges.id = $1"));
/// At most `$4` of the challenges player `$1` sent or was sent that are open at
/// `$2`, with ids below `$3`, newest first.
static OPEN_CHALLENGES: LazyLock<Sql> = LazyLock::new(|| {
    challenges_where(
        "challenges.status = 'open' AND challenges.expires_at > $2 AND challenges.id < $3 \
         AND (challenges.challenger_id = $1 OR challenges.challenged_id = $1) ORDER BY challenges.id DESC LIMIT $4",
    )
});
/// Challenge `$1`, its row held until the transaction ends: two answers to it
/// at once, on any instance, come one after the other.
static HOLD_CHALLENGE: LazyLock<Sql> =
    LazyLock::new(|| challenges_where("challenges.id = $1 FOR UPDATE OF challenges"));
/// Answers challenge `$2` at `$1`: `$3` its new status, `$4` a reason for declining it.
static ANSWER_CHALLENGE: Sql =
    Sql::new("UPDATE challenges SET status = $3, decline_reason = $4, answered_at = $1 WHERE id = $2");
static SET_CHALLENGE_GAME: Sql = Sql::new("UPDATE challenges SET game_id = $1 WHERE id = $2");

impl Store {
    /// Creates `new`, with `tell` (each player's event about it), unless its
    /// challenger has `most[0]` challenges open at its creation already, or
    /// the player it is for was sent `most[1]`: then answers which, writing
    /// nothing.
    pub(crate) async fn create_challenge(
        &self,
        new: NewChallenge,
        most: [u32; 2],
        tell: Vec<(PlayerId, PlayerEventKind)>,
    ) -> Result<Result<ChallengeId, TooMany>, StoreError> {
        self.wrote(async { run!(self, Write, |tx| create_challenge(tx, &new, most, &tell)) }).await
    }

    /// Challenge `id`.
    pub async fn challenge(&self, id: ChallengeId) -> Result<Option<StoredChallenge>, StoreError> {
        counted(run!(self, Read, |tx| tx.row(&CHALLENGE, &[id.into()], challenge_from_row)))
    }

    /// At most `most` of the challenges player `id` sent or was sent that are
    /// open at `now`, with ids below `before`, newest first.
    pub(crate) async fn open_challenges(
        &self,
        id: PlayerId,
        now: Timestamp,
        before: ChallengeId,
        most: u32,
    ) -> Result<Vec<StoredChallenge>, StoreError> {
        let args = [id.into(), now.into(), before.into(), most.into()];
        counted(run!(self, Read, |tx| tx.rows(&OPEN_CHALLENGES, &args, challenge_from_row)))
    }

    /// Answers challenge `id` with `status` (declined, perhaps with `reason`, or
    /// cancelled) at `at`, with `tell`, if it is still open then; answers whether it was.
    pub(crate) async fn close_challenge(
        &self,
        id: ChallengeId,
        status: ChallengeStatus,
        reason: Option<String>,
        at: Timestamp,
        tell: Vec<(PlayerId, PlayerEventKind)>,
    ) -> Result<bool, StoreError> {
        self.wrote(async { run!(self, Write, |tx| close_challenge(tx, id, status, reason.as_deref(), at, &tell)) })
            .await
    }

    /// Accepts challenge `id` at `at`, if it is still open then: creates the
    /// game `started` decides, with its events, and `tell` about the challenge,
    /// in one transaction; answers the game's id.
    pub(crate) async fn accept_challenge(
        &self,
        id: ChallengeId,
        at: Timestamp,
        started: Started,
        tell: Vec<(PlayerId, PlayerEventKind)>,
    ) -> Result<Option<GameId>, StoreError> {
        self.wrote(async { run!(self, Write, |tx| accept_challenge(tx, id, at, &started, &tell)) }).await
    }
}

async fn create_challenge(
    tx: &mut impl Tx,
    new: &NewChallenge,
    most: [u32; 2],
    tell: &[(PlayerId, PlayerEventKind)],
) -> Result<Result<ChallengeId, TooMany>, StoreError> {
    // Both rows, in the order of their ids: two challenges between the same
    // players never wait for each other in a circle.
    let mut held = [new.challenger, new.challenged];
    held.sort();
    for player in held {
        tx.hold(&HOLD_PLAYER, &[player.into()]).await?;
    }
    for (count, player, too_many, most) in [
        (&OPEN_CHALLENGES_SENT, new.challenger, TooMany::Sent, most[0]),
        (&OPEN_CHALLENGES_RECEIVED, new.challenged, TooMany::Received, most[1]),
    ] {
        let args = [player.into(), new.created_at.into()];
        if tx.row(count, &args, |row| row.get("open")).await?.unwrap_or(0) >= most {
            return Ok(Err(too_many));
        }
    }
    let clock = new.terms.clock.map(|clock| (clock.initial_ms, clock.increment_ms));
    let args = [
        new.challenger.into(),
        new.challenged.into(),
        new.terms.variant.code().into(),
        clock.map(|(initial, _)| initial).into(),
        clock.map(|(_, increment)| increment).into(),
        new.colour.code().into(),
        new.created_at.into(),
        new.expires_at.into(),
        new.terms.rated.into(),
        new.terms.scoring.code().into(),
    ];
    let id = ChallengeId::new(new_id(tx.insert(&INSERT_CHALLENGE, &args).await?)?);
    insert_player_events(tx, Subject::Challenge(id), tell, new.created_at).await?;
    Ok(Ok(id))
}

/// The id a row was inserted with, where no unique key can refuse it.
pub(super) fn new_id(inserted: Option<i64>) -> Result<i64, StoreError> {
    inserted.ok_or_else(|| StoreError::Other("a unique key refused a new row".into()))
}

/// The challenge in `row`, read with [`challenges_where`].
fn challenge_from_row(row: &Row<'_>) -> Result<StoredChallenge, StoreError> {
    let (colour, status): (String, String) = (row.get("colour")?, row.get("status")?);
    Ok(StoredChallenge {
        id: row.get("id")?,
        challenger: player_from_row(row, "challenger_")?,
        challenged: player_from_row(row, "challenged_")?,
        terms: terms_from_row(row)?,
        colour: [Colour::X, Colour::O, Colour::Random]
            .into_iter()
            .find(|c| c.code() == colour)
            .ok_or_else(|| corrupt("colour", &colour))?,
        status: ChallengeStatus::STORED
            .into_iter()
            .find(|s| s.code() == status)
            .ok_or_else(|| corrupt("status", &status))?,
        decline_reason: row.get("decline_reason")?,
        game_id: row.get("game_id")?,
        created_at: row.get("created_at")?,
        expires_at: row.get("expires_at")?,
        answered_at: row.get("answered_at")?,
    })
}

/// Gives challenge `id` `status` at `at`, with `reason`, if it is still open
/// then (as [`StoredChallenge::status_at`] decides); answers whether it was.
async fn close(
    tx: &mut impl Tx,
    id: ChallengeId,
    at: Timestamp,
    status: ChallengeStatus,
    reason: Option<&str>,
) -> Result<bool, StoreError> {
    let Some(challenge) = tx.row(&HOLD_CHALLENGE, &[id.into()], challenge_from_row).await? else { return Ok(false) };
    if challenge.status_at(at) != ChallengeStatus::Open {
        return Ok(false);
    }
    tx.execute(&ANSWER_CHALLENGE, &[at.into(), id.into(), status.code().into(), reason.into()]).await?;
    Ok(true)
}

async fn close_challenge(
    tx: &mut impl Tx,
    id: ChallengeId,
    status: ChallengeStatus,
    reason: Option<&str>,
    at: Timestamp,
    tell: &[(PlayerId, PlayerEventKind)],
) -> Result<bool, StoreError> {
    if !close(tx, id, at, status, reason).await? {
        return Ok(false);
    }
    insert_player_events(tx, Subject::Challenge(id), tell, at).await?;
    Ok(true)
}

async fn accept_challenge(
    tx: &mut impl Tx,
    id: ChallengeId,
    at: Timestamp,
    (game, game_events): &Started,
    tell: &[(PlayerId, PlayerEventKind)],
) -> Result<Option<GameId>, StoreError> {
    if !close(tx, id, at, ChallengeStatus::Accepted, None).await? {
        return Ok(None);
    }
    let game_id = create(tx, game, None, game_events).await?;
    tx.execute(&SET_CHALLENGE_GAME, &[game_id.into(), id.into()]).await?;
    insert_player_events(tx, Subject::Challenge(id), tell, at).await?;
    Ok(Some(game_id))
}
