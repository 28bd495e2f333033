//! [`Tx`] on a PostgreSQL connection, and how the store's operations run on
//! one, in a transaction or not; what they tell other instances is sent once
//! they have committed.

use sqlx::postgres::types::Oid;
use sqlx::postgres::{PgArgumentBuffer, PgConnection, PgRow, PgTypeInfo, PgValueRef, Postgres};
use sqlx::{Column as _, Connection, Decode, Row as _, TypeInfo, ValueRef as _};

use super::connections::is_broken;
use crate::store::sql::Sql;
use crate::store::tx::{Arg, Kind, Row, Tx, Value, Values};
use crate::store::{Notice, StoreError};

/// The work on one PostgreSQL connection.
pub(in crate::store) struct PgTx<'c> {
    connection: &'c mut PgConnection,
    /// What to tell the other instances once the work has committed.
    told: Vec<Notice>,
    /// The database's error that stopped the work, if one did.
    failure: Option<sqlx::Error>,
}

type Query<'q> = sqlx::query::Query<'q, Postgres, sqlx::postgres::PgArguments>;

impl<'c> PgTx<'c> {
    fn new(connection: &'c mut PgConnection) -> PgTx<'c> {
        PgTx { connection, told: Vec::new(), failure: None }
    }

    /// `error`, kept, in the store's terms.
    fn failed(&mut self, error: sqlx::Error) -> StoreError {
        let failure = StoreError::from(&error);
        self.failure = Some(error);
        failure
    }

    /// Whether a statement found the connection broken.
    fn broken(&self) -> bool {
        self.failure.as_ref().is_some_and(is_broken)
    }
}

/// What `work` on `connection` answers, with the database's error that stopped
/// it if one did, for the game writes that tell those apart (see [`super::writes`]).
pub(super) async fn on_connection<T>(
    connection: &mut PgConnection,
    work: impl AsyncFnOnce(&mut PgTx<'_>) -> Result<T, StoreError>,
) -> (Result<T, StoreError>, Option<sqlx::Error>) {
    let mut tx = PgTx::new(connection);
    let done = work(&mut tx).await;
    (done, tx.failure)
}

/// `work` on `connection`, its failure in sqlx's terms, for the game writes
/// that speak them.
pub(super) async fn in_sqlx_terms<T>(
    connection: &mut PgConnection,
    work: impl AsyncFnOnce(&mut PgTx<'_>) -> Result<T, StoreError>,
) -> Result<T, sqlx::Error> {
    match on_connection(connection, work).await {
        (Ok(done), _) => Ok(done),
        (Err(failure), error) => Err(error.unwrap_or_else(|| decode(failure))),
    }
}

/// `query` with `args` bound.
fn bound<'q>(mut query: Query<'q>, args: &'q [Arg<'_>]) -> Query<'q> {
    for arg in args {
        query = match arg {
            Arg::Int(int) => query.bind(*int),
            Arg::Real(real) => query.bind(*real),
            Arg::Text(text) => query.bind(text.as_deref()),
            Arg::Bytes(bytes) => query.bind(bytes.as_deref()),
            Arg::Bool(bool) => query.bind(*bool),
            Arg::Time(time) => query.bind(time.map(PgTime)),
            Arg::Ids(ids) => query.bind(ids.as_slice()),
        };
    }
    query
}

impl Tx for PgTx<'_> {
    const A_GAME_IN_ONE_STATEMENT: bool = true;

    async fn execute(&mut self, statement: &'static Sql, args: &[Arg<'_>]) -> Result<u64, StoreError> {
        match bound(sqlx::query(statement.postgres()), args).execute(&mut *self.connection).await {
            Ok(done) => Ok(done.rows_affected()),
            Err(error) => Err(self.failed(error)),
        }
    }

    async fn rows<T>(
        &mut self,
        statement: &'static Sql,
        args: &[Arg<'_>],
        mut read: impl FnMut(&Row<'_>) -> Result<T, StoreError>,
    ) -> Result<Vec<T>, StoreError> {
        let rows = match bound(sqlx::query(statement.postgres()), args).fetch_all(&mut *self.connection).await {
            Ok(rows) => rows,
            Err(error) => return Err(self.failed(error)),
        };
        let Some(first) = rows.first() else { return Ok(Vec::new()) };
        let names = statement.columns(|| first.columns().iter().map(|column| column.name().into()).collect());
        rows.iter().map(|row| read(&Row::new(names, row))).collect()
    }

    async fn insert(&mut self, statement: &'static Sql, args: &[Arg<'_>]) -> Result<Option<i64>, StoreError> {
        match bound(sqlx::query(statement.postgres()), args).fetch_optional(&mut *self.connection).await {
            Ok(row) => Ok(row.map(|row| row.try_get(0)).transpose()?),
            Err(error) if is_unique_violation(&error) => Ok(None),
            Err(error) => Err(self.failed(error)),
        }
    }

    async fn hold(&mut self, hold: &'static Sql, args: &[Arg<'_>]) -> Result<(), StoreError> {
        self.execute(hold, args).await.map(drop)
    }

    fn tell(&mut self, notice: Notice) {
        self.told.push(notice);
    }
}

impl Values for PgRow {
    fn value(&self, at: usize) -> Result<Value<'_>, StoreError> {
        let raw = self.try_get_raw(at)?;
        if raw.is_null() {
            return Ok(Value::Null);
        }
        let kind = raw.type_info().into_owned();
        let decoded: Result<Value<'_>, sqlx::error::BoxDynError> = match kind.name() {
            "INT2" => <i16 as Decode<Postgres>>::decode(raw).map(|int| Value::Int(int.into())),
            "INT4" => <i32 as Decode<Postgres>>::decode(raw).map(|int| Value::Int(int.into())),
            "INT8" => <i64 as Decode<Postgres>>::decode(raw).map(Value::Int),
            "FLOAT4" => <f32 as Decode<Postgres>>::decode(raw).map(|real| Value::Real(real.into())),
            "FLOAT8" => <f64 as Decode<Postgres>>::decode(raw).map(Value::Real),
            "TEXT" | "VARCHAR" | "BPCHAR" | "NAME" => <&str as Decode<Postgres>>::decode(raw).map(Value::Text),
            "BYTEA" => <&[u8] as Decode<Postgres>>::decode(raw).map(Value::Bytes),
            "BOOL" => <bool as Decode<Postgres>>::decode(raw).map(Value::Bool),
            "TIMESTAMPTZ" => PgTime::decode(raw).map(|time| Value::Time(time.0)),
            "VOID" => Ok(Value::Null),
            other => return Err(StoreError::Corrupt(format!("a column of type {other}"))),
        };
        decoded.map_err(|error| StoreError::Corrupt(format!("a {kind}: {error}")))
    }
}

/// A time as PostgreSQL's TIMESTAMPTZ carries it: microseconds since 2000-01-01
/// UTC. Written to the millisecond, as every time the store keeps is (SQLite's
/// text too), so that a time reads back as it was written on either backend.
struct PgTime(jiff::Timestamp);

/// 2000-01-01 UTC in microseconds since the Unix epoch.
const POSTGRES_EPOCH_US: i64 = 946_684_800_000_000;

impl sqlx::Type<Postgres> for PgTime {
    fn type_info() -> PgTypeInfo {
        PgTypeInfo::with_oid(Oid(1184))
    }
}

impl sqlx::Encode<'_, Postgres> for PgTime {
    fn encode_by_ref(&self, buffer: &mut PgArgumentBuffer) -> Result<sqlx::encode::IsNull, sqlx::error::BoxDynError> {
        let micros = self.0.as_millisecond() * 1000 - POSTGRES_EPOCH_US;
        buffer.extend_from_slice(&micros.to_be_bytes());
        Ok(sqlx::encode::IsNull::No)
    }
}

impl Decode<'_, Postgres> for PgTime {
    fn decode(raw: PgValueRef<'_>) -> Result<PgTime, sqlx::error::BoxDynError> {
        let micros = i64::from_be_bytes(raw.as_bytes()?.try_into()?);
        Ok(PgTime(jiff::Timestamp::from_microsecond(micros + POSTGRES_EPOCH_US)?))
    }
}

/// Work that `error` stopped before it began or as it committed.
fn unfinished<T, E: From<StoreError>>(error: sqlx::Error) -> (Result<T, E>, Vec<Notice>, bool) {
    let broken = is_broken(&error);
    (Err(E::from(error.into())), Vec::new(), broken)
}

/// `work` on `connection` as `kind` says: what it answers, what it tells, and
/// whether the connection broke.
pub(super) async fn attempt<T, E: From<StoreError>>(
    connection: &mut PgConnection,
    kind: Kind,
    work: &impl AsyncFn(&mut PgTx<'_>) -> Result<T, E>,
) -> (Result<T, E>, Vec<Notice>, bool) {
    if matches!(kind, Kind::Read | Kind::Alone) {
        let mut tx = PgTx::new(connection);
        let done = work(&mut tx).await;
        let broken = tx.broken();
        return (done, tx.told, broken);
    }
    let mut transaction = match connection.begin().await {
        Ok(transaction) => transaction,
        Err(error) => return unfinished(error),
    };
    let mut tx = PgTx::new(&mut transaction);
    if kind == Kind::Snapshot {
        static SNAPSHOT: Sql = Sql::new("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY");
        if let Err(error) = tx.execute(&SNAPSHOT, &[]).await {
            return (Err(E::from(error)), Vec::new(), tx.broken());
        }
    }
    let done = work(&mut tx).await;
    let (told, broken) = (std::mem::take(&mut tx.told), tx.broken());
    match done {
        Ok(done) => match transaction.commit().await {
            Ok(()) => (Ok(done), told, broken),
            Err(error) => unfinished(error),
        },
        // Dropped, the transaction rolls back.
        Err(error) => (Err(error), Vec::new(), broken),
    }
}

/// A row that does not read as it should, as sqlx's error.
fn decode(error: StoreError) -> sqlx::Error {
    sqlx::Error::Decode(Box::new(error))
}

pub(super) fn is_unique_violation(error: &sqlx::Error) -> bool {
    error.as_database_error().is_some_and(|error| error.is_unique_violation())
}
