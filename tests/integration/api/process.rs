//! The server binary as a process of its own, for the tests that kill it or read
//! its log.

use std::net::{SocketAddr, TcpListener};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::Duration;

use serde_json::Value;

use super::helpers::{Client, Response, TestDatabase, ready_within, try_request};

/// The server binary as its own process, so that it can be killed outright.
pub struct Process {
    /// Behind a lock so that the test can kill it while clients still use it.
    child: Mutex<Child>,
    client: Client,
}

impl std::ops::Deref for Process {
    type Target = Client;

    fn deref(&self) -> &Client {
        &self.client
    }
}

impl Process {
    /// The server on `database`, logging errors only, to the test's output.
    pub fn start(database: &TestDatabase) -> Process {
        Process::start_logging(&database.url(), "error", Stdio::inherit(), &[])
    }

    /// The server on the database at `url`, logging at `level` to `log`, with
    /// the settings `vars`.
    pub fn start_logging(url: &str, level: &str, log: Stdio, vars: &[(&str, &str)]) -> Process {
        Process::try_start_logging(url, level, log, vars).expect("the server did not become ready")
    }

    /// The server as [`Process::start_logging`] starts it, or `None` if it did
    /// not become ready (it is stopped then).
    pub fn try_start_logging(url: &str, level: &str, log: Stdio, vars: &[(&str, &str)]) -> Option<Process> {
        let process = Process::spawn(Command::new(env!("CARGO_BIN_EXE_qttt")), url, level, log, vars);
        ready_within(process.address, Duration::from_secs(20)).then_some(process)
    }

    /// The server on the database at `url` with the settings `vars`, under
    /// faketime, its clock `offset` from the machine's (as faketime's `-f`
    /// says it, such as `+5s`): once it answers, which it does before it is ready.
    pub fn start_with_clock_off(url: &str, offset: &str, vars: &[(&str, &str)]) -> Process {
        let mut command = Command::new("faketime");
        command.args(["-f", offset, env!("CARGO_BIN_EXE_qttt")]);
        let process = Process::spawn(command, url, "error", Stdio::inherit(), vars);
        let deadline = std::time::Instant::now() + Duration::from_secs(20);
        while try_request(process.address, "GET", "/healthz", &[], None).is_err() {
            assert!(std::time::Instant::now() < deadline, "the server did not start");
            std::thread::sleep(Duration::from_millis(10));
        }
        process
    }

    /// `qttt serve` run by `command`, on a free port and the database at `url`.
    fn spawn(mut command: Command, url: &str, level: &str, log: Stdio, vars: &[(&str, &str)]) -> Process {
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        // A group of its own, killed whole: faketime runs the server as its child.
        let child = command
            .process_group(0)
            .arg("serve")
            .env("HOST", "127.0.0.1")
            .env("PORT", port.to_string())
            .env("DATABASE_URL", url)
            .env("RUST_LOG", level)
            // As the in-process servers: no rate limits unless the test sets them.
            .env("CREATE_RATE_LIMIT", "0")
            .env("FAILED_AUTH_RATE_LIMIT", "0")
            .envs(vars.iter().copied())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("the server starts");
        let address = SocketAddr::from(([127, 0, 0, 1], port));
        Process { child: Mutex::new(child), client: Client { address, from: None } }
    }

    pub fn send(&self, method: &str, path: &str, token: Option<&str>, body: Option<Value>) -> Option<Response> {
        let authorization = token.map(|token| format!("Bearer {token}"));
        let mut headers = vec![("Content-Type", "application/json")];
        headers.extend(authorization.as_deref().map(|value| ("Authorization", value)));
        try_request(self.address, method, path, &headers, body.map(|b| b.to_string()).as_deref()).ok()
    }

    /// The server's resident memory, in MB, as Linux counts it.
    pub fn resident_mb(&self) -> u64 {
        let pid = self.child.lock().unwrap().id();
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
        let line = status.lines().find(|line| line.starts_with("VmRSS:")).unwrap();
        let kb: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
        kb / 1024
    }

    /// SIGKILL: no shutdown, no flush, nothing but what is already committed.
    pub fn kill(&self) {
        let mut child = self.child.lock().unwrap();
        assert!(kill_group(&child), "the server is killed");
        child.wait().expect("the server is gone");
    }
}

/// Sends SIGKILL to `child`'s process group: the server, and faketime when it
/// runs the server. Answers whether `kill` did.
fn kill_group(child: &Child) -> bool {
    let group = format!("-{}", child.id());
    Command::new("kill").args(["-KILL", "--", &group]).status().is_ok_and(|status| status.success())
}

impl Drop for Process {
    fn drop(&mut self) {
        let child = self.child.get_mut().unwrap();
        // Only while it is not reaped does its id still name its group alone.
        if let Ok(None) = child.try_wait() {
            kill_group(child);
        }
        let _ = child.wait();
    }
}
