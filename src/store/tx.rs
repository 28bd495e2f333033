//! The one interface both backends implement, over which each store operation
//! is written once: a unit of the database's work ([`Tx`]) that runs statements
//! ([`Sql`]) with values ([`Arg`]) and answers rows read by column name ([`Row`]).
//!
//! SQLite's calls never wait, so an operation runs to its end in one poll on
//! the thread that holds the connection; PostgreSQL's wait for the network.

use std::borrow::Cow;
use std::cell::Cell;

use jiff::Timestamp;

use super::StoreError;
use super::sql::Sql;
use crate::record::{ArenaId, AttemptId, ChallengeId, GameId, PlayerId, PuzzleId, SeekId};

/// A unit of the database's work: a transaction, or reads outside one.
pub(super) trait Tx {
    /// Whether the backend reads and creates a game in one statement, its log
    /// and seats as JSON (PostgreSQL: one round trip), or in one statement a
    /// table (SQLite, where the JSON cost more: docs/PERFORMANCE.md, "The store
    /// written once").
    const A_GAME_IN_ONE_STATEMENT: bool;

    /// Runs `statement` with `args`; answers how many rows it changed.
    async fn execute(&mut self, statement: &'static Sql, args: &[Arg<'_>]) -> Result<u64, StoreError>;

    /// Each row `statement` answers with `args`, as `read` reads it.
    async fn rows<T>(
        &mut self,
        statement: &'static Sql,
        args: &[Arg<'_>],
        read: impl FnMut(&Row<'_>) -> Result<T, StoreError>,
    ) -> Result<Vec<T>, StoreError>;

    /// The first row `statement` answers with `args`, if any, as `read` reads it.
    async fn row<T>(
        &mut self,
        statement: &'static Sql,
        args: &[Arg<'_>],
        read: impl FnMut(&Row<'_>) -> Result<T, StoreError>,
    ) -> Result<Option<T>, StoreError> {
        Ok(self.rows(statement, args, read).await?.into_iter().next())
    }

    /// Runs `statement`, an insert of one row made with [`Sql::insert`], and
    /// answers the id the database gave it; `None` when it inserted nothing
    /// (`ON CONFLICT DO NOTHING`), or a unique key refused the row, which on
    /// PostgreSQL ends the transaction: nothing more may run.
    async fn insert(&mut self, statement: &'static Sql, args: &[Arg<'_>]) -> Result<Option<i64>, StoreError>;

    /// Runs `hold`, which holds rows or a lock until the transaction ends, so
    /// that another instance's transaction that holds the same waits for this
    /// one; nothing on SQLite, whose one writer writes a transaction at a time.
    async fn hold(&mut self, _hold: &'static Sql, _args: &[Arg<'_>]) -> Result<(), StoreError> {
        Ok(())
    }

    /// Has the other instances told of `notice` once the transaction commits.
    /// Nothing unless the backend serves several instances (SQLite has one).
    fn tell(&mut self, _notice: Notice) {}
}

/// How an operation runs on its backend.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// A read: each statement on its own (on SQLite, on a reader).
    Read,
    /// A read whose statements see one snapshot.
    Snapshot,
    /// A write of one statement: on PostgreSQL outside any transaction, so
    /// that it commits by itself, with no BEGIN and COMMIT to wait for.
    Alone,
    /// A write in one transaction, committed when it succeeds and undone
    /// when it fails.
    Write,
}

/// The failure of an operation that decides as it goes: its decision's
/// refusal (`E`, the caller's), or the store's own.
pub(super) enum Failed<E> {
    Decided(E),
    Store(StoreError),
}

impl<E> From<StoreError> for Failed<E> {
    fn from(failure: StoreError) -> Failed<E> {
        Failed::Store(failure)
    }
}

/// News of a change that another instance may have written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Notice {
    /// Game `id` is at `version` now.
    Changed {
        /// The game.
        id: GameId,
        /// Its new version.
        version: i64,
    },
    /// Player `id` has new events.
    PlayerEvents {
        /// The player.
        id: PlayerId,
    },
    /// News may have been lost (the connection to the database was): any game,
    /// and any player's events, may have changed.
    MaybeMissed,
}

/// A value bound to a statement's parameter. A null has a type too: PostgreSQL
/// is told each parameter's.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Arg<'a> {
    Int(Option<i64>),
    Real(Option<f64>),
    Text(Option<Cow<'a, str>>),
    Bytes(Option<Cow<'a, [u8]>>),
    Bool(Option<bool>),
    Time(Option<Timestamp>),
    /// Ids, for `= ANY($n)` (see [`Sql::new`]).
    Ids(Vec<i64>),
}

macro_rules! arg_from {
    ($variant:ident: $($type:ty => $value:expr),* $(,)?) => {$(
        impl<'a> From<$type> for Arg<'a> {
            fn from(value: $type) -> Arg<'a> {
                #[allow(clippy::redundant_closure_call)]
                Arg::$variant(Some(($value)(value)))
            }
        }

        impl<'a> From<Option<$type>> for Arg<'a> {
            fn from(value: Option<$type>) -> Arg<'a> {
                #[allow(clippy::redundant_closure_call)]
                Arg::$variant(value.map($value))
            }
        }
    )*};
}

arg_from!(Int:
    i64 => |v| v,
    u32 => i64::from,
    GameId => GameId::get,
    PlayerId => PlayerId::get,
    ChallengeId => ChallengeId::get,
    SeekId => SeekId::get,
    ArenaId => ArenaId::get,
    PuzzleId => PuzzleId::get,
    AttemptId => AttemptId::get,
);
arg_from!(Real: f64 => |v| v);
arg_from!(Bool: bool => |v| v);
arg_from!(Time: Timestamp => |v| v);
arg_from!(Text: &'a str => Cow::Borrowed, String => Cow::Owned);
arg_from!(Bytes: &'a [u8] => Cow::Borrowed, Vec<u8> => Cow::Owned);

/// A value read from a column, borrowed from the backend's row.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Value<'v> {
    Null,
    Int(i64),
    Real(f64),
    Text(&'v str),
    Bytes(&'v [u8]),
    Bool(bool),
    Time(Timestamp),
}

/// A row as its backend holds it, its values by position.
pub(super) trait Values {
    /// The value of column `at`.
    fn value(&self, at: usize) -> Result<Value<'_>, StoreError>;
}

/// One row, its values read by column name where the backend holds them.
pub(super) struct Row<'r> {
    names: &'r [String],
    values: &'r dyn Values,
    /// Where the column after the last one read is: columns are mostly read
    /// in the order the statement names them, so the search starts there.
    next: Cell<usize>,
}

impl<'r> Row<'r> {
    /// The row whose columns are `names` and hold `values`.
    pub(super) fn new(names: &'r [String], values: &'r dyn Values) -> Row<'r> {
        Row { names, values, next: Cell::new(0) }
    }

    /// The value of the column `name`, as a `T`.
    ///
    /// # Errors
    /// [`StoreError::Corrupt`] when there is no such column, or its value is not a `T`.
    // Inlined where it is called, `name`'s length is known there, and comparing
    // it with the column after the last one read takes a few loads, not a call.
    #[inline(always)]
    pub(super) fn get<T: FromValue>(&self, name: &str) -> Result<T, StoreError> {
        let next = self.next.get();
        let at = match self.names.get(next) {
            Some(column) if column == name => next,
            _ => self.find(name)?,
        };
        self.next.set(at + 1);
        let value = self.values.value(at)?;
        T::from_value(value).ok_or_else(|| StoreError::Corrupt(format!("{name} {value:?}")))
    }

    /// Where the column `name` is, looked for among them all.
    #[cold]
    fn find(&self, name: &str) -> Result<usize, StoreError> {
        let at = self.names.iter().position(|column| column == name);
        at.ok_or_else(|| StoreError::Corrupt(format!("no column {name}")))
    }
}

/// A type a column's value is read as.
pub(super) trait FromValue: Sized {
    /// `value` as this type, if it is one.
    fn from_value(value: Value<'_>) -> Option<Self>;
}

/// Each `$type` read from the values its patterns match.
macro_rules! from_value {
    ($($type:ty: $($pattern:pat => $read:expr),+;)*) => {$(
        impl FromValue for $type {
            fn from_value(value: Value<'_>) -> Option<$type> {
                match value {
                    $($pattern => $read,)+
                    _ => None,
                }
            }
        }
    )*};
}

from_value! {
    i64: Value::Int(int) => Some(int);
    // SQLite keeps a real that is a whole number as an integer.
    f64: Value::Real(real) => Some(real), Value::Int(int) => Some(int as f64);
    // SQLite's booleans are integers.
    bool: Value::Bool(bool) => Some(bool), Value::Int(int @ (0 | 1)) => Some(int == 1);
    String: Value::Text(text) => Some(text.to_owned());
    Vec<u8>: Value::Bytes(bytes) => Some(bytes.to_vec());
    // SQLite keeps times as RFC 3339 text.
    Timestamp: Value::Time(time) => Some(time), Value::Text(text) => text.parse().ok();
}

/// Each `$type` read from an integer by `$from`, which answers none for an
/// integer that is no `$type`.
macro_rules! from_int {
    ($($type:ty => $from:expr),* $(,)?) => {$(
        impl FromValue for $type {
            fn from_value(value: Value<'_>) -> Option<$type> {
                i64::from_value(value).and_then($from)
            }
        }
    )*};
}

from_int!(
    u64 => |int| u64::try_from(int).ok(),
    u32 => |int| u32::try_from(int).ok(),
    usize => |int| usize::try_from(int).ok(),
    GameId => |int| Some(GameId::new(int)),
    PlayerId => |int| Some(PlayerId::new(int)),
    ChallengeId => |int| Some(ChallengeId::new(int)),
    SeekId => |int| Some(SeekId::new(int)),
    ArenaId => |int| Some(ArenaId::new(int)),
    PuzzleId => |int| Some(PuzzleId::new(int)),
    AttemptId => |int| Some(AttemptId::new(int)),
);

impl<T: FromValue> FromValue for Option<T> {
    fn from_value(value: Value<'_>) -> Option<Option<T>> {
        match value {
            Value::Null => Some(None),
            value => T::from_value(value).map(Some),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Row, Value, Values};
    use crate::record::PlayerId;
    use crate::store::StoreError;

    impl<const N: usize> Values for [Value<'_>; N] {
        fn value(&self, at: usize) -> Result<Value<'_>, StoreError> {
            Ok(self[at])
        }
    }

    #[test]
    fn a_row_is_read_by_column_name_whatever_the_order() {
        let names = ["id".to_string(), "name".into(), "bot".into()];
        let rows =
            [[Value::Int(7), Value::Text("alice"), Value::Int(0)], [Value::Int(8), Value::Null, Value::Bool(true)]];
        let read = |row: &Row<'_>| {
            Ok((row.get::<Option<String>>("name")?, row.get::<PlayerId>("id")?, row.get::<bool>("bot")?))
        };
        let read: Result<Vec<_>, StoreError> = rows.iter().map(|values| read(&Row::new(&names, values))).collect();
        assert_eq!(read.unwrap(), [(Some("alice".into()), PlayerId::new(7), false), (None, PlayerId::new(8), true)]);
        let first = Row::new(&names, &rows[0]);
        assert_eq!(first.get::<i64>("nothing").unwrap_err().to_string(), "corrupt database: no column nothing");
        assert_eq!(first.get::<String>("id").unwrap_err().to_string(), "corrupt database: id Int(7)");
    }

    #[test]
    fn a_time_reads_from_sqlites_text_and_postgresqls_timestamp_alike() {
        let time: jiff::Timestamp = "2026-12-05T08:30:00.125Z".parse().unwrap();
        let names = ["at".to_string()];
        for values in [[Value::Text("2026-12-05T08:30:00.125Z")], [Value::Time(time)]] {
            assert_eq!(Row::new(&names, &values).get::<jiff::Timestamp>("at").unwrap(), time);
        }
    }
}
