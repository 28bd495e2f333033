//! The store's operations on arenas, each written once over [`Tx`]: creating
//! one, joining and withdrawing, reading one with its players and games, and
//! its pairing, which holds the arena's row so that two instances pairing it
//! at once pair each free player once.

use std::sync::LazyLock;
use std::time::Instant;

use jiff::Timestamp;

use super::challenges::{HOLD_PLAYER, new_id};
use super::games::create;
use super::rows::{bot_of, clock_of, corrupt, holder_id, rules_of, username};
use super::sql::Sql;
use super::tx::{Failed, Row, Tx};
use super::{Store, StoreError, counted};
use crate::bot::Bot;
use crate::engine::{Player, Rules};
use crate::rating::Rating;
use crate::record::{
    ArenaGame, ArenaId, ArenaPlayer, ArenaState, ArenaStatus, ArenaTerms, Holder, Joined, NewArena, PlayerId, Started,
    StoredArena, StoredGame,
};

/// An arena's columns, its creator's name among them, for `FROM arenas JOIN players creator`.
const ARENA_COLUMNS: &str = "arenas.id, arenas.name, arenas.variant, arenas.clock_initial_ms, \
     arenas.clock_increment_ms, arenas.starts_at, arenas.ends_at, arenas.rated, arenas.bots, arenas.scoring, \
     creator.name AS created_by, arenas.created_at";

/// The arenas found by `condition`, with their creators.
fn arenas_where(condition: &str) -> Sql {
    Sql::built(format!(
        "SELECT {ARENA_COLUMNS} FROM arenas JOIN players creator ON creator.id = arenas.created_by WHERE {condition}"
    ))
}

static UPCOMING_BY: Sql = Sql::new("SELECT count(*) AS upcoming FROM arenas WHERE created_by = $1 AND starts_at > $2");
static INSERT_ARENA: LazyLock<Sql> = LazyLock::new(|| {
    Sql::insert(
        "INSERT INTO arenas (name, variant, clock_initial_ms, clock_increment_ms, starts_at, ends_at, rated, bots, \
         created_by, created_at, scoring) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
    )
});
static ARENA: LazyLock<Sql> = LazyLock::new(|| arenas_where("arenas.id = $1"));
/// A page of the arenas of each status at `$1`, newest first, below id `$2`, at most `$3`.
static ARENAS: LazyLock<[Sql; 3]> = LazyLock::new(|| {
    ArenaStatus::ALL.map(|status| {
        let at = match status {
            ArenaStatus::Upcoming => "arenas.starts_at > $1",
            ArenaStatus::Running => "arenas.starts_at <= $1 AND arenas.ends_at > $1",
            ArenaStatus::Finished => "arenas.ends_at <= $1",
        };
        arenas_where(&format!("{at} AND arenas.id < $2 ORDER BY arenas.id DESC LIMIT $3"))
    })
});
/// The arenas running at `$1`, along `arenas_by_end`: what the timer pairs.
static RUNNING: Sql = Sql::new("SELECT id FROM arenas WHERE ends_at > $1 AND starts_at <= $1 ORDER BY id");
/// Holds arena `$1`'s row until the transaction ends: its pairings, on any
/// instance, come one after the other.
static HOLD_ARENA: Sql = Sql::new("SELECT id FROM arenas WHERE id = $1 FOR UPDATE");
/// Arena `$1`'s players, in the order they joined, each with their rating in
/// variant `$2` and whether they play a game now: a person anywhere, one of
/// the server's bots (who plays many games at once) in this arena.
static PLAYERS: LazyLock<Sql> = LazyLock::new(|| {
    Sql::built(format!(
        "SELECT players.id, players.name, players.token_hash, players.last_seen_at, \
         players.bot_since IS NOT NULL AS bot_account, players.bot, arena_players.joined_at, \
         arena_players.withdrawn, coalesce(ratings.rating, {START}) AS rating, \
         CASE WHEN players.bot IS NULL THEN EXISTS (SELECT 1 FROM seats JOIN games ON games.id = seats.game_id \
         WHERE seats.player_id = players.id AND games.status = 'ongoing') \
         ELSE EXISTS (SELECT 1 FROM games WHERE games.arena_id = $1 AND games.status = 'ongoing' \
         AND games.bot = players.bot) END AS playing \
         FROM arena_players JOIN players ON players.id = arena_players.player_id \
         LEFT JOIN ratings ON ratings.player_id = players.id AND ratings.variant = $2 \
         WHERE arena_players.arena_id = $1 ORDER BY arena_players.joined_at, players.id",
        START = Rating::START.rating,
    ))
});
/// Arena `$1`'s games with their two players (one may be a server's bot),
/// those that ended first first.
static GAMES: LazyLock<Sql> = LazyLock::new(|| {
    Sql::built(format!(
        "SELECT games.id, games.status, games.result, {} AS x_id, {} AS o_id FROM games \
         WHERE games.arena_id = $1 ORDER BY games.ended_at IS NULL, games.ended_at, games.id",
        holder_id("X"),
        holder_id("O"),
    ))
});
/// The rules of arena `$1` and the server's bots in it who have not withdrawn.
static BOTS: Sql = Sql::new(
    "SELECT arenas.variant, arenas.scoring, players.bot FROM arenas JOIN arena_players ON arena_players.arena_id = arenas.id \
     JOIN players ON players.id = arena_players.player_id \
     WHERE arenas.id = $1 AND players.bot IS NOT NULL AND NOT arena_players.withdrawn",
);
static WITHDRAWN: Sql = Sql::new("SELECT withdrawn FROM arena_players WHERE arena_id = $1 AND player_id = $2");
static INSERT_PLAYER: Sql =
    Sql::new("INSERT INTO arena_players (arena_id, player_id, joined_at, withdrawn) VALUES ($1, $2, $3, false)");
/// Sets whether player `$2` of arena `$1` is withdrawn (`$3`), if they were not;
/// answers how many rows it changed.
static SET_WITHDRAWN: Sql =
    Sql::new("UPDATE arena_players SET withdrawn = $3 WHERE arena_id = $1 AND player_id = $2 AND withdrawn <> $3");

impl Store {
    /// Creates arena `new`, unless its creator has `most_upcoming` arenas that
    /// have not started yet: then answers none, writing nothing.
    pub(crate) async fn create_arena(&self, new: NewArena, most_upcoming: u32) -> Result<Option<ArenaId>, StoreError> {
        self.wrote(async { run!(self, Write, |tx| create_arena(tx, &new, most_upcoming)) }).await
    }

    /// Arena `id`.
    pub(crate) async fn arena(&self, id: ArenaId) -> Result<Option<StoredArena>, StoreError> {
        counted(run!(self, Read, |tx| tx.row(&ARENA, &[id.into()], arena_from_row)))
    }

    /// At most `limit` arenas of `status` at `now`, newest first, below id `before`.
    pub(crate) async fn arenas(
        &self,
        status: ArenaStatus,
        now: Timestamp,
        before: ArenaId,
        limit: u32,
    ) -> Result<Vec<StoredArena>, StoreError> {
        let statement = &ARENAS[status as usize];
        counted(run!(self, Read, |tx| tx.rows(statement, &[now.into(), before.into(), limit.into()], arena_from_row)))
    }

    /// Arena `id` with its players and games, as one snapshot.
    pub(crate) async fn arena_state(&self, id: ArenaId) -> Result<Option<ArenaState>, StoreError> {
        counted(run!(self, Snapshot, |tx| arena_state(tx, id)))
    }

    /// The server's bots playing in arena `id`, with its rules.
    pub(crate) async fn arena_bots(&self, id: ArenaId) -> Result<Vec<(Rules, Bot)>, StoreError> {
        let read = |row: &Row<'_>| {
            let bot = bot_of(Some(&row.get::<String>("bot")?), None)?.ok_or_else(|| corrupt("bot", "null"))?;
            Ok((rules_of(row)?, bot))
        };
        counted(run!(self, Read, |tx| tx.rows(&BOTS, &[id.into()], read)))
    }

    /// The arenas running at `now`.
    pub(crate) async fn running_arenas(&self, now: Timestamp) -> Result<Vec<ArenaId>, StoreError> {
        counted(run!(self, Read, |tx| tx.rows(&RUNNING, &[now.into()], |row| row.get("id"))))
    }

    /// Player `player` joins arena `id` at `at`, or comes back to it. Like a
    /// withdrawal, it holds the arena, so that a pairing decided before it
    /// lands before its answer.
    pub(crate) async fn join_arena(&self, id: ArenaId, player: PlayerId, at: Timestamp) -> Result<Joined, StoreError> {
        self.wrote(async { run!(self, Write, |tx| join_arena(tx, id, player, at)) }).await
    }

    /// Player `player` withdraws from arena `id`; answers whether they were in it and had not withdrawn.
    pub(crate) async fn withdraw_from_arena(&self, id: ArenaId, player: PlayerId) -> Result<bool, StoreError> {
        self.wrote(async {
            run!(self, Write, |tx| async {
                tx.hold(&HOLD_ARENA, &[id.into()]).await?;
                Ok(tx.execute(&SET_WITHDRAWN, &[id.into(), player.into(), true.into()]).await? > 0)
            })
        })
        .await
    }

    /// Pairs arena `id`: creates the games that `pair` decides on the arena as
    /// it stands, with their events, and answers them as written. `pair` may
    /// be asked more than once: only the last answer is written.
    ///
    /// # Errors
    /// What `pair` returns.
    pub async fn pair_arena<E: From<StoreError> + Send + 'static>(
        &self,
        id: ArenaId,
        pair: impl Fn(&ArenaState) -> Result<Vec<Started>, E> + Send + Sync + 'static,
    ) -> Result<Vec<StoredGame>, E> {
        let started = Instant::now();
        let paired = run!(self, Write, |tx| pair_arena(tx, id, &pair));
        self.decided(
            started,
            paired.map(|games| {
                let wrote = !games.is_empty();
                (games, wrote)
            }),
        )
    }
}

async fn create_arena(tx: &mut impl Tx, new: &NewArena, most_upcoming: u32) -> Result<Option<ArenaId>, StoreError> {
    tx.hold(&HOLD_PLAYER, &[new.created_by.into()]).await?;
    let args = [new.created_by.into(), new.created_at.into()];
    if tx.row(&UPCOMING_BY, &args, |row| row.get("upcoming")).await?.unwrap_or(0) >= most_upcoming {
        return Ok(None);
    }
    let args = [
        new.terms.name.as_str().into(),
        new.terms.variant.code().into(),
        new.terms.clock.initial_ms.into(),
        new.terms.clock.increment_ms.into(),
        new.terms.starts_at.into(),
        new.terms.ends_at.into(),
        new.terms.rated.into(),
        new.terms.bots.into(),
        new.created_by.into(),
        new.created_at.into(),
        new.terms.scoring.code().into(),
    ];
    Ok(Some(ArenaId::new(new_id(tx.insert(&INSERT_ARENA, &args).await?)?)))
}

async fn arena_state(tx: &mut impl Tx, id: ArenaId) -> Result<Option<ArenaState>, StoreError> {
    let Some(arena) = tx.row(&ARENA, &[id.into()], arena_from_row).await? else { return Ok(None) };
    let players = tx.rows(&PLAYERS, &[id.into(), arena.terms.variant.code().into()], arena_player_from_row).await?;
    let games = tx.rows(&GAMES, &[id.into()], arena_game_from_row).await?;
    Ok(Some(ArenaState { arena, players, games }))
}

async fn join_arena(tx: &mut impl Tx, id: ArenaId, player: PlayerId, at: Timestamp) -> Result<Joined, StoreError> {
    tx.hold(&HOLD_ARENA, &[id.into()]).await?;
    match tx.row(&WITHDRAWN, &[id.into(), player.into()], |row| row.get::<bool>("withdrawn")).await? {
        None => {
            tx.execute(&INSERT_PLAYER, &[id.into(), player.into(), at.into()]).await?;
            Ok(Joined::Joined)
        }
        Some(true) => {
            tx.execute(&SET_WITHDRAWN, &[id.into(), player.into(), false.into()]).await?;
            Ok(Joined::Back)
        }
        Some(false) => Ok(Joined::Already),
    }
}

/// See [`Store::pair_arena`].
async fn pair_arena<E>(
    tx: &mut impl Tx,
    id: ArenaId,
    pair: &impl Fn(&ArenaState) -> Result<Vec<Started>, E>,
) -> Result<Vec<StoredGame>, Failed<E>> {
    tx.hold(&HOLD_ARENA, &[id.into()]).await?;
    let Some(state) = arena_state(tx, id).await? else { return Ok(Vec::new()) };
    let mut games = Vec::new();
    for (mut game, game_events) in pair(&state).map_err(Failed::Decided)? {
        game.id = create(tx, &game, None, &game_events).await?;
        games.push(game);
    }
    Ok(games)
}

/// The arena in `row`, read with [`ARENA_COLUMNS`].
fn arena_from_row(row: &Row<'_>) -> Result<StoredArena, StoreError> {
    let clock = clock_of(Some(row.get("clock_initial_ms")?), Some(row.get("clock_increment_ms")?))?;
    let rules = rules_of(row)?;
    let terms = ArenaTerms {
        name: row.get("name")?,
        variant: rules.variant,
        scoring: rules.scoring,
        clock: clock.ok_or_else(|| corrupt("clock_initial_ms", "null"))?,
        rated: row.get("rated")?,
        bots: row.get("bots")?,
        starts_at: row.get("starts_at")?,
        ends_at: row.get("ends_at")?,
    };
    Ok(StoredArena {
        id: row.get("id")?,
        terms,
        created_by: username(&row.get::<String>("created_by")?)?,
        created_at: row.get("created_at")?,
    })
}

/// The player in `row`, read with [`PLAYERS`].
fn arena_player_from_row(row: &Row<'_>) -> Result<ArenaPlayer, StoreError> {
    Ok(ArenaPlayer {
        holder: Holder {
            id: row.get("id")?,
            name: username(&row.get::<String>("name")?)?,
            token_hash: row.get("token_hash")?,
            last_seen_at: row.get("last_seen_at")?,
            bot_account: row.get("bot_account")?,
        },
        server_bot: bot_of(row.get::<Option<String>>("bot")?.as_deref(), None)?,
        rating: row.get("rating")?,
        joined_at: row.get("joined_at")?,
        withdrawn: row.get("withdrawn")?,
        playing: row.get("playing")?,
    })
}

/// The game in `row`, read with [`GAMES`].
fn arena_game_from_row(row: &Row<'_>) -> Result<ArenaGame, StoreError> {
    let (status, result): (String, String) = (row.get("status")?, row.get("result")?);
    let result = match result.as_str() {
        "x_wins" => Some(Some(Player::X)),
        "o_wins" => Some(Some(Player::O)),
        "draw" => Some(None),
        "ongoing" | "aborted" => None,
        other => return Err(corrupt("result", other)),
    };
    Ok(ArenaGame {
        id: row.get("id")?,
        players: [row.get("x_id")?, row.get("o_id")?],
        result,
        ongoing: status == "ongoing",
    })
}
