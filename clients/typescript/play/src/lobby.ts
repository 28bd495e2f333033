// The lobby: a form that creates a game, and the public games waiting for a
// second player (to join) or being played (to watch).

import type { QtttClient, Schemas } from "../../src/index.js";
import { explain } from "./advice.js";
import { button, html } from "./dom.js";
import { gameAddress } from "./game.js";
import { puzzleAddress } from "./puzzle.js";
import { holdSeat } from "./seats.js";

/** The clocks offered, as `initial+increment` in seconds; "" for none. */
const CLOCKS: [string, string][] = [
  ["", "No clock"],
  ["60+1", "1 min + 1 s"],
  ["180+2", "3 min + 2 s"],
  ["600+5", "10 min + 5 s"],
];

/** How often the lobby's lists are read again while the page is shown. */
const LISTS_EVERY_MS = 3000;

/** A labelled select of `options` (value, text). */
function choice(label: string, name: string, options: [string, string][]): HTMLLabelElement {
  return html("label", {}, label, html("select", { name }, ...options.map(([value, text]) => html("option", { value }, text))));
}

/** What `games` lists, as a list of rows with `action`'s button. */
function gameRows(games: Schemas["GameSummary"][], action: (game: Schemas["GameSummary"]) => HTMLElement): HTMLElement {
  if (games.length === 0) {
    return html("p", {}, "None now.");
  }
  return html(
    "ul",
    { class: "games" },
    ...games.map((game) => {
      const players = [game.players.X, game.players.O].filter((name) => name !== null).join(" vs ");
      return html("li", {}, `Game ${game.id} · ${game.variant === "player_choice" ? "Goff's rule" : "measurement"}${game.rated ? " · rated" : ""}${players === "" ? "" : ` · ${players}`}${game.bot === null ? "" : ` · vs ${game.bot} bot`} `, action(game));
    }),
  );
}

/** The lobby's screen. */
export function lobby(client: QtttClient): HTMLElement {
  const notice = html("p", { class: "notice", role: "alert" });
  const form = html(
    "form",
    { class: "create", "aria-label": "New game" },
    html("h2", {}, "New game"),
    choice("Collapse rule", "variant", [
      ["player_choice", "Goff's rule: the other player chooses"],
      ["measurement", "Measurement: chance chooses"],
    ]),
    choice("Opponent", "opponent", [
      ["", "A person, with a link"],
      ["perfect", "The perfect bot"],
      ["parasite", "The parasite bot"],
      ["random", "The random bot"],
    ]),
    choice("Clock", "clock", CLOCKS),
    choice("Play as", "play_as", [
      ["X", "X (moves first)"],
      ["O", "O"],
    ]),
    html("label", { class: "check" }, html("input", { type: "checkbox", name: "hints", checked: true }), "Hints: the perfect player's advice on request"),
    html("label", { class: "check" }, html("input", { type: "checkbox", name: "private" }), "Private: only the link lets a person in"),
    html("button", { type: "submit" }, "Create game"),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const fields = new FormData(form);
    const request: Schemas["CreateGameRequest"] = {
      variant: fields.get("variant") as Schemas["VariantName"],
      play_as: fields.get("play_as") as Schemas["PlayerName"],
      private: fields.get("private") !== null,
      hints: fields.get("hints") !== null,
    };
    const bot = fields.get("opponent");
    if (bot === "perfect" || bot === "parasite" || bot === "random") {
      request.opponent = { bot };
    }
    const clock = /^(\d+)\+(\d+)$/.exec(String(fields.get("clock")));
    if (clock !== null) {
      request.clock = { initial_ms: Number(clock[1]) * 1000, increment_ms: Number(clock[2]) * 1000 };
    }
    client.createGame(request).then(
      (seated) => {
        holdSeat(seated.game.id, { player: seated.seat.player, token: seated.seat.token, ...(seated.invite ? { invite: seated.invite } : {}) });
        location.assign(gameAddress(seated.game.id));
      },
      (error: unknown) => {
        notice.textContent = explain(error);
      },
    );
  });
  const waiting = html("section", { "aria-label": "Open games" }, html("h2", {}, "Open games"), html("p", {}, "Loading…"));
  const playing = html("section", { "aria-label": "Games being played" }, html("h2", {}, "Games being played"), html("p", {}, "Loading…"));
  const watch = (game: Schemas["GameSummary"]): HTMLElement => html("a", { href: gameAddress(game.id) }, "Watch");
  const join = (game: Schemas["GameSummary"]): HTMLElement =>
    button(`Join game ${game.id}`, () => {
      client.joinGame(game.id).then(
        (seated) => {
          holdSeat(game.id, { player: seated.seat.player, token: seated.seat.token });
          location.assign(gameAddress(game.id));
        },
        (error: unknown) => {
          notice.textContent = explain(error);
        },
      );
    });
  const lists = [
    [waiting, "waiting", join],
    [playing, "ongoing", watch],
  ] as const;
  // What each list shows, as the API answered it.
  const shown = lists.map(() => "");
  const readLists = (): void => {
    lists.forEach(([section, status, action], index) => {
      client.games({ status, limit: 20 }).then(
        (list) => {
          // Drawn again only when it changed, so that a focused button stays.
          const seen = JSON.stringify(list.games);
          if (seen !== shown[index]) {
            shown[index] = seen;
            section.replaceChildren(section.firstChild ?? "", gameRows(list.games, action));
          }
        },
        (error: unknown) => {
          shown[index] = "";
          section.replaceChildren(section.firstChild ?? "", html("p", {}, explain(error)));
        },
      );
    });
  };
  readLists();
  setInterval(() => document.hidden || readLists(), LISTS_EVERY_MS);
  return html(
    "main",
    { class: "lobby" },
    html("h1", {}, "Quantum Tic-Tac-Toe"),
    html("p", {}, "Each move places one mark in two squares at once. Moves that share squares entangle; when they close a cycle, the board collapses."),
    notice,
    form,
    html(
      "section",
      { "aria-label": "Puzzles" },
      html("h2", {}, "Puzzles"),
      html("p", {}, "Positions where one action wins more than every other, found by the perfect player."),
      html(
        "ul",
        { class: "puzzles" },
        html("li", {}, html("a", { href: puzzleAddress("daily", "player_choice") }, "Today's puzzle")),
        html("li", {}, html("a", { href: puzzleAddress("next", "player_choice") }, "A puzzle with Goff's rule")),
        html("li", {}, html("a", { href: puzzleAddress("next", "measurement") }, "A puzzle with measurement")),
      ),
    ),
    waiting,
    playing,
    html("p", { class: "foot" }, html("a", { href: "/docs" }, "The API, in Swagger UI")),
  );
}
