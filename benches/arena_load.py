#!/usr/bin/env python3
"""How many players one instance holds in a running arena, every game live
(docs/PERFORMANCE.md, "Arenas").

Starts a release server on a fresh SQLite file, PLAYERS players and a
one arena of MINUTES, every player joined. Each plays its arena games as a
quick person would: it looks at its games, and on its turn thinks THINK
seconds, then plays a random legal action. A watcher reads the arena every
second. At the end it prints how many games were played, the share of the
players in a game on the watcher's reads, how long a player waited between
two games (from the games' own stamps), and the times of an action and of a
read of the arena.

    cargo build --release
    python3 benches/arena_load.py --players 50 100 200 --minutes 1
"""
import argparse, http.client, json, os, random, subprocess, sys, tempfile, threading, time, urllib.request
from datetime import datetime, timezone

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
QTTT = os.path.join(ROOT, "target", "release", "qttt")


class Api:
    """One keep-alive connection to the API, as one client holds it."""

    def __init__(self, port, token=None):
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.token = token

    def call(self, method, path, body=None):
        headers = {"Content-Type": "application/json"}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        self.connection.request(method, f"/api/v1{path}", None if body is None else json.dumps(body), headers)
        answer = self.connection.getresponse()
        data = answer.read()
        return answer.status, json.loads(data) if data else None


def stamp(text):
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def percentile(values, share):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))] if ordered else float("nan")


def play(port, name, token, arena, deadline, think, actions):
    """Plays player `name`'s arena games until `deadline`; records each action's time in `actions`."""
    api, rng = Api(port, token), random.Random(name)
    while time.monotonic() < deadline:
        _, page = api.call("GET", "/players/me/games?status=ongoing&limit=5")
        games = [game for game in page["games"] if game["arena"] == arena]
        for game in games:
            _, legal = api.call("GET", f"/games/{game['id']}/legal")
            if legal["player"] is None or game["players"][legal["player"]] != name:
                continue
            time.sleep(think)
            action = rng.choice(legal["actions"])
            started = time.monotonic()
            if action["kind"] == "move":
                status, _ = api.call("POST", f"/games/{game['id']}/moves", {"squares": action["squares"]})
            else:
                status, _ = api.call("POST", f"/games/{game['id']}/collapse", {"move": action["move"], "square": action["square"]})
            if status == 201:
                actions.append(time.monotonic() - started)
        time.sleep(0.1 if games else 0.2)


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run(port, players, minutes, think):
    folder = tempfile.mkdtemp()
    env = dict(os.environ, PORT=str(port), DATABASE_URL=f"sqlite:{folder}/qttt.db", CREATE_RATE_LIMIT="0", RUST_LOG="warn")
    server = subprocess.Popen([QTTT, "serve"], env=env, stdout=subprocess.DEVNULL)
    for _ in range(100):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=2)
            break
        except OSError:
            time.sleep(0.1)
    try:
        admin = Api(port)
        tokens = {}
        for i in range(players):
            _, created = admin.call("POST", "/players", {"name": f"load{i:04d}"})
            tokens[f"load{i:04d}"] = created["token"]
        creator = Api(port, next(iter(tokens.values())))
        now = datetime.now(timezone.utc).isoformat()
        _, arena = creator.call("POST", "/arenas", {"name": "Load", "variant": "player_choice", "minutes": minutes,
                                                   "clock": {"initial_ms": 60_000, "increment_ms": 1000}, "starts_at": now})
        for token in tokens.values():
            Api(port, token).call("POST", f"/arenas/{arena['id']}/join")
        deadline = time.monotonic() + minutes * 60
        actions, reads, live = [], [], []
        cpu_before, started = cpu_seconds(server.pid), time.monotonic()
        threads = [threading.Thread(target=play, args=(port, name, token, arena["id"], deadline, think, actions)) for name, token in tokens.items()]
        for thread in threads:
            thread.start()
        watcher = Api(port)
        while time.monotonic() < deadline:
            read_at = time.monotonic()
            _, detail = watcher.call("GET", f"/arenas/{arena['id']}")
            reads.append(time.monotonic() - read_at)
            if time.monotonic() - started > 10:
                live.append(2 * len(detail["playing"]) / players)
            time.sleep(max(0, 1 - (time.monotonic() - read_at)))
        for thread in threads:
            thread.join()
        cpu = (cpu_seconds(server.pid) - cpu_before) / (time.monotonic() - started)
        _, detail = watcher.call("GET", f"/arenas/{arena['id']}")
        games = sum(len(standing["sheet"]) for standing in detail["standings"]) // 2
        # A player's wait between two games: the next one's creation after the last one's end.
        waits = []
        for standing in detail["standings"][:20]:
            _, mine = Api(port, tokens[standing["name"]]).call("GET", "/players/me/games?limit=100")
            spans = []
            for game in sorted((g for g in mine["games"] if g["arena"] == arena["id"] and g["status"] == "finished"), key=lambda g: g["id"]):
                _, log = watcher.call("GET", f"/games/{game['id']}/log")
                spans.append((stamp(game["created_at"]), stamp(log["entries"][-1]["created_at"])))
            waits += [next_start - end for (_, end), (next_start, _) in zip(spans, spans[1:])]
        ms = lambda seconds: f"{seconds * 1000:.0f} ms"
        print(f"{players} players, {minutes} min, think {think} s: {games} games, in a game {sum(live) / max(1, len(live)):.0%} of reads, "
              f"wait between games p50 {ms(percentile(waits, 0.5))} p99 {ms(percentile(waits, 0.99))}, "
              f"action p50 {ms(percentile(actions, 0.5))} p99 {ms(percentile(actions, 0.99))} ({len(actions) / (minutes * 60):.0f}/s), "
              f"arena read p50 {ms(percentile(reads, 0.5))} p99 {ms(percentile(reads, 0.99))}, server CPU {cpu:.0%} of a core")
    finally:
        server.terminate()
        server.wait(10)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--players", type=int, nargs="+", default=[50, 100, 200])
    parser.add_argument("--minutes", type=int, default=1)
    parser.add_argument("--think", type=float, default=0.5)
    parser.add_argument("--port", type=int, default=8461)
    arguments = parser.parse_args()
    if not os.path.exists(QTTT):
        sys.exit("build the release binary first: cargo build --release")
    for players in arguments.players:
        run(arguments.port, players, arguments.minutes, arguments.think)


if __name__ == "__main__":
    main()
