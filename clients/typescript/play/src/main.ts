// The play page: the lobby at /play, a game at /play?game=ID (with &invite=
// for a private game's link, and #seat=X.token to carry a seat to another
// device), a puzzle at /play?puzzle=ID (or next or daily, with &variant=), a
// player's profile at /play?player=NAME, a leaderboard at
// /play?leaderboard=VARIANT, an arena at /play?arena=ID, and the lessons at
// /play?learn (=N for lesson N). It is built with qttt-client only, and is the
// example a frontend developer reads first.

import { QtttClient, type Game } from "../../src/index.js";
import { Account } from "./account.js";
import { arenaScreen } from "./arena.js";
import { explain } from "./advice.js";
import { html } from "./dom.js";
import { GameScreen } from "./game.js";
import { learnScreen } from "./learn.js";
import { lobby } from "./lobby.js";
import { leaderboardScreen, profileScreen } from "./profile.js";
import { PuzzleScreen, puzzleAddress } from "./puzzle.js";
import { type HeldSeat, credentialsOf, heldSeat, holdSeat, seatInFragment } from "./seats.js";

async function start(): Promise<void> {
  const client = new QtttClient({ baseUrl: location.origin });
  const root = document.getElementById("app");
  if (root === null) {
    return;
  }
  const account = new Account(client);
  const show = (screen: HTMLElement): void => root.replaceChildren(account.element, screen);
  const query = new URLSearchParams(location.search);
  const puzzle = query.get("puzzle");
  const player = query.get("player");
  const leaderboard = query.get("leaderboard");
  const arena = Number(query.get("arena"));
  const id = Number(query.get("game"));
  if (query.has("learn")) {
    show(learnScreen(client, Number(query.get("learn") || "1") - 1));
  } else if (puzzle !== null) {
    show(await puzzleScreen(client, puzzle, query.get("variant") === "measurement" ? "measurement" : "player_choice"));
  } else if (player !== null) {
    show(await profileScreen(client, account, player));
  } else if (query.has("arena") && Number.isSafeInteger(arena) && arena > 0) {
    show(await arenaScreen(client, account, arena));
  } else if (leaderboard !== null) {
    show(await leaderboardScreen(client, leaderboard === "measurement" ? "measurement" : "player_choice"));
  } else if (!query.has("game") || !Number.isSafeInteger(id) || id <= 0) {
    show(lobby(client, account));
  } else {
    show(await gameScreen(client, account, id, query.get("invite") ?? undefined));
  }
}

/** The screen of game `id`, with the seat this browser holds in it, if any. */
async function gameScreen(client: QtttClient, account: Account, id: number, invite: string | undefined): Promise<HTMLElement> {
  const carried = seatInFragment(location.hash);
  if (carried !== null) {
    holdSeat(id, carried);
    history.replaceState(null, "", location.pathname + location.search);
  }
  let seat = heldSeat(id);
  try {
    let game: Game;
    const player = account.player;
    if (seat === null && player !== null) {
      // A game of the player's (from another device, a seek or a challenge):
      // their token acts for its seat. A private game is read with it alone.
      game = await client.game(id, invite === undefined ? {} : { invite }).catch(() => client.game(id, { token: player.token }));
      seat = seatOf(game, player.name, player.token);
    } else {
      game = await client.game(id, credentialsOf(seat, invite));
    }
    return new GameScreen(client, game, seat, invite).element;
  } catch (error) {
    return html("main", {}, html("h1", {}, `Game ${id}`), html("p", { role: "alert" }, explain(error)), html("a", { href: "/play" }, "To the lobby"));
  }
}

/** The seat the player named `name` holds in `game`, acted for with their `token`. */
function seatOf(game: Game, name: string, token: string): HeldSeat | null {
  const player = game.seats.X?.name === name ? "X" : game.seats.O?.name === name ? "O" : null;
  return player === null ? null : { player, token };
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
