// A real qttt server for the tests: the binary QTTT_BIN names (by default the
// debug build of this repository), on a free port of 127.0.0.1 and a SQLite
// file of its own, stopped when the tests end.

import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(new URL(".", import.meta.url));
const binary = process.env.QTTT_BIN ?? resolve(here, "../../../target/debug/qttt");

/** A port nobody listens on now. */
function freePort() {
  return new Promise((done, failed) => {
    const probe = createServer();
    probe.once("error", failed);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => done(port));
    });
  });
}

/** Starts a server with the settings `env` adds; answers its base URL and a stop function. */
export async function startServer(env = {}) {
  const folder = mkdtempSync(join(tmpdir(), "qttt-client-"));
  const port = await freePort();
  const child = spawn(binary, ["serve"], {
    env: {
      ...process.env,
      HOST: "127.0.0.1",
      PORT: String(port),
      DATABASE_URL: `sqlite:${join(folder, "qttt.db")}`,
      RANDOM_SEED: "1",
      CREATE_RATE_LIMIT: "0",
      FAILED_AUTH_RATE_LIMIT: "0",
      RUST_LOG: "warn",
      ...env,
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  const started = Date.now();
  for (;;) {
    try {
      const ready = await fetch(`${baseUrl}/readyz`);
      if (ready.ok) {
        break;
      }
    } catch {
      // Not listening yet.
    }
    if (Date.now() - started > 20_000) {
      child.kill();
      throw new Error(`the server at ${binary} did not start`);
    }
    await new Promise((wait) => setTimeout(wait, 50));
  }
  const stop = () =>
    new Promise((done) => {
      child.once("exit", () => {
        rmSync(folder, { recursive: true, force: true });
        done();
      });
      child.kill("SIGTERM");
    });
  return { baseUrl, stop };
}
