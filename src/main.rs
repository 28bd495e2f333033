//! The `qttt` command: the server, and a few tools around it.

use std::collections::HashSet;
use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::{Args, Parser, Subcommand, ValueEnum};
use rand::SeedableRng;
use rand::rngs::StdRng;

use qttt::bot::{Analysis, Bot, Solver, arena, puzzle};
use qttt::config::{Config, ConfigError, Settings};
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

/// Has mimalloc give memory back to the system as soon as it is free. By
/// default it waits a second, and then for the thread that freed it to allocate
/// 10,000 times more: an idle worker kept the buffers of 2,000 closed
/// connections' heads, 60-90 MB, for 30 s and more.
#[allow(unsafe_code)]
fn give_freed_memory_back_at_once() {
    use std::ffi::{c_int, c_long};
    // `mi_option_purge_delay` in the mimalloc.h (v3) that libmimalloc-sys builds.
    const PURGE_DELAY: c_int = 15;
    unsafe extern "C" {
        fn mi_option_set(option: c_int, value: c_long);
    }
    // SAFETY: mimalloc's own setter of one of its integer options, an atomic
    // store; the library is linked in as the global allocator.
    unsafe { mi_option_set(PURGE_DELAY, 0) }
}

/// A game server for Quantum Tic-Tac-Toe, and tools around it.
#[derive(Debug, Parser)]
#[command(name = "qttt", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run the server (the default). Each setting is a flag or its environment
    /// variable; docs/OPERATIONS.md says more of each.
    Serve(Settings),
    /// Print the OpenAPI document, as the server serves it.
    Openapi,
    /// Exit 0 when the server on HOST:PORT answers /readyz with 200 (for
    /// container health checks, which then need no HTTP client).
    Healthcheck(Settings),
    /// Play a game in the terminal.
    Play(PlayArgs),
    /// Read a game transcript on standard input and print its board.
    Show {
        /// The game's collapse rule.
        #[arg(value_enum, default_value_t = VariantArg::PlayerChoice)]
        variant: VariantArg,
    },
    /// Read a game transcript on standard input (empty for the opening) and print
    /// its value with perfect play, the best action, and the search's cost.
    Solve {
        /// The game's collapse rule.
        #[arg(value_enum, default_value_t = VariantArg::PlayerChoice)]
        variant: VariantArg,
    },
    /// Read a game transcript on standard input and judge every action of a
    /// player by perfect play: what the position was worth before and after,
    /// a best action, and how much the action gave away.
    Analyse {
        /// The game's collapse rule.
        #[arg(value_enum, default_value_t = VariantArg::PlayerChoice)]
        variant: VariantArg,
    },
    /// Solve every opening position of a variant and write the opening book, as
    /// in `qttt book player_choice data/book-player_choice.bin`.
    Book {
        /// The collapse rule whose book to build.
        #[arg(value_enum)]
        variant: VariantArg,
        /// Where to write it.
        file: PathBuf,
    },
    /// Play two bots against each other from both seats and print the results.
    Arena(ArenaArgs),
    /// Make puzzles with the perfect player.
    #[command(subcommand)]
    Puzzles(PuzzlesCommand),
    /// Copy every game of one database into a PostgreSQL database, with its
    /// ids, seats and log, so that the games go on there; then check that each
    /// reads back as it was and replays.
    Copy(CopyArgs),
    /// Play the bots against each other in rated games, in the database that
    /// DATABASE_URL names, so that their ratings settle; then print them.
    Ladder(LadderArgs),
    /// Derive every player's ratings again from the rated games, in the order
    /// they were rated, and compare them with those stored (`check`: exit 1
    /// on any difference), or write them over those stored (`rebuild`).
    Ratings {
        /// What to do.
        #[arg(value_enum)]
        action: RatingsAction,
        #[command(flatten)]
        settings: Settings,
    },
    /// Back up the SQLite database that DATABASE_URL names into a new file, while
    /// a server may go on writing to it; then check the copy: SQLite's integrity
    /// check, and every game replays.
    Backup {
        /// The new file to write the backup into.
        #[arg(long, value_name = "FILE")]
        to: PathBuf,
        #[command(flatten)]
        settings: Settings,
    },
}

#[derive(Debug, Args)]
struct CopyArgs {
    /// The database to copy from, as DATABASE_URL names it (`sqlite:qttt.db`).
    #[arg(long, value_name = "URL")]
    from: String,
    /// The PostgreSQL database to copy into (`postgres://...`), migrated first.
    #[arg(long, value_name = "URL")]
    to: String,
    /// Copy into a target that holds games already, leaving those it has: to
    /// finish a copy that was interrupted.
    #[arg(long)]
    skip_existing: bool,
}

#[derive(Debug, Subcommand)]
enum PuzzlesCommand {
    /// Play the bots against each other and print, a line each, the first N
    /// positions of theirs where one action is worth at least half a point more
    /// than every other (data/puzzles-player_choice.txt is made so); with
    /// --store, add them to the database too.
    Generate {
        /// How many puzzles, 1 or more.
        #[arg(long, value_name = "N", allow_negative_numbers = true,
            value_parser = clap::value_parser!(u64).range(1..))]
        count: u64,
        /// The collapse rule.
        #[arg(long, value_enum)]
        variant: VariantArg,
        /// Seeds the bots' random actions and the measurements.
        #[arg(long, value_name = "N", default_value_t = 1, allow_negative_numbers = true)]
        seed: u64,
        /// Look first in the finished games of the database that DATABASE_URL
        /// names, oldest first; the bots' games make up the rest.
        #[arg(long)]
        from_database: bool,
        /// Add them to the database that DATABASE_URL names as well, where
        /// the server serves them; a position it has already, up to symmetry,
        /// is kept once.
        #[arg(long)]
        store: bool,
        #[command(flatten)]
        settings: Settings,
    },
}

#[derive(Debug, Args)]
struct LadderArgs {
    /// Games for each pair of bots in each variant, 1 or more; each bot plays
    /// X in half of them.
    #[arg(long, value_name = "N", default_value_t = 100, allow_negative_numbers = true,
        value_parser = clap::value_parser!(u32).range(1..))]
    games: u32,
    /// Seeds the choices of the bot that holds a seat (RANDOM_SEED seeds the
    /// other's).
    #[arg(long, value_name = "N", default_value_t = 1, allow_negative_numbers = true)]
    seed: u64,
    #[command(flatten)]
    settings: Settings,
}

#[derive(Debug, Args)]
struct PlayArgs {
    /// Who plays X.
    #[arg(long, value_enum, value_name = "PLAYER", default_value_t = SeatArg::Human)]
    x: SeatArg,
    /// Who plays O.
    #[arg(long, value_enum, value_name = "PLAYER", default_value_t = SeatArg::Parasite)]
    o: SeatArg,
    /// The collapse rule.
    #[arg(long, value_enum, default_value_t = VariantArg::PlayerChoice)]
    variant: VariantArg,
    /// Save the game's transcript in this file.
    #[arg(long, value_name = "FILE")]
    transcript: Option<PathBuf>,
    /// Seeds the bots and the measurements (default: a random seed).
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    seed: Option<u64>,
    /// The parasite bot's probability of a random move, 0-1.
    #[arg(long, value_name = "P", default_value_t = Bot::DEFAULT_MISTAKE_CHANCE, allow_negative_numbers = true,
        value_parser = chance)]
    mistake_chance: f64,
}

#[derive(Debug, Args)]
struct ArenaArgs {
    /// The bot that plays X in the first pairing and O in the second.
    #[arg(long, value_enum, value_name = "BOT")]
    x: BotArg,
    /// The bot that plays O in the first pairing and X in the second.
    #[arg(long, value_enum, value_name = "BOT")]
    o: BotArg,
    /// Games per pairing and variant, 1 or more.
    #[arg(long, value_name = "N", default_value_t = 100, allow_negative_numbers = true,
        value_parser = clap::value_parser!(u32).range(1..))]
    games: u32,
    /// The collapse rules to play.
    #[arg(long, value_enum, default_value_t = ArenaVariant::Both)]
    variant: ArenaVariant,
    /// Seeds the bots and the measurements.
    #[arg(long, value_name = "N", default_value_t = 1, allow_negative_numbers = true)]
    seed: u64,
    /// The parasite bot's probability of a random move, 0-1.
    #[arg(long, value_name = "P", default_value_t = Bot::DEFAULT_MISTAKE_CHANCE, allow_negative_numbers = true,
        value_parser = chance)]
    mistake_chance: f64,
}

/// What `qttt ratings` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum RatingsAction {
    /// Report every difference between the ratings stored and those derived.
    Check,
    /// Write the ratings derived over those stored, and report how they differed.
    Rebuild,
}

/// A collapse rule, as the command line names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum VariantArg {
    /// Goff's rule: the player who did not close the cycle chooses.
    #[value(name = "player_choice")]
    PlayerChoice,
    /// A simulated quantum measurement decides.
    Measurement,
}

impl From<VariantArg> for Variant {
    fn from(variant: VariantArg) -> Variant {
        match variant {
            VariantArg::PlayerChoice => Variant::PlayerChoice,
            VariantArg::Measurement => Variant::Measurement,
        }
    }
}

/// The collapse rules an arena plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ArenaVariant {
    /// Goff's rule alone.
    #[value(name = "player_choice")]
    PlayerChoice,
    /// The measurement alone.
    Measurement,
    /// Both, one after the other.
    Both,
}

/// A bot, as the command line names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum BotArg {
    /// Any legal action, at random.
    Random,
    /// The original app's heuristic.
    Parasite,
    /// Exact search.
    Perfect,
}

impl BotArg {
    fn bot(self, mistake_chance: f64) -> Bot {
        match self {
            BotArg::Random => Bot::Random,
            BotArg::Parasite => Bot::Parasite { mistake_chance },
            BotArg::Perfect => Bot::Perfect,
        }
    }
}

/// Who plays a seat in the terminal, as the command line names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum SeatArg {
    /// Someone at the keyboard.
    Human,
    /// Any legal action, at random.
    Random,
    /// The original app's heuristic.
    Parasite,
    /// Exact search.
    Perfect,
}

impl SeatArg {
    fn seat(self, mistake_chance: f64) -> Seat {
        let bot = match self {
            SeatArg::Human => return Seat::Human,
            SeatArg::Random => BotArg::Random,
            SeatArg::Parasite => BotArg::Parasite,
            SeatArg::Perfect => BotArg::Perfect,
        };
        Seat::Bot(bot.bot(mistake_chance))
    }
}

/// A probability from 0 to 1.
fn chance(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(chance) if (0.0..=1.0).contains(&chance) => Ok(chance),
        _ => Err(format!("{text:?} is no probability from 0 to 1")),
    }
}

#[actix_web::main]
async fn main() -> ExitCode {
    give_freed_memory_back_at_once();
    let outcome = match command_line() {
        Ok(command) => run(command).await,
        Err(refused) => Err(refused.to_string()),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("qttt: {message}");
            ExitCode::FAILURE
        }
    }
}

/// Does what `command` asks.
async fn run(command: Command) -> Result<(), String> {
    match command {
        Command::Serve(settings) => serve(settings).await,
        Command::Openapi => openapi(),
        Command::Healthcheck(settings) => healthcheck(settings),
        Command::Play(options) => play(&options),
        Command::Show { variant } => show(variant.into()),
        Command::Solve { variant } => solve(variant.into()),
        Command::Analyse { variant } => analyse(variant.into()),
        Command::Book { variant, file } => book(variant.into(), &file),
        Command::Puzzles(PuzzlesCommand::Generate { count, variant, seed, from_database, store, settings }) => {
            generate_puzzles(variant.into(), count, seed, from_database, store, settings).await
        }
        Command::Arena(options) => arena(&options),
        Command::Copy(options) => copy(&options).await,
        Command::Ladder(options) => ladder(options).await,
        Command::Ratings { action, settings } => ratings(action, settings).await,
        Command::Backup { to, settings } => backup(&to, settings).await,
    }
}

/// The command the command line asks for, `serve` when it names none. A
/// setting's value refused is said in one line; any other mistake, and a request
/// for help, clap says and exits.
fn command_line() -> Result<Command, ConfigError> {
    let mut args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if args.len() == 1 {
        args.push("serve".into());
    }
    match Cli::try_parse_from(args) {
        Ok(cli) => Ok(cli.command),
        Err(error) => Err(ConfigError::of(&error).unwrap_or_else(|| error.exit())),
    }
}

/// Runs the server until SIGTERM or Ctrl-C; requests in flight finish first.
async fn serve(settings: Settings) -> Result<(), String> {
    let config = Config::try_from(settings).map_err(|error| error.to_string())?;
    qttt::logging::init(config.log_format);
    let running = Running::start(&config).await.map_err(|error| error.to_string())?;
    log::info!("qttt listening on http://{}:{}, docs at /docs", config.host, config.port);
    running.finish().await.map_err(|error| format!("the server stopped: {error}"))?;
    log::info!("qttt stopped");
    Ok(())
}

/// Copies the games of one database into another, printing its progress on
/// standard error and what it copied on standard output.
async fn copy(options: &CopyArgs) -> Result<(), String> {
    use qttt::store::{PoolSettings, SqliteSettings, Store, database_name, is_postgres, sqlite_file};
    if !is_postgres(&options.to) {
        return Err("--to must name a PostgreSQL database (postgres://...)".into());
    }
    // Opening a SQLite file that is not there would make an empty one.
    if let Some(file) = sqlite_file(&options.from).filter(|file| !file.exists()) {
        return Err(format!("there is no SQLite file {}", file.display()));
    }
    let open = |url: String| async move {
        Store::connect(&url, SqliteSettings::default(), PoolSettings::default())
            .await
            .map_err(|error| format!("cannot open the {}: {error}", database_name(&url)))
    };
    let (from, to) = (open(options.from.clone()).await?, open(options.to.clone()).await?);
    let started = Instant::now();
    let mut said_at = Instant::now();
    let copied = qttt::service::copy_games(&from, &to, options.skip_existing, |done, all| {
        if done == all || said_at.elapsed() >= Duration::from_secs(1) {
            eprintln!("{done}/{all} games");
            said_at = Instant::now();
        }
    })
    .await
    .map_err(said)?;
    println!(
        "copied {} games ({} log entries) and {} rows of players, challenges, seeks, events, ratings and puzzles in {:.1} s, skipped \
         {} games the target had; every copied game reads back as it was and replays",
        copied.games,
        copied.entries,
        copied.rows,
        started.elapsed().as_secs_f64(),
        copied.skipped
    );
    Ok(())
}

/// Backs up the database of DATABASE_URL into `to` and checks the copy, printing
/// what it holds.
async fn backup(to: &std::path::Path, settings: Settings) -> Result<(), String> {
    use qttt::store::{PoolSettings, SqliteSettings, Store};
    let config = Config::try_from(settings).map_err(|error| error.to_string())?;
    let started = Instant::now();
    let bytes = qttt::store::back_up(&config.database_url, to).await.map_err(|error| error.to_string())?;
    let copy = Store::connect(&format!("sqlite:{}", to.display()), SqliteSettings::default(), PoolSettings::default())
        .await
        .map_err(|error| format!("cannot open the backup {}: {error}", to.display()))?;
    let checked = qttt::service::check_games(&copy).await.map_err(|error| format!("the backup is not good: {error}"));
    copy.close().await;
    let checked = checked?;
    println!(
        "backed up {} games ({} log entries, {bytes} bytes) into {} in {:.1} s; the copy passes SQLite's integrity \
         check and every game in it replays",
        checked.games,
        checked.entries,
        to.display(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Plays the bots' rated games against each other, round after round: in
/// each, every pair of bots plays once in each variant, the colours turning
/// with the rounds. Prints where their ratings are at the end, and where they
/// settled.
async fn ladder(options: LadderArgs) -> Result<(), String> {
    use qttt::engine::Player;
    use qttt::service::{GameService, LADDER_BOTS};
    let config = Config::try_from(options.settings).map_err(|error| error.to_string())?;
    let store = qttt::server::open_store(&config).await.map_err(|error| error.to_string())?;
    let service = GameService::new(store.clone(), qttt::server::service_options(&config));
    let mut rng = StdRng::seed_from_u64(options.seed);
    let started = Instant::now();
    let pairs = [(LADDER_BOTS[0], LADDER_BOTS[1]), (LADDER_BOTS[0], LADDER_BOTS[2]), (LADDER_BOTS[1], LADDER_BOTS[2])];
    for round in 0..options.games {
        for variant in Variant::ALL {
            for (one, other) in pairs {
                let (seated, opponent) = if round % 2 == 0 { (one, other) } else { (other, one) };
                let seat = if round % 4 < 2 { Player::X } else { Player::O };
                service.ladder_game(variant, (seated, seat), opponent, &mut rng).await.map_err(said)?;
            }
        }
    }
    println!(
        "{} rated games in {:.1} s",
        options.games as usize * pairs.len() * Variant::ALL.len(),
        started.elapsed().as_secs_f64()
    );
    // A rating moves with every game (each is a rating period of its own), so
    // where a bot settles is the mean of its ratings over the second half of
    // the run, and their spread how far one moment strays from it.
    println!(
        "{:<14} {:<9} {:>8} {:>9} {:>10} {:>6} {:>8} {:>6}",
        "variant", "bot", "rating", "deviation", "volatility", "games", "settled", "spread"
    );
    let half = usize::try_from(options.games).expect("a count of games");
    for variant in Variant::ALL {
        for bot in LADDER_BOTS.into_iter().rev() {
            let name = qttt::record::Username::parse(bot.code()).map_err(|_| "a bot's name".to_string())?;
            let profile = service.profile(&name).await.map_err(said)?;
            let (_, rating, games) = profile.ratings.into_iter().find(|(of, ..)| *of == variant).expect("each variant");
            let history = service.rating_history(&name, variant).await.map_err(said)?;
            let settling: Vec<f64> = history.iter().rev().take(half).map(|change| change.after.rating).collect();
            let mean = settling.iter().sum::<f64>() / settling.len() as f64;
            let spread =
                (settling.iter().map(|rating| (rating - mean).powi(2)).sum::<f64>() / settling.len() as f64).sqrt();
            println!(
                "{:<14} {:<9} {:>8.1} {:>9.1} {:>10.5} {:>6} {:>8.1} {:>6.1}",
                variant.code(),
                bot.code(),
                rating.rating,
                rating.deviation,
                rating.volatility,
                games,
                mean,
                spread
            );
        }
    }
    store.close().await;
    Ok(())
}

/// Checks or rebuilds the ratings of the database that DATABASE_URL names.
async fn ratings(action: RatingsAction, settings: Settings) -> Result<(), String> {
    let config = Config::try_from(settings).map_err(|error| error.to_string())?;
    let store = qttt::server::open_store(&config).await.map_err(|error| error.to_string())?;
    let done = match action {
        RatingsAction::Check => qttt::service::check_ratings(&store).await,
        RatingsAction::Rebuild => qttt::service::rebuild_ratings(&store).await,
    };
    store.close().await;
    let checked = done.map_err(said)?;
    for difference in &checked.differences {
        println!("{difference}");
    }
    let (games, changes, differences) = (checked.games, checked.changes, checked.differences.len());
    match action {
        RatingsAction::Check if differences > 0 => {
            Err(format!("{differences} differences between the ratings stored and those of {games} rated games"))
        }
        RatingsAction::Check => {
            println!("{games} rated games, {changes} rating changes: the ratings stored are those they give");
            Ok(())
        }
        RatingsAction::Rebuild => {
            println!(
                "{games} rated games, {changes} rating changes rewritten; the ratings stored before differed in {differences}"
            );
            Ok(())
        }
    }
}

/// The service's `error` in one line, with the causes of an internal one: for
/// an operator, who has no log to look in.
fn said(error: qttt::error::Error) -> String {
    match &error {
        qttt::error::Error::Internal(fault) => format!("internal: {}", fault.chain()),
        _ => error.to_string(),
    }
}

/// Prints the OpenAPI document, as the server serves it.
fn openapi() -> Result<(), String> {
    let document = api::openapi().to_pretty_json().map_err(|error| error.to_string())?;
    println!("{document}");
    Ok(())
}

/// Asks the server on HOST:PORT whether it is ready; for container health checks,
/// which then need no HTTP client in the image.
fn healthcheck(settings: Settings) -> Result<(), String> {
    let config = Config::try_from(settings).map_err(|error| error.to_string())?;
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

/// Plays two bots against each other from both seats, in each variant asked for,
/// and prints a line per pairing.
fn arena(options: &ArenaArgs) -> Result<(), String> {
    let (first, second) = (options.x.bot(options.mistake_chance), options.o.bot(options.mistake_chance));
    let variants = match options.variant {
        ArenaVariant::Both => vec![Variant::PlayerChoice, Variant::Measurement],
        ArenaVariant::PlayerChoice => vec![Variant::PlayerChoice],
        ArenaVariant::Measurement => vec![Variant::Measurement],
    };
    let mut rng = StdRng::seed_from_u64(options.seed);
    println!(
        "{:<14} {:<9} {:<9} {:>6} {:>7} {:>6} {:>7} {:>6} {:>6} {:>8} {:>8}",
        "variant", "X", "O", "games", "X wins", "draws", "O wins", "X avg", "O avg", "X-O min", "X-O max"
    );
    for variant in variants {
        for (x, o) in [(first, second), (second, first)] {
            let tally = arena::play(x, o, variant, options.games, &mut rng);
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

/// Plays a game in the terminal.
fn play(options: &PlayArgs) -> Result<(), String> {
    let mut rng = StdRng::seed_from_u64(options.seed.unwrap_or_else(rand::random));
    let (x, o) = (options.x.seat(options.mistake_chance), options.o.seat(options.mistake_chance));
    let (stdin, stdout) = (std::io::stdin(), std::io::stdout());
    let game = terminal::play(options.variant.into(), x, o, &mut stdin.lock(), &mut stdout.lock(), &mut rng)
        .map_err(|error| format!("the terminal failed: {error}"))?;
    if let Some(path) = &options.transcript {
        std::fs::write(path, notation::write(&game) + "\n")
            .map_err(|error| format!("cannot write {}: {error}", path.display()))?;
        println!("The transcript is in {}.", path.display());
    }
    Ok(())
}

/// Writes the opening book of `variant` to `path`, reporting progress.
fn book(variant: Variant, path: &Path) -> Result<(), String> {
    let started = Instant::now();
    let bytes = qttt::bot::bookmaker::build(variant, |done, total| {
        if done % 100 == 0 || done == total {
            eprintln!("{done}/{total} positions solved, {:.0} s", started.elapsed().as_secs_f64());
        }
    });
    std::fs::write(path, &bytes).map_err(|error| format!("cannot write {}: {error}", path.display()))?;
    eprintln!("wrote {}: {} bytes in {:.0} s", path.display(), bytes.len(), started.elapsed().as_secs_f64());
    Ok(())
}

/// Prints `count` new puzzles of `variant`, first from the finished games of
/// the database `settings` names when `from_database`, reporting progress;
/// adds them to that database too when `store_them`.
async fn generate_puzzles(
    variant: Variant,
    count: u64,
    seed: u64,
    from_database: bool,
    store_them: bool,
    settings: Settings,
) -> Result<(), String> {
    let started = Instant::now();
    let count = usize::try_from(count).map_err(|_| format!("{count} puzzles are more than this machine holds"))?;
    let mut seen = HashSet::new();
    let mut puzzles = Vec::new();
    let store = if from_database || store_them {
        let config = Config::try_from(settings).map_err(|error| error.to_string())?;
        Some(qttt::server::open_store(&config).await.map_err(|error| error.to_string())?)
    } else {
        None
    };
    if let Some(store) = store.as_ref().filter(|_| from_database) {
        puzzles = qttt::service::puzzles_in_games(store, variant, count, &mut seen).await.map_err(said)?;
        eprintln!("{} puzzles in the database's games, {:.0} s", puzzles.len(), started.elapsed().as_secs_f64());
    }
    let mut rng = StdRng::seed_from_u64(seed);
    let source = format!("bots, seed {seed}");
    let rest = count - puzzles.len();
    puzzles.extend(puzzle::generate(variant, &source, rest, &mut seen, &mut rng, |found, games| {
        if games % 100 == 0 {
            eprintln!("{found} puzzles in {games} games, {:.0} s", started.elapsed().as_secs_f64());
        }
    }));
    for found in &puzzles {
        println!("{}", puzzle::write_line(found));
    }
    eprintln!("{} puzzles in {:.1} s", puzzles.len(), started.elapsed().as_secs_f64());
    if let Some(store) = store {
        let added = if store_them { Some(qttt::service::add_puzzles(&store, &puzzles).await) } else { None };
        store.close().await;
        if let Some(added) = added {
            eprintln!("{} of them new to the database", added.map_err(said)?);
        }
    }
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

/// Prints the analysis of the game whose transcript is on standard input.
fn analyse(variant: Variant) -> Result<(), String> {
    let game = read_game(variant)?;
    print!("{}", board_text::analysis(&Analysis::of(&game, &mut Solver::default())));
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
