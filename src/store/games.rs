//! The store's operations on games: creating one, reading it, writing what
//! the service decided on it, and what the server's timer and retention ask
//! for, written once, over [`Tx`]. PostgreSQL writes decisions many games' in
//! one statement (see `postgres/writes.rs`).

use std::sync::LazyLock;
use std::time::Instant;

use jiff::Timestamp;
use serde_json::{Value, json};

use super::rows::{ENTRY_COLUMNS, EntryRow, GAME_COLUMNS, SummaryColumns, player, read_game};
use super::sql::Sql;
use super::tables::continue_ids;
use super::tx::{Arg, Failed, Kind, Notice, Row, Tx};
use super::write::{conflict, insert_player_events, write_besides};
use super::{Backend, Store, StoreError, counted};
use crate::bot::Bot;
use crate::engine::Player;
use crate::record::stamp;
use crate::record::{
    Event, GameId, PlayerEventKind, PlayerId, RematchOf, StoredEntry, StoredGame, StoredSeat, Subject, Summary, Write,
};

/// Which ended games a deletion takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// Every game that ended but a rated one, from which its players'
    /// ratings are derived, and an arena's, from which its standings are:
    /// the retention period's.
    Any,
    /// The games the server aborted because nobody took their free seat; never
    /// a rematch, which its first game's log names.
    Unjoined,
}

impl Ended {
    /// The condition of SQL's `WHERE` on the games table that picks them.
    fn condition(self) -> &'static str {
        match self {
            Ended::Any => "ended_at IS NOT NULL AND NOT rated AND arena_id IS NULL",
            // As the partial index games_unjoined_by_end has it, so that it is used.
            Ended::Unjoined => "end_reason = 'aborted' AND end_player IS NULL AND rematch_of IS NULL",
        }
    }
}

/// The timer's questions, along `games_by_deadline` and `games_by_creation`.
pub(super) static TIMED_OUT_GAMES: Sql =
    Sql::new("SELECT id FROM games WHERE status = 'ongoing' AND deadline <= $1 ORDER BY deadline LIMIT $2");
pub(super) static UNJOINED_GAMES: Sql =
    Sql::new("SELECT id FROM games WHERE status = 'waiting' AND created_at <= $1 ORDER BY created_at LIMIT $2");
/// PostgreSQL's ids of new games go on after the highest, a copied game's.
static CONTINUE_GAME_IDS: LazyLock<Sql> = LazyLock::new(|| continue_ids("games"));
static GAME_IDS: Sql = Sql::new("SELECT id FROM games WHERE id > $1 ORDER BY id LIMIT $2");
static ORIGINAL_APP_GAME: Sql = Sql::new("SELECT game_id, play_as FROM original_app_game WHERE slot = 1");
pub(super) static SET_ORIGINAL_APP_GAME: Sql = Sql::new(
    "INSERT INTO original_app_game (slot, game_id, play_as) VALUES (1, $1, $2) \
         ON CONFLICT (slot) DO UPDATE SET game_id = excluded.game_id, play_as = excluded.play_as",
);

/// Retention's question, for each kind of ended game: see
/// [`Store::delete_games_ended_before`]. Instances that delete at once each
/// skip the games another holds. Each names its index for SQLite, which
/// without statistics chose a worse one (and refuses a question that cannot
/// use the index it names).
pub(super) fn ended_before(ended: Ended) -> &'static Sql {
    static QUESTIONS: LazyLock<[Sql; 2]> = LazyLock::new(|| {
        [(Ended::Any, "games_by_end"), (Ended::Unjoined, "games_unjoined_by_end")].map(|(ended, index)| {
            Sql::built(format!(
                "SELECT id FROM games /* SQLite: INDEXED BY {index} */ WHERE {} AND ended_at < $1 \
                 AND id NOT IN (SELECT game_id FROM original_app_game) AND id < (SELECT max(id) FROM games) \
                 ORDER BY ended_at, id LIMIT $2 FOR UPDATE SKIP LOCKED",
                ended.condition()
            ))
        })
    });
    &QUESTIONS[ended as usize]
}
/// Retention's deletes of the games `$1` names, what names them first.
static DELETE_GAMES: LazyLock<[Sql; 7]> = LazyLock::new(|| {
    [
        "DELETE FROM player_events WHERE game_id = ANY($1)",
        "UPDATE challenges SET game_id = NULL WHERE game_id = ANY($1)",
        "DELETE FROM seeks WHERE game_id = ANY($1)",
        "DELETE FROM log_entries WHERE game_id = ANY($1)",
        "DELETE FROM seats WHERE game_id = ANY($1)",
        "UPDATE games SET rematch_of = NULL WHERE rematch_of = ANY($1)",
        "DELETE FROM games WHERE id = ANY($1)",
    ]
    .map(Sql::new)
});

/// A game's row, new (its id the database's: nothing when it would be a
/// second rematch of one game) or copied (`$19`, its own: nothing when a game
/// has that id already).
pub(super) static INSERT_GAME: LazyLock<[Sql; 2]> = LazyLock::new(|| {
    [
        Sql::insert(&format!("INSERT INTO games ({GAME_COLUMNS}) VALUES ({GAME_VALUES}) ON CONFLICT DO NOTHING")),
        Sql::built(format!(
            "INSERT INTO games (id, {GAME_COLUMNS}) OVERRIDING SYSTEM VALUE VALUES ($19, {GAME_VALUES}) \
             ON CONFLICT (id) DO NOTHING"
        )),
    ]
});
/// The parameters of a game's row, as [`game_args`] gives them.
const GAME_VALUES: &str = "$1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18";
/// A new game, its seats and log as JSON (see [`rows_as_json`]), and the entry
/// of the game it is the rematch of (the entry with a game's id, which names
/// the new game), in one statement; answers the new game's id and how many
/// entries it wrote: fewer when the rematch entry's place was taken.
static INSERT_GAME_IN_ONE: LazyLock<Sql> = LazyLock::new(|| {
    Sql::built(format!(
        "WITH game AS (INSERT INTO games ({GAME_COLUMNS}) VALUES ({GAME_VALUES}) ON CONFLICT DO NOTHING RETURNING id), \
         seat AS (INSERT INTO seats (game_id, player, token_hash, player_id) \
         SELECT game.id, seat.player, seat.token_hash, seat.player_id \
         FROM game, json_populate_recordset(NULL::seats, $19::json) AS seat), \
         entry AS (INSERT INTO log_entries (game_id, {ENTRY_COLUMNS}) SELECT coalesce(entry.game_id, game.id), \
         entry.seq, entry.kind, entry.actor, entry.square_a, entry.square_b, entry.closing_move, entry.square, \
         CASE WHEN entry.game_id IS NULL THEN entry.rematch ELSE game.id END, entry.by_bot, entry.created_at \
         FROM game, json_populate_recordset(NULL::log_entries, $20::json) AS entry \
         ON CONFLICT DO NOTHING RETURNING 1) \
         SELECT id, (SELECT count(*) FROM entry) AS entries FROM game"
    ))
});
/// A seat, or an entry of a game's log: nothing when its place is taken (by a
/// write that raced this one).
pub(super) static INSERT_SEAT: Sql = Sql::new(
    "INSERT INTO seats (game_id, player, token_hash, player_id) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
);
pub(super) static INSERT_ENTRY: LazyLock<Sql> = LazyLock::new(|| {
    Sql::built(format!(
        "INSERT INTO log_entries (game_id, {ENTRY_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) \
         ON CONFLICT DO NOTHING"
    ))
});
pub(super) static SET_SUMMARY: Sql = Sql::new(
    "UPDATE games SET status = $2, result = $3, end_reason = $4, end_player = $5, deadline = $6, ended_at = $7 \
         WHERE id = $1",
);
/// A write of a game: `$shared`, written once over [`Tx`], as one of SQLite's
/// writer's writes, or `$own` on PostgreSQL (see the module's doc), its future
/// boxed as [`Store`]'s methods explain.
macro_rules! game_write {
    ($store:expr, |$tx:ident| $shared:expr, |$db:ident| $own:expr) => {
        match &$store.backend {
            Backend::Sqlite(db) => db.run(Kind::Write, async move |$tx| $shared.await).await,
            Backend::Postgres($db) => Box::pin($own).await,
        }
    };
}

impl Store {
    /// Creates `game` as it is but for its id (the database's, answered), and
    /// `player_events` about it; with `rematch`, its entry in the game it follows.
    ///
    /// # Errors
    /// [`StoreError::Conflict`] when that game's log already holds the rematch's
    /// sequence number.
    pub async fn create_game(
        &self,
        game: StoredGame,
        rematch: Option<RematchOf>,
        player_events: Vec<(PlayerId, PlayerEventKind)>,
    ) -> Result<GameId, StoreError> {
        // With nothing to write beside it, a game is created in one statement
        // on PostgreSQL, outside any transaction.
        let kind = if rematch.is_none() && player_events.is_empty() { Kind::Alone } else { Kind::Write };
        self.wrote(async {
            game_write!(self, |tx| create(tx, &game, rematch, &player_events), |db| async {
                let id = db.run(kind, async |tx| create(tx, &game, rematch, &player_events).await).await?;
                db.created(StoredGame { id, ..game }, rematch);
                Ok(id)
            })
        })
        .await
    }

    /// The game with `id`, its whole log and its seats' token hashes.
    ///
    /// # Errors
    /// [`StoreError::NotFound`]; [`StoreError::Corrupt`] for a row the code cannot read.
    pub async fn load_game(&self, id: GameId) -> Result<StoredGame, StoreError> {
        counted(match &self.backend {
            Backend::Sqlite(db) => db.run(Kind::Snapshot, async move |tx| read_game(tx, id).await).await,
            Backend::Postgres(db) => {
                let game = Box::pin(db.run(Kind::Read, async |tx| read_game(tx, id).await)).await?;
                db.knows(&game);
                Ok(game)
            }
        })
    }

    /// Carries out `write` on game `id`, decided on a copy read earlier, in one
    /// transaction.
    ///
    /// # Errors
    /// [`StoreError::Conflict`] with the current version when another write
    /// already took the sequence number of the write's first entry, or the seat.
    pub async fn write(&self, id: GameId, write: Write) -> Result<(), StoreError> {
        let period = self.rating_period;
        self.wrote(async {
            game_write!(self, |tx| write_game(tx, id, &write, period), |db| db.write(id, write, period))
        })
        .await
    }

    /// Reads game `id`, lets `decide` say what to write and what to answer, and
    /// writes it, with no other write to that game in between. `decide` runs
    /// where the database's work runs, so must not take long, and may run more
    /// than once: on PostgreSQL a decision on an out-of-date copy of the game is
    /// made again on the game as it is. Its error type is the caller's.
    ///
    /// # Errors
    /// What `decide` returns; [`StoreError::NotFound`]; [`StoreError::Conflict`]
    /// when other writes kept landing first.
    pub(crate) async fn update<T: Send + 'static, E: From<StoreError> + Send + 'static>(
        &self,
        id: GameId,
        mut decide: impl FnMut(StoredGame) -> Result<(Option<Write>, T), E> + Send + 'static,
    ) -> Result<T, E> {
        // The store's own errors are told apart from the decision's, and a
        // decision to write nothing is no sign of room.
        let started = Instant::now();
        let mut decide = move |game| {
            let (write, answer) = decide(game).map_err(Failed::Decided)?;
            let wrote = write.is_some();
            Ok((write, (answer, wrote)))
        };
        let period = self.rating_period;
        let updated = match &self.backend {
            // Under the writer's lock from the read on: nothing can come between.
            Backend::Sqlite(db) => {
                db.run(Kind::Write, async move |tx| {
                    let (write, decided) = decide(read_game(tx, id).await?)?;
                    if let Some(write) = write {
                        write_game(tx, id, &write, period).await?;
                    }
                    Ok(decided)
                })
                .await
            }
            Backend::Postgres(db) => Box::pin(db.update(id, period, decide)).await,
        };
        self.decided(started, updated)
    }

    /// At most `most` of the games ongoing past their `deadline` at `now`, the
    /// earliest deadline first: the clocks the server's timer must write down.
    pub(crate) async fn timed_out_games(&self, now: Timestamp, most: u32) -> Result<Vec<GameId>, StoreError> {
        counted(run!(self, Read, |tx| tx.rows(&TIMED_OUT_GAMES, &[now.into(), most.into()], |row| row.get("id"))))
    }

    /// At most `most` of the games still waiting for their second player that
    /// were created before `created_before`, the oldest first: the games the
    /// server's timer must abort.
    pub(crate) async fn unjoined_games(&self, created_before: Timestamp, most: u32) -> Result<Vec<GameId>, StoreError> {
        counted(
            run!(self, Read, |tx| tx.rows(&UNJOINED_GAMES, &[created_before.into(), most.into()], |row| row.get("id")))
        )
    }

    /// Deletes at most `most` of the `ended` games that ended before `before`,
    /// the first to end first (so never before the game whose log names it as
    /// its rematch), with their logs and seats; never the original app's game,
    /// nor the newest game, whose id SQLite would give the next game again. A
    /// later game that was their rematch forgets it was. Answers how many it deleted.
    pub(crate) async fn delete_games_ended_before(
        &self,
        ended: Ended,
        before: Timestamp,
        most: usize,
    ) -> Result<usize, StoreError> {
        let most = i64::try_from(most).unwrap_or(i64::MAX);
        self.wrote(async { run!(self, Write, |tx| delete_games_ended_before(tx, ended, before, most)) }).await
    }

    /// The ids of the games after `after`, in order, at most `most`: every game,
    /// private ones too.
    pub async fn game_ids(&self, after: GameId, most: u32) -> Result<Vec<GameId>, StoreError> {
        counted(run!(self, Read, |tx| tx.rows(&GAME_IDS, &[after.into(), most.into()], |row| row.get("id"))))
    }

    /// Writes `game`, read from another database, as it is, with its id; with
    /// `rematch`, the entry of the game it is the rematch of (which the copy of
    /// that game leaves out: it names this one). Answers false, writing nothing,
    /// when a game has that id already.
    pub async fn copy_game(&self, game: StoredGame, rematch: Option<RematchOf>) -> Result<bool, StoreError> {
        self.wrote(async {
            game_write!(self, |tx| copy(tx, &game, rematch), |db| db.run(Kind::Write, async move |tx| {
                let copied = copy(tx, &game, rematch).await?;
                tx.execute(&CONTINUE_GAME_IDS, &[]).await?;
                Ok(copied)
            }))
        })
        .await
    }

    /// The game the original app's routes play, and the seat its player chose (`play_as`).
    pub async fn original_app_game(&self) -> Result<Option<(GameId, Player)>, StoreError> {
        let read = |row: &Row<'_>| Ok((row.get("game_id")?, player(&row.get::<String>("play_as")?)?));
        counted(run!(self, Read, |tx| tx.row(&ORIGINAL_APP_GAME, &[], read)))
    }

    /// Points the original app's routes at game `id`.
    pub(crate) async fn set_original_app_game(&self, id: GameId, play_as: Player) -> Result<(), StoreError> {
        self.write_one(&SET_ORIGINAL_APP_GAME, vec![id.into(), play_as.to_string().into()]).await.map(drop)
    }
}

async fn delete_games_ended_before(
    tx: &mut impl Tx,
    ended: Ended,
    before: Timestamp,
    most: i64,
) -> Result<usize, StoreError> {
    let ids = tx.rows(ended_before(ended), &[before.into(), most.into()], |row| row.get::<i64>("id")).await?;
    let ids = [Arg::Ids(ids)];
    let mut deleted = 0;
    for delete in DELETE_GAMES.iter() {
        deleted = tx.execute(delete, &ids).await?;
    }
    Ok(usize::try_from(deleted).unwrap_or(usize::MAX))
}

/// Creates `game` (see [`Store::create_game`]) with the events it tells its
/// players, and has the other instances told of it.
pub(super) async fn create(
    tx: &mut impl Tx,
    game: &StoredGame,
    rematch: Option<RematchOf>,
    player_events: &[(PlayerId, PlayerEventKind)],
) -> Result<GameId, StoreError> {
    let id = insert_game(tx, game, rematch).await?;
    insert_player_events(tx, Subject::Game(id), player_events, game.created_at).await?;
    tx.tell(Notice::Changed { id, version: game.version() });
    if let Some(RematchOf { game_id, seq, .. }) = rematch {
        tx.tell(Notice::Changed { id: game_id, version: seq });
    }
    Ok(id)
}

/// Creates `game` as it is (but for its id, which the database gives, and is
/// answered), its seats and its log; with `rematch`, its entry in the game it
/// follows: a conflict on that game when a rematch asked for at the same
/// moment by the other player took that entry's place, or the game's one rematch.
async fn insert_game<T: Tx>(tx: &mut T, game: &StoredGame, rematch: Option<RematchOf>) -> Result<GameId, StoreError> {
    if T::A_GAME_IN_ONE_STATEMENT {
        let mut args = game_args(game);
        args.extend(rows_as_json(game, rematch).map(Arg::from));
        let inserted = |row: &Row<'_>| Ok((row.get("id")?, row.get::<usize>("entries")?));
        return match tx.row(&INSERT_GAME_IN_ONE, &args, inserted).await? {
            Some((id, entries)) if entries == game.log.len() + usize::from(rematch.is_some()) => Ok(id),
            _ => conflict(tx, rematch.map_or(game.id, |rematch| rematch.game_id)).await,
        };
    }
    match tx.insert(&INSERT_GAME[0], &game_args(game)).await? {
        Some(id) => insert_game_rows(tx, GameId::new(id), game, rematch).await.map(|()| GameId::new(id)),
        None => conflict(tx, rematch.map_or(game.id, |rematch| rematch.game_id)).await,
    }
}

/// Writes `game` as it is, with its id (see [`Store::copy_game`]).
async fn copy(tx: &mut impl Tx, game: &StoredGame, rematch: Option<RematchOf>) -> Result<bool, StoreError> {
    let mut args = game_args(game);
    args.push(game.id.into());
    if tx.execute(&INSERT_GAME[1], &args).await? == 0 {
        return Ok(false);
    }
    insert_game_rows(tx, game.id, game, rematch).await.map(|()| true)
}

/// The values of `game`'s row, `$1`-`$18` of [`INSERT_GAME`].
fn game_args(game: &StoredGame) -> Vec<Arg<'_>> {
    let summary = SummaryColumns::of(&game.summary);
    let clock = game.clock.map(|clock| (clock.initial_ms, clock.increment_ms));
    vec![
        game.variant.code().into(),
        game.created_at.into(),
        game.opponent.map(Bot::code).into(),
        match game.opponent {
            Some(Bot::Parasite { mistake_chance }) => Some(mistake_chance),
            _ => None,
        }
        .into(),
        game.hints.into(),
        clock.map(|(initial, _)| initial).into(),
        clock.map(|(_, increment)| increment).into(),
        game.rematch_of.into(),
        summary.status.into(),
        summary.result.into(),
        summary.end_reason.into(),
        summary.end_player.into(),
        summary.deadline.into(),
        summary.ended_at.into(),
        game.invite_hash.as_deref().into(),
        game.rated.into(),
        game.arena.into(),
        game.scoring.code().into(),
    ]
}

/// The seats of `game` and its log, with `rematch` the entry of the game it
/// follows, as [`INSERT_GAME_IN_ONE`] takes them: JSON arrays of rows of the
/// tables `seats` and `log_entries`, the new game's without its id.
fn rows_as_json(game: &StoredGame, rematch: Option<RematchOf>) -> [String; 2] {
    let seats = game.seats.iter().map(|seat| {
        let token_hash: String = seat.token_hash.iter().map(|byte| format!("{byte:02x}")).collect();
        let holder = seat.holder.as_ref().map(|holder| holder.id.get());
        json!({ "player": seat.player.to_string(), "token_hash": format!("\\x{token_hash}"), "player_id": holder })
    });
    let entry = |game_id: Option<GameId>, entry: &StoredEntry| {
        let row = EntryRow::from(entry);
        json!({
            "game_id": game_id.map(GameId::get), "seq": row.seq, "kind": row.kind, "actor": row.actor,
            "square_a": row.square_a, "square_b": row.square_b, "closing_move": row.closing_move,
            "square": row.square, "rematch": row.rematch.map(GameId::get), "by_bot": row.by_bot,
            "created_at": stamp(row.created_at),
        })
    };
    let rematch = rematch.map(|RematchOf { game_id, seq, player }| {
        // Its rematch column is filled in with the new game's id by the statement.
        let event = Event::Rematch { player, game_id: GameId::new(0) };
        entry(Some(game_id), &StoredEntry { seq, created_at: game.created_at, event, by_bot: false })
    });
    let log = game.log.iter().map(|logged| entry(None, logged)).chain(rematch);
    [Value::from_iter(seats).to_string(), Value::from_iter(log).to_string()]
}

/// The seats and log of `game`, created as game `id`, and with `rematch` the
/// entry of the game it follows.
async fn insert_game_rows(
    tx: &mut impl Tx,
    id: GameId,
    game: &StoredGame,
    rematch: Option<RematchOf>,
) -> Result<(), StoreError> {
    for seat in &game.seats {
        insert_seat(tx, id, seat).await?;
    }
    for entry in &game.log {
        insert_entry(tx, id, entry).await?;
    }
    if let Some(RematchOf { game_id, seq, player }) = rematch {
        let event = Event::Rematch { player, game_id: id };
        let entry = StoredEntry { seq, created_at: game.created_at, event, by_bot: false };
        if !insert_entry(tx, game_id, &entry).await? {
            return conflict(tx, game_id).await;
        }
    }
    Ok(())
}

/// Carries out `write` on game `id` (see [`Store::write`]), and what it
/// writes besides the game's rows, with rating periods of length `period`; a
/// conflict when another write took its first entry's place, or its seat.
async fn write_game(
    tx: &mut impl Tx,
    id: GameId,
    write: &Write,
    period: jiff::SignedDuration,
) -> Result<(), StoreError> {
    if let Some(seat) = &write.seat
        && !insert_seat(tx, id, seat).await?
    {
        return conflict(tx, id).await;
    }
    for entry in &write.entries {
        if !insert_entry(tx, id, entry).await? {
            return conflict(tx, id).await;
        }
    }
    if let Some(summary) = &write.summary {
        set_summary(tx, id, summary).await?;
    }
    write_besides(tx, id, write, period).await
}

/// Keeps `seat` of game `id`: its token's hash and its holder; false when the seat is taken.
async fn insert_seat(tx: &mut impl Tx, id: GameId, seat: &StoredSeat) -> Result<bool, StoreError> {
    let holder = seat.holder.as_ref().map(|holder| holder.id);
    let args = [id.into(), seat.player.to_string().into(), seat.token_hash.as_slice().into(), holder.into()];
    Ok(tx.execute(&INSERT_SEAT, &args).await? == 1)
}

/// Writes `entry` into the log of game `id`; false when its place is taken.
async fn insert_entry(tx: &mut impl Tx, id: GameId, entry: &StoredEntry) -> Result<bool, StoreError> {
    let row = EntryRow::from(entry);
    let args = [
        id.into(),
        row.seq.into(),
        row.kind.into(),
        row.actor.into(),
        row.square_a.into(),
        row.square_b.into(),
        row.closing_move.into(),
        row.square.into(),
        row.rematch.into(),
        row.by_bot.into(),
        row.created_at.into(),
    ];
    Ok(tx.execute(&INSERT_ENTRY, &args).await? == 1)
}

async fn set_summary(tx: &mut impl Tx, id: GameId, summary: &Summary) -> Result<(), StoreError> {
    let columns = SummaryColumns::of(summary);
    let args = [
        id.into(),
        columns.status.into(),
        columns.result.into(),
        columns.end_reason.into(),
        columns.end_player.into(),
        columns.deadline.into(),
        columns.ended_at.into(),
    ];
    tx.execute(&SET_SUMMARY, &args).await.map(drop)
}
