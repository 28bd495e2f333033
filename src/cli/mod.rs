//! The `qttt` command's subcommands: the server, the tools that work on its
//! database ([`database`]), and those that need none ([`offline`]).

mod database;
mod offline;

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use qttt::bot::Bot;
use qttt::config::{ConfigError, Settings, check_renamed};
use qttt::engine::notation::NotationError;
use qttt::engine::{ReplayError, Rules, Scoring, Variant};
use qttt::server::StartError;
use qttt::store::OpenError;
use qttt::terminal::Occupant;

/// A game server for Quantum Tic-Tac-Toe, and tools around it.
#[derive(Debug, Parser)]
#[command(name = "qttt", version)]
pub(super) struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
pub(super) enum Command {
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
    Show(RulesArgs),
    /// Read a game transcript on standard input (empty for the opening) and print
    /// its value with perfect play, the best action, and the search's cost.
    Solve(RulesArgs),
    /// Read a game transcript on standard input and judge every action of a
    /// player by perfect play: what the position was worth before and after,
    /// a best action, and how much the action gave away.
    Analyse(RulesArgs),
    /// Solve every opening position under a variant and scoring and write the
    /// opening book, as in `qttt book player_choice data/book-player_choice-goff.bin`.
    Book {
        /// The collapse rule whose book to build.
        #[arg(value_enum)]
        variant: VariantArg,
        /// The scoring whose book to build.
        #[arg(long, value_enum, default_value_t = ScoringArg::Goff)]
        scoring: ScoringArg,
        /// Where to write it.
        file: PathBuf,
    },
    /// Play two bots against each other from both seats and print the results
    /// (`qttt arena`, its name before, still works).
    #[command(alias = "arena")]
    Series(SeriesArgs),
    /// Speak the engine protocol (QTP, docs/ENGINE.md) on standard input and
    /// output as one of the server's bots, so that any program can play it.
    Engine {
        /// The bot that answers `go`.
        #[arg(long, value_enum, default_value_t = BotArg::Perfect)]
        bot: BotArg,
    },
    /// Plug an engine that speaks QTP into a bot account: accept the
    /// challenges the filters allow (declining the others with a reason),
    /// seek games if asked to, and play each with an engine process of its
    /// own, until SIGTERM or Ctrl-C.
    Bridge(BridgeArgs),
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
pub(super) struct BridgeArgs {
    /// The server, as `http://host:port`.
    #[arg(long, value_name = "URL")]
    server: String,
    /// The bot account's player token.
    #[arg(long, env = "QTTT_TOKEN", hide_env_values = true)]
    token: String,
    /// The engine's command line, run by `sh -c` once for each game, as in
    /// `--engine "qttt engine --bot perfect"`.
    #[arg(long, value_name = "COMMAND")]
    engine: String,
    /// A variant it plays; more than one by repeating it. Both when none.
    #[arg(long = "variant", value_enum, value_name = "VARIANT")]
    variants: Vec<VariantArg>,
    /// A scoring it plays; more than one by repeating it. Goff's alone when
    /// none: an engine written before scorings knows no other.
    #[arg(long = "scoring", value_enum, value_name = "SCORING")]
    scorings: Vec<ScoringArg>,
    /// Which games it plays: rated, casual, or both.
    #[arg(long, value_enum, default_value_t = RatedArg::Both)]
    rated: RatedArg,
    /// Which clocks it plays with: games without one, with one, or both.
    #[arg(long, value_enum, default_value_t = ClockArg::Both)]
    clock: ClockArg,
    /// The most games it plays at once: more challenges are declined.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u16).range(1..=1000))]
    max_games: u16,
    /// Keep a seek open, for an untimed game of its first variant and first
    /// scoring (rated unless `--rated casual` or the scoring is not Goff's),
    /// while it has room for a game.
    #[arg(long)]
    seek: bool,
    /// What each clock sent to the engine is cut by, in milliseconds: the
    /// bridge's own delay.
    #[arg(long, default_value_t = 100, value_name = "MS", value_parser = clap::value_parser!(u16).range(0..=10_000))]
    move_overhead_ms: u16,
}

/// Rated games, casual ones, or both.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(super) enum RatedArg {
    Rated,
    Casual,
    Both,
}

/// Games without a clock, with one, or both.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(super) enum ClockArg {
    Untimed,
    Timed,
    Both,
}

impl BridgeArgs {
    /// The bridge's options as these arguments give them.
    pub(super) fn options(self) -> qttt::bridge::Options {
        let variants: Vec<Variant> = match self.variants.as_slice() {
            [] => Variant::ALL.to_vec(),
            chosen => chosen.iter().map(|&variant| variant.into()).collect(),
        };
        let scorings: Vec<Scoring> = match self.scorings.as_slice() {
            [] => vec![Scoring::Goff],
            chosen => chosen.iter().map(|&scoring| scoring.into()).collect(),
        };
        let filters = qttt::bridge::Filters {
            rated: self.rated != RatedArg::Casual,
            casual: self.rated != RatedArg::Rated,
            untimed: self.clock != ClockArg::Timed,
            timed: self.clock != ClockArg::Untimed,
            max_games: usize::from(self.max_games),
            variants,
            scorings,
        };
        let seek = self.seek.then(|| {
            let scoring = filters.scorings[0];
            serde_json::json!({
                "variant": filters.variants[0].code(),
                "scoring": scoring.code(),
                // A rated game is Goff's.
                "rated": self.rated != RatedArg::Casual && scoring == Scoring::Goff,
            })
        });
        qttt::bridge::Options {
            server: self.server,
            token: self.token,
            engine: self.engine,
            filters,
            seek,
            move_overhead_ms: i64::from(self.move_overhead_ms),
        }
    }
}

#[derive(Debug, Args)]
pub(super) struct CopyArgs {
    /// The database to copy from, as DATABASE_URL names it (`sqlite:qttt.db`).
    #[arg(long, value_name = "URL")]
    pub(super) from: String,
    /// The PostgreSQL database to copy into (`postgres://...`), migrated first.
    #[arg(long, value_name = "URL")]
    pub(super) to: String,
    /// Copy into a target that holds games already, leaving those it has: to
    /// finish a copy that was interrupted.
    #[arg(long)]
    pub(super) skip_existing: bool,
}

#[derive(Debug, Subcommand)]
pub(super) enum PuzzlesCommand {
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
pub(super) struct LadderArgs {
    /// Games for each pair of bots in each variant, 1 or more; each bot plays
    /// X in half of them.
    #[arg(long, value_name = "N", default_value_t = 100, allow_negative_numbers = true,
        value_parser = clap::value_parser!(u32).range(1..))]
    pub(super) games: u32,
    /// Seeds the choices of the bot that holds a seat (RANDOM_SEED seeds the
    /// other's).
    #[arg(long, value_name = "N", default_value_t = 1, allow_negative_numbers = true)]
    pub(super) seed: u64,
    #[command(flatten)]
    pub(super) settings: Settings,
}

#[derive(Debug, Args)]
pub(super) struct PlayArgs {
    /// Who plays X.
    #[arg(long, value_enum, value_name = "PLAYER", default_value_t = OccupantArg::Human)]
    pub(super) x: OccupantArg,
    /// Who plays O.
    #[arg(long, value_enum, value_name = "PLAYER", default_value_t = OccupantArg::Parasite)]
    pub(super) o: OccupantArg,
    /// The collapse rule.
    #[arg(long, value_enum, default_value_t = VariantArg::PlayerChoice)]
    pub(super) variant: VariantArg,
    /// Save the game's transcript in this file.
    #[arg(long, value_name = "FILE")]
    pub(super) transcript: Option<PathBuf>,
    /// Seeds the bots and the measurements (default: a random seed).
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub(super) seed: Option<u64>,
    /// The parasite bot's probability of a random move, 0-1.
    #[arg(long, value_name = "P", default_value_t = Bot::DEFAULT_MISTAKE_CHANCE, allow_negative_numbers = true,
        value_parser = chance)]
    pub(super) mistake_chance: f64,
}

#[derive(Debug, Args)]
pub(super) struct SeriesArgs {
    /// The bot that plays X in the first pairing and O in the second.
    #[arg(long, value_enum, value_name = "BOT")]
    pub(super) x: BotArg,
    /// The bot that plays O in the first pairing and X in the second.
    #[arg(long, value_enum, value_name = "BOT")]
    pub(super) o: BotArg,
    /// Games per pairing and variant, 1 or more.
    #[arg(long, value_name = "N", default_value_t = 100, allow_negative_numbers = true,
        value_parser = clap::value_parser!(u32).range(1..))]
    pub(super) games: u32,
    /// The collapse rules to play.
    #[arg(long, value_enum, default_value_t = SeriesVariant::Both)]
    pub(super) variant: SeriesVariant,
    /// Seeds the bots and the measurements.
    #[arg(long, value_name = "N", default_value_t = 1, allow_negative_numbers = true)]
    pub(super) seed: u64,
    /// The parasite bot's probability of a random move, 0-1.
    #[arg(long, value_name = "P", default_value_t = Bot::DEFAULT_MISTAKE_CHANCE, allow_negative_numbers = true,
        value_parser = chance)]
    pub(super) mistake_chance: f64,
}

/// What `qttt ratings` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(super) enum RatingsAction {
    /// Report every difference between the ratings stored and those derived.
    Check,
    /// Write the ratings derived over those stored, and report how they differed.
    Rebuild,
}

/// A game's rules, as the command line names them.
#[derive(Debug, Clone, Copy, Args)]
pub(super) struct RulesArgs {
    /// The game's collapse rule.
    #[arg(value_enum, default_value_t = VariantArg::PlayerChoice)]
    variant: VariantArg,
    /// How the game's lines score.
    #[arg(long, value_enum, default_value_t = ScoringArg::Goff)]
    scoring: ScoringArg,
}

impl From<RulesArgs> for Rules {
    fn from(rules: RulesArgs) -> Rules {
        Rules { variant: rules.variant.into(), scoring: rules.scoring.into() }
    }
}

/// A scoring, as the command line names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(super) enum ScoringArg {
    /// Goff's: the earliest line 1 point, every later one 1/2.
    Goff,
    /// The first line wins 1 to 0; lines for both at once draw.
    #[value(name = "complete_win")]
    CompleteWin,
    /// The line with the smaller largest subscript wins 1 to 0.
    #[value(name = "narrow_win")]
    NarrowWin,
}

impl From<ScoringArg> for Scoring {
    fn from(scoring: ScoringArg) -> Scoring {
        match scoring {
            ScoringArg::Goff => Scoring::Goff,
            ScoringArg::CompleteWin => Scoring::CompleteWin,
            ScoringArg::NarrowWin => Scoring::NarrowWin,
        }
    }
}

/// A collapse rule, as the command line names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(super) enum VariantArg {
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

/// The collapse rules a series plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(super) enum SeriesVariant {
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
pub(super) enum BotArg {
    /// Any legal action, at random.
    Random,
    /// The original app's heuristic.
    Parasite,
    /// Exact search.
    Perfect,
}

impl BotArg {
    pub(super) fn bot(self, mistake_chance: f64) -> Bot {
        match self {
            BotArg::Random => Bot::Random,
            BotArg::Parasite => Bot::Parasite { mistake_chance },
            BotArg::Perfect => Bot::Perfect,
        }
    }
}

/// Who plays a seat in the terminal, as the command line names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(super) enum OccupantArg {
    /// Someone at the keyboard.
    Human,
    /// Any legal action, at random.
    Random,
    /// The original app's heuristic.
    Parasite,
    /// Exact search.
    Perfect,
}

impl OccupantArg {
    pub(super) fn occupant(self, mistake_chance: f64) -> Occupant {
        let bot = match self {
            OccupantArg::Human => return Occupant::Human,
            OccupantArg::Random => BotArg::Random,
            OccupantArg::Parasite => BotArg::Parasite,
            OccupantArg::Perfect => BotArg::Perfect,
        };
        Occupant::Bot(bot.bot(mistake_chance))
    }
}

/// A probability from 0 to 1.
fn chance(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(chance) if (0.0..=1.0).contains(&chance) => Ok(chance),
        _ => Err(format!("{text:?} is no probability from 0 to 1")),
    }
}

/// Why a command failed, said in one line by `main`.
#[derive(Debug, thiserror::Error)]
pub(super) enum CliError {
    /// A setting's value was refused.
    #[error("{0}")]
    Config(#[from] ConfigError),
    /// The server did not start.
    #[error("{0}")]
    Start(#[from] StartError),
    /// The server stopped on an error.
    #[error("the server stopped: {0}")]
    Stopped(#[source] std::io::Error),
    /// The service failed: an internal fault with its causes, for an operator
    /// who has no log to look in.
    #[error("{}", said(.0))]
    Service(#[from] qttt::error::Error),
    /// A database did not open.
    #[error("cannot open the {database}: {source}")]
    Open {
        /// The database, named without its password.
        database: String,
        /// Why.
        #[source]
        source: OpenError,
    },
    /// The backup could not be made.
    #[error("{0}")]
    Backup(#[source] OpenError),
    /// The backup was made and fails its checks.
    #[error("the backup is not good: {0}")]
    BadBackup(#[source] qttt::error::Error),
    /// `qttt copy --to` named no PostgreSQL database.
    #[error("--to must name a PostgreSQL database (postgres://...)")]
    NotPostgres,
    /// A SQLite file to read is not there (opening it would make an empty one).
    #[error("there is no SQLite file {}", .0.display())]
    NoFile(PathBuf),
    /// `qttt ratings check` found ratings that the rated games do not give.
    #[error("{differences} differences between the ratings stored and those of {games} rated games")]
    RatingsDiffer {
        /// How many.
        differences: usize,
        /// Of how many rated games.
        games: usize,
    },
    /// The server asked by `healthcheck` is not ready, or not there.
    #[error("not ready: {0}")]
    NotReady(String),
    /// Reading or writing a file, the terminal or the network failed.
    #[error("{what}: {source}")]
    Io {
        /// What was being done.
        what: String,
        /// Why it failed.
        #[source]
        source: std::io::Error,
    },
    /// A transcript on standard input does not read.
    #[error("{0}")]
    Notation(#[from] NotationError),
    /// A transcript reads, and breaks a rule.
    #[error("{0}")]
    Replay(#[from] ReplayError),
    /// The game given to `solve` is over.
    #[error("the game is over: there is nothing to solve")]
    GameOver,
    /// More puzzles were asked for than this machine can count.
    #[error("{0} puzzles are more than this machine holds")]
    TooMany(u64),
    /// The bridge could not run.
    #[error("bridge: {0}")]
    Bridge(String),
    /// The OpenAPI document did not serialise.
    #[error("{0}")]
    Json(#[from] serde_json::Error),
}

impl CliError {
    /// `source`, met while doing `what`.
    fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> CliError {
        let what = what.into();
        move |source| CliError::Io { what, source }
    }
}

/// Does what `command` asks.
pub(super) async fn run(command: Command) -> Result<(), CliError> {
    match command {
        Command::Serve(settings) => database::serve(settings).await,
        Command::Openapi => offline::openapi(),
        Command::Healthcheck(settings) => database::healthcheck(settings),
        Command::Play(options) => offline::play(&options),
        Command::Show(rules) => offline::show(rules.into()),
        Command::Solve(rules) => offline::solve(rules.into()),
        Command::Analyse(rules) => offline::analyse(rules.into()),
        Command::Book { variant, scoring, file } => {
            offline::book(Rules { variant: variant.into(), scoring: scoring.into() }, &file)
        }
        Command::Puzzles(PuzzlesCommand::Generate { count, variant, seed, from_database, store, settings }) => {
            database::generate_puzzles(variant.into(), count, seed, from_database, store, settings).await
        }
        Command::Series(options) => offline::series(&options),
        Command::Engine { bot } => offline::engine(bot.bot(qttt::bot::Bot::DEFAULT_MISTAKE_CHANCE)),
        Command::Bridge(options) => qttt::bridge::run(options.options()).await.map_err(CliError::Bridge),
        Command::Copy(options) => database::copy(&options).await,
        Command::Ladder(options) => database::ladder(options).await,
        Command::Ratings { action, settings } => database::ratings(action, settings).await,
        Command::Backup { to, settings } => database::backup(&to, settings).await,
    }
}

/// The command the command line asks for, `serve` when it names none. A
/// setting's value refused is said in one line; any other mistake, and a request
/// for help, clap says and exits.
///
/// # Errors
/// A setting's value refused.
pub(super) fn command_line() -> Result<Command, ConfigError> {
    check_renamed(|name| std::env::var(name).ok())?;
    let mut args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if args.len() == 1 {
        args.push("serve".into());
    }
    match Cli::try_parse_from(args) {
        Ok(cli) => Ok(cli.command),
        Err(error) => Err(ConfigError::of(&error).unwrap_or_else(|| error.exit())),
    }
}

/// The service's `error` in one line, with the causes of an internal one: for
/// an operator, who has no log to look in.
fn said(error: &qttt::error::Error) -> String {
    match error {
        qttt::error::Error::Internal(fault) => format!("internal: {}", fault.chain()),
        _ => error.to_string(),
    }
}
