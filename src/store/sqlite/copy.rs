//! What `qttt copy` reads from SQLite: a table's rows, a page at a time.

use rusqlite::params;

use super::SqliteStore;
use crate::store::StoreError;

impl SqliteStore {
    /// The page of table `table` after `after` that `page` reads, given the
    /// table's columns (see [`crate::store::tables`]): its rows as JSON, their
    /// count, the last key.
    pub(in crate::store) async fn rows_after(
        &self,
        table: &'static str,
        page: impl FnOnce(&[(String, String)]) -> String + Send + 'static,
        after: (i64, i64),
        most: u32,
    ) -> Result<(String, u64, (i64, i64)), StoreError> {
        self.readers
            .run(move |connection| {
                let mut describe = connection.prepare_cached("SELECT name, type FROM pragma_table_info(?1)")?;
                let columns = describe.query_map([table], |row| Ok((row.get(0)?, row.get(1)?)))?;
                let columns = columns.collect::<rusqlite::Result<Vec<_>>>()?;
                let mut page = connection.prepare_cached(&page(&columns))?;
                let (json, count, first, second): (String, i64, Option<i64>, Option<i64>) = page
                    .query_row(params![after.0, after.1, most], |row| {
                        Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?))
                    })?;
                let count = u64::try_from(count).unwrap_or_default();
                Ok((json, count, (first.unwrap_or(after.0), second.unwrap_or(0))))
            })
            .await
    }
}
