// The lobby: becoming a player or signing in, one's own games, a form that
// creates a game or finds an opponent at once, and the public games waiting
// for a second player (to join) or being played (to watch), read again while
// the page is shown.

import type { QtttClient, Schemas } from "../../src/index.js";
import { type Account, signIn } from "./account.js";
import { arenasSection } from "./arena.js";
import { explain } from "./advice.js";
import { button, choice, html } from "./dom.js";
import { CLOCKS, RULES, SCORINGS, clockName, gameAddress, profileAddress, ratingText, resultFor, rulesName, seatNamed } from "./links.js";
import { puzzleAddress } from "./puzzle.js";
import { holdSeat } from "./seats.js";

/** How often the lobby's lists are read again while the page is shown. */
const LISTS_EVERY_MS = 3000;
/** How often a seek that waits is read again, in case its pairing went unheard. */
const SEEK_EVERY_MS = 5000;

/**
 * The terms a form's labelled controls choose, as every form that asks for a
 * game names them (`variant`, `scoring`, `clock`, `rated`): a new game's, a seek's and a
 * challenge's.
 */
export function termsOf(fields: FormData): Schemas["SeekRequest"] {
  const clock = /^(\d+)\+(\d+)$/.exec(String(fields.get("clock")));
  return {
    variant: fields.get("variant") as Schemas["VariantName"],
    scoring: fields.get("scoring") as Schemas["ScoringName"],
    rated: fields.get("rated") !== null,
    clock: clock === null ? null : { initial_ms: Number(clock[1]) * 1000, increment_ms: Number(clock[2]) * 1000 },
  };
}

/** Who plays `game`: each player's name as a link, with their rating in a rated game, and the bot. */
function players(game: Schemas["GameSummary"]): (Node | string)[] {
  const named = (["X", "O"] as const).flatMap((seat) => {
    const name = game.players[seat];
    const rating = game.ratings[seat];
    return name === null ? [] : [[`${seat} `, html("a", { href: profileAddress(name) }, name), rating === null ? "" : ` (${ratingText(rating)})`]];
  });
  const people = named.length === 0 ? ["anonymous"] : named.flatMap((parts, index) => (index === 0 ? parts : [" vs ", ...parts]));
  return game.bot === null ? people : [...people, ` vs the ${game.bot} bot`];
}

/** What `games` lists, as a list of rows with `action`'s button. */
function gameRows(games: Schemas["GameSummary"][], action: (game: Schemas["GameSummary"]) => HTMLElement): HTMLElement {
  if (games.length === 0) {
    return html("p", {}, "None now.");
  }
  return html(
    "ul",
    { class: "games" },
    ...games.map((game) =>
      html(
        "li",
        {},
        `Game ${game.id} · ${rulesName(game)} · ${clockName(game.clock)}${game.rated ? " · rated" : ""} · `,
        ...players(game),
        " ",
        action(game),
      ),
    ),
  );
}

/** The lobby's screen. */
export function lobby(client: QtttClient, account: Account): HTMLElement {
  const notice = html("p", { class: "notice", role: "alert" });
  const playing = account.playing;
  const rated = html("input", { type: "checkbox", name: "rated" });
  const hints = html("input", { type: "checkbox", name: "hints", checked: true });
  // A rated game gives no hints.
  rated.addEventListener("change", () => {
    hints.disabled = rated.checked;
    hints.checked = !rated.checked;
  });
  const pairing = html("div", { class: "pairing", role: "status" });
  const seeking = html("p", { class: "or" });
  const form = html(
    "form",
    { class: "create", "aria-label": "New game" },
    html("h2", {}, "New game"),
    choice("Collapse rule", "variant", RULES),
    choice("Scoring", "scoring", SCORINGS),
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
    playing === null ? "" : html("label", { class: "check" }, rated, "Rated: the result changes both ratings"),
    html("label", { class: "check" }, hints, "Hints: the perfect player's advice on request"),
    html("label", { class: "check" }, html("input", { type: "checkbox", name: "private" }), "Private: only the link lets a person in"),
    html("button", { type: "submit" }, "Create game"),
    playing === null ? "" : seeking,
    pairing,
  );
  seeking.append("or, with the rules, clock and ratedness above, ", quickPairing(account, form, pairing));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const fields = new FormData(form);
    const request: Schemas["CreateGameRequest"] = {
      ...termsOf(fields),
      play_as: fields.get("play_as") as Schemas["PlayerName"],
      private: fields.get("private") !== null,
    };
    if (!request.rated) {
      request.hints = fields.get("hints") !== null;
    }
    const bot = fields.get("opponent");
    if (bot === "perfect" || bot === "parasite" || bot === "random") {
      request.opponent = { bot };
    }
    (playing ?? client).createGame(request).then(
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
  const ongoing = html("section", { "aria-label": "Games being played" }, html("h2", {}, "Games being played"), html("p", {}, "Loading…"));
  const watch = (game: Schemas["GameSummary"]): HTMLElement => html("a", { href: gameAddress(game.id) }, "Watch");
  const join = (game: Schemas["GameSummary"]): HTMLElement =>
    button(`Join game ${game.id}`, () => {
      (playing ?? client).joinGame(game.id).then(
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
    [ongoing, "ongoing", watch],
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
    html("p", { class: "learn-link" }, "New to it? ", html("a", { href: "/play?learn" }, "Learn the game in six short lessons"), ", each played on a real board."),
    playing === null ? becoming(client) : myGames(account),
    form,
    arenasSection(client, account),
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
    ongoing,
    html("p", { class: "foot" }, html("a", { href: "/docs" }, "The API, in Swagger UI")),
  );
}

/** Becoming a player with a name (or one drawn), or signing in with a token from another device. */
function becoming(client: QtttClient): HTMLElement {
  const notice = html("p", { class: "notice", role: "alert" });
  const name = html("input", { type: "text", name: "name", autocomplete: "nickname", maxlength: 20, placeholder: "empty: one is drawn for you" });
  const token = html("input", { type: "text", name: "token", autocomplete: "off" });
  const become = html("form", { class: "inline" }, html("label", {}, "Player name", name), html("button", { type: "submit" }, "Become a player"));
  const enter = html("form", { class: "inline" }, html("label", {}, "Player token", token), html("button", { type: "submit" }, "Sign in"));
  const started = (promise: Promise<unknown>): void => {
    promise.then(
      () => location.reload(),
      (error: unknown) => (notice.textContent = explain(error)),
    );
  };
  become.addEventListener("submit", (event) => {
    event.preventDefault();
    const wanted = name.value.trim();
    started(client.createPlayer(wanted === "" ? undefined : wanted).then((created) => signIn(client, created.token)));
  });
  enter.addEventListener("submit", (event) => {
    event.preventDefault();
    started(signIn(client, token.value.trim()));
  });
  return html(
    "section",
    { "aria-label": "Player", id: "player" },
    html("h2", {}, "Play as a player"),
    html("p", {}, "A player keeps a name, a rating and their games on every device; no password, no e-mail. Or just play: a game needs neither."),
    become,
    enter,
    notice,
  );
}

/** A signed-in player's games: those going on first, with whose turn it is, then the last finished. */
function myGames(account: Account): HTMLElement {
  const section = html("section", { "aria-label": "My games" }, html("h2", {}, "My games"), html("p", {}, "Loading…"));
  const playing = account.playing;
  const player = account.player;
  if (playing === null || player === null) {
    return section;
  }
  const turn = async (game: Schemas["GameSummary"]): Promise<string> => {
    if (game.status === "waiting") {
      return "waiting for a player";
    }
    const view = await playing.game(game.id);
    const mine = view.seats.X?.name === player.name ? "X" : "O";
    return view.to_act?.player === mine ? "your turn" : "their turn";
  };
  const line = (game: Schemas["GameSummary"], state: string): HTMLElement => {
    const other = game.players[seatNamed(game, player.name) === "X" ? "O" : "X"] ?? (game.bot === null ? "anonymous" : `the ${game.bot} bot`);
    return html("li", {}, html("a", { href: gameAddress(game.id) }, `Game ${game.id}`), ` · ${rulesName(game)} · vs ${other} · ${state}`);
  };
  Promise.all([playing.myGames({ status: "ongoing", limit: 10 }), playing.myGames({ status: "waiting", limit: 5 }), playing.myGames({ status: "finished", limit: 5 })])
    .then(async ([ongoing, waiting, finished]) => {
      const current = [...ongoing.games, ...waiting.games];
      const states = await Promise.all(current.map(turn));
      const done = finished.games.map((game) => line(game, resultFor(game, seatNamed(game, player.name))));
      const items = [...current.map((game, index) => line(game, states[index] ?? "")), ...done];
      section.replaceChildren(section.firstChild ?? "", items.length === 0 ? html("p", {}, "None yet.") : html("ul", { class: "games" }, ...items));
    })
    .catch((error: unknown) => section.replaceChildren(section.firstChild ?? "", html("p", {}, explain(error))));
  return section;
}

/** The button that seeks a game on `form`'s terms, and waits for the pairing, telling it in `shown`. */
function quickPairing(account: Account, form: HTMLFormElement, shown: HTMLElement): HTMLButtonElement {
  const playing = account.playing;
  let seek: number | null = null;
  let timer: ReturnType<typeof setInterval> | undefined;
  const stop = (said: string): void => {
    seek = null;
    clearInterval(timer);
    shown.replaceChildren(said);
    pair.hidden = false;
  };
  const check = (): void => {
    if (seek === null || playing === null) {
      return;
    }
    playing.getSeek(seek).then(
      (view) => {
        if (view.status === "paired" && view.game_id !== null) {
          location.assign(gameAddress(view.game_id));
        } else if (view.status !== "open") {
          stop("Nobody came in time: try again.");
        }
      },
      (error: unknown) => stop(explain(error)),
    );
  };
  account.listen((kind) => {
    if (kind === "game_start") {
      check();
    }
  });
  const pair = button("Quick pairing", () => {
    if (playing === null) {
      return;
    }
    playing.seek(termsOf(new FormData(form))).then(
      (view) => {
        if (view.status === "paired" && view.game_id !== null) {
          location.assign(gameAddress(view.game_id));
          return;
        }
        seek = view.id;
        pair.hidden = true;
        const id = view.id;
        shown.replaceChildren(
          `Looking for an opponent: ${rulesName(view)}, ${clockName(view.clock)}, ${view.rated ? "rated" : "casual"}… `,
          button("Cancel pairing", () => {
            playing.cancelSeek(id).then(
              () => stop("Pairing cancelled."),
              () => check(),
            );
          }),
        );
        timer = setInterval(check, SEEK_EVERY_MS);
      },
      (error: unknown) => shown.replaceChildren(explain(error)),
    );
  });
  return pair;
}
