//! TLS to PostgreSQL. These need a PostgreSQL server with `ssl = on` whose
//! certificate a certificate authority of the test's signed:
//! `QTTT_TEST_POSTGRES_TLS` (its maintenance database) and `QTTT_TEST_TLS`, a
//! folder with that authority's certificate `ca.pem` and another authority's
//! `other_ca.pem` (see `.ci/run`, which makes them with openssl).

use std::time::{Duration, Instant};

use super::helpers::{TestApp, TestDatabase};
use crate::command_line::qttt_with;

/// A database of its own on the TLS server, and the folder of the authorities' certificates.
fn tls_postgres() -> (TestDatabase, String) {
    let maintenance = std::env::var("QTTT_TEST_POSTGRES_TLS").expect("set QTTT_TEST_POSTGRES_TLS to run this test");
    let folder = std::env::var("QTTT_TEST_TLS").expect("set QTTT_TEST_TLS to run this test");
    (TestDatabase::on_postgres(&maintenance), folder)
}

#[test]
#[ignore = "needs PostgreSQL with TLS: QTTT_TEST_POSTGRES_TLS and QTTT_TEST_TLS (see .ci/run)"]
fn a_server_that_verifies_the_database_in_full_plays_over_encrypted_connections_only() {
    let (database, folder) = tls_postgres();
    let url = format!("{}?sslmode=verify-full&sslrootcert={folder}/ca.pem", database.url());
    let app = TestApp::spawn_with_database(&database, |config| config.database_url = url);
    let (id, x, _) = app.two_player_game("player_choice");
    assert_eq!(app.place(id, &x, [0, 1]).status, 201);
    // The server's connections, as the database sees them: every one encrypted.
    database.execute(
        "DO $$ BEGIN IF (SELECT count(*) FILTER (WHERE ssl) = 0 OR count(*) FILTER (WHERE NOT ssl) > 0 \
         FROM pg_stat_ssl JOIN pg_stat_activity USING (pid) \
         WHERE datname = current_database() AND pid <> pg_backend_pid()) \
         THEN RAISE EXCEPTION 'the server has a connection in the clear, or none'; END IF; END $$",
    );
}

#[test]
#[ignore = "needs PostgreSQL with TLS: QTTT_TEST_POSTGRES_TLS and QTTT_TEST_TLS (see .ci/run)"]
fn a_database_certified_by_another_authority_stops_start_up_at_once_with_one_line() {
    let (database, folder) = tls_postgres();
    let url = format!("{}?sslmode=verify-full&sslrootcert={folder}/other_ca.pem", database.url());
    let started = Instant::now();
    // Start-up waits for a database that is not up yet, but not for a certificate.
    let vars = [("DATABASE_URL", url.as_str()), ("DATABASE_CONNECT_RETRY_SECONDS", "30"), ("PORT", "1")];
    let refused = qttt_with(&vars, &["serve"], "");
    assert!(started.elapsed() < Duration::from_secs(10), "refused after {:?}", started.elapsed());
    assert_eq!(refused.status.code(), Some(1));
    let said = String::from_utf8(refused.stderr).unwrap();
    assert_eq!(said.lines().count(), 1, "{said}");
    assert!(said.starts_with("qttt: cannot open the PostgreSQL database"), "{said}");
    assert!(said.contains("certificate"), "{said}");
}
