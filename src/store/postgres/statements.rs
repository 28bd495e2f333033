//! The PostgreSQL store's own statements, writes of many games in one, built
//! once from the shared column lists, and the arrays they bind (times as RFC
//! 3339 text, cast to TIMESTAMPTZ).

use std::sync::LazyLock;

use super::super::rows::{ENTRY_COLUMNS, EntryRow, SummaryColumns};
use crate::record::{GameId, StoredEntry, stamp};

/// Entries bound as one array a column, the game's id and then [`ENTRY_COLUMNS`],
/// from parameter `first` on (see [`EntryColumns`]).
fn entry_arrays(first: usize) -> String {
    let types = ["BIGINT", "BIGINT", "TEXT", "TEXT", "BIGINT", "BIGINT", "BIGINT", "BIGINT", "BIGINT", "BOOLEAN"];
    let mut arrays: Vec<String> = types.iter().zip(first..).map(|(kind, n)| format!("${n}::{kind}[]")).collect();
    arrays.push(format!("${}::TEXT[]::TIMESTAMPTZ[]", first + types.len()));
    format!("unnest({}) AS entry (game_id, {ENTRY_COLUMNS})", arrays.join(", "))
}

/// Writes to games, one a game, in one statement: the first entry of each
/// write `$1`-`$11`, the rest `$12`-`$22`, then the seats taken and the
/// summaries, as the batch has them, from `$23`. Answers the games whose writes
/// landed: a write lands only if its first entry takes its sequence number.
/// Each shape of batch (most are moves alone) has a statement of its own,
/// indexed by `seats as usize * 2 + summaries as usize`.
pub(super) static WRITES: LazyLock<[String; 4]> = LazyLock::new(|| {
    [(false, false), (false, true), (true, false), (true, true)]
        .map(|(seats, summaries)| batch_statement(seats, summaries))
});

/// The statement of a batch with `seats` taken, or `summaries` written, or both.
fn batch_statement(seats: bool, summaries: bool) -> String {
    let landed = "IN (SELECT game_id FROM firsts)";
    let mut parts = vec![
        format!(
            "firsts AS (INSERT INTO log_entries (game_id, {ENTRY_COLUMNS}) SELECT * FROM {} \
             ON CONFLICT (game_id, seq) DO NOTHING RETURNING game_id)",
            entry_arrays(1)
        ),
        format!(
            "rest AS (INSERT INTO log_entries (game_id, {ENTRY_COLUMNS}) SELECT entry.* FROM {} \
             WHERE entry.game_id {landed})",
            entry_arrays(12)
        ),
    ];
    if seats {
        parts.push(format!(
            "seat AS (INSERT INTO seats (game_id, player, token_hash, player_id) SELECT seat.* \
             FROM unnest($23::BIGINT[], $24::TEXT[], $25::BYTEA[], $26::BIGINT[]) \
             AS seat (game_id, player, token_hash, player_id) WHERE seat.game_id {landed})"
        ));
    }
    if summaries {
        let n = if seats { 27 } else { 23 };
        parts.push(format!(
            "summary AS (UPDATE games SET status = summary.status, result = summary.result, \
             end_reason = summary.end_reason, end_player = summary.end_player, deadline = summary.deadline, \
             ended_at = summary.ended_at FROM unnest(${}::BIGINT[], ${}::TEXT[], ${}::TEXT[], ${}::TEXT[], ${}::TEXT[], \
             ${}::TEXT[]::TIMESTAMPTZ[], ${}::TEXT[]::TIMESTAMPTZ[]) \
             AS summary (game_id, status, result, end_reason, end_player, deadline, ended_at) \
             WHERE games.id = summary.game_id AND summary.game_id {landed})",
            n,
            n + 1,
            n + 2,
            n + 3,
            n + 4,
            n + 5,
            n + 6
        ));
    }
    format!("WITH {} SELECT game_id FROM firsts", parts.join(", "))
}

/// The notices `$1`, each `id version`, to every instance that listens on
/// [`super::CHANNEL`].
pub(super) const NOTIFY: &str = "SELECT pg_notify('qttt_games', payload) FROM unnest($1::TEXT[]) AS payload";

pub(super) type PgQuery<'q, O> = sqlx::query::QueryScalar<'q, sqlx::Postgres, O, sqlx::postgres::PgArguments>;

/// Entries as arrays, a column each, the game's id and then [`ENTRY_COLUMNS`]:
/// the arrays the statements unnest.
#[derive(Default)]
pub(super) struct EntryColumns {
    game_id: Vec<i64>,
    seq: Vec<i64>,
    kind: Vec<String>,
    actor: Vec<String>,
    square_a: Vec<Option<i64>>,
    square_b: Vec<Option<i64>>,
    closing_move: Vec<Option<i64>>,
    square: Vec<Option<i64>>,
    rematch: Vec<Option<i64>>,
    by_bot: Vec<bool>,
    created_at: Vec<String>,
}

impl EntryColumns {
    /// Adds `entries`, of game `game_id`.
    pub(super) fn push(&mut self, game_id: GameId, entries: &[StoredEntry]) {
        for entry in entries {
            let row = EntryRow::from(entry);
            self.game_id.push(game_id.get());
            self.seq.push(row.seq);
            self.kind.push(row.kind);
            self.actor.push(row.actor);
            self.square_a.push(row.square_a);
            self.square_b.push(row.square_b);
            self.closing_move.push(row.closing_move);
            self.square.push(row.square);
            self.rematch.push(row.rematch.map(GameId::get));
            self.by_bot.push(row.by_bot);
            self.created_at.push(stamp(row.created_at));
        }
    }

    pub(super) fn bind<'q, O>(self, query: PgQuery<'q, O>) -> PgQuery<'q, O> {
        query
            .bind(self.game_id)
            .bind(self.seq)
            .bind(self.kind)
            .bind(self.actor)
            .bind(self.square_a)
            .bind(self.square_b)
            .bind(self.closing_move)
            .bind(self.square)
            .bind(self.rematch)
            .bind(self.by_bot)
            .bind(self.created_at)
    }
}

/// Games' summaries as arrays, a column each, with the games' ids first.
#[derive(Default)]
pub(super) struct Summaries {
    game_id: Vec<i64>,
    status: Vec<String>,
    result: Vec<String>,
    end_reason: Vec<Option<String>>,
    end_player: Vec<Option<String>>,
    deadline: Vec<Option<String>>,
    ended_at: Vec<Option<String>>,
}

impl Summaries {
    pub(super) fn is_empty(&self) -> bool {
        self.game_id.is_empty()
    }

    pub(super) fn push(&mut self, game_id: GameId, columns: SummaryColumns) {
        self.game_id.push(game_id.get());
        self.status.push(columns.status);
        self.result.push(columns.result);
        self.end_reason.push(columns.end_reason);
        self.end_player.push(columns.end_player);
        self.deadline.push(columns.deadline.map(stamp));
        self.ended_at.push(columns.ended_at.map(stamp));
    }

    pub(super) fn bind<'q, O>(self, query: PgQuery<'q, O>) -> PgQuery<'q, O> {
        query
            .bind(self.game_id)
            .bind(self.status)
            .bind(self.result)
            .bind(self.end_reason)
            .bind(self.end_player)
            .bind(self.deadline)
            .bind(self.ended_at)
    }
}
