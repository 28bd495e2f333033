//! The subcommands that work on a database: serving it, copying it, backing
//! it up, the bots' ladder, checking its ratings, and its puzzles.

use std::collections::HashSet;
use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

use rand::SeedableRng;
use rand::rngs::StdRng;

use super::{CliError, CopyArgs, LadderArgs, RatingsAction};
use qttt::bot::puzzle;
use qttt::config::{Config, Settings};
use qttt::engine::Variant;
use qttt::server::Running;

/// Runs the server until SIGTERM or Ctrl-C; requests in flight finish first.
pub(super) async fn serve(settings: Settings) -> Result<(), CliError> {
    let config = Config::try_from(settings)?;
    qttt::logging::init(config.log_format);
    let running = Running::start(&config).await?;
    log::info!("qttt listening on http://{}:{}, docs at /docs", config.host, config.port);
    running.finish().await.map_err(CliError::Stopped)?;
    log::info!("qttt stopped");
    Ok(())
}

/// Copies the games of one database into another, printing its progress on
/// standard error and what it copied on standard output.
pub(super) async fn copy(options: &CopyArgs) -> Result<(), CliError> {
    use qttt::store::{PoolSettings, SqliteSettings, Store, database_name, is_postgres, sqlite_file};
    if !is_postgres(&options.to) {
        return Err(CliError::NotPostgres);
    }
    // Opening a SQLite file that is not there would make an empty one.
    if let Some(file) = sqlite_file(&options.from).filter(|file| !file.exists()) {
        return Err(CliError::NoFile(file));
    }
    let open = |url: String| async move {
        Store::connect(&url, SqliteSettings::default(), PoolSettings::default())
            .await
            .map_err(|source| CliError::Open { database: database_name(&url), source })
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
    .await?;
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
pub(super) async fn backup(to: &std::path::Path, settings: Settings) -> Result<(), CliError> {
    use qttt::store::{PoolSettings, SqliteSettings, Store};
    let config = Config::try_from(settings)?;
    let started = Instant::now();
    let bytes = qttt::store::back_up(&config.database_url, to).await.map_err(CliError::Backup)?;
    let copy = Store::connect(&format!("sqlite:{}", to.display()), SqliteSettings::default(), PoolSettings::default())
        .await
        .map_err(|source| CliError::Open { database: format!("backup {}", to.display()), source })?;
    let checked = qttt::service::check_games(&copy).await.map_err(CliError::BadBackup);
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
pub(super) async fn ladder(options: LadderArgs) -> Result<(), CliError> {
    use qttt::engine::Player;
    use qttt::service::{GameService, LADDER_BOTS};
    let config = Config::try_from(options.settings)?;
    let store = qttt::server::open_store(&config).await?;
    let service = GameService::new(store.clone(), qttt::server::service_options(&config));
    let mut rng = StdRng::seed_from_u64(options.seed);
    let started = Instant::now();
    let pairs = [(LADDER_BOTS[0], LADDER_BOTS[1]), (LADDER_BOTS[0], LADDER_BOTS[2]), (LADDER_BOTS[1], LADDER_BOTS[2])];
    for round in 0..options.games {
        for variant in Variant::ALL {
            for (one, other) in pairs {
                let (seated, opponent) = if round % 2 == 0 { (one, other) } else { (other, one) };
                let seat = if round % 4 < 2 { Player::X } else { Player::O };
                service.ladder_game(variant, (seated, seat), opponent, &mut rng).await?;
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
            let name = qttt::record::Username::parse(bot.code()).expect("a bot's code is a name");
            let profile = service.profile(&name).await?;
            let (_, rating, games) = profile.ratings.into_iter().find(|(of, ..)| *of == variant).expect("each variant");
            let most = u32::try_from(half).unwrap_or(u32::MAX);
            let history = service.rating_history(&name, variant, None, most).await?;
            let settling: Vec<f64> = history.iter().map(|(_, change)| change.after.rating).collect();
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
pub(super) async fn ratings(action: RatingsAction, settings: Settings) -> Result<(), CliError> {
    let config = Config::try_from(settings)?;
    let store = qttt::server::open_store(&config).await?;
    let done = match action {
        RatingsAction::Check => qttt::service::check_ratings(&store).await,
        RatingsAction::Rebuild => qttt::service::rebuild_ratings(&store).await,
    };
    store.close().await;
    let checked = done?;
    for difference in &checked.differences {
        println!("{difference}");
    }
    let (games, changes, differences) = (checked.games, checked.changes, checked.differences.len());
    match action {
        RatingsAction::Check if differences > 0 => Err(CliError::RatingsDiffer { differences, games }),
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

/// Prints `count` new puzzles of `variant`, first from the finished games of
/// the database `settings` names when `from_database`, reporting progress;
/// adds them to that database too when `store_them`.
pub(super) async fn generate_puzzles(
    variant: Variant,
    count: u64,
    seed: u64,
    from_database: bool,
    store_them: bool,
    settings: Settings,
) -> Result<(), CliError> {
    let started = Instant::now();
    let count = usize::try_from(count).map_err(|_| CliError::TooMany(count))?;
    let mut seen = HashSet::new();
    let mut puzzles = Vec::new();
    let store = if from_database || store_them {
        let config = Config::try_from(settings)?;
        Some(qttt::server::open_store(&config).await?)
    } else {
        None
    };
    if let Some(store) = store.as_ref().filter(|_| from_database) {
        puzzles = qttt::service::puzzles_in_games(store, variant, count, &mut seen).await?;
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
            eprintln!("{} of them new to the database", added?);
        }
    }
    Ok(())
}

/// Asks the server on HOST:PORT whether it is ready; for container health checks,
/// which then need no HTTP client in the image.
pub(super) fn healthcheck(settings: Settings) -> Result<(), CliError> {
    let config = Config::try_from(settings)?;
    let host = match config.host.as_str() {
        "0.0.0.0" | "::" | "[::]" => "127.0.0.1",
        host => host,
    };
    let address = (host, config.port)
        .to_socket_addrs()
        .map_err(CliError::io(host))?
        .next()
        .ok_or_else(|| CliError::NotReady(format!("{host} has no address")))?;
    let timeout = Duration::from_secs(3);
    let mut stream = TcpStream::connect_timeout(&address, timeout).map_err(CliError::io(address.to_string()))?;
    stream.set_read_timeout(Some(timeout)).map_err(CliError::io(address.to_string()))?;
    write!(stream, "GET /readyz HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n")
        .map_err(CliError::io(address.to_string()))?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer).map_err(CliError::io(address.to_string()))?;
    let status_line = answer.lines().next().unwrap_or_default();
    if status_line.split_whitespace().nth(1) == Some("200") {
        Ok(())
    } else {
        Err(CliError::NotReady(status_line.into()))
    }
}
