//! Killed with SIGKILL in the middle of a load and started again on the same
//! file, the server has lost no write it acknowledged and holds no half-written
//! game.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use rand::RngExt;
use serde_json::{Value, json};

use super::helpers::{Response, TestDatabase};
use super::process::Process;

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
/// `None`) or `done` says so, noting every acknowledged write. A write refused
/// with 503 `storage_full` is counted in `refused`, when given, and its game left;
/// any other answer than 2xx fails the test.
fn play(
    server: &Process,
    acknowledged: &Mutex<Vec<Acknowledged>>,
    refused: Option<&AtomicUsize>,
    done: &dyn Fn() -> bool,
) -> Option<()> {
    let note = |game, seq, squares| acknowledged.lock().unwrap().push(Acknowledged { game, seq, squares });
    // Whether the answer acknowledged the write; `None` when the server is gone.
    let acknowledges = |answer: &Response, expected: u16| -> bool {
        if let Some(refused) = refused.filter(|_| answer.status == 503) {
            answer.assert_problem(503, "storage_full");
            assert_eq!(answer.header("Retry-After"), Some("10"));
            refused.fetch_add(1, Ordering::SeqCst);
            std::thread::sleep(Duration::from_millis(20));
            return false;
        }
        assert_eq!(answer.status, expected, "{}", answer.body);
        true
    };
    // An answer cut off by a kill still said its status: the write is acknowledged,
    // but its body may not say which game; the scan of all games covers that one.
    let seated = |answer: &Response| -> Option<(i64, String)> {
        let body: Value = serde_json::from_str(&answer.body).ok()?;
        Some((body["game"]["id"].as_i64()?, body["seat"]["token"].as_str()?.to_string()))
    };
    'games: while !done() {
        let created = server.send("POST", "/api/v1/games", None, Some(json!({ "variant": "measurement" })))?;
        if !acknowledges(&created, 201) {
            continue;
        }
        let (id, x) = seated(&created)?;
        note(id, 1, None);
        let joined = server.send("POST", &format!("/api/v1/games/{id}/join"), None, None)?;
        if !acknowledges(&joined, 201) {
            continue;
        }
        let (_, o) = seated(&joined)?;
        note(id, 2, None);
        for ((squares, token), seq) in SCRIPT.iter().zip([&x, &o].into_iter().cycle()).zip(3..) {
            let path = format!("/api/v1/games/{id}/moves");
            let moved = server.send("POST", &path, Some(token), Some(json!({ "squares": squares })))?;
            if !acknowledges(&moved, 201) {
                continue 'games;
            }
            note(id, seq, Some(*squares));
        }
    }
    Some(())
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

/// Checks that `games` replay, each from its creator's seat (nothing
/// half-written), and hold every write of `acknowledged`.
fn every_write_is_in(server: &Process, games: &[i64], acknowledged: &[Acknowledged]) {
    let mut logs = std::collections::HashMap::new();
    for &id in games {
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
    for write in acknowledged {
        let entries = logs.get(&write.game).unwrap_or_else(|| panic!("acknowledged game {} is gone", write.game));
        let entry = entries.get(usize::try_from(write.seq - 1).unwrap()).unwrap_or_else(|| panic!("{write:?} is gone"));
        assert_eq!(entry["seq"].as_i64(), Some(write.seq));
        match write.squares {
            None => assert_eq!(entry["kind"], "seat", "{write:?}"),
            Some(squares) => assert_eq!((&entry["kind"], &entry["squares"]), (&json!("move"), &json!(squares))),
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
                scope.spawn(|| play(&server, &acknowledged, None, &|| false));
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
        every_write_is_in(&server, &games, &acknowledged);
        drop(acknowledged);
        server.kill();
    }
}

/// A tmpfs mounted on a folder of its own, unmounted when dropped.
struct SmallDisk {
    folder: tempfile::TempDir,
}

impl SmallDisk {
    fn mount(megabytes: u32) -> SmallDisk {
        let folder = tempfile::tempdir().unwrap();
        let mounted = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={megabytes}m"), "tmpfs"])
            .arg(folder.path())
            .status()
            .expect("mount runs");
        assert!(mounted.success(), "a tmpfs is mounted (as root)");
        SmallDisk { folder }
    }

    fn path(&self) -> &std::path::Path {
        self.folder.path()
    }

    /// Fills the disk with a file but for `room` bytes; answers the file.
    fn fill_but(&self, room: u64) -> std::path::PathBuf {
        use std::io::Write;
        let filler = self.path().join("filler");
        let mut file = std::fs::File::create(&filler).unwrap();
        let chunk = vec![0_u8; 64 * 1024];
        while file.write_all(&chunk).is_ok() {}
        let _ = file.flush();
        let size = std::fs::metadata(&filler).unwrap().len();
        file.set_len(size.saturating_sub(room)).unwrap();
        filler
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg("-l").arg(self.folder.path()).status();
    }
}

#[test]
#[ignore = "mounts a tmpfs: needs root (see .ci/run)"]
fn a_full_disk_refuses_writes_with_storage_full_keeps_reads_and_loses_nothing() {
    let disk = SmallDisk::mount(8);
    let url = format!("sqlite:{}", disk.path().join("qttt.db").display());
    let logs = tempfile::tempdir().unwrap();
    let log = logs.path().join("qttt.log");
    let server = Process::start_logging(&url, "warn", std::fs::File::create(&log).unwrap().into(), &[]);
    let filler = disk.fill_but(1 << 20);

    let acknowledged = Mutex::new(Vec::new());
    let refused = AtomicUsize::new(0);
    let started = std::time::Instant::now();
    let enough = || refused.load(Ordering::SeqCst) >= 100 || started.elapsed() > Duration::from_secs(60);
    std::thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(|| play(&server, &acknowledged, Some(&refused), &enough));
        }
    });
    let refusals = refused.load(Ordering::SeqCst);
    let before_room = acknowledged.lock().unwrap().len();
    println!("{before_room} writes acknowledged, then {refusals} refused, in {:?}", started.elapsed());
    assert!(refusals >= 100, "the disk filled: {refusals} writes refused");
    assert!(before_room > 0, "writes were acknowledged before it did");

    // Full: the probe says so from a refused write on, reads go on. (At the edge,
    // a write may fit for a moment: the load's last write need not have failed.)
    let refused_again = (0..100).any(|_| {
        let created = server.send("POST", "/api/v1/games", None, Some(json!({ "variant": "measurement" }))).unwrap();
        created.status == 503
    });
    assert!(refused_again, "the disk is still full");
    let ready = server.send("GET", "/readyz", None, None).unwrap();
    assert!(ready.assert_problem(503, "storage_full")["detail"].as_str().unwrap().contains("no room"));
    let first = acknowledged.lock().unwrap()[0].game;
    assert_eq!(server.send("GET", &format!("/api/v1/games/{first}"), None, None).unwrap().status, 200);

    // Room again: writes succeed without a restart.
    std::fs::remove_file(filler).unwrap();
    let until = before_room + 30;
    play(&server, &acknowledged, None, &|| acknowledged.lock().unwrap().len() >= until);
    assert_eq!(server.send("GET", "/readyz", None, None).unwrap().status, 200);
    let acknowledged = acknowledged.into_inner().unwrap();
    every_write_is_in(&server, &every_game(&server), &acknowledged);
    server.kill();
    let restarted = Process::start_logging(&url, "warn", std::process::Stdio::null(), &[]);
    every_write_is_in(&restarted, &every_game(&restarted), &acknowledged);

    // A line when it filled, one when it had room again: at the edge, a write may
    // fit again for a moment (once a checkpoint lets the write-ahead log start
    // over), so there may be a few of each, in turn, never one per refused write.
    let log = std::fs::read_to_string(log).unwrap();
    let changes: Vec<bool> = log
        .lines()
        .filter_map(|line| {
            if line.contains("the database is full") {
                Some(true)
            } else {
                line.contains("the database has room again").then_some(false)
            }
        })
        .collect();
    println!("{} changes of the disk's state logged", changes.len());
    let alternating: Vec<bool> = (0..changes.len()).map(|n| n % 2 == 0).collect();
    assert_eq!(changes, alternating, "full, room, full, ...: {log}");
    assert!(changes.len().is_multiple_of(2) && changes.len() <= 10, "it ended with room, in a few lines: {log}");
}

#[test]
fn a_backup_taken_during_a_load_holds_every_write_acknowledged_before_it_began_and_replays() {
    let database = TestDatabase::sqlite();
    let server = Process::start(&database);
    let backups = tempfile::tempdir().unwrap();
    let backup = backups.path().join("backup.db");
    let acknowledged = Mutex::new(Vec::new());
    let stop = std::sync::atomic::AtomicBool::new(false);
    let (before, during, backed_up) = std::thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(|| play(&server, &acknowledged, None, &|| stop.load(Ordering::SeqCst)));
        }
        let started = std::time::Instant::now();
        while acknowledged.lock().unwrap().len() < 200 && started.elapsed() < Duration::from_secs(20) {
            std::thread::sleep(Duration::from_millis(10));
        }
        let before = acknowledged.lock().unwrap().clone();
        let backed_up = std::process::Command::new(env!("CARGO_BIN_EXE_qttt"))
            .args(["backup", "--to"])
            .arg(&backup)
            .env("DATABASE_URL", database.url())
            .output()
            .unwrap();
        let during = acknowledged.lock().unwrap().len() - before.len();
        stop.store(true, Ordering::SeqCst);
        (before, during, backed_up)
    });
    let said = String::from_utf8(backed_up.stdout).unwrap();
    assert!(backed_up.status.success(), "{said} {}", String::from_utf8_lossy(&backed_up.stderr));
    println!("{said}{} writes acknowledged before the backup began, {during} while it ran", before.len());
    assert!(before.len() >= 200, "the load ran: {} writes", before.len());

    let copy = rusqlite::Connection::open(&backup).unwrap();
    assert_eq!(copy.query_row("PRAGMA integrity_check", [], |row| row.get::<_, String>(0)).unwrap(), "ok");
    let games: i64 = copy.query_row("SELECT count(*) FROM games", [], |row| row.get(0)).unwrap();
    assert!(said.starts_with(&format!("backed up {games} games (")), "{said}");
    drop(copy);
    let url = format!("sqlite:{}", backup.display());
    let restored = Process::start_logging(&url, "error", std::process::Stdio::inherit(), &[]);
    every_write_is_in(&restored, &every_game(&restored), &before);
}
