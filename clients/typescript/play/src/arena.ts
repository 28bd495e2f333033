// Arenas: the lobby's list of those upcoming and running with a form that
// creates one, and an arena's screen at /play?arena=ID, its standings live,
// its countdown, joining and withdrawing; a player is taken to each game the
// arena pairs them into, and a finished arena game brings them back here.

import type { QtttClient, Schemas } from "../../src/index.js";
import type { Account } from "./account.js";
import { explain } from "./advice.js";
import { button, choice, html } from "./dom.js";
import { CLOCKS, RULES, SCORINGS, arenaAddress, clockName, gameAddress, profileAddress, rulesName } from "./links.js";

type Arena = Schemas["ArenaDetail"];

/** The arena scoring, in words, as the page and docs/API.md state it. */
export const SCORING =
  "A win scores 2, a draw 1, a loss 0. After two wins in a row you are on fire: each result counts double until one that is not a win.";

/** The server's bots, which an arena's creator may add. */
const BOTS: Schemas["BotName"][] = ["random", "parasite", "perfect"];

/** How long `ms` milliseconds are, as `m:ss`. */
function minutes(ms: number): string {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}

/** An arena's terms, in a few words. */
function termsLine(arena: Schemas["ArenaView"]): string {
  return `${rulesName(arena)} · ${clockName(arena.clock)} · ${arena.minutes} min · ${arena.rated ? "rated" : "casual"} · ${arena.bots ? "bots welcome" : "people only"}`;
}

/** The lobby's section of arenas, upcoming and running, with a form that creates one for a player. */
export function arenasSection(client: QtttClient, account: Account): HTMLElement {
  const list = html("div", {}, html("p", {}, "Loading…"));
  const read = (): void => {
    Promise.all([client.arenas({ status: "running" }), client.arenas({ status: "upcoming" })]).then(
      ([running, upcoming]) => {
        const arenas = [...running.arenas, ...upcoming.arenas];
        list.replaceChildren(
          arenas.length === 0
            ? html("p", {}, "None now.")
            : html(
                "ul",
                { class: "games" },
                ...arenas.map((arena) =>
                  html("li", {}, html("a", { href: arenaAddress(arena.id) }, arena.name), ` · ${termsLine(arena)} · ${arena.status === "running" ? `ends in ${minutes(arena.remaining_ms)}` : `starts ${new Date(arena.starts_at).toLocaleTimeString()}`}`),
                ),
              ),
        );
      },
      (error: unknown) => list.replaceChildren(html("p", {}, explain(error))),
    );
  };
  read();
  return html("section", { "aria-label": "Arenas" }, html("h2", {}, "Arenas"), html("p", {}, `Tournaments in which whoever is free is paired again at once. ${SCORING}`), list, account.playing === null ? "" : arenaForm(account));
}

/** The form that creates an arena, then goes to it. */
function arenaForm(account: Account): HTMLElement {
  const notice = html("p", { class: "notice", role: "alert" });
  const form = html(
    "form",
    { class: "create", "aria-label": "New arena" },
    html("h3", {}, "New arena"),
    html("label", {}, "Arena name", html("input", { name: "name", required: true, maxlength: "60" })),
    choice("Arena rule", "variant", RULES),
    choice("Scoring", "scoring", SCORINGS),
    choice("Each player's time", "clock", CLOCKS.filter(([value]) => value !== "")),
    html("label", {}, "Minutes", html("input", { name: "minutes", type: "number", min: "1", max: "720", value: "30" })),
    html("label", {}, "Starts in (minutes)", html("input", { name: "starts_in", type: "number", min: "0", max: "43200", value: "5" })),
    html("label", { class: "check" }, html("input", { type: "checkbox", name: "rated" }), "Counts for ratings"),
    html("label", { class: "check" }, html("input", { type: "checkbox", name: "bots" }), "Bots welcome"),
    html("button", { type: "submit" }, "Create arena"),
    notice,
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const fields = new FormData(form);
    const clock = /^(\d+)\+(\d+)$/.exec(String(fields.get("clock"))) ?? ["", "60", "1"];
    const request: Schemas["ArenaRequest"] = {
      name: String(fields.get("name")),
      variant: fields.get("variant") as Schemas["VariantName"],
      scoring: fields.get("scoring") as Schemas["ScoringName"],
      clock: { initial_ms: Number(clock[1]) * 1000, increment_ms: Number(clock[2]) * 1000 },
      minutes: Number(fields.get("minutes")),
      starts_at: new Date(Date.now() + Number(fields.get("starts_in")) * 60_000).toISOString(),
      rated: fields.get("rated") !== null,
      bots: fields.get("bots") !== null,
    };
    account.playing?.createArena(request).then(
      (arena) => location.assign(arenaAddress(arena.id)),
      (error: unknown) => (notice.textContent = explain(error)),
    );
  });
  return form;
}

/** The screen of arena `id`. */
export async function arenaScreen(client: QtttClient, account: Account, id: number): Promise<HTMLElement> {
  let arena: Arena;
  try {
    arena = await client.arena(id);
  } catch (error) {
    return html("main", {}, html("h1", {}, `Arena ${id}`), html("p", { role: "alert" }, explain(error)), html("a", { href: "/play" }, "To the lobby"));
  }
  return new ArenaScreen(client, account, arena).element;
}

/** An arena's screen, drawn again from each `standings` event of its stream. */
class ArenaScreen {
  readonly element: HTMLElement;
  private readonly countdown = html("p", { class: "countdown" });
  private readonly actions = html("div", { class: "actions" });
  private readonly standings = html("div", {});
  private readonly playing = html("section", { "aria-label": "Games being played" });
  private readonly notice = html("p", { class: "notice", role: "alert" });
  /** Whether the page is on its way to a game: it goes once. */
  private going = false;
  /** When the arena starts and ends, by this browser's clock. */
  private startsAt = 0;
  private endsAt = 0;

  constructor(
    client: QtttClient,
    private readonly account: Account,
    private arena: Arena,
  ) {
    this.element = html(
      "main",
      { class: "arena" },
      html("h1", {}, arena.name),
      html("p", {}, termsLine(arena), ` · created by `, html("a", { href: profileAddress(arena.created_by) }, arena.created_by)),
      html("p", {}, SCORING),
      this.countdown,
      this.notice,
      this.actions,
      html("section", { "aria-label": "Standings" }, html("h2", {}, "Standings"), this.standings),
      this.playing,
    );
    this.show(arena);
    setInterval(() => this.tick(), 1000);
    client.followArena(arena.id, { standings: (next) => this.show(next), error: (error) => (this.notice.textContent = explain(error)) });
    // Paired: to the game.
    account.listen((kind, event) => {
      if (kind === "game_start" && event.game !== null && event.game.arena === arena.id) {
        this.goTo(event.game.id);
      }
    });
  }

  /** Shows `arena` as it stands; takes the player to a game of theirs that goes on. */
  private show(arena: Arena): void {
    this.arena = arena;
    const remaining = arena.remaining_ms;
    this.endsAt = Date.now() + remaining;
    this.startsAt = this.endsAt - arena.minutes * 60_000;
    const me = this.account.player?.name;
    const mine = arena.playing.find((game) => game.x === me || game.o === me);
    if (mine !== undefined) {
      this.goTo(mine.game_id);
    }
    this.tick();
    this.drawActions();
    const rows = arena.standings.map((standing) =>
      html(
        "tr",
        { "data-name": standing.name },
        html("td", {}, String(standing.rank)),
        html("th", { scope: "row" }, html("a", { href: profileAddress(standing.name) }, standing.name), standing.bot ? " (bot)" : "", standing.withdrawn ? " (withdrawn)" : ""),
        html("td", { class: "score" }, String(standing.score), standing.on_fire ? html("span", { class: "fire" }, " on fire") : ""),
        html("td", { class: "sheet" }, standing.sheet.map((entry) => String(entry.points)).join(" ")),
      ),
    );
    this.standings.replaceChildren(
      rows.length === 0
        ? html("p", {}, "Nobody has joined yet.")
        : html(
            "table",
            { "aria-label": "Standings" },
            html("thead", {}, html("tr", {}, ...["Rank", "Player", "Score", "Games"].map((heading) => html("th", { scope: "col" }, heading)))),
            html("tbody", {}, ...rows),
          ),
    );
    this.playing.replaceChildren(
      html("h2", {}, "Games being played"),
      arena.playing.length === 0
        ? html("p", {}, "None now.")
        : html("ul", { class: "games" }, ...arena.playing.map((game) => html("li", {}, html("a", { href: gameAddress(game.game_id) }, `Game ${game.game_id}`), ` · ${game.x} vs ${game.o}`))),
    );
  }

  /** Takes the player to their game `id`. */
  private goTo(id: number): void {
    if (!this.going) {
      this.going = true;
      location.assign(gameAddress(id));
    }
  }

  /** The countdown, by this browser's clock. */
  private tick(): void {
    const now = Date.now();
    this.countdown.textContent =
      now < this.startsAt ? `Starts in ${minutes(this.startsAt - now)}` : now < this.endsAt ? `Ends in ${minutes(this.endsAt - now)}` : this.arena.playing.length > 0 ? "Finished: the last games are played out." : "Finished.";
  }

  /** Join or withdraw, for a player; the server's bots, for the creator. */
  private drawActions(): void {
    const playing = this.account.playing;
    const me = this.account.player?.name;
    if (playing === null || this.arena.status === "finished") {
      this.actions.replaceChildren();
      return;
    }
    const standing = this.arena.standings.find((entry) => entry.name === me);
    const answered = (promise: Promise<Arena>): void => {
      promise.then(
        (arena) => this.show(arena),
        (error: unknown) => (this.notice.textContent = explain(error)),
      );
    };
    const id = this.arena.id;
    const buttons = [standing === undefined || standing.withdrawn ? button("Join arena", () => answered(playing.joinArena(id))) : button("Withdraw", () => answered(playing.withdrawFromArena(id)))];
    if (this.arena.bots && this.arena.created_by === me) {
      const absent = BOTS.filter((bot) => !this.arena.standings.some((entry) => entry.name === bot));
      buttons.push(...absent.map((bot) => button(`Add the ${bot} bot`, () => answered(playing.addArenaBot(id, bot)))));
    }
    this.actions.replaceChildren(...buttons);
  }
}

/** The link back to arena `id` from one of its games. */
export function backToArena(id: number): HTMLElement {
  return html("a", { href: arenaAddress(id), class: "arena-link" }, "Back to the arena");
}
