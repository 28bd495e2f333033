"""The play page in headless Chromium, against a real server: two people play
each variant through a private game's link, then a rematch; a third plays the
perfect bot; a fourth fails a puzzle, then solves it; two become players, are
paired for a rated game, challenge each other and claim a game walked away
from. Every step checks what the page shows against what the API says.

Run from the repository's root, after `cargo build`:
    python3 -m unittest discover -s clients/typescript/play/test -v
QTTT_BIN names the server's binary (default target/debug/qttt), QTTT_TEST_CHROMIUM
the browser (default chromium), QTTT_TEST_SCREENSHOTS a folder for the
screenshots (default the system's temporary folder). Needs
pip's playwright; it drives the system's Chromium, never a browser of its own.
"""

import json
import os
import re
import shutil
import socket
import subprocess
import tempfile
import time
import unittest
import urllib.request
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

ROOT = Path(__file__).resolve().parents[4]
BINARY = os.environ.get("QTTT_BIN", str(ROOT / "target" / "debug" / "qttt"))
CHROMIUM = shutil.which(os.environ.get("QTTT_TEST_CHROMIUM", "chromium"))
SCREENSHOTS = Path(os.environ.get("QTTT_TEST_SCREENSHOTS", tempfile.gettempdir()))

# The board's score is told only of an end by the rules.
END = re.compile(r"^(You won|You lost|Draw) ((by lines|on a full board)\. Score: X [\d.]+, O [\d.]+|by resignation)\.$")
WINNERS = {"x_wins": "X", "o_wins": "O", "draw": None}
# The result as a spectator reads it.
RESULTS = {"x_wins": "X wins", "o_wins": "O wins", "draw": "Draw"}
REASONS = {"lines": "by lines", "full_board": "on a full board", "resignation": "by resignation"}

# What the page shows, read from its DOM: each square's marks, and each edge
# of the entanglement graph with whether it is highlighted as the cycle.
SHOWN = """() => ({
  squares: [...document.querySelectorAll('.board button')].map((b) => [...b.querySelectorAll('span')].map((s) => s.textContent)),
  edges: [...document.querySelectorAll('svg[role=img][aria-label="Entanglement graph"] [data-move]')]
    .map((e) => [Number(e.dataset.move), e.classList.contains('cycle')]),
})"""

# What overlaps in the entanglement graph: a label over another label or over a
# node, an edge through a node that is not one of its ends.
GRAPH_CLASHES = """() => {
  const graph = document.querySelector('svg[role=img][aria-label="Entanglement graph"]');
  if (graph === null) return [];
  const nodes = [...graph.querySelectorAll('.node circle')].map((c) => ['cx', 'cy', 'r'].map((name) => Number(c.getAttribute(name))));
  const labels = [...graph.querySelectorAll('.edge text')].map((t) => [t.textContent, t.getBBox()]);
  const clashes = [];
  labels.forEach(([name, box], i) => {
    for (const [other, next] of labels.slice(i + 1)) {
      if (box.x < next.x + next.width && next.x < box.x + box.width && box.y < next.y + next.height && next.y < box.y + box.height) clashes.push(`${name} over ${other}`);
    }
    nodes.forEach(([x, y, r], square) => {
      const dx = Math.max(box.x - x, 0, x - box.x - box.width), dy = Math.max(box.y - y, 0, y - box.y - box.height);
      if (Math.hypot(dx, dy) < r) clashes.push(`${name} over square ${square}`);
    });
  });
  for (const path of graph.querySelectorAll('.edge path')) {
    const length = path.getTotalLength();
    const ends = [path.getPointAtLength(0), path.getPointAtLength(length)];
    nodes.forEach(([x, y, r], square) => {
      if (ends.some((end) => Math.hypot(end.x - x, end.y - y) < 1)) return;
      for (let step = 1; step < 40; step++) {
        const point = path.getPointAtLength((length * step) / 40);
        if (Math.hypot(point.x - x, point.y - y) < r) { clashes.push(`${path.parentNode.textContent} through square ${square}`); break; }
      }
    });
  }
  return clashes;
}"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_until(check, what: str, seconds: float = 20):
    """Polls `check` until it answers something true, and answers it."""
    deadline = time.monotonic() + seconds
    while True:
        answer = check()
        if answer:
            return answer
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def result_text(game: dict, words: str) -> str:
    """The status line at `game`'s end, its result said as `words`."""
    if game["end"]["reason"] not in ("lines", "full_board"):
        return f"{words} {REASONS[game['end']['reason']]}."
    return f"{words} {REASONS[game['end']['reason']]}. Score: X {game['score']['X']:g}, O {game['score']['O']:g}."


def status(page: Page) -> str:
    return page.get_by_role("status").inner_text().strip()


def game_id(page: Page) -> int:
    return int(re.search(r"[?&]game=(\d+)", page.url).group(1))


class PlayPage(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.folder = tempfile.TemporaryDirectory()
        port = free_port()
        cls.base = f"http://127.0.0.1:{port}"
        # A claim opens a second after the other player is gone, not a minute.
        env = dict(os.environ, HOST="127.0.0.1", PORT=str(port), RUST_LOG="warn", CREATE_RATE_LIMIT="0",
                   DATABASE_URL=f"sqlite:{cls.folder.name}/qttt.db", RANDOM_SEED="7", CLAIM_AFTER_SECONDS="1")
        # The bots' rated games against each other, so that the leaderboards list somebody.
        subprocess.run([BINARY, "ladder", "--games", "20"], env=env, check=True, stdout=subprocess.DEVNULL)
        cls.server = subprocess.Popen([BINARY, "serve"], env=env)
        wait_until(lambda: cls.ready(), "the server to be ready")
        cls.playwright = sync_playwright().start()
        assert CHROMIUM, "no chromium on PATH"
        cls.browser = cls.playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])

    @classmethod
    def tearDownClass(cls):
        cls.browser.close()
        cls.playwright.stop()
        cls.server.terminate()
        cls.server.wait(10)
        cls.folder.cleanup()

    @classmethod
    def ready(cls) -> bool:
        try:
            return urllib.request.urlopen(f"{cls.base}/readyz", timeout=2).status == 200
        except OSError:
            return False

    def setUp(self):
        self.complaints = []
        self.invites = {}

    def tearDown(self):
        self.assertEqual(self.complaints, [], "console errors or refusals of the security policy")

    def open_page(self, width: int = 1100, height: int = 900) -> Page:
        """A page in a browser context of its own (its own localStorage: its own seats)."""
        page = self.browser.new_context(viewport={"width": width, "height": height}).new_page()
        page.on("console", lambda message: message.type in ("error", "warning") and self.complaints.append(message.text))
        page.on("pageerror", lambda error: self.complaints.append(str(error)))
        return page

    def api(self, path: str, token: str | None = None) -> dict:
        """The API's answer to a GET of `path` (under /api/v1), with `token` as the bearer."""
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        request = urllib.request.Request(f"{self.base}/api/v1{path}", headers=headers)
        with urllib.request.urlopen(request, timeout=10) as answer:
            return json.load(answer)

    def become_player(self, page: Page, name: str) -> str:
        """Makes `page`'s person the player `name`; answers their token, as the page shows it."""
        page.goto(f"{self.base}/play")
        page.get_by_label("Player name").fill(name)
        page.get_by_role("button", name="Become a player").click()
        page.locator("header").get_by_role("link", name=name, exact=True).wait_for()
        page.locator("summary", has_text="Your token").click()
        return page.get_by_label("Your token").input_value()

    def positions(self, id: int) -> list[dict]:
        """Game `id` as it stood after each of its actions, as its finished stream tells it."""
        with urllib.request.urlopen(f"{self.base}/api/v1/games/{id}/events", timeout=10) as stream:
            text = stream.read().decode()
        events = [dict(line.split(": ", 1) for line in block.splitlines() if ": " in line) for block in text.split("\n\n")]
        return [json.loads(e["data"])["game"] for e in events if e.get("event") in ("move", "collapse")]

    def marked(self, page: Page, mark: str) -> list[int]:
        """The squares of `page`'s board that carry `data-{mark}="true"`."""
        return page.evaluate(f"() => [...document.querySelectorAll('.board [data-{mark}=true]')].map((b) => Number(b.dataset.square))")

    def api_game(self, page: Page) -> dict:
        """The game `page` shows, as the API gives it (with its link's invite, for a private game)."""
        invite = self.invites.get(game_id(page))
        query = f"?invite={invite}" if invite else ""
        with urllib.request.urlopen(f"{self.base}/api/v1/games/{game_id(page)}{query}", timeout=10) as answer:
            return json.load(answer)

    def assert_shows(self, page: Page, game: dict):
        """`page` shows `game`'s marks, its spooky moves as edges and its pending cycle highlighted."""
        squares = [[cell["classical"]] if cell["classical"] else cell["spooky"] for cell in game["board"]]
        cycle = set((game["pending_collapse"] or {}).get("cycle_moves", []))
        edges = [[move["move"], move["move"] in cycle] for move in game["moves"] if move["landed"] is None]
        expected = {"squares": squares, "edges": edges}
        wait_until(lambda: page.evaluate(SHOWN) == expected, f"the page to show {expected}, not {page.evaluate(SHOWN)}")
        self.assertEqual(page.evaluate(GRAPH_CLASHES), [], "the graph's labels and edges keep clear")

    def create(self, page: Page, variant: str, opponent: str = "", private: bool = False, hints: bool = True, scoring: str = "goff"):
        page.goto(f"{self.base}/")
        self.assertTrue(page.url.endswith("/play"), page.url)
        page.get_by_label("Collapse rule").select_option(variant)
        page.get_by_label("Scoring").select_option(scoring)
        page.get_by_label("Opponent").select_option(opponent)
        if private:
            page.get_by_label("Private").check()
        page.get_by_label("Hints").set_checked(hints)
        page.get_by_role("button", name="Create game").click()
        page.wait_for_url(re.compile(r"/play\?game=\d+$"))
        page.get_by_role("button", name=re.compile(r"^Square 0")).wait_for()

    def play_to_the_end(self, pages: list[Page], cycles: list[int]):
        """Plays on whichever page may act, the first free squares, the first
        outcome of a collapse, checking every page after each action; counts in
        `cycles` the cycle lengths seen highlighted."""
        for _ in range(30):
            acting = wait_until(
                lambda: next((p for p in pages if status(p).startswith("You (")), None)
                or all(END.match(status(p)) for p in pages),
                "a page to act, or the end",
            )
            if acting is True:
                return
            said = status(acting)
            if "collapses" in said:
                game = self.api_game(acting)
                for page in pages:
                    self.assert_shows(page, game)
                cycles.append(len(game["pending_collapse"]["cycle_moves"]))
                outcomes = acting.get_by_role("button", name=re.compile(r"^Outcome: "))
                self.assertEqual(outcomes.count(), 2)
                # Both outcomes are on the screen as the page opens, a phone's too.
                acting.evaluate("window.scrollTo(0, 0)")
                height = acting.viewport_size["height"]
                for box in (outcome.bounding_box() for outcome in outcomes.all()):
                    self.assertLessEqual(box["y"] + box["height"], height, f"an outcome below the screen's edge: {box}")
                outcomes.first.click()
            else:
                free = [b for b in acting.get_by_role("button", name=re.compile(r"^Square \d")).all() if b.is_enabled()]
                free[0].click()
                if len(free) > 1:
                    free[1].click()
            wait_until(lambda: status(acting) != said, f"the page to move on from {said!r}")
            game = self.api_game(acting)
            for page in pages:
                self.assert_shows(page, game)
                self.assert_story(page, game["id"])
        self.fail("the game did not end in 30 actions")

    def assert_story(self, page: Page, id: int):
        """`page`'s move list has an item for each action of game `id`'s log, a
        collapse's naming its chooser and outcome, and the board marks the last
        action's squares."""
        invite = self.invites.get(id)
        log = self.api(f"/games/{id}/log" + (f"?invite={invite}" if invite else ""))
        actions = [e for e in log["entries"] if e["kind"] in ("move", "collapse")]
        items = page.get_by_role("list", name="Moves").locator("li")
        wait_until(lambda: items.count() == len(actions), f"{len(actions)} items in the moves, not {items.count()}")
        players = {e["move"]: e["player"] for e in actions if e["kind"] == "move"}
        for item, entry in zip(items.all_inner_texts(), actions):
            if entry["kind"] == "collapse":
                closing = f"{players[entry['closing_move']]}{entry['closing_move']}"
                told = (f"Measured: {closing} in square {entry['square']} (1 in 2)" if entry["chooser"] == "measurement"
                        else f"{entry['chooser']} chose: {closing} lands in square {entry['square']}")
                self.assertTrue(item.startswith(told), f"{item!r} does not start with {told!r}")
        last = actions[-1]
        marked = sorted(set(last["squares"])) if last["kind"] == "move" else [last["square"]]
        shown = lambda: page.evaluate("() => [...document.querySelectorAll('.board [data-last=true]')].map((b) => Number(b.dataset.square))")
        wait_until(lambda: shown() == marked, f"squares {marked} marked as the last action's, not {shown()}")

    def assert_result(self, pages: dict[str, Page]) -> dict:
        """The page of each seat's holder (`pages`, by seat) states the API's
        result in words, its reason and the score."""
        game = self.api_game(pages["X"])
        winner = WINNERS[game["result"]]
        for seat, page in pages.items():
            words = "Draw" if winner is None else ("You won" if seat == winner else "You lost")
            self.assertEqual(status(page), result_text(game, words))
            self.assertTrue(END.match(status(page)))
        return game

    def test_two_people_play_each_variant_through_the_link_then_a_rematch(self):
        for variant in ["player_choice", "measurement"]:
            with self.subTest(variant=variant):
                x, o = self.open_page(), self.open_page()
                self.create(x, variant, private=True)
                link = x.get_by_label("Share link").input_value()
                self.invites[game_id(x)] = re.search(r"[?&]invite=([^&]+)", link).group(1)
                self.assertTrue(status(x).startswith("Waiting for a player to take O"), status(x))
                o.goto(link)
                o.get_by_role("button", name="Join as O").click()
                wait_until(lambda: status(x) == "You (X) to place move 1", "X's page to see O join")
                # Hints are on unless the creator turned them off: X, to move, may ask.
                x.get_by_role("button", name="Hint").wait_for()
                self.assertEqual(o.get_by_role("img", name="Entanglement graph").count(), 1)
                cycles = []
                self.play_to_the_end([x, o], cycles)
                finished = self.assert_result({"X": x, "O": o})
                if variant == "player_choice":
                    self.assertTrue(cycles and all(length >= 2 for length in cycles), cycles)
                    shot = SCREENSHOTS / "qttt-play-finished.png"
                    x.get_by_role("listitem").first.wait_for()
                    x.screenshot(path=str(shot), full_page=True)
                    print(f"\nscreenshot of a finished game: {shot}")
                # After the end, the analysis: each action of a player, its loss beside it in the moves.
                x.get_by_role("heading", name="Analysis").wait_for()
                moves = x.get_by_role("list", name="Moves").locator("li")
                wait_until(lambda: "loss" in moves.first.inner_text(), "the analysis")
                judged = [item for item in moves.all_inner_texts() if not item.startswith("Measured")]
                self.assertTrue(all(re.search(r"loss [\d.]+", item) for item in judged), judged)
                # The rematch: colours swapped, both pages in the same new game.
                x.get_by_role("button", name="Rematch").click()
                x.wait_for_url(re.compile(r"/play\?game=\d+$"))
                if variant == "player_choice":
                    # Declined, the rematch is called off, and the page of the player who asked says so.
                    o.get_by_role("button", name="Decline rematch").click()
                    wait_until(lambda: status(x) == "The other player declined the rematch.", f"the decline on X's page, not {status(x)!r}")
                    wait_until(lambda: o.locator(".notice").inner_text() == "You declined the rematch.", "the decline told")
                    self.assertTrue(o.get_by_role("button", name="Accept rematch").is_hidden())
                    x.context.close()
                    o.context.close()
                    continue
                o.get_by_role("button", name="Accept rematch").click()
                o.wait_for_url(re.compile(r"/play\?game=\d+$"))
                self.assertEqual(game_id(x), game_id(o))
                self.assertNotEqual(game_id(x), finished["id"])
                wait_until(lambda: status(o) == "You (X) to place move 1", "the rematch, O of the last game as X")
                self.assertIn("O: anonymous (you)", x.locator(".seats").inner_text())
                # In it, X resigns after a move of each.
                self.play_one_move(o)
                self.play_one_move(x)
                # Resigning asks first.
                said = status(o)
                o.get_by_role("button", name="Resign").click()
                o.get_by_role("button", name="Keep playing").click()
                self.assertEqual(status(o), said)
                o.get_by_role("button", name="Resign").click()
                o.get_by_role("button", name="Confirm resignation").click()
                # Each page hears of it on its own way (the answer, the stream), in no set order.
                wait_until(lambda: status(x).startswith("You won by resignation."), "the resignation on O's page")
                wait_until(lambda: status(o).startswith("You lost by resignation."), "the resignation on X's page")
                x.context.close()
                o.context.close()

    def play_one_move(self, page: Page):
        wait_until(lambda: status(page).startswith("You ("), "the page's turn")
        said = status(page)
        free = [b for b in page.get_by_role("button", name=re.compile(r"^Square \d")).all() if b.is_enabled()]
        free[0].click()
        free[1].click()
        wait_until(lambda: status(page) != said, "the move")

    def test_a_person_plays_the_perfect_bot_and_aborts_a_game_nobody_joined(self):
        # On a phone's screen, and the first move from the keyboard alone.
        page = self.open_page(width=390, height=844)
        self.create(page, "player_choice", scoring="narrow_win")
        self.assertEqual(self.api_game(page)["scoring"], "narrow_win")
        self.assertIn("Goff's rule · narrow win", page.get_by_role("heading", level=1).inner_text())
        page.get_by_role("button", name="Abort").click()
        wait_until(lambda: status(page) == "Game aborted by X.", "the abort")
        page.get_by_role("button", name="New game").click()
        page.wait_for_url(re.compile(r"/play$"))
        self.create(page, "player_choice", opponent="perfect", hints=False)
        self.assertIn("O: perfect bot", page.locator(".seats").inner_text())
        self.assertFalse(self.api_game(page)["hints"])
        self.assertEqual(page.get_by_role("button", name="Hint").count(), 0, "a Hint button in a game without hints")
        self.assertLessEqual(page.evaluate("document.documentElement.scrollWidth"), 390, "the page is wider than a phone")
        for square in (0, 4):
            page.get_by_role("button", name=re.compile(rf"^Square {square}")).focus()
            page.keyboard.press("Enter")
        wait_until(lambda: re.match(r"You \(X\)(?! to place move 1$)", status(page)), "the move made from the keyboard, and the bot's answer")
        self.assertIn("X1", page.get_by_role("button", name=re.compile(r"^Square 4")).inner_text())
        page.screenshot(path=str(SCREENSHOTS / "qttt-play-moves.png"), full_page=True)
        cycles = []
        self.play_to_the_end([page], cycles)
        game = self.assert_result({"X": page})
        # Against the perfect bot, X playing the first free squares does not win.
        self.assertNotEqual(game["result"], "x_wins")
        # Stepping back shows the board as it was, graph included; Latest brings it back.
        positions = self.positions(game["id"])
        self.assertEqual(page.get_by_role("list", name="Moves").locator("li").count(), len(positions))
        page.get_by_role("button", name="Previous").click()
        self.assert_shows(page, positions[-2])
        page.keyboard.press("ArrowLeft")
        self.assert_shows(page, positions[-3])
        page.get_by_role("button", name="Latest").click()
        self.assert_shows(page, self.api_game(page))
        # After the end, the position before an action that lost marks the best action.
        analysis = self.api(f"/games/{game['id']}/analysis")
        seqs = [e["seq"] for e in self.api(f"/games/{game['id']}/log")["entries"] if e["kind"] in ("move", "collapse")]
        lost = next(judged for judged in analysis["actions"] if judged["loss"] > 0)
        before = seqs.index(lost["seq"])
        page.get_by_role("button", name="First").click()
        for _ in range(before):
            page.get_by_role("button", name="Next").click()
        if before > 0:
            self.assert_shows(page, positions[before - 1])
        else:
            wait_until(lambda: page.evaluate(SHOWN) == {"squares": [[]] * 9, "edges": []}, "the empty board before the first move")
        best = lost["best"]
        self.assertEqual(self.marked(page, "best"), sorted(best["squares"]) if best["kind"] == "move" else [best["square"]])
        self.assertIn(f"loss {lost['loss']:g}", page.get_by_role("list", name="Moves").locator("li").nth(before).inner_text())
        page.screenshot(path=str(SCREENSHOTS / "qttt-play-analysis.png"), full_page=True)
        page.keyboard.press("End")
        self.assertEqual(self.marked(page, "best"), [])
        # Time to the first board of a game opened afresh, as a spectator.
        watcher = self.open_page()
        started = time.monotonic()
        response = watcher.goto(f"{self.base}/play?game={game['id']}")
        watcher.get_by_role("button", name=re.compile(r"^Square 8")).wait_for()
        print(f"\nfirst board rendered {1000 * (time.monotonic() - started):.0f} ms after navigation")
        self.assertTrue(response.headers["content-security-policy"].startswith("default-src 'none'; script-src 'self';"))
        self.assertEqual(status(watcher), result_text(game, RESULTS[game["result"]]))
        self.assert_shows(watcher, self.api_game(watcher))
        page.context.close()
        watcher.context.close()


    def test_the_lobby_shows_a_game_created_elsewhere_without_a_reload(self):
        watcher, creator = self.open_page(), self.open_page()
        started = time.monotonic()
        watcher.goto(f"{self.base}/play")
        waiting = watcher.get_by_role("region", name="Open games")
        wait_until(lambda: "Loading" not in waiting.inner_text(), "the lobby's first lists")
        print(f"\nlobby and its lists rendered {1000 * (time.monotonic() - started):.0f} ms after navigation")
        # Gone if the page were loaded again.
        watcher.evaluate("window.sameLobby = true")
        self.create(creator, "measurement")
        created = game_id(creator)
        wait_until(lambda: f"Game {created} " in waiting.inner_text(), f"game {created} in the open games")
        watcher.screenshot(path=str(SCREENSHOTS / "qttt-play-lobby.png"), full_page=True)
        self.assertTrue(watcher.evaluate("window.sameLobby === true"), "the lobby was loaded again")
        watcher.context.close()
        creator.context.close()

    def test_a_draw_offered_and_accepted_ends_the_game_by_agreement_on_both_pages(self):
        x, o = self.open_page(), self.open_page()
        self.create(x, "player_choice")
        o.goto(x.get_by_label("Share link").input_value())
        o.get_by_role("button", name="Join as O").click()
        self.play_one_move(x)
        x.get_by_role("button", name="Offer draw").click()
        o.get_by_role("button", name="Decline draw").click()
        wait_until(lambda: x.get_by_role("button", name="Offer draw").is_visible(), "the offer declined on X's page")
        x.get_by_role("button", name="Offer draw").click()
        wait_until(lambda: o.locator(".draw").inner_text() == "The other player offers a draw.", "the offer on O's page")
        o.get_by_role("button", name="Accept draw").click()
        for page in (x, o):
            wait_until(lambda: status(page) == "Draw by agreement.", f"the draw on both pages, not {status(page)!r}")
        self.assertEqual(self.api_game(x)["end"], {"reason": "agreement", "player": "O"})
        x.context.close()
        o.context.close()

    def test_a_clock_under_ten_seconds_shows_tenths_and_is_marked_low(self):
        body = json.dumps({"clock": {"initial_ms": 9000, "increment_ms": 0}, "opponent": {"bot": "random"}, "play_as": "O"}).encode()
        request = urllib.request.Request(f"{self.base}/api/v1/games", data=body, headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as answer:
            created = json.load(answer)["game"]
        page = self.open_page()
        page.goto(f"{self.base}/play?game={created['id']}")
        clock = page.locator('[data-clock="O"]')
        clock.wait_for()
        self.assertRegex(clock.inner_text(), r"^O 0:0\d\.\d$")
        self.assertEqual(clock.get_attribute("data-low"), "true")
        self.assertIn("You are watching this game.", page.locator(".presence").inner_text())
        wait_until(lambda: page.get_by_label("Spectators").inner_text() == "1 watching", "the count of spectators")
        page.context.close()

    def test_every_lesson_is_completed_by_clicking_and_a_wrong_answer_is_told(self):
        page = self.open_page(width=390, height=844)
        page.goto(f"{self.base}/play")
        page.get_by_role("link", name="Learn the game in six short lessons").click()
        squares = lambda *numbers: [page.get_by_role("button", name=re.compile(rf"^Square {n}\b")).click() for n in numbers]
        outcome = lambda name: page.get_by_role("button", name=f"Outcome: {name}").click()
        lessons = [
            ("1. The spooky move", "Your turn: X.", lambda: squares(0, 8)),
            ("2. Entanglement", "Your turn: O.", lambda: squares(0, 5)),
            ("3. A cycle, and its collapse by choice", "Your turn: O.", lambda: outcome("X3 in square 2")),
            ("4. Measurement", "Your turn: X.", lambda: squares(0, 2)),
            ("5. A stem is forced", "Click a square.", lambda: squares(0)),
            ("6. Scoring, and the last square", "Your turn: X.", lambda: squares(8)),
        ]
        for index, (title, ready, answer) in enumerate(lessons):
            page.get_by_role("heading", name=title, level=1).wait_for()
            wait_until(lambda: status(page) == ready, f"{title}: {ready!r}, not {status(page)!r}")
            if index == 0:
                # A wrong answer is told, and the lesson starts again.
                squares(0, 1)
                wait_until(lambda: status(page) == "Not quite: X1 went in squares 0 and 1, not the ends of a diagonal.", "the wrong answer told")
                page.get_by_role("button", name="Try again").click()
                wait_until(lambda: status(page) == ready, "the lesson set up again")
            if index == 4:
                squares(4)
                wait_until(lambda: status(page).startswith("Not quite: Not there: square 4 is in the cycle"), "the wrong square told")
            answer()
            wait_until(lambda: status(page).startswith("Right"), f"{title} done, not {status(page)!r}")
            if index == 2:
                page.screenshot(path=str(SCREENSHOTS / "qttt-play-lesson.png"), full_page=True)
            page.get_by_role("button", name="Next lesson").click()
        wait_until(lambda: status(page).startswith("That was the last lesson"), "the end of the lessons")
        page.context.close()

    def test_a_puzzle_failed_shows_its_solution_and_solved_on_a_second_try(self):
        # Puzzle 923 of a new server, X to choose how O4's cycle lands: O4 in
        # square 0 (X's answer), then X5 in squares 2 and 5 wins whatever O chooses.
        with urllib.request.urlopen(f"{self.base}/api/v1/puzzles/923", timeout=10) as answer:
            puzzle = json.load(answer)
        self.assertEqual(puzzle["transcript"], "X1+(1,9); O2+(1,7); X3+(3,6); O4+(1,9)")
        page = self.open_page()
        page.goto(f"{self.base}/play")
        page.get_by_role("link", name="Today's puzzle").wait_for()
        page.goto(f"{self.base}/play?puzzle=923")
        wait_until(lambda: status(page) == "X to play: find the best collapse", f"the puzzle, not {status(page)!r}")
        self.assert_shows(page, puzzle["position"])
        page.get_by_role("button", name="Outcome: O4 in square 8").click()
        wait_until(lambda: status(page).startswith("Not the best: the solution is below"), "the failure")
        # The line's first action, move 4 landing in square 0, is marked on the puzzle's position.
        self.assert_shows(page, puzzle["position"])
        self.assertEqual(self.marked(page, "best"), [0])
        solution = page.get_by_role("region", name="Solution").locator("li").all_inner_texts()
        self.assertEqual(solution, ["X: move 4 lands in square 0", "X: a move in squares 2 and 5", "O: move 5 lands in square 2"])
        # Stepped through on the board: each step's position, its squares marked as the last, the next one's as the best.
        body = json.dumps({"action": {"kind": "collapse", "move": 4, "square": 8}}).encode()
        request = urllib.request.Request(f"{self.base}/api/v1/puzzles/923/attempts", data=body, headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as answer:
            steps = json.load(answer)["solution"]
        page.get_by_role("button", name="Next").click()
        self.assert_shows(page, steps[0]["position"])
        self.assertEqual((self.marked(page, "last"), self.marked(page, "best")), ([0], [2, 5]))
        page.get_by_role("button", name="O: move 5 lands in square 2").click()
        self.assert_shows(page, steps[2]["position"])
        self.assertEqual((self.marked(page, "last"), self.marked(page, "best")), ([2], []))
        page.get_by_role("button", name="Previous").click()
        self.assert_shows(page, steps[1]["position"])
        self.assertEqual(self.marked(page, "last"), [2, 5])
        page.get_by_role("button", name="Try again").click()
        wait_until(lambda: status(page) == "X to play: find the best collapse", "a new attempt")
        page.get_by_role("button", name="Outcome: O4 in square 0").click()
        wait_until(lambda: status(page) == "Right. X to play: find the best move", "the right collapse")
        for square in (2, 5):
            page.get_by_role("button", name=re.compile(rf"^Square {square}")).click()
        wait_until(lambda: status(page) == "Solved!", f"the solved puzzle, not {status(page)!r}")
        self.assertIn("Answer: O: move 5 lands in square 2.", page.get_by_role("alert").first.inner_text())
        page.context.close()

    def test_two_players_are_paired_for_a_rated_game_then_one_challenges_the_other_and_claims_it(self):
        alice, bob = self.open_page(), self.open_page()
        tokens = {"alice": self.become_player(alice, "alice"), "bob": self.become_player(bob, "bob")}
        self.assertEqual(self.api("/players/me", tokens["alice"])["name"], "alice")
        # Both seek a rated game of Goff's rule without a clock: the second pairs with the first.
        for page in (alice, bob):
            page.get_by_label("Collapse rule").select_option("player_choice")
            page.get_by_label("Clock").select_option("")
            page.get_by_label("Rated").check()
            self.assertTrue(page.get_by_label("Hints").is_disabled())
        alice.get_by_role("button", name="Quick pairing").click()
        alice.get_by_role("button", name="Cancel pairing").wait_for()
        bob.get_by_role("button", name="Quick pairing").click()
        for page in (alice, bob):
            page.wait_for_url(re.compile(r"/play\?game=\d+$"))
            page.get_by_role("button", name=re.compile(r"^Square 0")).wait_for()
        self.assertEqual(game_id(alice), game_id(bob))
        game = self.api_game(alice)
        self.assertEqual((game["rated"], game["variant"], game["clock"]), (True, "player_choice", None))
        seats = {game["seats"]["X"]["name"]: "X", game["seats"]["O"]["name"]: "O"}
        self.assertEqual(set(seats), {"alice", "bob"})
        pages = {seats["alice"]: alice, seats["bob"]: bob}
        self.assertIn(f"{seats['alice']}: alice (1500?)", alice.locator(".seats").inner_text())
        self.play_to_the_end(list(pages.values()), [])
        finished = self.assert_result(pages)
        # Each page shows both seats' rating changes, as the API gives them.
        for page in pages.values():
            for seat in "XO":
                diff = round(finished["seats"][seat]["rating"]["rating_diff"])
                text = f"+{diff}" if diff > 0 else f"−{-diff}" if diff < 0 else "0"
                shown = page.locator(".seat").nth("XO".index(seat)).locator("[data-rating-diff]")
                wait_until(lambda: shown.count() == 1, f"{seat}'s rating change")
                self.assertEqual(shown.inner_text().strip(), text)

        # Alice's profile: her rating moved, and the game is listed.
        started = time.monotonic()
        alice.goto(f"{self.base}/play?player=alice")
        alice.get_by_role("heading", name="alice", level=1).wait_for()
        ratings = alice.get_by_role("table", name="Ratings")
        ratings.wait_for()
        print(f"\nprofile rendered {1000 * (time.monotonic() - started):.0f} ms after navigation")
        profile = self.api("/players/alice")
        row = ratings.get_by_role("row", name=re.compile("^Goff's rule"))
        rating = profile["ratings"]["player_choice"]
        self.assertNotEqual(round(rating["rating"]), 1500)
        self.assertEqual(row.get_by_role("cell").first.inner_text(), f"{round(rating['rating'])}?")
        recent = alice.get_by_role("region", name="Recent games")
        self.assertIn(f"Game {finished['id']} ", recent.inner_text())
        alice.screenshot(path=str(SCREENSHOTS / "qttt-play-profile.png"), full_page=True)

        # The leaderboard lists what the API lists, in its order.
        alice.get_by_role("link", name="Leaderboards").click()
        board = alice.get_by_role("table", name="Leaderboard")
        board.wait_for()
        listed = self.api("/leaderboards/player_choice")["players"]
        self.assertTrue(listed, "the ladder's bots are on it")
        rows = [[cell.strip() for cell in row.split("\t")] for row in board.locator("tbody tr").all_inner_texts()]
        self.assertEqual(rows, [[str(p["rank"]), p["name"] + (" (bot)" if p["bot"] else ""), str(round(p["rating"])), str(p["games"])] for p in listed])

        # Bob waits in the lobby; Alice challenges him from his profile, under complete win, and he accepts there.
        bob.goto(f"{self.base}/play")
        bob.get_by_role("region", name="My games").wait_for()
        alice.goto(f"{self.base}/play?player=bob")
        alice.get_by_label("Scoring").select_option("complete_win")
        alice.get_by_label("Your colour").select_option("X")
        alice.get_by_role("button", name="Challenge", exact=True).click()
        bob.get_by_role("button", name="Accept").click()
        for page in (alice, bob):
            page.wait_for_url(re.compile(r"/play\?game=\d+$"))
        self.assertEqual(game_id(alice), game_id(bob))
        challenged = self.api_game(alice)
        self.assertEqual((challenged["seats"]["X"]["name"], challenged["seats"]["O"]["name"]), ("alice", "bob"))
        self.assertEqual(challenged["scoring"], "complete_win")
        wait_until(lambda: status(alice) == "You (X) to place move 1", "Alice's turn")
        self.play_one_move(alice)

        # On another device, a phone, Alice's token alone finds her games: those the API lists.
        device = self.open_page(width=390, height=844)
        device.goto(f"{self.base}/play")
        device.get_by_label("Player token").fill(tokens["alice"])
        device.get_by_role("button", name="Sign in").click()
        device.locator("header").get_by_role("link", name="alice", exact=True).wait_for()
        mine = device.get_by_role("region", name="My games")
        wait_until(lambda: "Loading" not in mine.inner_text(), "her games")
        listed = [g["id"] for g in self.api("/players/me/games", tokens["alice"])["games"]]
        self.assertEqual(listed, [challenged["id"], finished["id"]])
        self.assertEqual(mine.locator("li").all_inner_texts(), [
            f"Game {challenged['id']} · Goff's rule, complete win · vs bob · their turn",
            f"Game {finished['id']} · Goff's rule · vs bob · {'won' if finished['result'] == seats['alice'].lower() + '_wins' else 'draw' if finished['result'] == 'draw' else 'lost'}",
        ])
        self.assertLessEqual(device.evaluate("document.documentElement.scrollWidth"), 390, "the lobby is wider than a phone")
        device.context.close()

        # While Bob is here, no claim; once his pages are closed and he is gone, a countdown, then the claim.
        claim = alice.get_by_role("button", name="Claim victory")
        self.assertFalse(claim.is_visible())
        self.assertEqual(alice.locator(".presence").inner_text(), "")
        bob.context.close()
        said = wait_until(lambda: alice.locator(".presence").inner_text(), "the page to see Bob gone", seconds=60)
        self.assertRegex(said, r"^The other player has gone: you may claim the game( in \d+ seconds?)?\.$")
        claim.wait_for(timeout=30_000)
        claim.click()
        wait_until(lambda: status(alice).startswith("You won as the other player walked away."), "the claim")
        alice.context.close()


    def resign(self, page: Page):
        """`page`'s player resigns the game it shows, once it shows it."""
        page.get_by_role("button", name="Resign").click()
        page.get_by_role("button", name="Confirm resignation").click()

    def test_two_players_and_the_perfect_bot_in_an_arena_are_taken_to_their_games_and_back(self):
        alice, bob = self.open_page(), self.open_page()
        self.become_player(alice, "arena_alice")
        self.become_player(bob, "arena_bob")
        # Alice creates an arena that starts now, adds the perfect bot and joins: she is paired with it.
        form = alice.get_by_role("form", name="New arena")
        form.get_by_label("Arena name").fill("Page arena")
        form.get_by_label("Arena rule").select_option("player_choice")
        form.get_by_label("Starts in (minutes)").fill("0")
        form.get_by_label("Bots welcome").check()
        form.get_by_role("button", name="Create arena").click()
        alice.wait_for_url(re.compile(r"/play\?arena=\d+$"))
        arena = int(re.search(r"arena=(\d+)", alice.url).group(1))
        arena_url = re.compile(rf"/play\?arena={arena}$")
        game_url = re.compile(r"/play\?game=\d+$")
        alice.get_by_role("button", name="Add the perfect bot").click()
        alice.locator('tr[data-name="perfect"]').wait_for()
        alice.get_by_role("button", name="Join arena").click()
        alice.wait_for_url(game_url)
        first = game_id(alice)
        self.assertEqual(self.api_game(alice)["arena"], arena)
        alice.get_by_role("link", name="Back to the arena").wait_for()

        # Bob watches the arena's page; its standings move when Alice's game ends, with no reload.
        bob.goto(f"{self.base}/play?arena={arena}")
        standings = bob.get_by_role("table", name="Standings")
        standings.locator('tr[data-name="arena_alice"]').wait_for()
        bob.evaluate("window.unreloaded = true")
        # Alice is brought back to the standings (a page that may move on at once: watched for from before).
        with alice.expect_navigation(url=arena_url, wait_until="commit", timeout=20_000):
            self.resign(alice)
        score = lambda name: standings.locator(f'tr[data-name="{name}"] td.score').inner_text().strip()
        wait_until(lambda: score("perfect") == "2", f"the bot's win in the standings, not {score('perfect')!r}")
        self.assertEqual(standings.locator('tr[data-name="arena_alice"] td.sheet').inner_text(), "0")
        self.assertTrue(bob.evaluate("window.unreloaded === true"), "the standings moved without a reload")
        # Then, alone with the bot, to her next game.
        in_game_after = lambda before: lambda url: game_url.search(url) is not None and int(re.search(r"game=(\d+)", url).group(1)) != before
        alice.wait_for_url(in_game_after(first))
        second = game_id(alice)

        # Bob joins; when Alice's second game ends, the two of them are paired, as she just met the bot.
        bob.get_by_role("button", name="Join arena").click()
        bob.locator('tr[data-name="arena_bob"]').wait_for()
        with alice.expect_navigation(url=arena_url, wait_until="commit", timeout=20_000):
            self.resign(alice)
        for page in (alice, bob):
            page.wait_for_url(in_game_after(second))
        self.assertEqual(game_id(bob), game_id(alice))
        game = self.api_game(alice)
        self.assertEqual(({game["seats"]["X"]["name"], game["seats"]["O"]["name"]}, game["arena"]), ({"arena_alice", "arena_bob"}, arena))
        # Bob resigns: both go back to the standings, which count three games.
        wait_until(lambda: bob.get_by_role("button", name="Resign").is_visible(), "Bob's game")
        with alice.expect_navigation(url=arena_url, wait_until="commit", timeout=20_000):
            with bob.expect_navigation(url=arena_url, wait_until="commit", timeout=20_000):
                self.resign(bob)
        listed = self.api(f"/arenas/{arena}")
        self.assertEqual(sum(len(standing["sheet"]) for standing in listed["standings"]), 6, listed["standings"])
        watcher = self.open_page()
        watcher.goto(f"{self.base}/play?arena={arena}")
        watcher.locator('tr[data-name="arena_bob"]').wait_for()
        watcher.screenshot(path=str(SCREENSHOTS / "qttt-play-arena.png"), full_page=True)
        watcher.context.close()
        alice.context.close()
        bob.context.close()

if __name__ == "__main__":
    unittest.main()
