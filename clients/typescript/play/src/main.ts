// The play page: the lobby at /play, a game at /play?game=ID (with &invite=
// for a private game's link, and #seat=X.token to carry a seat to another
// device), a puzzle at /play?puzzle=ID (or next or daily, with &variant=). It
// is built with qttt-client only, and is the example a frontend developer
// reads first.

import { QtttClient } from "../../src/index.js";
import { explain } from "./advice.js";
import { html } from "./dom.js";
import { GameScreen } from "./game.js";
import { lobby } from "./lobby.js";
import { PuzzleScreen, puzzleAddress } from "./puzzle.js";
import { credentialsOf, heldSeat, holdSeat, seatInFragment } from "./seats.js";

async function start(): Promise<void> {
  const client = new QtttClient({ baseUrl: location.origin });
  const root = document.getElementById("app");
  if (root === null) {
    return;
  }
  const query = new URLSearchParams(location.search);
  const puzzle = query.get("puzzle");
  if (puzzle !== null) {
    root.replaceChildren(await puzzleScreen(client, puzzle, query.get("variant") === "measurement" ? "measurement" : "player_choice"));
    return;
  }
  const id = Number(query.get("game"));
  if (!query.has("game") || !Number.isSafeInteger(id) || id <= 0) {
    root.replaceChildren(lobby(client));
    return;
  }
  const carried = seatInFragment(location.hash);
  if (carried !== null) {
    holdSeat(id, carried);
    history.replaceState(null, "", location.pathname + location.search);
  }
  const seat = heldSeat(id);
  const invite = query.get("invite") ?? undefined;
  try {
    const game = await client.game(id, credentialsOf(seat, invite));
    root.replaceChildren(new GameScreen(client, game, seat, invite).element);
  } catch (error) {
    root.replaceChildren(
      html(
        "main",
        {},
        html("h1", {}, `Game ${id}`),
        html("p", { role: "alert" }, explain(error)),
        html("a", { href: "/play" }, "To the lobby"),
      ),
    );
  }
}

/** The screen of puzzle `which` (an id, `next` or `daily`) of `variant`. */
async function puzzleScreen(client: QtttClient, which: string, variant: "measurement" | "player_choice"): Promise<HTMLElement> {
  try {
    const puzzle = which === "next" ? await client.nextPuzzle(variant) : which === "daily" ? await client.dailyPuzzle(variant) : await client.puzzle(Number(which));
    // A reload shows the same puzzle.
    history.replaceState(null, "", puzzleAddress(puzzle.id));
    return new PuzzleScreen(client, puzzle).element;
  } catch (error) {
    return html("main", {}, html("h1", {}, "Puzzle"), html("p", { role: "alert" }, explain(error)), html("a", { href: "/play" }, "To the lobby"));
  }
}

void start();
