//! A database of its own on a PostgreSQL server, for a test or a benchmark run:
//! made when created, dropped with everything in it when dropped. Shared by the
//! integration tests and the load benchmark.

/// A database made on the server of a maintenance URL.
pub struct PostgresDatabase {
    /// The server's maintenance database, where databases are made and dropped.
    maintenance_url: String,
    name: String,
}

impl PostgresDatabase {
    /// Makes database `name` on the server of `maintenance_url`.
    pub fn create(maintenance_url: &str, name: String) -> PostgresDatabase {
        execute(maintenance_url, &format!("CREATE DATABASE {name}"));
        PostgresDatabase { maintenance_url: maintenance_url.to_string(), name }
    }

    /// The `DATABASE_URL` of this database.
    pub fn url(&self) -> String {
        let (server, _) = self.maintenance_url.rsplit_once('/').expect("a URL with a database name");
        format!("{server}/{}", self.name)
    }
}

impl Drop for PostgresDatabase {
    fn drop(&mut self) {
        execute(&self.maintenance_url, &format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name));
    }
}

/// Runs `sql` on the PostgreSQL database at `url`.
pub fn execute(url: &str, sql: &str) {
    actix_web::rt::System::new().block_on(async {
        use sqlx::Connection;
        let mut connection = sqlx::PgConnection::connect(url).await.expect("PostgreSQL answers");
        sqlx::raw_sql(sqlx::AssertSqlSafe(sql.to_string())).execute(&mut connection).await.expect("the SQL runs");
        connection.close().await.expect("the connection closes");
    });
}
