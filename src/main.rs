//! The `qttt` command: the server, and a few tools around it.

use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use rand::SeedableRng;
use rand::rngs::StdRng;

use qttt::bot::{Bot, Solver, arena};
use qttt::config::Config;
use qttt::engine::{Game, Variant, notation};
use qttt::server::Running;
use qttt::terminal::{self, Seat};
use qttt::{api, board_text};

/// mimalloc instead of the system allocator: a request allocates and frees many
/// small buffers (its view, its JSON, the rows it reads). In the load profile
/// glibc's allocator took 7% of the server's time; with mimalloc a game request
/// costs about 8% less CPU, for about 18 MiB more resident memory.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const USAGE: &str = "usage: qttt [serve | openapi | healthcheck | play [OPTIONS] | show [VARIANT] | solve [VARIANT] |
             book VARIANT FILE | arena --x LEVEL --o LEVEL [OPTIONS]]
  serve        run the server (the default); settings come from the environment:
               HOST, PORT, DATABASE_URL, CORS_ALLOWED_ORIGINS, RUST_LOG
  openapi      print the OpenAPI document
  healthcheck  exit 0 when the server on HOST:PORT answers /readyz with 200
  play         play in the terminal: --x and --o are human, random, parasite or perfect
               (default: you as X against parasite), --variant player_choice (default) or
               measurement, --transcript FILE saves the game, --seed N, --mistake-chance P
  show         read a game transcript on standard input, print its board;
               VARIANT is player_choice (the default) or measurement
  solve        read a game transcript on standard input (empty for the opening) and
               print its value with perfect play, the best action, and the search's cost
  book         solve every opening position of a variant and write the opening book,
               as in: qttt book player_choice data/book-player_choice.bin
  arena        play bots against each other from both seats and print the results;
               LEVEL is random, parasite or perfect; OPTIONS are --games N (100),
               --variant player_choice|measurement|both (both), --seed N (1),
               --mistake-chance P (0.1, for parasite)";

#[actix_web::main]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let outcome = match args[..] {
        [] | ["serve"] => serve().await,
        ["openapi"] => openapi(),
        ["healthcheck"] => healthcheck(),
        ["show"] | ["show", "player_choice"] => show(Variant::PlayerChoice),
        ["show", "measurement"] => show(Variant::Measurement),
        ["arena", ref options @ ..] => arena(options),
        ["play", ref options @ ..] => play(options),
        ["book", "player_choice", path] => book(Variant::PlayerChoice, path),
        ["book", "measurement", path] => book(Variant::Measurement, path),
        ["solve"] | ["solve", "player_choice"] => solve(Variant::PlayerChoice),
        ["solve", "measurement"] => solve(Variant::Measurement),
        _ => Err(USAGE.to_string()),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("qttt: {message}");
            ExitCode::FAILURE
        }
    }
}

/// Runs the server until SIGTERM or Ctrl-C; requests in flight finish first.
async fn serve() -> Result<(), String> {
    let config = Config::from_env()?;
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("info")).init();
    let running = Running::start(&config).await?;
    log::info!("qttt listening on http://{}:{}, docs at /docs", config.host, config.port);
    running.finish().await.map_err(|error| format!("the server stopped: {error}"))?;
    log::info!("qttt stopped");
    Ok(())
}

/// Prints the OpenAPI document, as the server serves it.
fn openapi() -> Result<(), String> {
    let document = api::openapi().to_pretty_json().map_err(|error| error.to_string())?;
    println!("{document}");
    Ok(())
}

/// Asks the server on HOST:PORT whether it is ready; for container health checks,
/// which then need no HTTP client in the image.
fn healthcheck() -> Result<(), String> {
    let config = Config::from_env()?;
    let host = match config.host.as_str() {
        "0.0.0.0" | "::" | "[::]" => "127.0.0.1",
        host => host,
    };
    let address = (host, config.port)
        .to_socket_addrs()
        .map_err(|error| error.to_string())?
        .next()
        .ok_or(format!("{host} has no address"))?;
    let timeout = Duration::from_secs(3);
    let mut stream = TcpStream::connect_timeout(&address, timeout).map_err(|error| format!("{address}: {error}"))?;
    stream.set_read_timeout(Some(timeout)).map_err(|error| error.to_string())?;
    write!(stream, "GET /readyz HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n").map_err(|e| e.to_string())?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer).map_err(|error| error.to_string())?;
    let status_line = answer.lines().next().unwrap_or_default();
    if status_line.split_whitespace().nth(1) == Some("200") { Ok(()) } else { Err(format!("not ready: {status_line}")) }
}

/// Plays two bot levels against each other from both seats, in each variant asked
/// for, and prints a line per pairing.
fn arena(options: &[&str]) -> Result<(), String> {
    let options = Options(options);
    let level = |flag: &str| match options.seat(flag, None)? {
        Seat::Bot(level) => Ok(level),
        Seat::Human => Err(format!("{flag} takes random, parasite or perfect")),
    };
    let (first, second) = (level("--x")?, level("--o")?);
    let games = options.number("--games", 100.0)? as u32;
    let variants = match options.value("--variant") {
        None | Some("both") => vec![Variant::PlayerChoice, Variant::Measurement],
        Some("player_choice") => vec![Variant::PlayerChoice],
        Some("measurement") => vec![Variant::Measurement],
        Some(other) => return Err(format!("--variant takes player_choice, measurement or both, not {other}")),
    };
    let mut rng = StdRng::seed_from_u64(options.number("--seed", 1.0)? as u64);
    println!(
        "{:<14} {:<9} {:<9} {:>6} {:>7} {:>6} {:>7} {:>6} {:>6} {:>8} {:>8}",
        "variant", "X", "O", "games", "X wins", "draws", "O wins", "X avg", "O avg", "X-O min", "X-O max"
    );
    for variant in variants {
        for (x, o) in [(first, second), (second, first)] {
            let tally = arena::play(x, o, variant, games, &mut rng);
            println!(
                "{:<14} {:<9} {:<9} {:>6} {:>7} {:>6} {:>7} {:>6.3} {:>6.3} {:>8.1} {:>8.1}",
                variant.code(),
                x.code(),
                o.code(),
                tally.games,
                tally.x_wins,
                tally.draws,
                tally.o_wins,
                tally.x_points / f64::from(tally.games),
                tally.o_points / f64::from(tally.games),
                tally.worst_for_x,
                tally.best_for_x
            );
        }
    }
    Ok(())
}

/// The `--flag value` options of a command.
struct Options<'a>(&'a [&'a str]);

impl Options<'_> {
    fn value(&self, flag: &str) -> Option<&str> {
        self.0.iter().position(|option| *option == flag).and_then(|i| self.0.get(i + 1)).copied()
    }

    fn number(&self, flag: &str, default: f64) -> Result<f64, String> {
        self.value(flag)
            .map_or(Ok(default), |text| text.parse().map_err(|_| format!("{flag} takes a number, not {text}")))
    }

    /// The seat a flag names: human, random, parasite (with --mistake-chance) or perfect.
    fn seat(&self, flag: &str, default: Option<Seat>) -> Result<Seat, String> {
        let mistake_chance = self.number("--mistake-chance", Bot::DEFAULT_MISTAKE_CHANCE)?;
        match (self.value(flag), default) {
            (Some("human"), _) => Ok(Seat::Human),
            (Some("random"), _) => Ok(Seat::Bot(Bot::Random)),
            (Some("parasite"), _) => Ok(Seat::Bot(Bot::Parasite { mistake_chance })),
            (Some("perfect"), _) => Ok(Seat::Bot(Bot::Perfect)),
            (None, Some(seat)) => Ok(seat),
            _ => Err(format!("{flag} takes human, random, parasite or perfect\n{USAGE}")),
        }
    }

    fn variant(&self) -> Result<Variant, String> {
        match self.value("--variant") {
            None | Some("player_choice") => Ok(Variant::PlayerChoice),
            Some("measurement") => Ok(Variant::Measurement),
            Some(other) => Err(format!("--variant takes player_choice or measurement, not {other}")),
        }
    }
}

/// Plays a game in the terminal.
fn play(options: &[&str]) -> Result<(), String> {
    let options = Options(options);
    let x = options.seat("--x", Some(Seat::Human))?;
    let o = options.seat("--o", Some(Seat::Bot(Bot::Parasite { mistake_chance: Bot::DEFAULT_MISTAKE_CHANCE })))?;
    let seed = match options.value("--seed") {
        Some(_) => options.number("--seed", 0.0)? as u64,
        None => rand::random(),
    };
    let mut rng = StdRng::seed_from_u64(seed);
    let (stdin, stdout) = (std::io::stdin(), std::io::stdout());
    let game = terminal::play(options.variant()?, x, o, &mut stdin.lock(), &mut stdout.lock(), &mut rng)
        .map_err(|error| format!("the terminal failed: {error}"))?;
    if let Some(path) = options.value("--transcript") {
        std::fs::write(path, notation::write(&game) + "\n").map_err(|error| format!("cannot write {path}: {error}"))?;
        println!("The transcript is in {path}.");
    }
    Ok(())
}

/// Writes the opening book of `variant` to `path`, reporting progress.
fn book(variant: Variant, path: &str) -> Result<(), String> {
    let started = Instant::now();
    let bytes = qttt::bot::book::build(variant, |done, total| {
        if done % 100 == 0 || done == total {
            eprintln!("{done}/{total} positions solved, {:.0} s", started.elapsed().as_secs_f64());
        }
    });
    std::fs::write(path, &bytes).map_err(|error| format!("cannot write {path}: {error}"))?;
    eprintln!("wrote {path}: {} bytes in {:.0} s", bytes.len(), started.elapsed().as_secs_f64());
    Ok(())
}

/// Prints what perfect play makes of the position whose transcript is on
/// standard input: its value, the best action, and what the search cost.
fn solve(variant: Variant) -> Result<(), String> {
    let game = read_game(variant)?;
    let mut solver = Solver::default();
    let started = Instant::now();
    if game.actor_to_act().is_none() {
        return Err("the game is over: there is nothing to solve".into());
    }
    let solution = solver.solve(&game);
    println!(
        "value {} (X minus O{}), best action {:?}; {} positions searched, {} remembered, in {:.3} s",
        solution.value.points,
        if variant == Variant::Measurement { ", expected" } else { "" },
        solution.action,
        solver.nodes,
        solver.remembered(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// The game whose transcript is on standard input.
fn read_game(variant: Variant) -> Result<Game, String> {
    let mut text = String::new();
    std::io::stdin().read_to_string(&mut text).map_err(|e| format!("cannot read standard input: {e}"))?;
    let log = notation::parse(&text, variant).map_err(|e| e.to_string())?;
    Game::replay(variant, &log).map_err(|e| e.to_string())
}

/// Prints the board and status of the game whose transcript is on standard input.
fn show(variant: Variant) -> Result<(), String> {
    let game = read_game(variant)?;
    print!("{}", board_text::board(&game));
    println!("{}", board_text::status(&game));
    Ok(())
}
