//! The server binary as a process of its own, for the tests that kill it or read
//! its log.

use std::net::{SocketAddr, TcpListener};
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
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let child = Command::new(env!("CARGO_BIN_EXE_qttt"))
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
        let process = Process { child: Mutex::new(child), client: Client { address, from: None } };
        assert!(ready_within(process.address, Duration::from_secs(20)), "the server did not become ready");
        process
    }

    pub fn send(&self, method: &str, path: &str, token: Option<&str>, body: Option<Value>) -> Option<Response> {
        let authorization = token.map(|token| format!("Bearer {token}"));
        let mut headers = vec![("Content-Type", "application/json")];
        headers.extend(authorization.as_deref().map(|value| ("Authorization", value)));
        try_request(self.address, method, path, &headers, body.map(|b| b.to_string()).as_deref()).ok()
    }

    /// SIGKILL: no shutdown, no flush, nothing but what is already committed.
    pub fn kill(&self) {
        let mut child = self.child.lock().unwrap();
        child.kill().expect("the server is killed");
        child.wait().expect("the server is gone");
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let child = self.child.get_mut().unwrap();
        let _ = child.kill();
        let _ = child.wait();
    }
}
