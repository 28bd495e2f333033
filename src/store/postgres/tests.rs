//! The PostgreSQL store's own tests: the plans of its statements. They need a
//! server (`QTTT_TEST_POSTGRES`), and .ci/run gives them one.

use super::*;
use crate::store::games::{ABANDONED_GAMES, Ended, TIMED_OUT_GAMES, ended_before};
use crate::store::listing::{LISTED_GAMES, LOBBY_PAGE, PLAYER_PAGE};

/// What the reads that run however many games there are go along, as in the
/// SQLite store's test of the same name. Sequential scans are priced out
/// (`enable_seqscan = off`), so a plan still scans only where no index can
/// serve; each statement is planned generically, as for any of its values.
#[tokio::test]
#[ignore = "needs PostgreSQL: QTTT_TEST_POSTGRES (see .ci/run)"]
async fn the_listing_the_timer_and_retention_read_along_their_indexes() {
    let (url, mut maintenance, name) = fresh_database("plans").await;
    PgStore::open(&url, PoolSettings::default()).await.unwrap().close().await;
    let reads = [
        (LOBBY_PAGE[0].postgres(), "games_pkey"),
        (LOBBY_PAGE[1].postgres(), "games_by_status"),
        (LISTED_GAMES.postgres(), "games_pkey"),
        (PLAYER_PAGE.postgres(), "seats_by_player"),
        (TIMED_OUT_GAMES.postgres(), "games_by_deadline"),
        (ABANDONED_GAMES.postgres(), "games_by_creation"),
        (ended_before(Ended::Any).postgres(), "games_by_end"),
        (ended_before(Ended::Abandoned).postgres(), "games_abandoned_by_end"),
    ];
    let mut connection = PgConnection::connect(&url).await.unwrap();
    sqlx::raw_sql("SET enable_seqscan = off; SET plan_cache_mode = force_generic_plan")
        .execute(&mut connection)
        .await
        .unwrap();
    for (number, (read, index)) in reads.iter().enumerate() {
        let parameters = (1..).take_while(|n| read.contains(&format!("${n}"))).map(|_| "NULL").collect::<Vec<_>>();
        let prepare = format!("PREPARE read_{number} AS {read}");
        sqlx::raw_sql(sqlx::AssertSqlSafe(prepare)).execute(&mut connection).await.unwrap();
        let explain = format!("EXPLAIN EXECUTE read_{number}({})", parameters.join(", "));
        let plan: Vec<String> =
            sqlx::query_scalar(sqlx::AssertSqlSafe(explain)).fetch_all(&mut connection).await.unwrap();
        // An index scan of any kind (plain, backward, bitmap): on an empty
        // table the planner may sort what a big one would read in order.
        let along_the_index =
            |step: &String| step.contains("Index") && step.split([' ', '(']).any(|word| word == *index);
        assert!(plan.iter().any(along_the_index), "{read}\n{plan:#?}");
        let scans = ["Seq Scan on games", "Seq Scan on seats"];
        assert!(!plan.iter().any(|step| scans.iter().any(|scan| step.contains(scan))), "{read}\n{plan:#?}");
    }
    connection.close().await.unwrap();
    sqlx::raw_sql(sqlx::AssertSqlSafe(format!("DROP DATABASE {name}"))).execute(&mut maintenance).await.unwrap();
}

/// A new, empty database on the server `QTTT_TEST_POSTGRES` names, for the
/// test named `test`: its URL, a connection to the server's maintenance
/// database (to drop it with), and its name.
pub(in crate::store) async fn fresh_database(test: &str) -> (String, PgConnection, String) {
    let server = std::env::var("QTTT_TEST_POSTGRES").expect("set QTTT_TEST_POSTGRES to run this test");
    let name = format!("qttt_{test}_{}", std::process::id());
    let mut maintenance = PgConnection::connect(&server).await.unwrap();
    for command in [format!("DROP DATABASE IF EXISTS {name}"), format!("CREATE DATABASE {name}")] {
        sqlx::raw_sql(sqlx::AssertSqlSafe(command)).execute(&mut maintenance).await.unwrap();
    }
    let url = format!("{}/{name}", server.rsplit_once('/').expect("a URL with a database name").0);
    (url, maintenance, name)
}
