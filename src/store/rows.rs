//! Rows as the database holds them, and their checked conversion to and from the
//! service's types: the same columns on every backend.

use std::sync::LazyLock;

use jiff::Timestamp;
use serde::Deserialize;

use super::StoreError;
use super::sql::Sql;
use super::tx::{Row, Tx};
use crate::bot::Bot;
use crate::engine::{Action, Actor, GameResult, LogEntry, MoveNumber, Player, Rules, Scoring, Square, Variant};
use crate::rating::{Rating, Standing};
use crate::record::{
    ClockSettings, End, EndReason, Ending, Event, GameId, Holder, PlayerId, SeatRating, Status, StoredEntry,
    StoredGame, StoredSeat, Summary, Terms, Username,
};

/// `$type`, each of its `$field`s read from `$row`'s column of the same name.
macro_rules! by_name {
    ($row:expr, $type:ident { $($field:ident),* $(,)? }) => {
        $type { $($field: $row.get(stringify!($field))?),* }
    };
}

/// A game's own columns but its id, in the order its inserts bind them.
pub(super) const GAME_COLUMNS: &str = "variant, created_at, bot, mistake_chance, hints, clock_initial_ms, \
     clock_increment_ms, rematch_of, status, result, end_reason, end_player, deadline, ended_at, invite_hash, rated, \
     arena_id, scoring";

/// A game's own row, with its seats' ratings; its log, in order; its seats, X's
/// first, each with its holder: SQLite's read of a game, three statements in
/// one snapshot (see [`Tx::A_GAME_IN_ONE_STATEMENT`]).
static GAME_ROWS: LazyLock<[Sql; 3]> = LazyLock::new(|| {
    [
        format!("SELECT id, {GAME_COLUMNS}, {} FROM games WHERE id = $1", seat_rating_columns()),
        format!("SELECT {ENTRY_COLUMNS} FROM log_entries WHERE game_id = $1 ORDER BY seq"),
        format!("SELECT {SEAT_COLUMNS} FROM {SEATS_WITH_HOLDERS} WHERE seats.game_id = $1 ORDER BY seats.player DESC"),
    ]
    .map(Sql::built)
});

/// The columns of a seat, with its holder's.
const SEAT_COLUMNS: &str = "seats.player, seats.token_hash, seats.last_seen_at, seats.player_id, players.name, \
     players.token_hash AS player_token_hash, players.last_seen_at AS player_last_seen_at, \
     players.bot_since IS NOT NULL AS player_bot_account";
const SEATS_WITH_HOLDERS: &str = "seats LEFT JOIN players ON players.id = seats.player_id";

/// A game, its log and its seats in one statement, the log and the seats as
/// JSON arrays of rows, read by name into [`EntryRow`] and [`SeatRow`] and put
/// in order once read: PostgreSQL's read of a game, one round trip.
static GAME_IN_ONE: LazyLock<Sql> = LazyLock::new(|| {
    Sql::built(format!(
        "SELECT id, {GAME_COLUMNS}, {}, \
         (SELECT COALESCE(json_agg(log_entries), '[]')::TEXT FROM log_entries WHERE game_id = games.id) AS log, \
         (SELECT COALESCE(json_agg(seat), '[]')::TEXT FROM (SELECT {SEAT_COLUMNS} FROM {SEATS_WITH_HOLDERS} \
         WHERE seats.game_id = games.id) AS seat) AS seats FROM games WHERE id = $1",
        seat_rating_columns()
    ))
});

/// Game `id` with its whole log and its seats, read as the backend reads a
/// game fastest (see [`Tx::A_GAME_IN_ONE_STATEMENT`]); its reads must see one
/// snapshot.
pub(super) async fn read_game<T: Tx>(tx: &mut T, id: GameId) -> Result<StoredGame, StoreError> {
    let not_found = || StoreError::NotFound { id };
    if T::A_GAME_IN_ONE_STATEMENT {
        let read = |row: &Row<'_>| {
            let mut log: Vec<EntryRow> = json(row, "log")?;
            log.sort_unstable_by_key(|entry| entry.seq);
            let mut seats: Vec<SeatRow> = json(row, "seats")?;
            seats.sort_unstable_by(|a, b| b.player.cmp(&a.player));
            whole(stored_game_from_row(row)?, log, seats)
        };
        return tx.row(&GAME_IN_ONE, &[id.into()], read).await?.ok_or_else(not_found);
    }
    let [game, log, seats] = &*GAME_ROWS;
    let game = tx.row(game, &[id.into()], stored_game_from_row).await?.ok_or_else(not_found)?;
    let log = tx.rows(log, &[id.into()], EntryRow::from_row).await?;
    whole(game, log, tx.rows(seats, &[id.into()], SeatRow::from_row).await?)
}

/// The JSON array of objects in `row`'s column `column`, as `T`s.
fn json<T: serde::de::DeserializeOwned>(row: &Row<'_>, column: &str) -> Result<Vec<T>, StoreError> {
    serde_json::from_str(&row.get::<String>(column)?).map_err(|error| corrupt(column, &error.to_string()))
}

/// The columns of a rated game's seats' ratings, X's then O's, each its
/// rating, deviation and change, as [`seat_ratings_from_row`] reads them: as
/// its rating wrote them, or, until then, as the seat's holder (a player, or
/// the bot) is rated now; nulls for a casual game and a free seat.
pub(super) fn seat_rating_columns() -> String {
    let start = Rating::START;
    let columns = |seat: &str| {
        let holder = holder_id(seat);
        let change = |column: &str| {
            format!(
                "(SELECT {column} FROM rating_changes \
                 WHERE rating_changes.game_id = games.id AND rating_changes.seat = '{seat}')"
            )
        };
        let now = |column: &str| {
            format!(
                "(SELECT {column} FROM ratings WHERE ratings.player_id = {holder} AND ratings.variant = games.variant)"
            )
        };
        let held = |value: String| format!("CASE WHEN games.rated AND {holder} IS NOT NULL THEN {value} END");
        let (rating, deviation) = (change("rating_before"), change("deviation_before"));
        format!(
            "{} AS {seat}_rating, {} AS {seat}_deviation, {} AS {seat}_rating_diff",
            held(format!("coalesce({rating}, {}, {})", now("rating"), start.rating)),
            held(format!("coalesce({deviation}, {}, {})", now("deviation"), start.deviation)),
            held(change("rating_after - rating_before")),
            seat = seat.to_lowercase(),
        )
    };
    format!("{}, {}", columns("X"), columns("O"))
}

/// The ratings of both seats, X's then O's, in `row`, read with [`seat_rating_columns`].
pub(super) fn seat_ratings_from_row(row: &Row<'_>) -> Result<[Option<SeatRating>; 2], StoreError> {
    let seat = |[rating, deviation, rating_diff]: [&str; 3]| -> Result<Option<SeatRating>, StoreError> {
        let (rating, deviation): (Option<f64>, Option<f64>) = (row.get(rating)?, row.get(deviation)?);
        let rating_diff = row.get(rating_diff)?;
        Ok(rating.zip(deviation).map(|(rating, deviation)| SeatRating { rating, deviation, rating_diff }))
    };
    Ok([seat(["x_rating", "x_deviation", "x_rating_diff"])?, seat(["o_rating", "o_deviation", "o_rating_diff"])?])
}

/// The bot whose columns hold `code` and `mistake_chance`.
pub(super) fn bot_of(code: Option<&str>, mistake_chance: Option<f64>) -> Result<Option<Bot>, StoreError> {
    Ok(match (code, mistake_chance) {
        (None, _) => None,
        (Some("random"), _) => Some(Bot::Random),
        (Some("perfect"), _) => Some(Bot::Perfect),
        (Some("parasite"), chance) => {
            Some(Bot::Parasite { mistake_chance: chance.unwrap_or(Bot::DEFAULT_MISTAKE_CHANCE) })
        }
        (Some(other), _) => return Err(corrupt("bot", other)),
    })
}

/// The summary in `row`, by the names of [`SummaryColumns`]' fields.
pub(super) fn summary_from_row(row: &Row<'_>) -> Result<Summary, StoreError> {
    by_name!(row, SummaryColumns { status, result, end_reason, end_player, deadline, ended_at }).into_summary()
}

/// A game's summary as its columns hold it.
pub(super) struct SummaryColumns {
    pub status: String,
    pub result: String,
    pub end_reason: Option<String>,
    pub end_player: Option<String>,
    pub deadline: Option<Timestamp>,
    pub ended_at: Option<Timestamp>,
}

impl SummaryColumns {
    /// The columns of `summary`, to write.
    pub(super) fn of(summary: &Summary) -> SummaryColumns {
        SummaryColumns {
            status: summary.status.code().to_string(),
            result: summary.result.code().to_string(),
            end_reason: summary.end.map(|end| end.reason.code().to_string()),
            end_player: summary.end.and_then(|end| end.player).map(|player| player.to_string()),
            deadline: summary.deadline,
            ended_at: summary.ended_at,
        }
    }

    fn into_summary(self) -> Result<Summary, StoreError> {
        let status = [Status::Waiting, Status::Ongoing, Status::Finished]
            .into_iter()
            .find(|s| s.code() == self.status)
            .ok_or_else(|| corrupt("status", &self.status))?;
        let result = [GameResult::Ongoing, GameResult::XWins, GameResult::OWins, GameResult::Draw, GameResult::Aborted]
            .into_iter()
            .find(|r| r.code() == self.result)
            .ok_or_else(|| corrupt("result", &self.result))?;
        let end = match self.end_reason {
            None => None,
            Some(reason) => Some(End {
                reason: EndReason::ALL
                    .into_iter()
                    .find(|r| r.code() == reason)
                    .ok_or_else(|| corrupt("end_reason", &reason))?,
                player: self.end_player.as_deref().map(player).transpose()?,
            }),
        };
        Ok(Summary { status, result, end, deadline: self.deadline, ended_at: self.ended_at })
    }
}

/// The game in `row`, its log and seats not yet read.
fn stored_game_from_row(row: &Row<'_>) -> Result<StoredGame, StoreError> {
    let rules = rules_of(row)?;
    Ok(StoredGame {
        id: row.get("id")?,
        variant: rules.variant,
        scoring: rules.scoring,
        created_at: row.get("created_at")?,
        opponent: bot_of(row.get::<Option<String>>("bot")?.as_deref(), row.get("mistake_chance")?)?,
        hints: row.get("hints")?,
        clock: clock_of(row.get("clock_initial_ms")?, row.get("clock_increment_ms")?)?,
        rematch_of: row.get("rematch_of")?,
        arena: row.get("arena_id")?,
        summary: summary_from_row(row)?,
        log: Vec::new(),
        seats: Vec::new(),
        invite_hash: row.get("invite_hash")?,
        rated: row.get("rated")?,
        ratings: seat_ratings_from_row(row)?,
    })
}

/// `game` with its `log`, in order, and its `seats`.
fn whole(game: StoredGame, log: Vec<EntryRow>, seats: Vec<SeatRow>) -> Result<StoredGame, StoreError> {
    let log: Vec<StoredEntry> = log.into_iter().map(EntryRow::into_entry).collect::<Result<_, _>>()?;
    if !log.iter().zip(1..).all(|(entry, seq)| entry.seq == seq) {
        return Err(corrupt("seq", "a log with gaps"));
    }
    let seats = seats.into_iter().map(SeatRow::into_seat).collect::<Result<_, _>>()?;
    Ok(StoredGame { log, seats, ..game })
}

/// A seat as its columns hold it, with its holder's: a row, or an object of
/// [`GAME_IN_ONE`]'s `seats`, its hashes in PostgreSQL's hex (`\x0a1b`).
#[derive(Deserialize)]
struct SeatRow {
    player: String,
    #[serde(deserialize_with = "hex_bytes")]
    token_hash: Vec<u8>,
    last_seen_at: Option<Timestamp>,
    player_id: Option<PlayerId>,
    name: Option<String>,
    #[serde(deserialize_with = "hex_bytes_or_none")]
    player_token_hash: Option<Vec<u8>>,
    player_last_seen_at: Option<Timestamp>,
    player_bot_account: bool,
}

impl SeatRow {
    fn from_row(row: &Row<'_>) -> Result<SeatRow, StoreError> {
        Ok(by_name!(
            row,
            SeatRow {
                player,
                token_hash,
                last_seen_at,
                player_id,
                name,
                player_token_hash,
                player_last_seen_at,
                player_bot_account
            }
        ))
    }

    fn into_seat(self) -> Result<StoredSeat, StoreError> {
        let holder = match (self.player_id, self.name, self.player_token_hash) {
            (None, _, _) => None,
            (Some(id), Some(name), Some(token_hash)) => Some(Holder {
                id,
                name: Username::parse(&name).map_err(|_| corrupt("name", &name))?,
                token_hash,
                last_seen_at: self.player_last_seen_at,
                bot_account: self.player_bot_account,
            }),
            (Some(id), ..) => return Err(corrupt("player_id", &id.to_string())),
        };
        Ok(StoredSeat {
            player: player(&self.player)?,
            token_hash: self.token_hash,
            holder,
            last_seen_at: self.last_seen_at,
        })
    }
}

/// Bytes written in JSON as PostgreSQL writes them, in hex after `\x`.
fn hex_bytes<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Vec<u8>, D::Error> {
    from_hex(&String::deserialize(deserializer)?).ok_or_else(|| serde::de::Error::custom("not hex"))
}

fn hex_bytes_or_none<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<Vec<u8>>, D::Error> {
    let text = Option::<String>::deserialize(deserializer)?;
    text.map(|text| from_hex(&text).ok_or_else(|| serde::de::Error::custom("not hex"))).transpose()
}

/// The bytes `text` writes in hex after `\x`; none if it does not, or has an odd length.
fn from_hex(text: &str) -> Option<Vec<u8>> {
    let text = text.strip_prefix("\\x")?;
    (0..text.len()).step_by(2).map(|at| u8::from_str_radix(text.get(at..at + 2)?, 16).ok()).collect()
}

/// A row of `log_entries`, or an object of [`GAME_IN_ONE`]'s `log`.
#[derive(Deserialize)]
pub(super) struct EntryRow {
    pub seq: i64,
    pub kind: String,
    pub actor: String,
    pub square_a: Option<i64>,
    pub square_b: Option<i64>,
    pub closing_move: Option<i64>,
    pub square: Option<i64>,
    pub rematch: Option<GameId>,
    pub by_bot: bool,
    pub created_at: Timestamp,
}

/// The columns of an entry but its game's id, those of [`EntryRow`] in the
/// order of its fields.
pub(super) const ENTRY_COLUMNS: &str =
    "seq, kind, actor, square_a, square_b, closing_move, square, rematch, by_bot, created_at";

impl From<&StoredEntry> for EntryRow {
    fn from(entry: &StoredEntry) -> EntryRow {
        let square_number = |square: Square| i64::from(square.number());
        let row = |kind: &str, actor: String| EntryRow {
            seq: entry.seq,
            kind: kind.to_string(),
            actor,
            square_a: None,
            square_b: None,
            closing_move: None,
            square: None,
            rematch: None,
            by_bot: entry.by_bot,
            created_at: entry.created_at,
        };
        match entry.event {
            Event::SeatTaken(player) => row("seat", player.to_string()),
            Event::Action(LogEntry { actor, action }) => {
                let actor = match actor {
                    Actor::Player(player) => player.to_string(),
                    Actor::Measurement => "measurement".to_string(),
                };
                match action {
                    Action::Move { squares: [a, b] } => EntryRow {
                        square_a: Some(square_number(a)),
                        square_b: Some(square_number(b)),
                        ..row("move", actor)
                    },
                    Action::Collapse { move_number, square } => EntryRow {
                        closing_move: Some(i64::from(move_number)),
                        square: Some(square_number(square)),
                        ..row("collapse", actor)
                    },
                }
            }
            Event::Ended(Ending::Resign(player)) => row("resign", player.to_string()),
            Event::Ended(Ending::Timeout(player)) => row("timeout", player.to_string()),
            Event::Ended(Ending::Abort(player)) => row("abort", player.map_or("server".into(), |p| p.to_string())),
            Event::Ended(Ending::Abandon(player)) => row("abandon", player.to_string()),
            Event::Ended(Ending::Agreement(player)) => row("agreement", player.to_string()),
            Event::Ended(Ending::NoFirstMove(player)) => row("no_first_move", player.to_string()),
            Event::DrawOffer(player) => row("draw_offer", player.to_string()),
            Event::DrawDecline(player) => row("draw_decline", player.to_string()),
            Event::Rematch { player, game_id } => {
                EntryRow { rematch: Some(game_id), ..row("rematch", player.to_string()) }
            }
        }
    }
}

impl EntryRow {
    fn from_row(row: &Row<'_>) -> Result<EntryRow, StoreError> {
        Ok(by_name!(
            row,
            EntryRow { seq, kind, actor, square_a, square_b, closing_move, square, rematch, by_bot, created_at }
        ))
    }

    pub(super) fn into_entry(self) -> Result<StoredEntry, StoreError> {
        let square = |value: Option<i64>| {
            value.and_then(|v| Square::try_from(v).ok()).ok_or_else(|| corrupt("square", &format!("{value:?}")))
        };
        let event = match self.kind.as_str() {
            "seat" => Event::SeatTaken(player(&self.actor)?),
            "move" => Event::Action(LogEntry {
                actor: Actor::Player(player(&self.actor)?),
                action: Action::Move { squares: [square(self.square_a)?, square(self.square_b)?] },
            }),
            "collapse" => Event::Action(LogEntry {
                actor: match self.actor.as_str() {
                    "measurement" => Actor::Measurement,
                    other => Actor::Player(player(other)?),
                },
                action: Action::Collapse {
                    move_number: self
                        .closing_move
                        .and_then(|m| MoveNumber::try_from(m).ok())
                        .ok_or_else(|| corrupt("closing_move", &format!("{:?}", self.closing_move)))?,
                    square: square(self.square)?,
                },
            }),
            "resign" => Event::Ended(Ending::Resign(player(&self.actor)?)),
            "timeout" => Event::Ended(Ending::Timeout(player(&self.actor)?)),
            "abort" => Event::Ended(Ending::Abort(match self.actor.as_str() {
                "server" => None,
                other => Some(player(other)?),
            })),
            "abandon" => Event::Ended(Ending::Abandon(player(&self.actor)?)),
            "agreement" => Event::Ended(Ending::Agreement(player(&self.actor)?)),
            "no_first_move" => Event::Ended(Ending::NoFirstMove(player(&self.actor)?)),
            "draw_offer" => Event::DrawOffer(player(&self.actor)?),
            "draw_decline" => Event::DrawDecline(player(&self.actor)?),
            "rematch" => Event::Rematch {
                player: player(&self.actor)?,
                game_id: self.rematch.ok_or_else(|| corrupt("rematch", "none"))?,
            },
            other => return Err(corrupt("kind", other)),
        };
        Ok(StoredEntry { seq: self.seq, created_at: self.created_at, event, by_bot: self.by_bot })
    }
}

pub(super) fn player(text: &str) -> Result<Player, StoreError> {
    text.chars().next().filter(|_| text.len() == 1).and_then(Player::from_letter).ok_or_else(|| corrupt("player", text))
}

pub(super) fn variant(text: &str) -> Result<Variant, StoreError> {
    Variant::named(text).ok_or_else(|| corrupt("variant", text))
}

pub(super) fn scoring(text: &str) -> Result<Scoring, StoreError> {
    Scoring::named(text).ok_or_else(|| corrupt("scoring", text))
}

/// A stored value the code cannot read: the database is corrupt, never the client's fault.
pub(super) fn corrupt(column: &str, value: &str) -> StoreError {
    StoreError::Corrupt(format!("{column} {value:?}"))
}

/// A player's name as stored.
pub(super) fn username(name: &str) -> Result<Username, StoreError> {
    Username::parse(name).map_err(|_| corrupt("name", name))
}

/// The rules in a row's `variant` and `scoring` columns: a game's, or those
/// a challenge, a seek or an arena asks for.
pub(super) fn rules_of(row: &Row<'_>) -> Result<Rules, StoreError> {
    Ok(Rules { variant: variant(&row.get::<String>("variant")?)?, scoring: scoring(&row.get::<String>("scoring")?)? })
}

/// The terms a challenge's or a seek's row asks for, in its columns of the same names.
pub(super) fn terms_from_row(row: &Row<'_>) -> Result<Terms, StoreError> {
    let rules = rules_of(row)?;
    Ok(Terms {
        variant: rules.variant,
        scoring: rules.scoring,
        clock: clock_of(row.get("clock_initial_ms")?, row.get("clock_increment_ms")?)?,
        rated: row.get("rated")?,
    })
}

/// The clock whose columns hold `initial_ms` and `increment_ms`: none or both.
pub(super) fn clock_of(
    initial_ms: Option<i64>,
    increment_ms: Option<i64>,
) -> Result<Option<ClockSettings>, StoreError> {
    match (initial_ms, increment_ms) {
        (Some(initial_ms), Some(increment_ms)) => Ok(Some(ClockSettings { initial_ms, increment_ms })),
        (None, None) => Ok(None),
        other => Err(corrupt("clock", &format!("{other:?}"))),
    }
}

/// The player who holds seat `seat` of the game of the row: a player, or the
/// bot's own player.
pub(super) fn holder_id(seat: &str) -> String {
    format!(
        "coalesce((SELECT seats.player_id FROM seats WHERE seats.game_id = games.id AND seats.player = '{seat}'), \
         (SELECT players.id FROM players WHERE players.bot = games.bot))"
    )
}

/// The standing in `row`: its rating, deviation and volatility, how many
/// times it was rated (the column `count`), and when last.
pub(super) fn standing_from_row(row: &Row<'_>, count: &str) -> Result<Standing, StoreError> {
    Ok(Standing { rating: rating_from_row(row, "")?, games: row.get(count)?, rated_at: Some(row.get("rated_at")?) })
}

/// The rating in `row`: its columns rating, deviation and volatility, each
/// with `suffix`.
pub(super) fn rating_from_row(row: &Row<'_>, suffix: &str) -> Result<Rating, StoreError> {
    Ok(Rating {
        rating: row.get(&format!("rating{suffix}"))?,
        deviation: row.get(&format!("deviation{suffix}"))?,
        volatility: row.get(&format!("volatility{suffix}"))?,
    })
}
