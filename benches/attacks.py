#!/usr/bin/env python3
"""What one client can cost a qttt server: the attacks of the hardening issue, each
against a fresh release binary on 127.0.0.1, bounded in count and time.

    python3 benches/attacks.py target/release/qttt

Prints one line per figure. Needs only Python's standard library and Linux's /proc.
"""

import json
import os
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

BINARY = sys.argv[1] if len(sys.argv) > 1 else "target/release/qttt"
PORT = 8731


class Server:
    """The binary on a fresh database, with `env` added to its environment."""

    def __init__(self, env=None, open_files=None, folder=None):
        self.folder = folder or tempfile.TemporaryDirectory()
        variables = dict(os.environ, PORT=str(PORT), RUST_LOG="info",
                         DATABASE_URL=f"sqlite:{self.folder.name}/qttt.db", **(env or {}))
        self.log = open(f"{self.folder.name}/server.log", "w")

        def limit():
            if open_files:
                resource.setrlimit(resource.RLIMIT_NOFILE, (open_files, open_files))

        self.process = subprocess.Popen([BINARY, "serve"], env=variables, stdout=self.log, stderr=self.log,
                                        preexec_fn=limit)
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", PORT), timeout=0.2).close()
                return
            except OSError:
                time.sleep(0.05)
        raise SystemExit("the server did not start")

    def cpu_seconds(self):
        fields = open(f"/proc/{self.process.pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def status(self, field):
        """A number of the process's /proc status, such as its threads or its VmRSS in kB."""
        for line in open(f"/proc/{self.process.pid}/status"):
            if line.startswith(f"{field}:"):
                return int(line.split()[1])

    def threads(self):
        return self.status("Threads")

    def resident_mb(self):
        return self.status("VmRSS") // 1024

    def open_files(self):
        return len(os.listdir(f"/proc/{self.process.pid}/fd"))

    def log_lines(self, level):
        self.log.flush()
        return sum(1 for line in open(self.log.name) if f" {level} " in line)

    def stop(self, keep_database=False):
        self.process.terminate()
        self.process.wait(timeout=15)
        if not keep_database:
            self.folder.cleanup()


def request(method, path, body=None, headers=None, timeout=10.0):
    """One request on its own connection: (status, parsed JSON or text)."""
    connection = socket.create_connection(("127.0.0.1", PORT), timeout=timeout)
    data = b"" if body is None else json.dumps(body).encode()
    head = f"{method} {path} HTTP/1.1\r\nHost: qttt\r\nConnection: close\r\nContent-Length: {len(data)}\r\n"
    head += "Content-Type: application/json\r\n"
    for name, value in (headers or {}).items():
        head += f"{name}: {value}\r\n"
    connection.sendall(head.encode() + b"\r\n" + data)
    answer = b""
    while chunk := connection.recv(65536):
        answer += chunk
    connection.close()
    head, _, text = answer.partition(b"\r\n\r\n")
    status = int(head.split()[1])
    try:
        return status, json.loads(text)
    except ValueError:
        return status, text


def game_out_of_the_book():
    """A game with hints after four moves: each hint is a search of its own."""
    _, created = request("POST", "/api/v1/games", {"variant": "measurement", "hints": True})
    game = created["game"]["id"]
    _, joined = request("POST", f"/api/v1/games/{game}/join")
    tokens = [created["seat"]["token"], joined["seat"]["token"]]
    for number, squares in enumerate([[0, 1], [2, 3], [4, 5], [6, 7]]):
        request("POST", f"/api/v1/games/{game}/moves", {"squares": squares},
                {"Authorization": f"Bearer {tokens[number % 2]}"})
    return game


def abandon(paths):
    """Sends a GET of each path on a connection of its own, and hangs up at once."""
    sockets = []
    for path in paths:
        connection = socket.create_connection(("127.0.0.1", PORT))
        connection.sendall(f"GET {path} HTTP/1.1\r\nHost: qttt\r\n\r\n".encode())
        sockets.append(connection)
    for connection in sockets:
        connection.close()


def watch_and_drop(path, count):
    """Opens `count` live streams of `path`, reads what each sends first, then hangs
    up on all as a browser does (nothing left unread: a FIN, not a reset)."""
    sockets = []
    for _ in range(count):
        try:
            connection = socket.create_connection(("127.0.0.1", PORT), timeout=2)
            connection.sendall(f"GET {path} HTTP/1.1\r\nHost: qttt\r\n\r\n".encode())
            sockets.append(connection)
        except OSError:
            pass
    time.sleep(0.3)
    for connection in sockets:
        is_open(connection)
        connection.close()
    return len(sockets)


def get_latencies(seconds):
    """Milliseconds of each GET of a game, one after another, for `seconds`."""
    game = request("POST", "/api/v1/games")[1]["game"]["id"]
    latencies, end = [], time.monotonic() + seconds
    while time.monotonic() < end:
        started = time.monotonic()
        request("GET", f"/api/v1/games/{game}")
        latencies.append((time.monotonic() - started) * 1000)
    return latencies


def hints():
    server = Server()
    game = game_out_of_the_book()
    threads_before, cpu_before = server.threads(), server.cpu_seconds()
    started = time.monotonic()
    abandon([f"/api/v1/games/{game}/hint"] * 200)
    sent = time.monotonic() - started
    most_threads = threads_before
    for _ in range(20):
        time.sleep(0.1)
        most_threads = max(most_threads, server.threads())
    time.sleep(8)
    print(f"hints: 200 sent and abandoned in {sent:.2f} s; server CPU over the next 10 s "
          f"{server.cpu_seconds() - cpu_before:.2f} s; threads {threads_before} -> at most {most_threads}")
    quiet = get_latencies(3)
    games = [game_out_of_the_book() for _ in range(64)]
    answers, stop = [], time.monotonic() + 8

    def loop(game):
        while time.monotonic() < stop:
            answers.append(request("GET", f"/api/v1/games/{game}/hint", timeout=30)[0])

    loopers = [threading.Thread(target=loop, args=(game,)) for game in games]
    for looper in loopers:
        looper.start()
    time.sleep(1)
    loaded = get_latencies(5)
    for looper in loopers:
        looper.join()
    codes = {code: answers.count(code) for code in sorted(set(answers))}
    print(f"hints: GET of a game alone median {statistics.median(quiet):.1f} ms; with 64 clients looping hints "
          f"median {statistics.median(loaded):.1f} ms, p90 {statistics.quantiles(loaded, n=10)[-1]:.1f} ms; "
          f"hint answers {codes}")
    server.stop()


def streams():
    server = Server()
    game = request("POST", "/api/v1/games")[1]["game"]["id"]
    before = server.open_files()
    started = time.monotonic()
    watch_and_drop(f"/api/v1/games/{game}/events", 1000)
    sent = time.monotonic() - started
    time.sleep(1)
    print(f"streams: 1000 opened (each answered) and dropped in {sent:.2f} s; open files {before} -> "
          f"{server.open_files()} 1 s later")
    server.stop()
    server = Server(open_files=400)
    game = request("POST", "/api/v1/games")[1]["game"]["id"]
    stop = time.monotonic() + 10

    def churn():
        while time.monotonic() < stop:
            watch_and_drop(f"/api/v1/games/{game}/events", 50)

    churners = [threading.Thread(target=churn) for _ in range(7)]
    for churner in churners:
        churner.start()
    unanswered, longest, end = 0, 0.0, time.monotonic() + 8
    while time.monotonic() < end:
        started = time.monotonic()
        try:
            request("GET", "/healthz", timeout=2)
        except OSError:
            unanswered += 1
        longest = max(longest, time.monotonic() - started)
    for churner in churners:
        churner.join()
    print(f"streams: with 400 open files and 350 streams churned, /healthz unanswered {unanswered} times, "
          f"its slowest answer {longest:.2f} s")
    server.stop()


def slow_bodies():
    server = Server()
    connections = []
    for _ in range(1500):
        connection = socket.create_connection(("127.0.0.1", PORT))
        connection.sendall(b"POST /api/v1/games HTTP/1.1\r\nHost: qttt\r\nContent-Type: application/json\r\n"
                           b"Content-Length: 4000\r\n\r\n{\"va")
        connections.append(connection)
    time.sleep(10)
    still_open = sum(is_open(connection) for connection in connections)
    for connection in connections:
        connection.close()
    print(f"slow bodies: of 1500 connections that sent 4 of 4000 bytes, {still_open} still open after 10 s")
    server.stop()


def is_open(connection):
    """Whether the server has not closed `connection`: what it sent is read, and no end follows."""
    connection.setblocking(False)
    try:
        while connection.recv(1 << 16):
            pass
        return False
    except BlockingIOError:
        return True
    except OSError:
        return False


def rows():
    server = Server({"CREATE_RATE_LIMIT": "3"})
    resets = [request("POST", "/reset", {})[0] for _ in range(200)]
    print(f"rows: with CREATE_RATE_LIMIT=3, 200 resets answered {resets.count(200)} x 200, "
          f"{resets.count(429)} x 429")
    server.stop()
    # A lobby of 100 waiting games, then the server restarted with a limit: one
    # client joins every game listed.
    server = Server()
    for _ in range(100):
        request("POST", "/api/v1/games", {})
    folder = server.folder
    server.stop(keep_database=True)
    server = Server({"CREATE_RATE_LIMIT": "10"}, folder=folder)
    listed = request("GET", "/api/v1/games?status=waiting&limit=100")[1]["games"]
    joined = sum(request("POST", f"/api/v1/games/{game['id']}/join")[0] == 201 for game in listed)
    print(f"rows: with CREATE_RATE_LIMIT=10, one client joining the {len(listed)} listed games took {joined}")
    server.stop()


def private_games():
    server = Server()
    created = [request("POST", "/api/v1/games", {"private": True}) for _ in range(5)]
    if not all(status == 201 for status, _ in created):
        print("private games: none here (the body is refused)")
    else:
        listed = len(request("GET", "/api/v1/games?status=waiting&limit=100")[1]["games"])
        joined = sum(request("POST", f"/api/v1/games/{game['game']['id']}/join")[0] == 201 for _, game in created)
        print(f"private games: of 5, {listed} listed and {joined} joined without the invite")
    server.stop()


def malformed_heads():
    server = Server()
    for _ in range(1000):
        connection = socket.create_connection(("127.0.0.1", PORT))
        connection.sendall(b"GET /healthz HTTP/1.1\r\nHost: qttt\r\nX: \x01\r\n\r\n")
        connection.recv(100)
        connection.close()
    time.sleep(0.5)
    print(f"malformed heads: 1000 sent, {server.log_lines('ERROR')} ERROR lines in the log")
    server.stop()


def headers():
    server = Server()
    connection = socket.create_connection(("127.0.0.1", PORT))
    connection.sendall(b"GET /swagger-ui/ HTTP/1.1\r\nHost: qttt\r\nConnection: close\r\n\r\n")
    head = connection.recv(4096).split(b"\r\n\r\n")[0].decode().lower()
    connection.close()
    found = [name for name in ("content-security-policy", "x-content-type-options", "x-frame-options")
             if f"\r\n{name}:" in head]
    print(f"headers: the Swagger UI page carries {found or 'none of the three'}")
    server.stop()


if __name__ == "__main__":
    for attack in (hints, streams, slow_bodies, rows, private_games, malformed_heads, headers):
        attack()
