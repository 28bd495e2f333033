//! The subcommands that need no database: the OpenAPI document, games in the
//! terminal, a series of games between two bots, the opening book, and what perfect play makes of
//! a transcript.

use std::io::{BufRead, Read, Write};
use std::path::Path;
use std::time::Instant;

use rand::SeedableRng;
use rand::rngs::StdRng;

use super::{CliError, PlayArgs, SeriesArgs, SeriesVariant};
use qttt::bot::protocol::Session;
use qttt::bot::{Analysis, Bot, Solver, series};
use qttt::engine::{Game, Rules, Variant, notation};
use qttt::{api, board_text, terminal};

/// Prints the OpenAPI document, as the server serves it.
pub(super) fn openapi() -> Result<(), CliError> {
    let document = api::openapi().to_pretty_json()?;
    println!("{document}");
    Ok(())
}

/// Plays two bots against each other from both seats, in each variant asked for,
/// and prints a line per pairing.
pub(super) fn series(options: &SeriesArgs) -> Result<(), CliError> {
    let (first, second) = (options.x.bot(options.mistake_chance), options.o.bot(options.mistake_chance));
    let variants = match options.variant {
        SeriesVariant::Both => vec![Variant::PlayerChoice, Variant::Measurement],
        SeriesVariant::PlayerChoice => vec![Variant::PlayerChoice],
        SeriesVariant::Measurement => vec![Variant::Measurement],
    };
    let mut rng = StdRng::seed_from_u64(options.seed);
    println!(
        "{:<14} {:<9} {:<9} {:>6} {:>7} {:>6} {:>7} {:>6} {:>6} {:>8} {:>8}",
        "variant", "X", "O", "games", "X wins", "draws", "O wins", "X avg", "O avg", "X-O min", "X-O max"
    );
    for variant in variants {
        for (x, o) in [(first, second), (second, first)] {
            let tally = series::play(x, o, variant, options.games, &mut rng);
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
pub(super) fn play(options: &PlayArgs) -> Result<(), CliError> {
    let mut rng = StdRng::seed_from_u64(options.seed.unwrap_or_else(rand::random));
    let (x, o) = (options.x.occupant(options.mistake_chance), options.o.occupant(options.mistake_chance));
    let (stdin, stdout) = (std::io::stdin(), std::io::stdout());
    let game = terminal::play(options.variant.into(), x, o, &mut stdin.lock(), &mut stdout.lock(), &mut rng)
        .map_err(CliError::io("the terminal failed"))?;
    if let Some(path) = &options.transcript {
        std::fs::write(path, notation::write(&game) + "\n")
            .map_err(CliError::io(format!("cannot write {}", path.display())))?;
        println!("The transcript is in {}.", path.display());
    }
    Ok(())
}

/// Speaks the engine protocol as `bot` on standard input and output, a line
/// at a time, until `quit` or the end of the input.
pub(super) fn engine(bot: Bot) -> Result<(), CliError> {
    let mut session = Session::new(bot);
    let mut rng = StdRng::from_rng(&mut rand::rng());
    let mut out = std::io::stdout().lock();
    for line in std::io::stdin().lock().lines() {
        let answer = session.answer(&line.map_err(CliError::io("cannot read standard input"))?, &mut rng);
        for written in &answer.lines {
            writeln!(out, "{written}").map_err(CliError::io("cannot write standard output"))?;
        }
        // Each answer goes out at once: the other side waits for it.
        out.flush().map_err(CliError::io("cannot write standard output"))?;
        if answer.quit {
            break;
        }
    }
    Ok(())
}

/// Writes the opening book of `variant` to `path`, reporting progress.
pub(super) fn book(rules: Rules, path: &Path) -> Result<(), CliError> {
    let started = Instant::now();
    let bytes = qttt::bot::bookmaker::build(rules, |done, total| {
        if done % 100 == 0 || done == total {
            eprintln!("{done}/{total} positions solved, {:.0} s", started.elapsed().as_secs_f64());
        }
    });
    std::fs::write(path, &bytes).map_err(CliError::io(format!("cannot write {}", path.display())))?;
    eprintln!("wrote {}: {} bytes in {:.0} s", path.display(), bytes.len(), started.elapsed().as_secs_f64());
    Ok(())
}

/// Prints what perfect play makes of the position whose transcript is on
/// standard input: its value, the best action, and what the search cost.
pub(super) fn solve(rules: Rules) -> Result<(), CliError> {
    let game = read_game(rules)?;
    let mut solver = Solver::default();
    let started = Instant::now();
    if game.actor_to_act().is_none() {
        return Err(CliError::GameOver);
    }
    let solution = solver.solve(&game);
    println!(
        "value {} (X minus O{}, {} scoring), best action {:?}; {} positions searched, {} remembered, in {:.3} s",
        solution.value.points,
        if rules.variant == Variant::Measurement { ", expected" } else { "" },
        rules.scoring.code(),
        solution.action,
        solver.nodes,
        solver.remembered(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Prints the analysis of the game whose transcript is on standard input.
pub(super) fn analyse(rules: Rules) -> Result<(), CliError> {
    let game = read_game(rules)?;
    print!("{}", board_text::analysis(&Analysis::of(&game, &mut Solver::default())));
    Ok(())
}

/// The game whose transcript is on standard input.
fn read_game(rules: Rules) -> Result<Game, CliError> {
    let mut text = String::new();
    std::io::stdin().read_to_string(&mut text).map_err(CliError::io("cannot read standard input"))?;
    let log = notation::parse(&text, rules.variant)?;
    Ok(Game::replay(rules, &log)?)
}

/// Prints the board and status of the game whose transcript is on standard input.
pub(super) fn show(rules: Rules) -> Result<(), CliError> {
    let game = read_game(rules)?;
    print!("{}", board_text::board(&game));
    println!("{}", board_text::status(&game));
    Ok(())
}
