//! The floor under the load benchmark's game requests: a bare actix-web server,
//! this program started again as its own process, whose one endpoint `POST /floor`
//! writes one row in one statement, a transaction of its own, and answers its id:
//! the cheapest write the stack can do, on either backend.
//!
//! - On SQLite: a writer thread of its own on a connection with the store's
//!   settings and checkpointer (the server's writes queued together share a
//!   commit; these do not).
//! - On PostgreSQL: as many connections as the server's pool holds by default,
//!   split among the workers, never pinged (as the store's are not), and the
//!   row's statement prepared once per connection.

use std::cell::RefCell;
use std::path::Path;

use actix_web::{App, HttpResponse, HttpServer, web};
use serde_json::json;

/// Runs the floor server on `port`, writing to `database` (a SQLite file's path
/// or a PostgreSQL URL), until killed.
pub fn serve(port: u16, database: &str) {
    let postgres = qttt::store::is_postgres(database);
    let sqlite_writer = (!postgres).then(|| web::Data::new(sqlite_writer(Path::new(database))));
    let url = database.to_string();
    actix_web::rt::System::new().block_on(async move {
        if postgres {
            postgres_execute(
                &url,
                "CREATE TABLE floor (id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, \
                 written_at TIMESTAMPTZ NOT NULL)",
            )
            .await;
        }
        let workers = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
        let per_worker = qttt::store::PoolSettings::default().pool_size as usize / workers;
        HttpServer::new(move || {
            let app = App::new()
                .route("/readyz", web::get().to(|| async { HttpResponse::Ok().json(json!({ "status": "ready" })) }));
            match &sqlite_writer {
                Some(writer) => app.app_data(writer.clone()).route("/floor", web::post().to(sqlite_write)),
                None => app
                    .app_data(web::Data::new(PostgresConnections::new(&url, per_worker.max(1))))
                    .route("/floor", web::post().to(postgres_write)),
            }
        })
        .workers(workers)
        .bind(("127.0.0.1", port))
        .expect("the floor port is free")
        .run()
        .await
        .expect("the floor server runs");
    });
}

fn created(id: i64) -> HttpResponse {
    HttpResponse::Created().json(json!({ "id": id }))
}

/// A row for the SQLite writer to write, and where to answer its id.
type SqliteWrite = (String, tokio::sync::oneshot::Sender<rusqlite::Result<i64>>);

/// The SQLite writer: a connection of its own to `database`, on a thread of its
/// own that writes one row after another.
fn sqlite_writer(database: &Path) -> std::sync::mpsc::Sender<SqliteWrite> {
    let connection = qttt::store::SqliteConnection::open(database, qttt::store::Durability::Normal)
        .expect("the floor database opens");
    connection
        .execute_batch("CREATE TABLE floor (id INTEGER PRIMARY KEY, written_at TEXT NOT NULL)")
        .expect("the floor table is made");
    let (queue, writes) = std::sync::mpsc::channel::<SqliteWrite>();
    std::thread::spawn(move || {
        for (written_at, answer) in writes {
            // Not `RETURNING id`: SQLite builds a temporary table for it on every
            // statement, which is not the cheapest write.
            let written = connection
                .prepare_cached("INSERT INTO floor (written_at) VALUES (?)")
                .and_then(|mut insert| insert.execute([written_at]))
                .map(|_| connection.last_insert_rowid());
            let _ = answer.send(written);
        }
    });
    queue
}

async fn sqlite_write(writer: web::Data<std::sync::mpsc::Sender<SqliteWrite>>) -> HttpResponse {
    let (answer, answered) = tokio::sync::oneshot::channel();
    let written_at = format!("{:?}", std::time::SystemTime::now());
    writer.send((written_at, answer)).expect("the floor's writer runs");
    match answered.await.expect("the floor's writer answers") {
        Ok(id) => created(id),
        Err(error) => HttpResponse::InternalServerError().body(error.to_string()),
    }
}

/// One worker's connections to PostgreSQL: at most `most`, opened when needed.
struct PostgresConnections {
    url: String,
    idle: RefCell<Vec<sqlx::PgConnection>>,
    permits: tokio::sync::Semaphore,
}

impl PostgresConnections {
    fn new(url: &str, most: usize) -> PostgresConnections {
        PostgresConnections { url: url.into(), idle: RefCell::default(), permits: tokio::sync::Semaphore::new(most) }
    }
}

async fn postgres_write(connections: web::Data<PostgresConnections>) -> HttpResponse {
    use sqlx::Connection;
    let _permit = connections.permits.acquire().await.expect("never closed");
    let idle = connections.idle.borrow_mut().pop();
    let mut connection = match idle {
        Some(connection) => connection,
        None => sqlx::PgConnection::connect(&connections.url).await.expect("PostgreSQL answers"),
    };
    let written = sqlx::query_scalar("INSERT INTO floor (written_at) VALUES ($1::TEXT::TIMESTAMPTZ) RETURNING id")
        .bind(jiff::Timestamp::now().to_string())
        .fetch_one(&mut connection)
        .await;
    connections.idle.borrow_mut().push(connection);
    match written {
        Ok(id) => created(id),
        Err(error) => HttpResponse::InternalServerError().body(error.to_string()),
    }
}

async fn postgres_execute(url: &str, sql: &'static str) {
    use sqlx::Connection;
    let mut connection = sqlx::PgConnection::connect(url).await.expect("PostgreSQL answers");
    sqlx::query(sql).execute(&mut connection).await.expect("the floor table is made");
}
