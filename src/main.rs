//! The `qttt` command: the server, and a few tools around it.

use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::process::ExitCode;
use std::time::Duration;

use qttt::config::Config;
use qttt::engine::{Game, Variant, notation};
use qttt::server::Running;
use qttt::{api, board_text};

const USAGE: &str = "usage: qttt [serve | openapi | healthcheck | show [player_choice|measurement]]
  serve        run the server (the default); settings come from the environment:
               HOST, PORT, DATABASE_URL, CORS_ALLOWED_ORIGINS, RUST_LOG
  openapi      print the OpenAPI document
  healthcheck  exit 0 when the server on HOST:PORT answers /readyz with 200
  show         read a game transcript on standard input, print its board";

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
    log::info!(
        "qttt listening on http://{}:{}, docs at /docs",
        config.host,
        config.port
    );
    running
        .finish()
        .await
        .map_err(|error| format!("the server stopped: {error}"))?;
    log::info!("qttt stopped");
    Ok(())
}

/// Prints the OpenAPI document, as the server serves it.
fn openapi() -> Result<(), String> {
    let document = api::openapi()
        .to_pretty_json()
        .map_err(|error| error.to_string())?;
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
    let mut stream = TcpStream::connect_timeout(&address, timeout)
        .map_err(|error| format!("{address}: {error}"))?;
    stream
        .set_read_timeout(Some(timeout))
        .map_err(|error| error.to_string())?;
    write!(
        stream,
        "GET /readyz HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    .map_err(|e| e.to_string())?;
    let mut answer = String::new();
    stream
        .read_to_string(&mut answer)
        .map_err(|error| error.to_string())?;
    let status_line = answer.lines().next().unwrap_or_default();
    if status_line.split_whitespace().nth(1) == Some("200") {
        Ok(())
    } else {
        Err(format!("not ready: {status_line}"))
    }
}

/// Prints the board and status of the game whose transcript is on standard input.
fn show(variant: Variant) -> Result<(), String> {
    let mut text = String::new();
    std::io::stdin()
        .read_to_string(&mut text)
        .map_err(|e| format!("cannot read standard input: {e}"))?;
    let log = notation::parse(&text, variant).map_err(|e| e.to_string())?;
    let game = Game::replay(variant, &log).map_err(|e| e.to_string())?;
    print!("{}", board_text::board(&game));
    println!("{}", board_text::status(&game));
    Ok(())
}
