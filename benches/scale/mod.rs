//! `--scale GAMES`: how each request's cost grows with the games a database
//! keeps.
//!
//! It plays [`TEMPLATES`] games of the shapes a live server keeps over HTTP:
//! logs of 5 to 12 entries, ended by lines, a collapse or a resignation, some
//! timed, some private, some rematches, and some still waiting or going on
//! (with clocks of days, so that none runs out during the run). Then it copies
//! them with new ids, through the store's own copy (`Store::copy_game`, the
//! rows `qttt copy` writes), until a database holds GAMES finished games and a
//! hundredth as many waiting and ongoing ones, spread over the ids. It serves
//! that database and an empty one in turn, `--rounds` times each for
//! `--seconds`, and one client plays `player_choice` games by the script,
//! creates a game it leaves waiting (so that the empty database's lobby fills
//! too), and reads a game, its log, the lobby and its later pages, and the
//! finished games. It prints each request kind's p50 and p99 on both, the time from the
//! process's start to `/readyz` answering 200, and the database's bytes per
//! game. On SQLite; with `--postgres URL`, on PostgreSQL. `QTTT_SCALE_KEEP=1`
//! keeps the databases, to look into them afterwards.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use qttt::record::{Event, GameId, StoredGame};
use qttt::store::{PoolSettings, SqliteSettings, Store};
use serde_json::{Value, json};

use super::postgres::PostgresDatabase;
use super::stats::percentile;
use super::{Client, GameBodies, Phase, Server, Tally, millis, play_game};

/// The games played over HTTP, to be copied.
const TEMPLATES: usize = 200;

/// The copies written at once: enough that the SQLite writer commits many
/// together, and that PostgreSQL's connections are all busy.
const COPIES_AT_ONCE: usize = 16;

/// A day: no waiting game is aborted, and no clock runs out, while the run lasts.
const A_DAY_MS: i64 = 86_400_000;

/// The request kinds in the order of the table.
const KINDS: [&str; 11] = [
    "create",
    "join",
    "move",
    "collapse",
    "view",
    "log",
    "lobby",
    "lobby page 2",
    "lobby deep",
    "finished",
    "finished page 2",
];

/// Fills a database with `games` finished games and measures it against an
/// empty one; on PostgreSQL with `maintenance_url`, else on SQLite.
pub fn run(games: usize, seconds: u64, rounds: usize, maintenance_url: Option<&str>) {
    let keep = std::env::var_os("QTTT_SCALE_KEEP").is_some();
    let mut folder = tempfile::Builder::new().prefix("qttt-scale-").tempdir().unwrap();
    if keep {
        folder.disable_cleanup(true);
        println!("the SQLite files are kept in {}", folder.path().display());
    }
    let templates = templates(&folder.path().join("templates.db"));
    let pid = std::process::id();
    let databases = match maintenance_url {
        None => Databases::Sqlite(
            ["empty", "filled"].map(|name| format!("sqlite:{}", folder.path().join(format!("{name}.db")).display())),
        ),
        Some(url) => Databases::Postgres(
            ["empty", "filled"].map(|name| PostgresDatabase::create(url, format!("qttt_scale_{name}_{pid}"))),
        ),
    };
    let [empty_url, filled_url] = databases.urls();
    if keep {
        println!("the databases are kept: {empty_url}, {filled_url}");
    }
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    runtime.block_on(async {
        // Migrated, as the server would.
        open(&empty_url).await.close().await;
    });
    let started = Instant::now();
    let filled = runtime.block_on(fill(&filled_url, &templates, games));
    println!(
        "filled: {} finished and {} waiting or ongoing games in {:.0} s ({:.0} games/s)",
        filled.finished,
        filled.unfinished,
        started.elapsed().as_secs_f64(),
        (filled.finished + filled.unfinished) as f64 / started.elapsed().as_secs_f64()
    );
    let bytes = [&empty_url, &filled_url].map(|url| runtime.block_on(databases.bytes(url)));
    println!(
        "database: {:.1} MiB empty, {:.1} MiB filled: {:.0} bytes a game",
        bytes[0] as f64 / 1048576.0,
        bytes[1] as f64 / 1048576.0,
        (bytes[1] - bytes[0]) as f64 / (filled.finished + filled.unfinished) as f64
    );
    let bodies = GameBodies::of("player_choice");
    let mut measured: [Option<Measured>; 2] = [None, None];
    for round in 0..rounds {
        for (index, (url, ids)) in [(&empty_url, None), (&filled_url, Some(&filled))].into_iter().enumerate() {
            let name = format!("{}-{round}", ["empty", "filled"][index]);
            let settings = [("WAITING_GAME_TIMEOUT_SECONDS", "86400")];
            let server = Server::qttt_with(&name, Some(url), &settings);
            let played = AtomicUsize::new(0);
            let phase = Phase::run(&[&server], 1, seconds, usize::MAX, |client, tally| {
                play_game(client, tally, &bodies)?;
                // Left waiting: the empty database's lobby fills too.
                tally.timed("create", || client.send("POST", "/api/v1/games", None, Some(&bodies.create)))?;
                let own = played.fetch_add(1, Ordering::Relaxed) + 1;
                read(client, tally, ids.map_or_else(|| own_game(own), Filled::any_game), ids)
            });
            let this = Measured { phase, ready_in: vec![server.ready_in] };
            measured[index] = Some(match measured[index].take() {
                Some(before) => before.and(this),
                None => this,
            });
        }
    }
    let [Some(empty), Some(filled_run)] = measured else { return };
    print_table(&empty, &filled_run, filled.finished);
    if keep {
        std::mem::forget(databases);
    }
}

/// A game this client played: the `nth` of an empty database's, each followed
/// by one left waiting.
fn own_game(nth: usize) -> i64 {
    i64::try_from(nth * 2 - 1).unwrap()
}

/// Reads game `id`, its log, the lobby and its next page, a page of the lobby
/// from half-way down the ids, and the second page of the finished games.
fn read(client: &mut Client, tally: &mut Tally, id: i64, filled: Option<&Filled>) -> Option<()> {
    tally.timed("view", || client.send("GET", &format!("/api/v1/games/{id}"), None, None))?;
    tally.timed("log", || client.send("GET", &format!("/api/v1/games/{id}/log"), None, None))?;
    let lobby = "/api/v1/games?status=waiting";
    let first = tally.timed("lobby", || client.send("GET", lobby, None, None))?;
    let cursor = next_cursor(first).unwrap_or_else(|| "1".into());
    tally.timed("lobby page 2", || client.send("GET", &format!("{lobby}&cursor={cursor}"), None, None))?;
    let half_way = filled.map_or(id, |filled| filled.highest / 2).max(1);
    tally.timed("lobby deep", || client.send("GET", &format!("{lobby}&cursor={half_way}"), None, None))?;
    let finished = "/api/v1/games?status=finished";
    let cursor = next_cursor(tally.timed("finished", || client.send("GET", finished, None, None))?);
    let cursor = cursor.unwrap_or_else(|| "1".into());
    tally.timed("finished page 2", || client.send("GET", &format!("{finished}&cursor={cursor}"), None, None))?;
    Some(())
}

fn next_cursor(page: &[u8]) -> Option<String> {
    serde_json::from_slice::<Value>(page).ok()?["next_cursor"].as_str().map(String::from)
}

/// What the runs on one database measured together.
struct Measured {
    phase: Phase,
    /// From each start of the process to `/readyz` answering 200.
    ready_in: Vec<Duration>,
}

impl Measured {
    fn and(mut self, later: Measured) -> Measured {
        self.phase = self.phase.and(later.phase);
        self.ready_in.extend(later.ready_in);
        self
    }
}

fn print_table(empty: &Measured, filled: &Measured, games: usize) {
    println!("\n| request | empty p50 ms | empty p99 ms | {games} games p50 ms | {games} games p99 ms | p99 ratio |");
    println!("|---|---|---|---|---|---|");
    let quantiles = |measured: &Measured, kind: &str| {
        let sorted = measured.phase.sorted_latencies(&[kind]);
        (!sorted.is_empty()).then(|| (percentile(&sorted, 0.5), percentile(&sorted, 0.99)))
    };
    for kind in KINDS {
        let (Some(empty), Some(filled)) = (quantiles(empty, kind), quantiles(filled, kind)) else { continue };
        println!(
            "| {kind} | {} | {} | {} | {} | {:.2} |",
            millis(empty.0),
            millis(empty.1),
            millis(filled.0),
            millis(filled.1),
            filled.1.as_secs_f64() / empty.1.as_secs_f64()
        );
    }
    let starts = |measured: &Measured| {
        measured.ready_in.iter().map(|ready| format!("{:.0}", ready.as_secs_f64() * 1e3)).collect::<Vec<_>>().join(", ")
    };
    println!("\nstart-up to /readyz 200, ms: empty {}; {games} games {}", starts(empty), starts(filled));
    println!("errors: empty {:?}, filled {:?}", empty.phase.tally.errors, filled.phase.tally.errors);
}

/// The two databases of a run: an empty one and the one filled.
enum Databases {
    Sqlite([String; 2]),
    Postgres([PostgresDatabase; 2]),
}

impl Databases {
    fn urls(&self) -> [String; 2] {
        match self {
            Databases::Sqlite(urls) => urls.clone(),
            Databases::Postgres(databases) => [databases[0].url(), databases[1].url()],
        }
    }

    /// The bytes the database at `url` takes: the file, or PostgreSQL's size.
    async fn bytes(&self, url: &str) -> u64 {
        match self {
            Databases::Sqlite(_) => std::fs::metadata(url.trim_start_matches("sqlite:")).unwrap().len(),
            Databases::Postgres(_) => {
                use sqlx::Connection;
                let mut connection = sqlx::PgConnection::connect(url).await.unwrap();
                let size: i64 = sqlx::query_scalar("SELECT pg_database_size(current_database())")
                    .fetch_one(&mut connection)
                    .await
                    .unwrap();
                connection.close().await.unwrap();
                u64::try_from(size).unwrap()
            }
        }
    }
}

async fn open(url: &str) -> Store {
    Store::connect(url, SqliteSettings::default(), PoolSettings::default()).await.expect("the database opens")
}

/// The template games, read back from their database, in the order of their ids.
struct Templates {
    finished: Vec<StoredGame>,
    unfinished: Vec<StoredGame>,
    /// The highest template id: the copies of round r take ids r times it higher.
    highest: i64,
}

/// What a database was filled with.
struct Filled {
    finished: usize,
    unfinished: usize,
    /// The ids of the finished public templates, and the rounds copied.
    finished_ids: Vec<i64>,
    rounds: i64,
    stride: i64,
    /// The highest id written.
    highest: i64,
}

impl Filled {
    /// A finished game of the copies, taken at random.
    fn any_game(&self) -> i64 {
        let round = rand::random_range(0..self.rounds);
        self.finished_ids[rand::random_range(0..self.finished_ids.len())] + round * self.stride
    }
}

/// Copies `templates` into the database at `url`, round after round with new
/// ids, until it holds `games` finished games; the unfinished templates go in
/// every so many rounds, to a hundredth as many.
async fn fill(url: &str, templates: &Templates, games: usize) -> Filled {
    let store = open(url).await;
    let rounds = games.div_ceil(templates.finished.len());
    let unfinished_rounds = (games / 100).div_ceil(templates.unfinished.len()).max(1);
    let every = (rounds / unfinished_rounds).max(1);
    let next = Arc::new(AtomicUsize::new(0));
    let templates = Arc::new((templates.finished.clone(), templates.unfinished.clone(), templates.highest));
    let copiers: Vec<_> = (0..COPIES_AT_ONCE)
        .map(|_| {
            let (store, next, templates) = (store.clone(), next.clone(), templates.clone());
            tokio::spawn(async move {
                let (finished, unfinished, stride) = &*templates;
                let mut copied = (0, 0);
                loop {
                    let round = next.fetch_add(1, Ordering::Relaxed);
                    if round >= rounds {
                        return copied;
                    }
                    let with_unfinished = round % every == 0 && round / every < unfinished_rounds;
                    let mut games: Vec<&StoredGame> = finished.iter().collect();
                    if with_unfinished {
                        games.extend(unfinished);
                        games.sort_by_key(|game| game.id);
                    }
                    let by = i64::try_from(round).unwrap() * stride;
                    for game in games {
                        copy(&store, game, games_first(finished, game), by).await;
                    }
                    copied.0 += finished.len();
                    copied.1 += if with_unfinished { unfinished.len() } else { 0 };
                    if round % 500 == 0 {
                        println!("  round {round} of {rounds} copied");
                    }
                }
            })
        })
        .collect();
    let (mut finished, mut unfinished) = (0, 0);
    for copier in copiers {
        let (f, u) = copier.await.unwrap();
        finished += f;
        unfinished += u;
    }
    store.close().await;
    let rounds = i64::try_from(rounds).unwrap();
    Filled {
        finished,
        unfinished,
        // A private game is read with its invite: the reads take the others.
        finished_ids: templates.0.iter().filter(|game| game.invite_hash.is_none()).map(|game| game.id.get()).collect(),
        rounds,
        stride: templates.2,
        highest: rounds * templates.2,
    }
}

/// The game `game` is the rematch of, among the finished templates.
fn games_first<'a>(finished: &'a [StoredGame], game: &StoredGame) -> Option<&'a StoredGame> {
    game.rematch_of.and_then(|first| finished.iter().find(|other| other.id == first))
}

/// Copies `game` (the rematch of `first`, if it is one) with every id in it `by` higher.
async fn copy(store: &Store, game: &StoredGame, first: Option<&StoredGame>, by: i64) {
    let (game, rematch) = qttt::service::as_copied(moved(game, by), first.map(|first| moved(first, by)).as_ref());
    assert!(store.copy_game(game, rematch).await.expect("the copy is written"), "a copy's id was free");
}

/// `game` with its id and the ids it names `by` higher.
fn moved(game: &StoredGame, by: i64) -> StoredGame {
    let higher = |id: GameId| GameId::new(id.get() + by);
    let mut game = game.clone();
    game.id = higher(game.id);
    game.rematch_of = game.rematch_of.map(higher);
    for entry in &mut game.log {
        if let Event::Rematch { game_id, .. } = &mut entry.event {
            *game_id = higher(*game_id);
        }
    }
    game
}

/// Plays [`TEMPLATES`] games on a server of their own on `database`, and reads
/// them back.
fn templates(database: &Path) -> Templates {
    let url = format!("sqlite:{}", database.display());
    {
        let server = Server::qttt("templates", Some(&url));
        let mut client = Client::connect(server.address);
        for index in 0..TEMPLATES {
            play_template(&mut client, index);
        }
    }
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let store = open(&url).await;
        let ids = store.game_ids(GameId::new(0), u32::MAX).await.unwrap();
        let mut templates = Templates { finished: Vec::new(), unfinished: Vec::new(), highest: 0 };
        for id in ids {
            let game = store.load_game(id).await.unwrap();
            templates.highest = templates.highest.max(id.get());
            if game.summary.ended_at.is_some() {
                templates.finished.push(game);
            } else {
                templates.unfinished.push(game);
            }
        }
        store.close().await;
        let entries: Vec<usize> = templates.finished.iter().map(|game| game.log.len()).collect();
        println!(
            "templates: {} finished ({} to {} entries), {} waiting or ongoing",
            templates.finished.len(),
            entries.iter().min().unwrap(),
            entries.iter().max().unwrap(),
            templates.unfinished.len()
        );
        templates
    })
}

/// One seat of a template game.
struct Seat {
    token: String,
    player: String,
}

/// Sends a request that must succeed, and answers its body.
fn call(client: &mut Client, method: &str, path: &str, token: Option<&str>, body: Option<Value>) -> Value {
    let body = body.map(|body| body.to_string());
    let (status, answer) = client.send(method, path, token, body.as_deref());
    assert!(status < 300, "{method} {path}: {status} {}", String::from_utf8_lossy(answer));
    serde_json::from_slice(answer).unwrap()
}

fn seat(answer: &Value) -> Seat {
    Seat {
        token: answer["seat"]["token"].as_str().unwrap().into(),
        player: answer["seat"]["player"].as_str().unwrap().into(),
    }
}

/// Template game `index`: the variants alternate; one in ten waits for its
/// second player and one in ten goes on; one in four of the rest is timed, one
/// in five private, one in six followed by a rematch that is played too; they
/// end by the script's last collapse or by a resignation after 2 to 8 moves.
fn play_template(client: &mut Client, index: usize) {
    let variant = ["player_choice", "measurement"][index % 2];
    let mut create = json!({ "variant": variant });
    if index % 4 == 1 || index % 10 == 9 {
        create["clock"] = json!({ "initial_ms": A_DAY_MS, "increment_ms": 2000 });
    }
    if index % 5 == 2 {
        create["private"] = json!(true);
    }
    let created = call(client, "POST", "/api/v1/games", None, Some(create));
    if index % 10 == 8 {
        return;
    }
    let id = created["game"]["id"].as_i64().unwrap();
    let join = created.get("invite").map(|invite| json!({ "invite": invite }));
    let joined = call(client, "POST", &format!("/api/v1/games/{id}/join"), None, join);
    let (x, o) = (seat(&created), seat(&joined));
    if index % 10 == 9 {
        return play(client, id, variant, [&x, &o], Ending::GoesOnAfter(index % 6 + 1));
    }
    let ending = if index.is_multiple_of(3) { Ending::Script } else { Ending::ResignAfter(index % 7 + 2) };
    play(client, id, variant, [&x, &o], ending);
    if index % 6 == 3 {
        let first = call(client, "POST", &format!("/api/v1/games/{id}/rematch"), Some(&x.token), None);
        let second = call(client, "POST", &format!("/api/v1/games/{id}/rematch"), Some(&o.token), None);
        let rematch = first["game"]["id"].as_i64().unwrap();
        let (first, second) = (seat(&first), seat(&second));
        let seats = if first.player == "X" { [&first, &second] } else { [&second, &first] };
        play(client, rematch, variant, seats, Ending::ResignAfter(index % 5 + 2));
    }
}

/// How a template game ends.
#[derive(Clone, Copy)]
enum Ending {
    /// With the script's last move and its collapse.
    Script,
    /// With a resignation after this many moves, 2 to 8: the ninth closes
    /// the last cycle, whose measurement ends the game.
    ResignAfter(usize),
    /// Not: it goes on after this many moves.
    GoesOnAfter(usize),
}

/// Plays the script in game `id`, seats X and O, to `ending`.
fn play(client: &mut Client, id: i64, variant: &str, seats: [&Seat; 2], ending: Ending) {
    let moves = match ending {
        Ending::Script => 9,
        Ending::ResignAfter(moves) | Ending::GoesOnAfter(moves) => moves,
    };
    for (number, squares) in super::script::SCRIPT.iter().take(moves).enumerate() {
        let token = &seats[number % 2].token;
        call(client, "POST", &format!("/api/v1/games/{id}/moves"), Some(token), Some(json!({ "squares": squares })));
    }
    match ending {
        Ending::Script if variant == "player_choice" => {
            let body = super::script::collapse_body();
            call(client, "POST", &format!("/api/v1/games/{id}/collapse"), Some(&seats[1].token), Some(body));
        }
        Ending::Script | Ending::GoesOnAfter(_) => {}
        Ending::ResignAfter(_) => {
            let resigning = &seats[moves % 2].token;
            call(client, "POST", &format!("/api/v1/games/{id}/resign"), Some(resigning), None);
        }
    }
}
