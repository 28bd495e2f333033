#!/usr/bin/env python3
"""The findings of the open-internet issue, each measured against a fresh binary on
127.0.0.1 the way the issue measured it, bounded in count and time:

    python3 benches/open_internet.py target/release/qttt [finding ...]

Findings: timeouts, rows, heads, private, guessing, hints, metrics, wal (all by
default). The first finding, one clock for instances on one PostgreSQL, is measured
by the integration test `instances::...clock...` under faketime instead: it needs
PostgreSQL. Prints one line per figure; run it on the old binary and the new one to
compare. Needs only Python's standard library and Linux's /proc.
"""

import multiprocessing
import os
import socket
import statistics
import sys
import threading
import time
from datetime import datetime

from attacks import PORT, Server, request


def create_waiting_games(seconds, count):
    """Creates waiting games one after another for `seconds`; adds how many to `count`."""
    made, end = 0, time.monotonic() + seconds
    while time.monotonic() < end:
        made += request("POST", "/api/v1/games", {})[0] == 201
    with count.get_lock():
        count.value += made


def in_processes(target, processes, *args):
    """Runs `target(*args)` in `processes` processes at once and waits for them."""
    started = [multiprocessing.Process(target=target, args=args) for _ in range(processes)]
    for process in started:
        process.start()
    for process in started:
        process.join()


def seconds_of(stamp):
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()


def timeouts():
    server = Server({"WAITING_GAME_TIMEOUT_SECONDS": "10", "CREATE_RATE_LIMIT": "0"})
    count = multiprocessing.Value("i", 0)
    in_processes(create_waiting_games, 4, 12, count)
    status, created = request("POST", "/api/v1/games", {"clock": {"initial_ms": 2000, "increment_ms": 0}})
    game = created["game"]["id"]
    joined = request("POST", f"/api/v1/games/{game}/join")[1]
    deadline = seconds_of(joined["game"]["clock"]["deadline"])
    written = None
    while time.time() < deadline + 60 and written is None:
        time.sleep(0.1)
        entries = request("GET", f"/api/v1/games/{game}/log")[1]["entries"]
        written = next((entry for entry in entries if entry["kind"] == "timeout"), None)
    late = "not within 60 s" if written is None else f"{time.time() - deadline:.1f} s after its deadline"
    print(f"timeouts: {count.value} waiting games made in 12 s by 4 clients; a 2 s clock's timeout "
          f"was in the log {late}")
    server.stop()


def rows():
    server = Server()
    count = multiprocessing.Value("i", 0)
    size = os.path.getsize(f"{server.folder.name}/qttt.db")
    in_processes(create_waiting_games, 4, 20, count)
    files = [f"{server.folder.name}/qttt.db{end}" for end in ("", "-wal")]
    grown = sum(os.path.getsize(name) for name in files if os.path.exists(name)) - size
    lobby = request("GET", "/api/v1/games?status=waiting&limit=100")[1]["games"]
    print(f"rows: with the defaults, 4 clients of one address made {count.value} games in 20 s "
          f"(the files grew {grown / 1e6:.1f} MB); the lobby's first page holds {len(lobby)}")
    server.stop()


def head_status(size):
    """The status of a GET with one header of `size` bytes, or how it ended."""
    try:
        connection = socket.create_connection(("127.0.0.1", PORT), timeout=10)
        connection.sendall(f"GET /healthz HTTP/1.1\r\nHost: qttt\r\nX-Pad: {'a' * size}\r\n\r\n".encode())
        answer = connection.recv(4096)
        connection.close()
        return answer.split(b"\r\n")[0].decode() or "closed"
    except OSError as error:
        return type(error).__name__


def held_heads(server, connections, size):
    """RSS before, while `connections` each hold an unfinished head of `size`
    bytes, and 5 s and 30 s after they close."""
    before = server.resident_mb()
    head = b"GET /healthz HTTP/1.1\r\nHost: qttt\r\nX-Pad: " + b"a" * size
    held = []
    for _ in range(connections):
        connection = socket.create_connection(("127.0.0.1", PORT))
        try:
            connection.sendall(head)
        except OSError:
            pass
        held.append(connection)
    time.sleep(0.5)
    holding = server.resident_mb()
    for connection in held:
        connection.close()
    time.sleep(5)
    after = server.resident_mb()
    time.sleep(25)
    return before, holding, after, server.resident_mb()


def heads():
    server = Server(open_files=20000)
    print(f"heads: a 30 KB header: {head_status(30_000)}; 64 KB: {head_status(65_536)}; "
          f"100 KB: {head_status(100_000)}; 1 MB: {head_status(1_000_000)}")
    for connections, size in ((3000, 120_000), (2000, 30_000)):
        before, holding, after, later = held_heads(server, connections, size)
        print(f"heads: RSS {before} MB, {holding} MB with {connections} unfinished heads of {size // 1000} KB, "
              f"{after} MB 5 s after they closed, {later} MB 30 s after")
    server.stop()


def private():
    server = Server()
    game = request("POST", "/api/v1/games", {"private": True})[1]["game"]["id"]
    paths = [f"/api/v1/games/{game}{tail}" for tail in ("", "/log", "/transcript", "/legal")]
    print(f"private: a stranger reading a private game's view, log, transcript and legal actions got "
          f"{[request('GET', path)[0] for path in paths]}")
    server.stop()


OPENING = ([0, 1], [2, 3], [4, 5], [6, 7])


def play(seconds, moves):
    """Plays games (create, join, four moves) one after another for `seconds`,
    from its own address; adds the moves played to `moves`."""
    played, end = 0, time.monotonic() + seconds
    me = {"X-Forwarded-For": f"10.0.{os.getpid() % 250}.1"}
    while time.monotonic() < end:
        created = request("POST", "/api/v1/games", {"variant": "measurement"}, me)[1]
        game = created["game"]["id"]
        joined = request("POST", f"/api/v1/games/{game}/join", None, me)[1]
        tokens = [created["seat"]["token"], joined["seat"]["token"]]
        for number, squares in enumerate(OPENING):
            headers = dict(me, Authorization=f"Bearer {tokens[number % 2]}")
            played += request("POST", f"/api/v1/games/{game}/moves", {"squares": squares}, headers)[0] == 201
    with moves.get_lock():
        moves.value += played


# Each other client's requests a second: eight of them send 1,000 a second, and
# leave the players' own Python clients their share of this machine's two cores,
# so that what the players lose is what the server spends on the others.
PACE = 125


def paced(sent, started):
    """Waits until the `sent`-th request is due at PACE from `started`."""
    time.sleep(max(0.0, started + sent / PACE - time.monotonic()))


def guess(seconds, game, answers):
    """Sends moves with made-up tokens to `game` for `seconds`, from one address, at PACE."""
    sent, started = 0, time.monotonic()
    while time.monotonic() < started + seconds:
        paced(sent, started)
        request("POST", f"/api/v1/games/{game}/moves", {"squares": [0, 1]},
                {"Authorization": f"Bearer made-up-{sent}", "X-Forwarded-For": "10.9.9.9"})
        sent += 1
    with answers.get_lock():
        answers.value += sent


def read(seconds, game, answers):
    """GETs `game` for `seconds`, from one address, at PACE."""
    sent, started = 0, time.monotonic()
    while time.monotonic() < started + seconds:
        paced(sent, started)
        request("GET", f"/api/v1/games/{game}", None, {"X-Forwarded-For": "10.9.9.8"})
        sent += 1
    with answers.get_lock():
        answers.value += sent


def players_beside(others, seconds=10):
    """Moves a second of 8 players, beside 8 processes running `others` (or alone)."""
    moves, answers = multiprocessing.Value("i", 0), multiprocessing.Value("i", 0)
    game = request("POST", "/api/v1/games", {})[1]["game"]["id"]
    started = [multiprocessing.Process(target=play, args=(seconds, moves)) for _ in range(8)]
    if others:
        started += [multiprocessing.Process(target=others, args=(seconds, game, answers)) for _ in range(8)]
    for process in started:
        process.start()
    for process in started:
        process.join()
    return moves.value / seconds, answers.value / seconds


def guessing():
    server = Server({"TRUSTED_PROXIES": "127.0.0.1", "CREATE_RATE_LIMIT": "0"})
    game = request("POST", "/api/v1/games", {})[1]["game"]["id"]
    request("POST", f"/api/v1/games/{game}/join")
    started = time.monotonic()
    statuses = [request("POST", f"/api/v1/games/{game}/moves", {"squares": [0, 1]},
                        {"Authorization": f"Bearer made-up-{n}", "X-Forwarded-For": "10.9.9.7"})[0]
                for n in range(2000)]
    took = time.monotonic() - started
    counts = {status: statuses.count(status) for status in sorted(set(statuses))}
    print(f"guessing: 2000 moves with made-up tokens from one address in {took:.1f} s answered {counts}")
    # Three rounds in turn, so that a change of the machine's own load falls on each alike.
    rounds = [[players_beside(others) for others in (None, guess, read)] for _ in range(3)]
    alone, guessers, readers = ([round(phase[0]) for phase in phases] for phases in zip(*rounds))
    guesses, reads = (round(statistics.median(phase[1] for phase in phases)) for phases in list(zip(*rounds))[1:])
    print(f"guessing: 8 players' moves a second, in 3 rounds: alone {alone}, median {statistics.median(alone)}; "
          f"beside 8 guessing clients ({guesses} requests a second) {guessers}, median {statistics.median(guessers)}; "
          f"beside 8 reading clients ({reads} a second) {readers}, median {statistics.median(readers)}")
    server.stop()


def hints():
    server = Server()
    created = request("POST", "/api/v1/games", {"hints": True})[1]
    game = created["game"]["id"]
    joined = request("POST", f"/api/v1/games/{game}/join")[1]
    seats = {"X": created["seat"]["token"], "O": joined["seat"]["token"]}
    answers = {
        "a spectator": request("GET", f"/api/v1/games/{game}/hint")[0],
        "X, to act": request("GET", f"/api/v1/games/{game}/hint", None,
                             {"Authorization": f"Bearer {seats['X']}"})[0],
        "O, waiting": request("GET", f"/api/v1/games/{game}/hint", None,
                              {"Authorization": f"Bearer {seats['O']}"})[0],
    }
    print(f"hints: in a game between people with hints, a hint asked by {answers}")
    server.stop()


def scrape():
    """The series of /metrics (its lines that are not comments) and its size."""
    text = request("GET", "/metrics")[1]
    text = text.decode() if isinstance(text, bytes) else str(text)
    series = [line for line in text.splitlines() if line and not line.startswith("#")]
    return len(series), len(text.encode())


def metrics():
    server = Server({"CREATE_RATE_LIMIT": "0"})
    game = request("POST", "/api/v1/games", {})[1]["game"]["id"]
    before = scrape()
    tails = ["", "/join", "/moves", "/collapses", "/resign", "/abort", "/rematch", "/log", "/transcript",
             "/legal", "/hint", "/analysis", "/x"]
    paths = ([f"/api/v1/games/{game}{tail}" for tail in tails] + [f"/api/v1/games/99999{tail}" for tail in tails]
             + ["/api/v1/games", "/api/v1/games/abc", "/healthz", "/readyz", "/reset", "/move", "/nothing",
                "/api-docs/openapi.json", "/swagger-ui/", "/metrics"])
    bodies = [None, {}, {"squares": [0, 0]}, "a string"]
    sent = 0
    for path in paths:
        for method in ("GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD", "TRACE"):
            for body in bodies:
                try:
                    request(method, path, body, {"Authorization": "Bearer wrong"} if body == {} else None,
                            timeout=5)
                except (OSError, ValueError, IndexError):
                    pass
                sent += 1
    after = scrape()
    print(f"metrics: {sent} requests over every route, method and error: series {before[0]} "
          f"({before[1] / 1000:.0f} KB scraped) -> {after[0]} ({after[1] / 1000:.0f} KB)")
    server.stop()


def watch(game, seconds):
    """Holds a live stream of `game` open for `seconds`, reading what comes."""
    connection = socket.create_connection(("127.0.0.1", PORT))
    connection.sendall(f"GET /api/v1/games/{game}/events HTTP/1.1\r\nHost: qttt\r\n\r\n".encode())
    connection.settimeout(1)
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            if not connection.recv(65536):
                break
        except OSError:
            pass
    connection.close()


def wal():
    server = Server({"TRUSTED_PROXIES": "127.0.0.1", "CREATE_RATE_LIMIT": "0", "MAX_LIVE_STREAMS_PER_ADDRESS": "1000"},
                    open_files=20000)
    wal_file = f"{server.folder.name}/qttt.db-wal"

    def size():
        return os.path.getsize(wal_file) / 1e6 if os.path.exists(wal_file) else 0.0

    games = [request("POST", "/api/v1/games", {})[1]["game"]["id"] for _ in range(50)]
    watchers = [threading.Thread(target=watch, args=(games[n % 50], 60)) for n in range(500)]
    for watcher in watchers:
        watcher.start()
    moves = multiprocessing.Value("i", 0)
    players = [multiprocessing.Process(target=play, args=(60, moves)) for _ in range(8)]
    for player in players:
        player.start()
    largest = 0.0
    while any(player.is_alive() for player in players):
        largest = max(largest, size())
        time.sleep(0.5)
    for watcher in watchers:
        watcher.join()
    database = os.path.getsize(f"{server.folder.name}/qttt.db") / 1e6
    time.sleep(60)
    print(f"wal: 500 watchers and 8 players ({moves.value} moves) for 60 s: the WAL at most {largest:.1f} MB "
          f"(the database {database:.1f} MB), {size():.1f} MB a minute after")
    server.stop()


FINDINGS = {"timeouts": timeouts, "rows": rows, "heads": heads, "private": private, "guessing": guessing,
            "hints": hints, "metrics": metrics, "wal": wal}

if __name__ == "__main__":
    for name in sys.argv[2:] or FINDINGS:
        FINDINGS[name]()
