//! The `qttt` command's arguments, as a clap program reads them.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdout, Command, Output, Stdio};

/// Runs `qttt` with `args`, `input` on its standard input.
pub fn qttt(args: &[&str], input: &str) -> Output {
    qttt_with(&[], args, input)
}

/// Runs `qttt` with the environment variables `vars` set, `args`, and `input` on its
/// standard input.
pub fn qttt_with(vars: &[(&str, &str)], args: &[&str], input: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_qttt"))
        .envs(vars.iter().copied())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("text")
}

#[test]
fn help_lists_every_command_and_each_commands_options() {
    let help = qttt(&["--help"], "");
    assert!(help.status.success());
    let printed = text(&help.stdout);
    for command in [
        "serve",
        "openapi",
        "healthcheck",
        "play",
        "show",
        "solve",
        "analyse",
        "book",
        "series",
        "engine",
        "copy",
        "backup",
    ] {
        assert!(printed.lines().any(|line| line.trim_start().starts_with(command)), "{command} in:\n{printed}");
    }
    let series = qttt(&["series", "--help"], "");
    assert!(series.status.success());
    let printed = text(&series.stdout);
    for option in ["--x <BOT>", "--o <BOT>", "--games <N>", "--variant <VARIANT>", "--seed <N>", "--mistake-chance <P>"]
    {
        assert!(printed.contains(option), "{option} in:\n{printed}");
    }
    assert!(["- random:", "- parasite:", "- perfect:"].iter().all(|bot| printed.contains(bot)), "{printed}");
}

#[test]
fn serve_help_lists_every_setting_with_its_variable_and_default() {
    let help = qttt(&["serve", "--help"], "");
    assert!(help.status.success());
    let printed = text(&help.stdout);
    for (flag, variable, default) in [
        ("--host <HOST>", "HOST", Some("127.0.0.1")),
        ("--port <PORT>", "PORT", Some("8000")),
        ("--database-url <DATABASE_URL>", "DATABASE_URL", Some("sqlite:qttt.db")),
        ("--database-statement-timeout-ms <MS>", "DATABASE_STATEMENT_TIMEOUT_MS", Some("5000")),
        ("--waiting-game-timeout-seconds <SECONDS>", "WAITING_GAME_TIMEOUT_SECONDS", Some("3600")),
        ("--create-rate-limit <CREATE_RATE_LIMIT>", "CREATE_RATE_LIMIT", Some("30")),
        ("--create-rate-burst <CREATE_RATE_BURST>", "CREATE_RATE_BURST", Some("10")),
        ("--failed-auth-rate-limit <FAILED_AUTH_RATE_LIMIT>", "FAILED_AUTH_RATE_LIMIT", Some("20")),
        ("--unjoined-game-retention-hours <HOURS>", "UNJOINED_GAME_RETENTION_HOURS", Some("24")),
        ("--metrics <ON_OR_OFF>", "METRICS", Some("on")),
        ("--metrics-addr <ADDRESS>", "METRICS_ADDR", None),
        ("--random-seed <N>", "RANDOM_SEED", None),
        ("--rating-period-days <DAYS>", "RATING_PERIOD_DAYS", Some("7")),
        ("--first-move-seconds <SECONDS>", "FIRST_MOVE_SECONDS", Some("30")),
        ("--bot-games-per-day <GAMES>", "BOT_GAMES_PER_DAY", Some("100")),
        ("--sqlite-resident-mib <MIB>", "SQLITE_RESIDENT_MIB", Some("2048")),
    ] {
        let line = printed.lines().position(|line| line.trim_start().starts_with(flag)).expect(flag);
        let said = printed.lines().skip(line).take(2).collect::<String>();
        assert!(said.contains(&format!("[env: {variable}")), "{variable} in {said}");
        if let Some(default) = default {
            assert!(said.contains(&format!("[default: {default}]")), "{default} in {said}");
        }
    }
    // Every setting is there: one `[env: ...]` each.
    assert_eq!(printed.matches("[env: ").count(), 36, "{printed}");
    // The database's address is never shown: it may hold a password.
    let shown = qttt_with(&[("DATABASE_URL", "postgres://qttt:secret@db/qttt")], &["serve", "--help"], "");
    assert!(!text(&shown.stdout).contains("secret"));
}

#[test]
fn a_setting_refused_names_its_variable_in_one_line_from_the_environment_or_a_flag() {
    for (vars, args, said) in [
        (&[("PORT", "http")][..], &["serve"][..], "qttt: PORT is \"http\"; it must be a number from 1 to 65535\n"),
        (&[][..], &["serve", "--port", "0"][..], "qttt: PORT is \"0\"; it must be a number from 1 to 65535\n"),
        (&[("LOG_FORMAT", "xml")][..], &[][..], "qttt: LOG_FORMAT is \"xml\"; it must be text or json\n"),
        (
            &[("METRICS", "off"), ("METRICS_ADDR", "127.0.0.1:9100")][..],
            &["healthcheck"][..],
            "qttt: METRICS is off but METRICS_ADDR is set; unset one of them\n",
        ),
    ] {
        let refused = qttt_with(vars, args, "");
        assert_eq!(refused.status.code(), Some(1), "{vars:?} {args:?}");
        assert_eq!(text(&refused.stderr), said);
    }
    // The flag wins over its variable: the bad variable is never read, and the
    // health check goes on to find nothing on port 1.
    let checked = qttt_with(&[("PORT", "1"), ("LOG_FORMAT", "xml")], &["healthcheck", "--log-format", "json"], "");
    assert!(text(&checked.stderr).starts_with("qttt: 127.0.0.1:1: "), "{}", text(&checked.stderr));
}

#[test]
fn a_bad_value_is_refused_with_a_reason_and_exit_code_2() {
    for (args, reason) in [
        (&["series", "--x", "perfect", "--o", "random", "--games", "-1"][..], "invalid value '-1' for '--games <N>'"),
        (&["series", "--x", "perfekt", "--o", "random"][..], "invalid value 'perfekt' for '--x <BOT>'"),
        (&["series", "--x", "random"][..], "the following required arguments were not provided"),
        (&["play", "--mistake-chance", "1.5"][..], "\"1.5\" is no probability from 0 to 1"),
        (&["show", "goff"][..], "invalid value 'goff'"),
        (&["bogus"][..], "unrecognized subcommand 'bogus'"),
    ] {
        let refused = qttt(args, "");
        assert_eq!(refused.status.code(), Some(2), "{args:?}");
        let said = text(&refused.stderr);
        assert!(said.contains(reason), "{args:?}: {said}");
        assert!(refused.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn a_series_plays_the_games_asked_for() {
    // `arena`, its name before, still works.
    let played = qttt(&["arena", "--x", "parasite", "--o", "random", "--games", "3", "--variant", "measurement"], "");
    assert!(played.status.success(), "{}", text(&played.stderr));
    let printed = text(&played.stdout);
    let rows: Vec<Vec<&str>> = printed.lines().skip(1).map(|line| line.split_whitespace().collect()).collect();
    assert_eq!(rows.len(), 2, "{printed}");
    assert_eq!(
        rows.iter().map(|row| &row[..4]).collect::<Vec<_>>(),
        [["measurement", "parasite", "random", "3"], ["measurement", "random", "parasite", "3"]]
    );
}

#[test]
fn show_prints_the_board_of_a_transcript() {
    let shown = qttt(&["show", "measurement"], "X1+(1,2); O2+(1,2); X3!O2(1)");
    assert!(shown.status.success(), "{}", text(&shown.stderr));
    let printed = text(&shown.stdout);
    assert!(printed.contains("[O2]") && printed.contains("[X1]"), "{printed}");
}

#[test]
fn analyse_prints_a_table_of_every_action_of_a_transcript() {
    let judged = qttt(&["analyse"], "X1+(1,2); O2+(2,5); X3+(1,5); O4!X3(5); O4+(6,9)");
    assert!(judged.status.success(), "{}", text(&judged.stderr));
    assert_eq!(
        text(&judged.stdout),
        "\
move  action       best           before    after     loss
   1  X1+(1,2)     X1+(1,9)         +0.5       +0      0.5
   2  O2+(2,5)     O2+(1,3)           +0     +0.5      0.5
   3  X3+(1,5)     X3+(4,5)         +0.5       +0      0.5
   4  O4!X3(5)     O4!X3(1)           +0       +1        1
   4  O4+(6,9)     O4+(8,9)           +1       +1        0
X gave away 1 in 2 of 2 actions
O gave away 1.5 in 2 of 3 actions
Values: the final score difference X minus O with perfect play.
"
    );
    let cut = qttt(&["analyse", "measurement"], "X1+(1,2); O2+(2,5); X3+(1,5)");
    let printed = text(&cut.stdout);
    let measured = printed.lines().find(|line| line.trim_start().starts_with("measured:")).expect(&printed);
    assert!(measured.ends_with("; came nothing yet"), "{printed}");
    assert!(printed.ends_with("expected over the measurements.\n"), "{printed}");
    let refused = qttt(&["analyse"], "X1+(1,2); X2+(3,4)");
    assert_eq!(refused.status.code(), Some(1));
    assert_eq!(text(&refused.stderr), "qttt: action 2 `X2+(3,4)`: move 2 is O's, not X's\n");
}

#[test]
fn a_database_that_cannot_be_opened_is_named_without_its_password() {
    for url in [
        "postgres://qttt:hunter2@127.0.0.1:1/qttt",
        "postgres://qttt@127.0.0.1:1/qttt?password=hunter2",
        "postgresql://qttt:hun%2Fter2@127.0.0.1:1/qttt?sslmode=disable",
        "postgres://qttt:hun/ter2@127.0.0.1:1/qttt",
        "postgres://qttt:hun@ter2@127.0.0.1:1/qttt",
    ] {
        let vars = [("DATABASE_URL", url), ("DATABASE_CONNECT_RETRY_SECONDS", "0"), ("PORT", "1")];
        let refused = qttt_with(&vars, &["serve"], "");
        assert_eq!(refused.status.code(), Some(1), "{url}");
        let said = text(&refused.stderr);
        assert!(said.contains("cannot open the PostgreSQL database"), "{url}: {said}");
        assert!(!said.contains("hunter2") && !said.contains("ter2"), "{url}: {said}");
    }
}

/// A qttt database at `path` with one game, closed (its log checkpointed into the file).
fn qttt_database(path: &std::path::Path) {
    use qttt::store::{PoolSettings, SqliteSettings, Store};
    actix_web::rt::System::new().block_on(async {
        let url = format!("sqlite:{}", path.display());
        Store::connect(&url, SqliteSettings::default(), PoolSettings::default()).await.unwrap().close().await;
    });
    let database = rusqlite::Connection::open(path).unwrap();
    database
        .execute_batch(
            "INSERT INTO games (variant, created_at) VALUES ('measurement', '2026-12-01T00:00:00.000Z');
             INSERT INTO log_entries (game_id, seq, kind, actor, created_at)
                 VALUES (1, 1, 'seat', 'X', '2026-12-01T00:00:00.000Z');",
        )
        .unwrap();
}

#[test]
fn start_up_refuses_a_file_that_is_not_a_good_qttt_database_in_one_line_and_leaves_it_as_it_was() {
    let folder = tempfile::tempdir().unwrap();
    let file = |name: &str| folder.path().join(name);
    std::fs::write(file("text.db"), "these are notes, not a database\n".repeat(200)).unwrap();
    rusqlite::Connection::open(file("other.db")).unwrap().execute_batch("CREATE TABLE notes (text TEXT)").unwrap();
    qttt_database(&file("newer.db"));
    rusqlite::Connection::open(file("newer.db"))
        .unwrap()
        .execute_batch(
            "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time)
                 VALUES (9999, 'from the future', true, x'00', 0)",
        )
        .unwrap();
    qttt_database(&file("damaged.db"));
    let mut damaged = std::fs::read(file("damaged.db")).unwrap();
    // The third page, a table's: its header and cells overwritten.
    damaged[2 * 4096..3 * 4096].fill(0x5a);
    std::fs::write(file("damaged.db"), damaged).unwrap();

    for (name, reason) in [
        ("text.db", "it is not a SQLite database"),
        ("other.db", "it is not a qttt database: it holds tables (notes) but no record of qttt's migrations"),
        ("newer.db", "its schema is newer than this qttt's: it holds migration 9999, which this qttt does not know"),
        ("damaged.db", "it fails SQLite's quick check ("),
    ] {
        let before = std::fs::read(file(name)).unwrap();
        let url = format!("sqlite:{}", file(name).display());
        let refused = qttt_with(&[("DATABASE_URL", &url), ("PORT", "1")], &["serve"], "");
        assert_eq!(refused.status.code(), Some(1), "{name}");
        let said = text(&refused.stderr);
        let expected = format!("qttt: cannot open the SQLite file {}: {reason}", file(name).display());
        assert_eq!(said.lines().count(), 1, "{name}: {said}");
        assert!(said.starts_with(&expected), "{name}: {said}");
        assert_eq!(std::fs::read(file(name)).unwrap(), before, "{name} is left as it was");
    }
}

/// An engine process as a referee drives it: a line at a time.
struct Engine {
    child: Child,
    answers: BufReader<ChildStdout>,
}

impl Engine {
    /// `qttt engine --bot <bot>`.
    fn start(bot: &str) -> Engine {
        Engine::run(env!("CARGO_BIN_EXE_qttt"), &["engine", "--bot", bot])
    }

    /// `program` with `args`.
    fn run(program: &str, args: &[&str]) -> Engine {
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("the engine runs");
        let answers = BufReader::new(child.stdout.take().unwrap());
        Engine { child, answers }
    }

    /// Sends `line`, then reads answers until one starts with `last`: all of them.
    fn ask(&mut self, line: &str, last: &str) -> Vec<String> {
        writeln!(self.child.stdin.as_mut().unwrap(), "{line}").unwrap();
        let mut answers = Vec::new();
        while answers.last().is_none_or(|answer: &String| !answer.starts_with(last)) {
            let mut answer = String::new();
            assert!(self.answers.read_line(&mut answer).unwrap() > 0, "the engine stopped after {answers:?}");
            answers.push(answer.trim_end().to_string());
        }
        answers
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = writeln!(self.child.stdin.as_mut().unwrap(), "quit");
        let ended = self.child.wait().unwrap();
        assert!(ended.success(), "the engine ends cleanly on quit");
    }
}

#[test]
fn two_engines_play_whole_games_through_the_protocol_and_the_perfect_one_never_loses() {
    use qttt::engine::{Actor, Game, Player, Variant, notation};
    let mut perfect = Engine::start("perfect");
    assert_eq!(perfect.ask("qtp", "qtpok"), ["id name qttt perfect bot", "id author qttt", "qtpok"]);
    assert_eq!(perfect.ask("isready", "readyok"), ["readyok"]);
    let opening = perfect.ask("position variant player_choice\nisready", "readyok");
    assert_eq!(opening, ["readyok"], "a position is taken in silence");
    let opened = perfect.ask("go", "bestaction");
    assert_eq!(opened[0], "info value 0.5");
    let mut random = Engine::start("random");
    for game_number in 0..20 {
        let mut actions: Vec<String> = Vec::new();
        for engine in [&mut perfect, &mut random] {
            assert_eq!(engine.ask("newgame\nisready", "readyok"), ["readyok"]);
        }
        loop {
            let log = notation::parse(&actions.join("; "), Variant::PlayerChoice).unwrap();
            let game = Game::replay(Variant::PlayerChoice, &log).unwrap_or_else(|error| panic!("{actions:?}: {error}"));
            if game.is_over() {
                let score = game.score();
                assert!(score.x >= score.o, "game {game_number}: the perfect player, X, lost: {actions:?}");
                break;
            }
            let engine = match game.actor_to_act() {
                Some(Actor::Player(Player::X)) => &mut perfect,
                _ => &mut random,
            };
            let position = format!("position variant player_choice actions {}", actions.join(" "));
            assert_eq!(engine.ask(&format!("{}\nisready", position.trim_end()), "readyok"), ["readyok"]);
            let answer = engine.ask("go", "bestaction").pop().unwrap();
            actions.push(answer.strip_prefix("bestaction ").unwrap().to_string());
        }
    }
}

#[test]
fn the_shipped_python_engine_plays_only_legal_actions_from_either_seat_in_both_variants() {
    use qttt::engine::{Actor, Game, Player, Variant, notation};
    use rand::{RngExt, SeedableRng};
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/engines/random_engine.py");
    let mut python = Engine::run("python3", &[script]);
    assert_eq!(python.ask("qtp", "qtpok"), ["id name random_engine.py", "qtpok"]);
    let mut random = Engine::start("random");
    random.ask("qtp", "qtpok");
    let mut rng = rand::rngs::StdRng::seed_from_u64(56);
    let mut python_actions = 0;
    for variant in [Variant::PlayerChoice, Variant::Measurement] {
        for game_number in 0..20 {
            let python_plays = if game_number % 2 == 0 { Player::X } else { Player::O };
            let mut game = Game::new(variant);
            while !game.is_over() {
                let Some(Actor::Player(player)) = game.actor_to_act() else {
                    // The measurement, the referee's to make.
                    let options = game.legal_actions();
                    let outcome = options[rng.random_range(0..options.len())];
                    game.play(Actor::Measurement, outcome).unwrap();
                    continue;
                };
                let engine = if player == python_plays { &mut python } else { &mut random };
                let written = notation::write(&game);
                let position = format!("position variant {} actions {}", variant.code(), written.replace("; ", " "));
                let answer = engine.ask(&format!("{}\nisready", position.trim_end()), "readyok");
                assert_eq!(answer, ["readyok"], "{position}");
                let best = engine.ask("go", "bestaction").pop().unwrap();
                let action = best.strip_prefix("bestaction ").unwrap();
                let text = if written.is_empty() { action.to_string() } else { format!("{written}; {action}") };
                let log = notation::parse(&text, variant).unwrap_or_else(|error| panic!("{text}: {error}"));
                game = Game::replay(variant, &log).unwrap_or_else(|error| panic!("{action} after {written}: {error}"));
                python_actions += usize::from(player == python_plays);
            }
        }
    }
    // Two actions at least in each of the 40 games: every game lasts five moves or more.
    assert!(python_actions >= 80, "{python_actions}");
}
