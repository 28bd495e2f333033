//! The store's operations on players, each written once over [`Tx`]: who they
//! are, where they were last seen, their games and events.

use std::sync::LazyLock;

use jiff::Timestamp;

use super::rows::{bot_of, corrupt, username};
use super::sql::Sql;
use super::tx::{Arg, Notice, Row, Tx};
use super::write::GAME_STANDINGS;
use super::{Store, StoreError, counted};
use crate::engine::Player;
use crate::record::{
    GameId, PlayerEventKind, PlayerId, Results, StoredBot, StoredPlayer, StoredPlayerEvent, Subject, Username,
};

/// The columns a player is read with from the players table named `table`,
/// each named with `prefix`, as [`player_from_row`] reads them.
pub(super) fn player_columns(table: &str, prefix: &str) -> String {
    format!(
        "{table}.id AS {prefix}id, {table}.name AS {prefix}name, {table}.created_at AS {prefix}created_at, \
         {table}.bot AS {prefix}server_bot, \
         ({table}.bot IS NOT NULL OR {table}.bot_since IS NOT NULL) AS {prefix}bot"
    )
}

/// The player in `row`, read with [`player_columns`] and the same `prefix`.
pub(super) fn player_from_row(row: &Row<'_>, prefix: &str) -> Result<StoredPlayer, StoreError> {
    Ok(StoredPlayer {
        id: row.get(&format!("{prefix}id"))?,
        name: username(&row.get::<String>(&format!("{prefix}name"))?)?,
        created_at: row.get(&format!("{prefix}created_at"))?,
        bot: row.get(&format!("{prefix}bot"))?,
        server_bot: bot_of(row.get::<Option<String>>(&format!("{prefix}server_bot"))?.as_deref(), None)?,
    })
}

static INSERT_PLAYER: LazyLock<Sql> = LazyLock::new(|| {
    Sql::insert("INSERT INTO players (name, name_key, token_hash, created_at) VALUES ($1, $2, $3, $4)")
});
/// A player by their token's hash, or by the key of their name.
static PLAYER_BY: LazyLock<[Sql; 2]> = LazyLock::new(|| {
    ["token_hash", "name_key"].map(|key| {
        Sql::built(format!("SELECT {}, last_seen_at FROM players WHERE {key} = $1", player_columns("players", "")))
    })
});
/// A player who holds no seat of any game becomes a bot, for good.
static MAKE_BOT: Sql = Sql::new(
    "UPDATE players SET bot_since = $2 WHERE id = $1 AND bot IS NULL AND bot_since IS NULL \
     AND NOT EXISTS (SELECT 1 FROM seats WHERE seats.player_id = $1)",
);
/// The bots, the server's and the accounts, with name keys after `$1`, at
/// most `$2`, by name; each with its ratings, a row a variant it was rated in.
static BOTS: LazyLock<Sql> = LazyLock::new(|| {
    Sql::built(format!(
        "SELECT {}, players.last_seen_at, ratings.variant, ratings.rating, ratings.deviation, ratings.volatility, \
         ratings.games, ratings.rated_at FROM (SELECT * FROM players \
         WHERE (bot IS NOT NULL OR bot_since IS NOT NULL) AND name_key > $1 ORDER BY name_key LIMIT $2) players \
         LEFT JOIN ratings ON ratings.player_id = players.id ORDER BY players.name_key, ratings.variant",
        player_columns("players", "")
    ))
});
/// How many rated games player `$1` holds a seat of, created after `$2`,
/// against a bot: one of the server's, or a bot account.
static RATED_GAMES_AGAINST_BOTS: Sql = Sql::new(
    "SELECT count(*) AS games FROM seats mine JOIN games ON games.id = mine.game_id \
     WHERE mine.player_id = $1 AND games.rated AND games.created_at > $2 AND (games.bot IS NOT NULL OR EXISTS ( \
     SELECT 1 FROM seats theirs JOIN players other ON other.id = theirs.player_id \
     WHERE theirs.game_id = games.id AND theirs.player <> mine.player AND other.bot_since IS NOT NULL))",
);
static SET_PLAYER_TOKEN: Sql = Sql::new("UPDATE players SET token_hash = $2 WHERE id = $1");
static TOUCH_PLAYER: Sql = Sql::new("UPDATE players SET last_seen_at = $2 WHERE id = $1");
static TOUCH_SEAT: Sql = Sql::new("UPDATE seats SET last_seen_at = $3 WHERE game_id = $1 AND player = $2");
/// How player `$1`'s finished games ended for them, as counted when each ended
/// (see the write's `COUNT_RESULT`).
static PLAYER_RESULTS: Sql = Sql::new(
    "SELECT games_won AS won, games_lost AS lost, games_drawn AS drawn, games_aborted AS aborted \
     FROM players WHERE id = $1",
);
static LAST_PLAYER_EVENT: Sql = Sql::new("SELECT last_event_seq FROM players WHERE id = $1");
static PLAYER_EVENTS: Sql = Sql::new(
    "SELECT seq, kind, game_id, challenge_id, created_at FROM player_events \
         WHERE player_id = $1 AND seq > $2 ORDER BY seq LIMIT $3",
);

impl Store {
    /// Creates a player named `name` (unique regardless of case) with the
    /// token hashing to `token_hash`.
    ///
    /// # Errors
    /// [`StoreError::NameTaken`].
    pub async fn create_player(
        &self,
        name: &Username,
        token_hash: Vec<u8>,
        at: Timestamp,
    ) -> Result<PlayerId, StoreError> {
        let (name, key) = (name.as_str().to_string(), name.key());
        let args = move || -> [Arg<'static>; 4] {
            [name.clone().into(), key.clone().into(), token_hash.clone().into(), at.into()]
        };
        let created = self.wrote(async { run!(self, Alone, |tx| tx.insert(&INSERT_PLAYER, &args())) }).await?;
        created.map(PlayerId::new).ok_or(StoreError::NameTaken)
    }

    /// The player whose token hashes to `token_hash`, and when they were last seen.
    pub(crate) async fn player_by_token(
        &self,
        token_hash: &[u8],
    ) -> Result<Option<(StoredPlayer, Option<Timestamp>)>, StoreError> {
        let token_hash = token_hash.to_vec();
        counted(run!(self, Read, |tx| player_by(tx, 0, token_hash.clone().into())))
    }

    /// The player named `name`, in any case.
    pub(crate) async fn player_by_name(&self, name: &Username) -> Result<Option<StoredPlayer>, StoreError> {
        let key = name.key();
        let found = counted(run!(self, Read, |tx| player_by(tx, 1, key.clone().into())))?;
        Ok(found.map(|(player, _)| player))
    }

    /// At most `most` bots whose names come after `after` (a name's key), by name.
    pub(crate) async fn bots(&self, after: String, most: u32) -> Result<Vec<StoredBot>, StoreError> {
        counted(run!(self, Read, |tx| bots(tx, &after, most)))
    }

    /// How many rated games player `id` started against bots after `since`.
    pub(crate) async fn rated_games_against_bots(&self, id: PlayerId, since: Timestamp) -> Result<i64, StoreError> {
        let counted_games =
            run!(self, Read, |tx| tx
                .row(&RATED_GAMES_AGAINST_BOTS, &[id.into(), since.into()], |row| row.get("games")));
        Ok(counted(counted_games)?.unwrap_or(0))
    }

    /// Gives player `id` the token hashing to `token_hash`: the old one stops
    /// working with this write.
    pub(crate) async fn set_player_token(&self, id: PlayerId, token_hash: Vec<u8>) -> Result<(), StoreError> {
        let args = [id.into(), token_hash.into()];
        self.wrote(async { run!(self, Write, |tx| set_player_token(tx, id, &args)) }).await
    }

    /// Makes player `id` a bot as of `at`, unless they are a bot already or
    /// hold a seat of any game: answers whether it did.
    pub(crate) async fn make_bot(&self, id: PlayerId, at: Timestamp) -> Result<bool, StoreError> {
        Ok(self.write_one(&MAKE_BOT, vec![id.into(), at.into()]).await? == 1)
    }

    /// Notes that player `id` was seen at `at`.
    pub(crate) async fn touch_player(&self, id: PlayerId, at: Timestamp) -> Result<(), StoreError> {
        self.write_one(&TOUCH_PLAYER, vec![id.into(), at.into()]).await.map(drop)
    }

    /// Notes that the holder of seat `seat` of game `game` was seen there at `at`.
    pub(crate) async fn touch_seat(&self, game: GameId, seat: Player, at: Timestamp) -> Result<(), StoreError> {
        self.write_one(&TOUCH_SEAT, vec![game.into(), seat.to_string().into(), at.into()]).await.map(drop)
    }

    /// How player `id`'s finished games ended for them.
    pub(crate) async fn player_results(&self, id: PlayerId) -> Result<Results, StoreError> {
        counted(run!(self, Read, |tx| player_results(tx, id)))
    }

    /// The number of player `id`'s last event; 0 before their first.
    pub(crate) async fn last_player_event(&self, id: PlayerId) -> Result<i64, StoreError> {
        let last = run!(self, Read, |tx| tx.row(&LAST_PLAYER_EVENT, &[id.into()], |row| row.get("last_event_seq")));
        Ok(counted(last)?.unwrap_or(0))
    }

    /// At most `most` of player `id`'s events after number `after`, in order.
    pub async fn player_events(
        &self,
        id: PlayerId,
        after: i64,
        most: u32,
    ) -> Result<Vec<StoredPlayerEvent>, StoreError> {
        counted(run!(self, Read, |tx| player_events(tx, id, after, most)))
    }
}

/// The player found by `PLAYER_BY[by]` with `key`, and when they were last seen.
async fn player_by(
    tx: &mut impl Tx,
    by: usize,
    key: Arg<'_>,
) -> Result<Option<(StoredPlayer, Option<Timestamp>)>, StoreError> {
    tx.row(&PLAYER_BY[by], &[key], |row| Ok((player_from_row(row, "")?, row.get("last_seen_at")?))).await
}

async fn bots(tx: &mut impl Tx, after: &str, most: u32) -> Result<Vec<StoredBot>, StoreError> {
    let rows = tx
        .rows(&BOTS, &[after.into(), most.into()], |row| {
            let rated = row.get::<Option<String>>("variant")?.is_some();
            let rating = if rated { Some(GAME_STANDINGS.variant_rating(row)?) } else { None };
            Ok((player_from_row(row, "")?, row.get("last_seen_at")?, rating))
        })
        .await?;
    let mut bots: Vec<StoredBot> = Vec::new();
    for (player, last_seen_at, rating) in rows {
        match bots.last_mut() {
            Some(bot) if bot.player.id == player.id => bot.ratings.extend(rating),
            _ => bots.push(StoredBot { player, last_seen_at, ratings: rating.into_iter().collect() }),
        }
    }
    Ok(bots)
}

async fn player_results(tx: &mut impl Tx, id: PlayerId) -> Result<Results, StoreError> {
    let read = |row: &Row<'_>| {
        Ok(Results {
            won: row.get("won")?,
            lost: row.get("lost")?,
            drawn: row.get("drawn")?,
            aborted: row.get("aborted")?,
        })
    };
    let results = tx.row(&PLAYER_RESULTS, &[id.into()], read).await?;
    results.ok_or_else(|| StoreError::Other("a count without a row".into()))
}

async fn player_events(
    tx: &mut impl Tx,
    id: PlayerId,
    after: i64,
    most: u32,
) -> Result<Vec<StoredPlayerEvent>, StoreError> {
    tx.rows(&PLAYER_EVENTS, &[id.into(), after.into(), most.into()], |row| {
        let kind: String = row.get("kind")?;
        let subject = match (row.get("game_id")?, row.get("challenge_id")?) {
            (Some(game), None) => Subject::Game(game),
            (None, Some(challenge)) => Subject::Challenge(challenge),
            other => return Err(corrupt("subject", &format!("{other:?}"))),
        };
        Ok(StoredPlayerEvent {
            seq: row.get("seq")?,
            created_at: row.get("created_at")?,
            kind: PlayerEventKind::ALL.into_iter().find(|k| k.code() == kind).ok_or_else(|| corrupt("kind", &kind))?,
            subject,
        })
    })
    .await
}

/// See [`Store::set_player_token`]. The player's streams, on every instance,
/// are told: those opened with the old token end.
async fn set_player_token(tx: &mut impl Tx, id: PlayerId, args: &[Arg<'static>]) -> Result<(), StoreError> {
    tx.execute(&SET_PLAYER_TOKEN, args).await?;
    tx.tell(Notice::PlayerEvents { id });
    Ok(())
}
