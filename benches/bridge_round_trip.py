#!/usr/bin/env python3
"""A bot's round trip through `qttt bridge`, and how many bot games one
instance sustains at once (docs/PERFORMANCE.md).

Starts a release server on a fresh SQLite file, two bot accounts and a bridge
for each (`qttt engine --bot random` as both engines), then plays casual games
between them, CONCURRENT at a time, until GAMES have finished. A round trip is
the time from one bot's action, as its log entry stamps it, to the other bot's
next action: the stream's event, the bridge, the engine and the next request.

    cargo build --release
    python3 benches/bridge_round_trip.py --games 40 --concurrent 1 10 50
"""
import argparse, json, os, subprocess, sys, tempfile, time, urllib.error, urllib.request
from datetime import datetime

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
QTTT = os.path.join(ROOT, "target", "release", "qttt")


def call(method, url, token=None, body=None):
    request = urllib.request.Request(url, method=method, data=None if body is None else json.dumps(body).encode())
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return json.loads(answer.read() or b"null")
    except urllib.error.HTTPError as error:
        sys.exit(f"{method} {url}: {error.code} {error.read().decode()}")


def stamp(text):
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * p))]


def round_trips(api, game_id):
    """The gaps between consecutive actions of the two players in a game's log."""
    entries = call("GET", f"{api}/games/{game_id}/log")["entries"]
    actions = [e for e in entries if e["kind"] == "move" or (e["kind"] == "collapse" and e["chooser"] in "XO")]
    actor = lambda e: e.get("player") or e.get("chooser")
    return [stamp(b["created_at"]) - stamp(a["created_at"]) for a, b in zip(actions, actions[1:]) if actor(a) != actor(b)]


def run(port, games, concurrent):
    folder = tempfile.mkdtemp()
    env = dict(os.environ, PORT=str(port), DATABASE_URL=f"sqlite:{folder}/qttt.db", CREATE_RATE_LIMIT="0")
    server = subprocess.Popen([QTTT, "serve"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    api = f"http://127.0.0.1:{port}/api/v1"
    for _ in range(100):
        try:
            call("GET", f"http://127.0.0.1:{port}/readyz")
            break
        except OSError:
            time.sleep(0.1)
    tokens = []
    for name in ("alpha", "beta"):
        token = call("POST", f"{api}/players", body={"name": name})["token"]
        call("POST", f"{api}/players/me/bot", token)
        tokens.append(token)
    bridges = [
        subprocess.Popen([QTTT, "bridge", "--server", f"http://127.0.0.1:{port}", "--engine", f"{QTTT} engine --bot random",
                          "--max-games", str(concurrent)], env=dict(os.environ, QTTT_TOKEN=token),
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for token in tokens
    ]
    try:
        return play(api, tokens, games, concurrent)
    finally:
        for process in bridges + [server]:
            process.terminate()
            process.wait()


def play(api, tokens, games, concurrent):
    started, finished, going = time.time(), [], {}  # challenge id -> its game's id, once accepted
    deadline = started + 600
    while len(finished) < games and time.time() < deadline:
        # At most 10 unanswered at once: a player has at most 20 challenges waiting.
        while len(going) < concurrent and len(finished) + len(going) < games and list(going.values()).count(None) < 10:
            challenge = call("POST", f"{api}/players/beta/challenges", tokens[0], {"variant": "player_choice"})
            going[challenge["id"]] = None
        time.sleep(0.05)
        for challenge_id, game_id in list(going.items()):
            if game_id is None:
                going[challenge_id] = game_id = call("GET", f"{api}/challenges/{challenge_id}", tokens[0])["game_id"]
            if game_id and call("GET", f"{api}/games/{game_id}")["status"] == "finished":
                del going[challenge_id]
                finished.append(game_id)
    elapsed = time.time() - started
    gaps = [gap for game_id in finished for gap in round_trips(api, game_id)]
    return len(finished), elapsed, gaps


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--concurrent", type=int, nargs="+", default=[1, 10, 50])
    parser.add_argument("--port", type=int, default=8191)
    arguments = parser.parse_args()
    print("concurrent games | games | actions | round trip p50 | p99 | actions/s")
    for concurrent in arguments.concurrent:
        games, elapsed, gaps = run(arguments.port, max(arguments.games, concurrent), concurrent)
        if not gaps:
            sys.exit(f"no game finished with {concurrent} at once: is the bridge running?")
        print(f"{concurrent} | {games} | {len(gaps)} | {percentile(gaps, 0.5) * 1000:.1f} ms | "
              f"{percentile(gaps, 0.99) * 1000:.1f} ms | {len(gaps) / elapsed:.0f}")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
