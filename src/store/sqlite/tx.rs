//! [`Tx`] on a SQLite connection, and the store's operations run on the
//! threads of [`super::worker`]: each statement runs as it is called, so an
//! operation runs to its end in one poll.

use futures_util::FutureExt;
use rusqlite::Connection;
use rusqlite::types::{Null, ToSql, ToSqlOutput, ValueRef};

use super::connection::is_unique_violation;
use crate::record::stamp;
use crate::store::StoreError;
use crate::store::sql::Sql;
use crate::store::tx::{Arg, Row, Tx, Value, Values};

/// The work on one SQLite connection: a write's transaction on the writer's, or
/// reads on a reader's.
pub(in crate::store) struct SqliteTx<'c> {
    connection: &'c Connection,
    /// The database's failure that stopped the work, if one did.
    pub(super) failure: Option<StoreError>,
}

impl<'c> SqliteTx<'c> {
    pub(super) fn new(connection: &'c Connection) -> SqliteTx<'c> {
        SqliteTx { connection, failure: None }
    }

    /// `done`, its failure kept.
    fn kept<T>(&mut self, done: Result<T, StoreError>) -> Result<T, StoreError> {
        if let Err(failure) = &done {
            self.failure = Some(failure.clone());
        }
        done
    }
}

/// What `operation` answers: it runs here to its end, since none of its
/// statements waits.
pub(super) fn now<T>(operation: impl Future<Output = T>) -> T {
    operation.now_or_never().expect("an operation on SQLite never waits")
}

impl Tx for SqliteTx<'_> {
    const A_GAME_IN_ONE_STATEMENT: bool = false;

    async fn execute(&mut self, statement: &'static Sql, args: &[Arg<'_>]) -> Result<u64, StoreError> {
        let execute = self.connection.prepare_cached(statement.sqlite());
        let changed = execute.and_then(|mut execute| execute.execute(rusqlite::params_from_iter(args)));
        self.kept(changed.map(|changed| changed as u64).map_err(StoreError::from))
    }

    async fn rows<T>(
        &mut self,
        statement: &'static Sql,
        args: &[Arg<'_>],
        mut read: impl FnMut(&Row<'_>) -> Result<T, StoreError>,
    ) -> Result<Vec<T>, StoreError> {
        // Each row is read where SQLite holds it.
        let connection = self.connection;
        let read = (|| {
            let mut select = connection.prepare_cached(statement.sqlite())?;
            let names = statement.columns(|| select.column_names().into_iter().map(String::from).collect());
            select.query_and_then(rusqlite::params_from_iter(args), |row| read(&Row::new(names, row)))?.collect()
        })();
        self.kept(read)
    }

    async fn insert(&mut self, statement: &'static Sql, args: &[Arg<'_>]) -> Result<Option<i64>, StoreError> {
        let inserted = match self
            .connection
            .prepare_cached(statement.sqlite())
            .and_then(|mut insert| insert.execute(rusqlite::params_from_iter(args)))
        {
            Err(error) if is_unique_violation(&error) => Ok(None),
            // Nothing inserted: `ON CONFLICT DO NOTHING`.
            Ok(0) => Ok(None),
            Ok(_) => Ok(Some(self.connection.last_insert_rowid())),
            Err(error) => Err(error.into()),
        };
        self.kept(inserted)
    }
}

impl Values for rusqlite::Row<'_> {
    fn value(&self, at: usize) -> Result<Value<'_>, StoreError> {
        Ok(match self.get_ref(at)? {
            ValueRef::Null => Value::Null,
            ValueRef::Integer(int) => Value::Int(int),
            ValueRef::Real(real) => Value::Real(real),
            ValueRef::Text(text) => {
                Value::Text(std::str::from_utf8(text).map_err(|error| StoreError::Corrupt(error.to_string()))?)
            }
            ValueRef::Blob(bytes) => Value::Bytes(bytes),
        })
    }
}

impl ToSql for Arg<'_> {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(match self {
            Arg::Int(int) => int.to_sql()?,
            Arg::Real(real) => real.to_sql()?,
            Arg::Text(text) => text
                .as_deref()
                .map_or(ToSqlOutput::from(Null), |text| ToSqlOutput::Borrowed(ValueRef::Text(text.as_bytes()))),
            Arg::Bytes(bytes) => {
                bytes.as_deref().map_or(ToSqlOutput::from(Null), |bytes| ToSqlOutput::Borrowed(ValueRef::Blob(bytes)))
            }
            Arg::Bool(bool) => bool.to_sql()?,
            // As every time is kept: RFC 3339 text, to the millisecond.
            Arg::Time(time) => ToSqlOutput::Owned(time.map_or(rusqlite::types::Value::Null, |time| stamp(time).into())),
            Arg::Ids(ids) => ToSqlOutput::from(serde_json::to_string(ids).expect("ids serialise")),
        })
    }
}
