//! Killed with SIGKILL in the middle of a load and started again on the same
//! file, the server has lost no write it acknowledged and holds no half-written
//! game.

use std::net::{SocketAddr, TcpListener};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rand::RngExt;
use serde_json::{Value, json};

use super::helpers::{Response, TestDatabase, try_request};

/// The server binary as its own process, so that it can be killed outright.
struct Process {
    /// Behind a lock so that the test can kill it while clients still use it.
    child: Mutex<Child>,
    address: SocketAddr,
}

impl Process {
    fn start(database: &TestDatabase) -> Process {
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let child = Command::new(env!("CARGO_BIN_EXE_qttt"))
            .arg("serve")
            .env("HOST", "127.0.0.1")
            .env("PORT", port.to_string())
            .env("DATABASE_URL", database.url())
            .env("RUST_LOG", "error")
            .stdout(Stdio::null())
            .spawn()
            .expect("the server starts");
        let process = Process { child: Mutex::new(child), address: SocketAddr::from(([127, 0, 0, 1], port)) };
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(20) {
            if try_request(process.address, "GET", "/readyz", &[], None).is_ok_and(|ready| ready.status == 200) {
                return process;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        panic!("the server did not become ready");
    }

    fn send(&self, method: &str, path: &str, token: Option<&str>, body: Option<Value>) -> Option<Response> {
        let authorization = token.map(|token| format!("Bearer {token}"));
        let mut headers = vec![("Content-Type", "application/json")];
        headers.extend(authorization.as_deref().map(|value| ("Authorization", value)));
        try_request(self.address, method, path, &headers, body.map(|b| b.to_string()).as_deref()).ok()
    }

    /// SIGKILL: no shutdown, no flush, nothing but what is already committed.
    fn kill(&self) {
        let mut child = self.child.lock().unwrap();
        child.kill().expect("the server is killed");
        child.wait().expect("the server is gone");
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let child = self.child.get_mut().unwrap();
        let _ = child.kill();
        let _ = child.wait();
    }
}

/// A write the server answered with 2xx: the log entry it must hold from then on.
#[derive(Debug, Clone, Copy)]
struct Acknowledged {
    game: i64,
    seq: i64,
    squares: Option<[u8; 2]>,
}

/// Eight moves along a path through the nine squares, then move 9 closing the
/// cycle through them all: legal whatever the measurement decides.
const SCRIPT: [[u8; 2]; 9] = [[0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [5, 6], [6, 7], [7, 8], [0, 8]];

/// Plays measurement games by [`SCRIPT`] until the server stops answering (then
/// `None`), noting every acknowledged write. Any answer other than 2xx fails the test.
fn play_until_gone(server: &Process, acknowledged: &Mutex<Vec<Acknowledged>>) -> Option<()> {
    let note = |game, seq, squares| acknowledged.lock().unwrap().push(Acknowledged { game, seq, squares });
    let seated = |answer: Response, expected: u16| -> Option<(i64, String)> {
        assert_eq!(answer.status, expected, "{}", answer.body);
        // An answer cut off by the kill still said its status: the write is acknowledged,
        // but its body may not say which game; the scan of all games covers that one.
        let body: Value = serde_json::from_str(&answer.body).ok()?;
        Some((body["game"]["id"].as_i64()?, body["seat"]["token"].as_str()?.to_string()))
    };
    loop {
        let (id, x) =
            seated(server.send("POST", "/api/v1/games", None, Some(json!({ "variant": "measurement" })))?, 201)?;
        note(id, 1, None);
        let (_, o) = seated(server.send("POST", &format!("/api/v1/games/{id}/join"), None, None)?, 201)?;
        note(id, 2, None);
        for ((squares, token), seq) in SCRIPT.iter().zip([&x, &o].into_iter().cycle()).zip(3..) {
            let moved = server.send(
                "POST",
                &format!("/api/v1/games/{id}/moves"),
                Some(token),
                Some(json!({ "squares": squares })),
            );
            let moved = moved?;
            assert_eq!(moved.status, 201, "{}", moved.body);
            note(id, seq, Some(*squares));
        }
    }
}

/// Every game of the server, by paging through the whole listing.
fn every_game(server: &Process) -> Vec<i64> {
    let mut ids = Vec::new();
    let mut path = "/api/v1/games?limit=100".to_string();
    loop {
        let page = server.send("GET", &path, None, None).expect("the server answers");
        assert_eq!(page.status, 200, "{}", page.body);
        let page = page.json();
        ids.extend(page["games"].as_array().unwrap().iter().map(|game| game["id"].as_i64().unwrap()));
        match page["next_cursor"].as_str() {
            Some(cursor) => path = format!("/api/v1/games?limit=100&cursor={cursor}"),
            None => return ids,
        }
    }
}

#[test]
fn a_server_killed_mid_load_keeps_every_acknowledged_write_and_no_half_written_game() {
    let database = TestDatabase::new();
    let acknowledged = Mutex::new(Vec::new());
    let mut rng = rand::rng();
    for round in 1..=3 {
        let server = Process::start(&database);
        let kill_after = Duration::from_millis(rng.random_range(0..350));
        std::thread::scope(|scope| {
            for _ in 0..4 {
                scope.spawn(|| play_until_gone(&server, &acknowledged));
            }
            // Killed at a random moment once the load runs: on a busy machine a
            // fixed wait may end before the first game is played.
            let started = std::time::Instant::now();
            while acknowledged.lock().unwrap().len() <= 10 * round && started.elapsed() < Duration::from_secs(10) {
                std::thread::sleep(Duration::from_millis(10));
            }
            std::thread::sleep(kill_after);
            server.kill();
        });

        let server = Process::start(&database);
        let acknowledged = acknowledged.lock().unwrap();
        let games = every_game(&server);
        println!(
            "round {round}: killed {kill_after:?} after the load ran; {} writes acknowledged in all, {} games",
            acknowledged.len(),
            games.len()
        );
        assert!(acknowledged.len() > 10 * round, "the load ran: {} writes", acknowledged.len());
        let mut logs = std::collections::HashMap::new();
        for &id in &games {
            // Every game replays, and has its creator's seat: nothing half-written.
            let game = server.send("GET", &format!("/api/v1/games/{id}"), None, None).unwrap();
            assert_eq!(game.status, 200, "game {id}: {}", game.body);
            let log = server.send("GET", &format!("/api/v1/games/{id}/log"), None, None).unwrap().json();
            let entries = log["entries"].as_array().unwrap().clone();
            assert_eq!(
                entries.first().map(|entry| (&entry["kind"], &entry["player"])),
                Some((&json!("seat"), &json!("X")))
            );
            assert_eq!(game.json()["version"].as_i64(), Some(i64::try_from(entries.len()).unwrap()), "game {id}");
            logs.insert(id, entries);
        }
        for write in acknowledged.iter() {
            let entries = logs.get(&write.game).unwrap_or_else(|| panic!("acknowledged game {} is gone", write.game));
            let entry =
                entries.get(usize::try_from(write.seq - 1).unwrap()).unwrap_or_else(|| panic!("{write:?} is gone"));
            assert_eq!(entry["seq"].as_i64(), Some(write.seq));
            match write.squares {
                None => assert_eq!(entry["kind"], "seat", "{write:?}"),
                Some(squares) => assert_eq!((&entry["kind"], &entry["squares"]), (&json!("move"), &json!(squares))),
            }
        }
        drop(acknowledged);
        server.kill();
    }
}
