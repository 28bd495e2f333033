//! What a game's write writes besides the game's own rows, written once over
//! [`Tx`] for both backends: the events it tells the players, the count of the
//! result of the game it finishes, and the ratings of the rated game it ends,
//! holding the players' rows until it commits, so that each player's rated
//! games are rated one after the other.

use std::sync::LazyLock;

use jiff::{SignedDuration, Timestamp};

use super::StoreError;
use super::rows::{standing_from_row, variant};
use super::sql::Sql;
use super::tx::{Arg, Notice, Row, Tx};
use crate::engine::{Player, Variant};
use crate::rating::{Standing, rate_game};
use crate::record::{
    GameId, NewPlayerEvent, NumberedChange, PlayerEventKind, PlayerId, PlayerStanding, RatedEnd, Rater, RatingChange,
    Subject, VariantRating, Write,
};

static HOLD_PLAYERS: Sql = Sql::new("SELECT id FROM players WHERE id = ANY($1) ORDER BY id FOR NO KEY UPDATE");
static BOT_PLAYER: Sql = Sql::new("SELECT id FROM players WHERE bot = $1");
/// Whether player `$1` is one of the server's bots.
static SERVER_BOT: Sql = Sql::new("SELECT bot IS NOT NULL AS server_bot FROM players WHERE id = $1");
/// A table of standings, a row a player and variant: the ratings of their
/// rated games ([`GAME_STANDINGS`]) or of their rated attempts at puzzles
/// ([`PUZZLE_STANDINGS`]), each counted in a column of its own.
pub(super) struct Standings {
    count: &'static str,
    /// A player's standing in a variant.
    one: Sql,
    /// A player's standings, by variant.
    every: Sql,
    /// Writes a player's standing in a variant over the one before.
    set: Sql,
}

pub(super) static GAME_STANDINGS: LazyLock<Standings> = LazyLock::new(|| Standings::new("ratings", "games"));
pub(super) static PUZZLE_STANDINGS: LazyLock<Standings> =
    LazyLock::new(|| Standings::new("puzzle_ratings", "attempts"));

impl Standings {
    fn new(table: &str, count: &'static str) -> Standings {
        let columns = format!("rating, deviation, volatility, {count}, rated_at");
        Standings {
            count,
            one: Sql::built(format!("SELECT {columns} FROM {table} WHERE player_id = $1 AND variant = $2")),
            every: Sql::built(format!("SELECT variant, {columns} FROM {table} WHERE player_id = $1 ORDER BY variant")),
            set: Sql::built(format!(
                "INSERT INTO {table} (player_id, variant, {columns}) VALUES ($1, $2, $3, $4, $5, $6, $7) \
                 ON CONFLICT (player_id, variant) DO UPDATE SET rating = excluded.rating, \
                 deviation = excluded.deviation, volatility = excluded.volatility, {count} = excluded.{count}, \
                 rated_at = excluded.rated_at"
            )),
        }
    }

    /// Player `player`'s standing in `variant`: [`Standing::NEW`] before they were rated.
    pub(super) async fn of(
        &'static self,
        tx: &mut impl Tx,
        player: PlayerId,
        variant: Variant,
    ) -> Result<Standing, StoreError> {
        let args = [player.into(), variant.code().into()];
        Ok(tx.row(&self.one, &args, |row| standing_from_row(row, self.count)).await?.unwrap_or(Standing::NEW))
    }

    /// Player `player`'s standings, in the variants they were rated in.
    pub(super) async fn every(
        &'static self,
        tx: &mut impl Tx,
        player: PlayerId,
    ) -> Result<Vec<VariantRating>, StoreError> {
        tx.rows(&self.every, &[player.into()], |row| self.variant_rating(row)).await
    }

    /// The standing in `row`, with its column `variant`.
    pub(super) fn variant_rating(&self, row: &Row<'_>) -> Result<VariantRating, StoreError> {
        Ok(VariantRating {
            variant: variant(&row.get::<String>("variant")?)?,
            standing: standing_from_row(row, self.count)?,
        })
    }

    /// Writes `standing` over the player's in its variant.
    pub(super) async fn set(&'static self, tx: &mut impl Tx, standing: &PlayerStanding) -> Result<(), StoreError> {
        let PlayerStanding { player, variant, standing: Standing { rating, games, rated_at } } = standing;
        let args = [
            (*player).into(),
            variant.code().into(),
            rating.rating.into(),
            rating.deviation.into(),
            rating.volatility.into(),
            (*games).into(),
            (*rated_at).into(),
        ];
        tx.execute(&self.set, &args).await.map(drop)
    }
}

static INSERT_CHANGE: Sql = Sql::new(
    "INSERT INTO rating_changes (player_id, variant, number, game_id, seat, rating_before, deviation_before, \
         volatility_before, rating_after, deviation_after, volatility_after, rated_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
);
/// A player's next event: its number is the one after their last. Taking it
/// holds the player's row until the transaction commits, so that a player's
/// events commit in the order of their numbers. Then the event that falls out
/// of the [`KEPT_PLAYER_EVENTS`] a player keeps is deleted.
static NEXT_PLAYER_EVENT: LazyLock<[Sql; 3]> = LazyLock::new(|| {
    [
        Sql::new("UPDATE players SET last_event_seq = last_event_seq + 1 WHERE id = $1"),
        Sql::new(
            "INSERT INTO player_events (player_id, seq, kind, game_id, challenge_id, created_at) \
             SELECT id, last_event_seq, $2, $3, $4, $5 FROM players WHERE id = $1",
        ),
        Sql::built(format!(
            "DELETE FROM player_events WHERE player_id = $1 \
             AND seq <= (SELECT last_event_seq FROM players WHERE id = $1) - {KEPT_PLAYER_EVENTS}"
        )),
    ]
});

/// How many of their latest events a player keeps: a stream that resumes from
/// before them starts at the oldest kept.
const KEPT_PLAYER_EVENTS: i64 = 1000;

/// Whether `write` writes anything besides the game's own rows.
pub(super) fn writes_besides(write: &Write) -> bool {
    !write.player_events.is_empty() || write.rated.is_some() || write.finishes()
}

/// Writes what `write` of game `id`, which landed, writes besides the game's
/// own rows, with rating periods of length `period`.
pub(super) async fn write_besides(
    tx: &mut impl Tx,
    id: GameId,
    write: &Write,
    period: SignedDuration,
) -> Result<(), StoreError> {
    // A write that lands appends an entry; one that appends none changes
    // nothing, and tells nothing.
    let Some(last) = write.entries.last() else { return Ok(()) };
    insert_player_events(tx, Subject::Game(id), &write.player_events, last.created_at).await?;
    if write.finishes() {
        count_result(tx, id).await?;
    }
    match &write.rated {
        Some(rated) => rate(tx, id, rated, period).await,
        None => Ok(()),
    }
}

/// Counts how game `$1`, just finished, ended for each player who held a seat
/// of it, and for the player of its bot, who holds the other.
static COUNT_RESULT: LazyLock<Sql> = LazyLock::new(|| {
    let won = "(games.result = 'x_wins' AND mine.seat = 'X') OR (games.result = 'o_wins' AND mine.seat = 'O')";
    let lost = "(games.result = 'x_wins' AND mine.seat = 'O') OR (games.result = 'o_wins' AND mine.seat = 'X')";
    Sql::built(format!(
        "UPDATE players SET games_won = games_won + ended.won, games_lost = games_lost + ended.lost, \
         games_drawn = games_drawn + ended.drawn, games_aborted = games_aborted + ended.aborted \
         FROM (SELECT mine.id, CASE WHEN {won} THEN 1 ELSE 0 END AS won, CASE WHEN {lost} THEN 1 ELSE 0 END AS lost, \
         CASE WHEN games.result = 'draw' THEN 1 ELSE 0 END AS drawn, \
         CASE WHEN games.result = 'aborted' THEN 1 ELSE 0 END AS aborted FROM ( \
         SELECT seats.game_id, seats.player_id AS id, seats.player AS seat FROM seats \
         WHERE seats.game_id = $1 AND seats.player_id IS NOT NULL \
         UNION ALL SELECT seats.game_id, players.id, CASE WHEN seats.player = 'X' THEN 'O' ELSE 'X' END \
         FROM games JOIN players ON players.bot = games.bot JOIN seats ON seats.game_id = games.id WHERE games.id = $1 \
         ) mine JOIN games ON games.id = mine.game_id) ended WHERE players.id = ended.id"
    ))
});

/// Counts how game `id`, which the write just landed finished, ended for its players.
async fn count_result(tx: &mut impl Tx, id: GameId) -> Result<(), StoreError> {
    tx.execute(&COUNT_RESULT, &[id.into()]).await.map(drop)
}

/// The version of game `$1`: its last entry's number.
static VERSION: Sql = Sql::new("SELECT COALESCE(MAX(seq), 0)::BIGINT AS version FROM log_entries WHERE game_id = $1");

/// Writes `events` about `subject`, at `at`, each the next of its player's,
/// and has the other instances told. In the order of the players' ids: two
/// transactions that tell the same players take their rows in the same order,
/// and never wait for each other in a circle.
pub(super) async fn insert_player_events(
    tx: &mut impl Tx,
    subject: Subject,
    events: &[(PlayerId, PlayerEventKind)],
    at: Timestamp,
) -> Result<(), StoreError> {
    let mut events: Vec<NewPlayerEvent> =
        events.iter().map(|&(player, kind)| NewPlayerEvent { player, kind, subject }).collect();
    events.sort_by_key(|event| event.player);
    let (game_id, challenge_id) = match subject {
        Subject::Game(id) => (Some(id), None),
        Subject::Challenge(id) => (None, Some(id)),
    };
    for event in events {
        tx.execute(&NEXT_PLAYER_EVENT[0], &[event.player.into()]).await?;
        let args = [event.player.into(), event.kind.code().into(), game_id.into(), challenge_id.into(), at.into()];
        tx.execute(&NEXT_PLAYER_EVENT[1], &args).await?;
        tx.execute(&NEXT_PLAYER_EVENT[2], &[event.player.into()]).await?;
        tx.tell(Notice::PlayerEvents { id: event.player });
    }
    Ok(())
}

/// Rates game `id`, which `rated` ends, with rating periods of length
/// `period`: each player's rating and its change.
async fn rate(tx: &mut impl Tx, id: GameId, rated: &RatedEnd, period: SignedDuration) -> Result<(), StoreError> {
    let RatedEnd { variant, x, o, result, ended_at } = *rated;
    let (x, o) = (rater_id(tx, x).await?, rater_id(tx, o).await?);
    tx.hold(&HOLD_PLAYERS, &[Arg::Ids(vec![x.get(), o.get()])]).await?;
    let (x_before, o_before) = (GAME_STANDINGS.of(tx, x, variant).await?, GAME_STANDINGS.of(tx, o, variant).await?);
    let mut server_bots = [false; 2];
    for (server_bot, player) in server_bots.iter_mut().zip([x, o]) {
        *server_bot = tx.row(&SERVER_BOT, &[player.into()], |row| row.get("server_bot")).await?.unwrap_or(false);
    }
    let Some((x_after, o_after)) = rate_game(&x_before, &o_before, result, ended_at, period, server_bots) else {
        return Ok(());
    };
    for (player, seat, before, after) in [(x, Player::X, x_before, x_after), (o, Player::O, o_before, o_after)] {
        let change = RatingChange { game_id: id, before: before.rating, after: after.rating, rated_at: ended_at };
        insert_change(tx, &NumberedChange { player, variant, number: after.games, seat, change }).await?;
        GAME_STANDINGS.set(tx, &PlayerStanding { player, variant, standing: after }).await?;
    }
    Ok(())
}

/// The player who rates as `rater`: a bot's own.
async fn rater_id(tx: &mut impl Tx, rater: Rater) -> Result<PlayerId, StoreError> {
    match rater {
        Rater::Player(id) => Ok(id),
        Rater::Bot(code) => {
            let id = tx.row(&BOT_PLAYER, &[code.into()], |row| row.get("id")).await?;
            id.ok_or_else(|| StoreError::Corrupt(format!("no player of the bot {code}")))
        }
    }
}

/// Writes the change `numbered`.
pub(super) async fn insert_change(tx: &mut impl Tx, numbered: &NumberedChange) -> Result<(), StoreError> {
    let NumberedChange { player, variant, number, seat, change } = numbered;
    let (before, after) = (change.before, change.after);
    let args = [
        (*player).into(),
        variant.code().into(),
        (*number).into(),
        change.game_id.into(),
        seat.to_string().into(),
        before.rating.into(),
        before.deviation.into(),
        before.volatility.into(),
        after.rating.into(),
        after.deviation.into(),
        after.volatility.into(),
        change.rated_at.into(),
    ];
    tx.execute(&INSERT_CHANGE, &args).await.map(drop)
}

/// A conflict on game `id`, with the version it is at: a write that lost
/// the race for its entry's place, or its seat.
pub(super) async fn conflict<T>(tx: &mut impl Tx, id: GameId) -> Result<T, StoreError> {
    let current_version = tx.row(&VERSION, &[id.into()], |row| row.get("version")).await?.unwrap_or(0);
    Err(StoreError::Conflict { current_version })
}
