//! An engine process that speaks QTP (docs/ENGINE.md), driven line by line:
//! one per game, started with the game and killed with it. A thread reads its
//! output, so that waiting for its answer blocks no other game.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};

use tokio::sync::mpsc;

/// An engine process, its input, and the lines of its output.
pub struct Engine {
    child: Child,
    input: ChildStdin,
    lines: mpsc::UnboundedReceiver<String>,
    /// Its `id name`, once it said it; the command line before.
    pub name: String,
}

impl Engine {
    /// Starts `command` (a shell command line) and greets it: `qtp`, answered
    /// by `id` lines and `qtpok`.
    ///
    /// # Errors
    /// When it does not start, or ends before `qtpok`.
    pub async fn start(command: &str) -> Result<Engine, String> {
        let mut child = Command::new("sh")
            .args(["-c", command])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|error| format!("cannot start the engine {command:?}: {error}"))?;
        let (Some(input), Some(output)) = (child.stdin.take(), child.stdout.take()) else {
            return Err("the engine has no pipes".into());
        };
        let (tell, lines) = mpsc::unbounded_channel();
        // It ends when the engine's output does: at its end, or its kill.
        std::thread::spawn(move || {
            for line in BufReader::new(output).lines() {
                let Ok(line) = line else { return };
                if tell.send(line.trim_end().to_string()).is_err() {
                    return;
                }
            }
        });
        let mut engine = Engine { child, input, lines, name: command.into() };
        engine.send("qtp")?;
        while let Some(line) = engine.lines.recv().await {
            if let Some(name) = line.strip_prefix("id name ") {
                engine.name = name.trim().into();
            }
            if line.trim() == "qtpok" {
                return Ok(engine);
            }
        }
        Err(format!("the engine {command:?} ended before qtpok"))
    }

    /// Sends one command.
    ///
    /// # Errors
    /// When the engine is gone.
    pub fn send(&mut self, command: &str) -> Result<(), String> {
        writeln!(self.input, "{command}")
            .and_then(|()| self.input.flush())
            .map_err(|error| format!("the engine {} is gone: {error}", self.name))
    }

    /// The engine's choice after `position` and `go`: the action of its
    /// `bestaction`, its `info` lines and any others left aside.
    ///
    /// # Errors
    /// When the engine ends before it answers.
    pub async fn best_action(&mut self, position: &str, go: &str) -> Result<String, String> {
        self.send(position)?;
        self.send(go)?;
        while let Some(line) = self.lines.recv().await {
            if let Some(action) = line.strip_prefix("bestaction ") {
                return Ok(action.trim().to_string());
            }
        }
        Err(format!("the engine {} ended without a bestaction", self.name))
    }
}

impl Drop for Engine {
    /// Tells the engine to quit, then kills it: no engine outlives its game.
    fn drop(&mut self) {
        let _ = self.send("quit");
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
