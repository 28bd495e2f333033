// One game on screen, live: its board, graph, clocks and result, and the
// actions of the seat this browser holds, if any. What the server says is the
// truth: every action's answer and every event of the stream carries the whole
// game, and the screen shows the newest version it has seen.

import { ProblemError, type Credentials, type Game, type QtttClient, type Schemas, type Seat } from "../../src/index.js";
import { explain } from "./advice.js";
import { backToArena } from "./arena.js";
import { Board, type Marks, collapseOutcomes, placeable, pressed } from "./board.js";
import { button, html } from "./dom.js";
import { graphFigure } from "./graph.js";
import { arenaAddress, diffText, gameAddress, profileAddress, ratingText, scoringName, variantName } from "./links.js";
import { type HeldSeat, credentialsOf, heldSeat, holdSeat } from "./seats.js";
import { type Step, actionSquares, actionWords, isAction, notation, squaresOf, words } from "./story.js";

/** The kinds of events whose data carries the game; any other is answered by reading the game again. */
const GAME_EVENTS = new Set(["seat", "move", "collapse", "resign", "timeout", "abort", "abandon", "agreement", "no_first_move", "draw_offer", "draw_decline", "rematch", "end"]);

const REASONS: Record<Schemas["EndReasonName"], string> = {
  lines: "by lines",
  full_board: "on a full board",
  resignation: "by resignation",
  timeout: "on time",
  aborted: "aborted",
  abandoned: "as the other player walked away",
  agreement: "by agreement",
  no_first_move: "as a player made no first move in time",
};

/** Under this a clock runs low: it shows tenths, and is marked. */
const LOW_CLOCK_MS = 10_000;
/** How long a finished arena game stays on the screen before its player goes back to the arena. */
const ARENA_RETURN_MS = 3000;

/** Minutes and seconds of `ms`, `m:ss`, with tenths when low: `0:05.7`. */
function clockText(ms: number): string {
  const left = Math.max(0, ms);
  const minutes = Math.floor(left / 60_000);
  const seconds = (left % 60_000) / 1000;
  const shown = left < LOW_CLOCK_MS ? seconds.toFixed(1).padStart(4, "0") : String(Math.floor(seconds)).padStart(2, "0");
  return `${minutes}:${shown}`;
}

/** Why the lines of a game that ended by them score what they do. */
function linesText(game: Game): string {
  if (game.end?.reason !== "lines" && game.end?.reason !== "full_board") {
    return "";
  }
  if (game.lines.length === 0) {
    return "Nobody made a line.";
  }
  const worth = (points: number): string => (points === 1 ? "1" : "½");
  const lines = game.lines.map((line) => `${line.player}'s line ${line.squares.join("-")}, finished by move ${line.max_move}, scores ${worth(line.points)}`);
  const later = game.lines.some((line) => line.points < 1) ? " A line whose highest subscript is higher, finished later than another, scores ½." : "";
  return `${lines.join("; ")}.${later}`;
}

/** Who holds a seat: their name (a link to a player's profile), their rating and its change, and whether they are here. */
function holderLine(game: Game, player: Schemas["PlayerName"], mine: boolean): HTMLElement {
  const holder = game.seats[player];
  const name = holder?.name ?? null;
  const who = name !== null ? html("a", { href: profileAddress(name) }, name) : holder === null ? "free" : holder.bot !== null ? `${holder.bot} bot` : "anonymous";
  const rating = holder?.rating ?? null;
  const diff = rating?.rating_diff ?? null;
  const here = holder === null || holder.bot !== null ? "" : holder.present ? ", here" : ", away";
  return html(
    "span",
    { class: "seat" },
    `${player}: `,
    who,
    holder?.bot_account === true ? " (bot)" : "",
    rating === null ? "" : ` (${ratingText(rating)})`,
    diff === null ? "" : html("span", { class: "diff", "data-rating-diff": diffText(diff) }, ` ${diffText(diff)}`),
    mine ? " (you)" : "",
    here,
  );
}

/** A wait in words: `45 seconds`, `1 minute 5 seconds`. */
function inWords(ms: number): string {
  const seconds = Math.max(1, Math.ceil(ms / 1000));
  const plural = (count: number, unit: string): string => `${count} ${unit}${count === 1 ? "" : "s"}`;
  const minutes = Math.floor(seconds / 60);
  return minutes === 0 ? plural(seconds, "second") : `${plural(minutes, "minute")}${seconds % 60 === 0 ? "" : ` ${plural(seconds % 60, "second")}`}`;
}

/** Who won `game`, in words: to a seat's holder, whether they did. */
function winnerText(winner: Seat, seat: HeldSeat | null): string {
  if (seat === null) {
    return `${winner} wins`;
  }
  return seat.player === winner ? "You won" : "You lost";
}

/** What the status line says of `game`, for `seat`'s holder or a spectator. */
function statusText(game: Game, seat: HeldSeat | null): string {
  if (game.status === "waiting") {
    return `Waiting for a player to take ${game.open_seats.join(" and ")}`;
  }
  if (game.result !== "ongoing" || game.end !== null) {
    const reason = game.end === null ? "" : ` ${REASONS[game.end.reason]}`;
    // The board's points decide only an end by the rules.
    const byRules = game.end === null || game.end.reason === "lines" || game.end.reason === "full_board";
    const score = byRules ? ` Score: X ${game.score.X}, O ${game.score.O}.` : "";
    switch (game.result) {
      case "x_wins":
        return `${winnerText("X", seat)}${reason}.${score}`;
      case "o_wins":
        return `${winnerText("O", seat)}${reason}.${score}`;
      case "draw":
        return `Draw${reason}.${score}`;
      default:
        if (game.rematch_of !== null && game.end?.reason === "aborted" && game.end.player !== null && seat !== null && game.end.player !== seat.player) {
          return "The other player declined the rematch.";
        }
        if (game.end?.reason === "no_first_move") {
          return `Game aborted: ${game.end.player} made no first move in time.`;
        }
        return `Game aborted${game.end?.player ? ` by ${game.end.player}` : ""}.`;
    }
  }
  const toAct = game.to_act;
  if (toAct === null) {
    return "";
  }
  const who = seat?.player === toAct.player ? `You (${toAct.player})` : toAct.player;
  if (toAct.kind === "collapse") {
    return `${who}: choose how the cycle collapses`;
  }
  const move = game.next_to_move?.move ?? game.moves.length + 1;
  return toAct.forced_squares === null ? `${who} to place move ${move}` : `${who} to place move ${move} in square ${toAct.forced_squares[0]}`;
}

/** The screen of game `id`. */
export class GameScreen {
  readonly element: HTMLElement;
  private game: Game;
  private seat: HeldSeat | null;
  private readonly invite: string | undefined;
  private selected: number | null = null;
  /** Every action so far and the game after it, from the stream, and the game before the first. */
  private readonly steps: Step[] = [];
  private start: Game | null = null;
  /** The position shown: after that many actions; null for the latest, live. */
  private viewing: number | null = null;
  /** After the end, each action judged by perfect play, by its entry's seq. */
  private judged = new Map<number, Schemas["JudgedActionView"]>();
  /** The squares of the hint asked for at this version. */
  private hinted: number[] = [];
  private busy = false;
  private following: { close(): void } | null = null;
  private clockShown: { at: number; game: Game } | null = null;
  private analysed = false;
  /** Whether a rated game's end was read again for its rating changes. */
  private ratedAgain = false;
  /** Whether the page goes back to the arena that paired this game, now over. */
  private leaving = false;

  private readonly seatsLine = html("p", { class: "seats" });
  private readonly clocks = html("div", { class: "clocks", "aria-label": "Clocks" });
  private readonly status = html("p", { class: "status", role: "status", "aria-live": "polite" });
  private readonly presence = html("p", { class: "presence" });
  /** How many watch without a seat, as the stream tells. */
  private readonly spectators = html("span", { class: "spectators", "aria-label": "Spectators", hidden: true });
  private readonly drawNotice = html("p", { class: "draw", "aria-live": "polite" });
  private readonly notice = html("p", { class: "notice", role: "alert" });
  private readonly board: Board;
  private readonly outcomes = html("div", { class: "outcomes-place" });
  private readonly explanation = html("p", { class: "explain" });
  private readonly moves = html("ol", { class: "moves", "aria-label": "Moves" });
  private readonly first = button("First", () => this.view(0));
  private readonly previous = button("Previous", () => this.view((this.viewing ?? this.steps.length) - 1));
  private readonly next = button("Next", () => this.view((this.viewing ?? this.steps.length) + 1));
  private readonly latest = button("Latest", () => this.view(null));
  private readonly confirm = html(
    "span",
    { class: "confirm", hidden: true },
    button("Confirm resignation", () => {
      this.confirm.hidden = true;
      void this.act((token) => this.client.resign(this.game.id, { token }));
    }),
    button("Keep playing", () => {
      this.confirm.hidden = true;
      this.show(this.game);
    }),
  );
  private readonly graph = html("figure", { class: "graph-place" });
  private readonly share = html("div", { class: "share" });
  private readonly analysis = html("section", { class: "analysis", "aria-label": "Analysis" });
  private readonly join = button("Join", () => void this.takeSeat());
  private readonly resign = button("Resign", () => {
    this.resign.hidden = true;
    this.confirm.hidden = false;
  });
  private readonly abort = button("Abort", () => void this.act((token) => this.client.abort(this.game.id, { token })));
  private readonly claim = button("Claim victory", () => void this.act((token) => this.client.claimVictory(this.game.id, { token })));
  private readonly hint = button("Hint", () => void this.showHint());
  private readonly offerDraw = button("Offer draw", () => void this.act((token) => this.client.offerDraw(this.game.id, { token })));
  private readonly acceptDraw = button("Accept draw", () => void this.act((token) => this.client.offerDraw(this.game.id, { token })));
  private readonly declineDraw = button("Decline draw", () => void this.act((token) => this.client.declineDraw(this.game.id, { token })));
  private readonly rematch = button("Rematch", () => void this.askForRematch());
  /** The other player's rematch that this page declined. */
  private rematchDeclined: number | null = null;
  private readonly rematchOffer = html(
    "p",
    { class: "rematch-offer", hidden: true },
    "The other player asks for a rematch. ",
    button("Accept rematch", () => void this.askForRematch()),
    button("Decline rematch", () => void this.declineRematch()),
  );

  constructor(
    private readonly client: QtttClient,
    game: Game,
    seat: HeldSeat | null,
    invite: string | undefined,
  ) {
    this.game = game;
    this.seat = seat;
    this.invite = invite;
    this.board = new Board((square) => void this.press(square));
    this.element = html(
      "main",
      { class: "game" },
      html("h1", {}, `Game ${game.id}`, html("span", { class: "variant" }, ` · ${variantName(game.variant)} · ${scoringName(game.scoring)}${game.rated ? " · rated" : ""}`)),
      game.arena === null ? "" : backToArena(game.arena),
      html("div", { class: "seats-line" }, this.seatsLine, this.spectators),
      this.clocks,
      this.status,
      this.presence,
      this.drawNotice,
      this.rematchOffer,
      this.notice,
      // Above the board, so that a phone shows them without scrolling.
      this.outcomes,
      html(
        "div",
        { class: "play" },
        this.board.element,
        html("section", { class: "story", "aria-label": "The game so far" }, this.moves, html("div", { class: "steps" }, this.first, this.previous, this.next, this.latest)),
        this.graph,
      ),
      this.explanation,
      html(
        "div",
        { class: "actions" },
        this.join,
        this.resign,
        this.confirm,
        this.offerDraw,
        this.acceptDraw,
        this.declineDraw,
        this.abort,
        this.claim,
        this.hint,
        this.rematch,
        button("New game", () => location.assign("/play")),
      ),
      this.share,
      this.analysis,
    );
    this.show(game);
    setInterval(() => this.tick(), 100);
    this.follow();
    document.addEventListener("keydown", (event) => this.stepKey(event));
  }

  /** The arrow keys step through the game, Home and End to its start and its latest, outside the page's fields. */
  private stepKey(event: KeyboardEvent): void {
    const target = event.target as HTMLElement | null;
    if (target !== null && ["INPUT", "SELECT", "TEXTAREA"].includes(target.tagName)) {
      return;
    }
    const buttons: Record<string, HTMLButtonElement> = { ArrowLeft: this.previous, ArrowRight: this.next, Home: this.first, End: this.latest };
    const pressed = buttons[event.key];
    if (pressed !== undefined && !pressed.disabled) {
      event.preventDefault();
      pressed.click();
    }
  }

  /** Shows the position after `actions` actions (null: the latest, live). */
  private view(actions: number | null): void {
    this.viewing = actions === null || actions >= this.steps.length ? null : Math.max(0, actions);
    this.draw();
  }

  /** Keeps an action the stream told of, and the game after it; the game before the first is a seat's. */
  private record(kind: string, data: unknown): void {
    const event = data as Partial<Schemas["LiveEvent"]>;
    if (event.entry === undefined || event.game === undefined) {
      return;
    }
    if (kind === "seat" && this.steps.length === 0) {
      this.start = event.game;
    }
    const last = this.steps[this.steps.length - 1]?.entry.seq ?? 0;
    if (isAction(event.entry) && event.entry.seq > last) {
      this.steps.push({ entry: event.entry, game: event.game });
      this.drawMoves();
    }
  }

  /** Follows the game's stream, with the seat's token (which keeps the seat present) or the invite. */
  private follow(): void {
    this.following?.close();
    this.following = this.client.follow(
      this.game.id,
      {
        game: (game) => this.show(game),
        event: (kind, data) => {
          if (kind === "spectators") {
            this.countSpectators((data as Schemas["LiveSpectators"]).spectators);
            return;
          }
          this.record(kind, data);
          this.heard(kind);
        },
        error: (error) => {
          // A dropped connection is resumed quietly; a refusal is told.
          if (error instanceof ProblemError) {
            this.tell(explain(error));
          }
        },
      },
      this.credentials(),
    );
  }

  private countSpectators(count: number): void {
    this.spectators.hidden = count === 0;
    this.spectators.dataset["spectators"] = String(count);
    this.spectators.textContent = `${count} watching`;
  }

  /**
   * An event: the other player going or coming back, or one this page does
   * not know, is answered by reading the game again (who is here, and from
   * when the game may be claimed, are not in the events).
   */
  private heard(kind: string): void {
    if (!GAME_EVENTS.has(kind)) {
      this.readAgain();
    }
  }

  private readAgain(): void {
    void this.client.game(this.game.id, this.credentials()).then((game) => this.show(game), () => undefined);
  }

  private credentials(): Credentials {
    return credentialsOf(this.seat, this.invite);
  }

  /** Shows `game`, unless a newer version is on screen already. */
  private show(game: Game): void {
    if (game.id !== this.game.id || game.version < this.game.version) {
      return;
    }
    if (game.version > this.game.version) {
      this.selected = null;
      this.hinted = [];
    }
    this.game = game;
    this.clockShown = game.clock === null ? null : { at: performance.now(), game };
    const mine = this.seat?.player;
    const toAct = game.to_act;
    const myTurn = toAct !== null && toAct.player === mine && !this.busy;
    this.seatsLine.replaceChildren(holderLine(game, "X", mine === "X"), " · ", holderLine(game, "O", mine === "O"));
    this.status.textContent = statusText(game, this.seat);
    this.explanation.textContent = linesText(game);
    this.draw();
    const over = game.end !== null;
    const seated = this.seat !== null;
    this.join.hidden = seated || over || game.open_seats.length === 0;
    this.join.textContent = `Join as ${game.open_seats[0] ?? ""}`;
    this.resign.hidden = !seated || over || game.status !== "ongoing" || !this.confirm.hidden;
    this.confirm.hidden ||= over;
    // A draw is offered to a person, and answered by the other player.
    const drawable = seated && !over && game.status === "ongoing" && game.opponent === null;
    const offered = game.draw_offer;
    this.offerDraw.hidden = !drawable || offered !== null;
    this.acceptDraw.hidden = !drawable || offered === null || offered === mine;
    this.declineDraw.hidden = this.acceptDraw.hidden;
    this.drawNotice.textContent =
      !drawable || offered === null ? "" : offered === mine ? "You offered a draw: it stands until the other player answers it, or until the next move." : "The other player offers a draw.";
    this.abort.hidden = !seated || over || game.moves.length >= 2;
    this.hint.hidden = !seated || over || !game.hints || !myTurn;
    // A rematch the other player asked for, unless declined here (a private one cannot be read before it is joined).
    const rematch = game.rematch?.game_id;
    const rematchOffered = seated && rematch !== undefined && heldSeat(rematch) === null && this.rematchDeclined !== rematch;
    this.rematchOffer.hidden = !rematchOffered;
    // An arena pairs its players again: no rematch; its player goes back to its standings.
    this.rematch.hidden = !seated || !over || rematchOffered || game.arena !== null;
    if (over && seated && game.arena !== null && !this.leaving) {
      this.leaving = true;
      const arena = game.arena;
      this.tell(`Back to the arena in ${ARENA_RETURN_MS / 1000} seconds.`);
      setTimeout(() => location.assign(arenaAddress(arena)), ARENA_RETURN_MS);
    }
    this.showShare();
    this.tick();
    // A rated game's answer may come before its rating changes were read.
    if (over && game.rated && !this.ratedAgain && game.seats.X?.rating?.rating_diff === null) {
      this.ratedAgain = true;
      this.readAgain();
    }
    if (over && !this.analysed && game.result !== "aborted") {
      this.analysed = true;
      void this.showAnalysis();
    }
  }

  /**
   * Draws the position viewed: the latest, which the seat acts on, or one
   * stepped back to, with the action that led to it marked and, after the
   * end, the best action in it where the one taken lost.
   */
  private draw(): void {
    const live = this.viewing === null;
    const shown = this.viewing === null ? this.game : this.viewing === 0 ? (this.start ?? this.game) : (this.steps[this.viewing - 1]?.game ?? this.game);
    const count = this.viewing ?? this.steps.length;
    const lastStep = this.steps[count - 1];
    const nextJudged = this.steps[count] === undefined ? undefined : this.judged.get(this.steps[count].entry.seq);
    const marks: Marks = {
      last: lastStep === undefined ? [] : squaresOf(lastStep),
      hint: live ? this.hinted : [],
      best: nextJudged !== undefined && nextJudged.loss > 0 ? actionSquares(nextJudged.best) : [],
    };
    const toAct = shown.to_act;
    const myTurn = live && toAct !== null && toAct.player === this.seat?.player && !this.busy;
    this.board.show(shown, (square) => myTurn && placeable(shown, square), this.selected, marks);
    this.outcomes.replaceChildren(
      (live && collapseOutcomes(shown, myTurn && toAct.kind === "collapse" ? (move, square) => void this.act((token) => this.client.collapse(shown.id, move, square, { token })) : null)) || "",
    );
    this.graph.replaceChildren(...graphFigure(shown));
    this.first.disabled = count === 0;
    this.previous.disabled = count === 0;
    this.next.disabled = live;
    this.latest.disabled = live;
    this.drawMoves();
  }

  /** The move list: each action in words and notation, its loss once judged; the one viewed marked current. */
  private drawMoves(): void {
    const count = this.viewing ?? this.steps.length;
    this.moves.replaceChildren(
      ...this.steps.map((step, index) => {
        const judged = this.judged.get(step.entry.seq);
        return html(
          "li",
          { "aria-current": index + 1 === count ? "true" : false },
          button(words(step, this.steps[index + 1]), () => this.view(index + 1)),
          html("span", { class: "notation", title: "Goff's notation: squares 1-9" }, ` ${notation(step)}`),
          judged === undefined ? "" : html("span", { class: judged.loss > 0 ? "loss" : "kept" }, judged.loss > 0 ? ` loss ${judged.loss} (best: ${actionWords(judged.best)})` : " loss 0"),
        );
      }),
    );
    this.moves.querySelector('[aria-current="true"]')?.scrollIntoView({ block: "nearest" });
  }

  /**
   * While the game waits for its second player, the link that lets them in;
   * while it goes on, the link that carries the held seat to another device
   * (in the fragment, which no server sees).
   */
  private showShare(): void {
    const seat = this.seat;
    if (seat === null || this.game.end !== null) {
      this.share.replaceChildren();
      return;
    }
    if (this.game.status === "waiting") {
      const link = gameAddress(this.game.id, seat.invite);
      const field = html("input", { type: "text", readonly: true, value: link, "aria-label": "Share link", class: "link" });
      this.share.replaceChildren(
        html("label", {}, this.game.private ? "Send this link to the person you play (it holds the invite):" : "Send this link to the person you play:"),
        field,
        button("Copy link", () => void navigator.clipboard?.writeText(link).then(() => this.tell("Copied."), () => field.select())),
      );
      return;
    }
    const link = `${gameAddress(this.game.id)}#seat=${seat.player}.${seat.token}`;
    this.share.replaceChildren(
      html(
        "details",
        {},
        html("summary", {}, "Play this seat on another device"),
        html("input", { type: "text", readonly: true, value: link, "aria-label": "Link to your seat", class: "link" }),
        html("p", {}, "Whoever opens this link acts for your seat: keep it to yourself."),
      ),
    );
  }

  /**
   * When the other player, to act, has gone: the time left before the game
   * may be claimed, 0 once it may; null in a game that cannot be claimed, and
   * while they are here, unless their turn has stalled a rated game so long
   * that it may be claimed anyway.
   */
  private claimIn(): number | null {
    const { game, seat } = this;
    const toAct = game.to_act;
    if (seat === null || game.end !== null || game.claim_from === null || toAct === null || toAct.player === seat.player) {
      return null;
    }
    const left = Math.max(0, Date.parse(game.claim_from) - Date.now());
    return this.otherHere() && left > 0 ? null : left;
  }

  /** Whether the player to act, the other, is here. */
  private otherHere(): boolean {
    const toAct = this.game.to_act;
    return toAct !== null && this.game.seats[toAct.player]?.present !== false;
  }

  /** Counts the running clock down from the last answer, and the wait before a claim. */
  private tick(): void {
    const claimIn = this.claimIn();
    this.claim.hidden = claimIn !== 0;
    const watching = this.seat === null && this.game.end === null ? "You are watching this game." : "";
    const gone = this.otherHere() ? "The other player has not acted for a day" : "The other player has gone";
    const presence = claimIn === null ? watching : claimIn === 0 ? `${gone}: you may claim the game.` : `${gone}: you may claim the game in ${inWords(claimIn)}.`;
    if (this.presence.textContent !== presence) {
      this.presence.textContent = presence;
    }
    const shown = this.clockShown;
    if (shown === null) {
      this.clocks.replaceChildren();
      return;
    }
    const clock = shown.game.clock;
    if (clock === null) {
      return;
    }
    const elapsed = performance.now() - shown.at;
    const [x, o] = (["X", "O"] as const).map((player) => {
      const left = clock.remaining_ms[player] - (clock.running === player ? elapsed : 0);
      return html(
        "span",
        { class: `clock${clock.running === player ? " running" : ""}`, "aria-label": `${player}'s clock`, "data-clock": player, "data-low": left < LOW_CLOCK_MS ? "true" : false },
        `${player} ${clockText(left)}`,
      );
    });
    // Before both first moves no clock runs: the deadline is the first move's.
    const firstMove = clock.running === null && clock.deadline !== null && this.game.end === null && this.game.to_act !== null ? html("span", { class: "first-move", "data-first-move": this.game.to_act.player }, `${this.game.to_act.player} to make a first move within ${inWords(Math.max(0, Date.parse(clock.deadline) - Date.now()))}; the clocks start after both first moves.`) : "";
    this.clocks.replaceChildren(x ?? "", o ?? "", firstMove);
  }

  private tell(text: string): void {
    this.notice.textContent = text;
  }

  /** A square pressed: the first square of a move, or the second, which sends it. */
  private async press(square: number): Promise<void> {
    const toAct = this.game.to_act;
    if (toAct === null || toAct.kind !== "move") {
      return;
    }
    const next = pressed(square, this.selected, toAct.forced_squares);
    if ("selected" in next) {
      this.selected = next.selected;
      this.show(this.game);
    } else {
      this.selected = null;
      await this.act((token) => this.client.move(this.game.id, next.squares, { token }));
    }
  }

  /** Sends an action of the held seat, and shows the game it answers. */
  private async act(action: (token: string) => Promise<Game>): Promise<void> {
    if (this.seat === null || this.busy) {
      return;
    }
    this.busy = true;
    this.tell("");
    try {
      const game = await action(this.seat.token);
      this.busy = false;
      this.show(game);
    } catch (error) {
      this.busy = false;
      this.tell(explain(error));
      this.show(this.game);
    }
  }

  /** Takes the free seat, with the link's invite. */
  private async takeSeat(): Promise<void> {
    try {
      const seated = await this.client.joinGame(this.game.id, this.invite === undefined ? {} : { invite: this.invite });
      this.seat = { player: seated.seat.player, token: seated.seat.token };
      holdSeat(this.game.id, this.seat);
      this.show(seated.game);
      this.follow();
    } catch (error) {
      this.tell(explain(error));
    }
  }

  private async declineRematch(): Promise<void> {
    const rematch = this.game.rematch?.game_id;
    if (this.seat === null || rematch === undefined) {
      return;
    }
    try {
      await this.client.declineRematch(this.game.id, { token: this.seat.token });
      this.rematchDeclined = rematch;
      this.show(this.game);
      this.tell("You declined the rematch.");
    } catch (error) {
      this.tell(explain(error));
    }
  }

  /** Asks for the rematch, or takes its other seat, and goes to it. */
  private async askForRematch(): Promise<void> {
    if (this.seat === null) {
      return;
    }
    try {
      const seated = await this.client.rematch(this.game.id, { token: this.seat.token });
      holdSeat(seated.game.id, { player: seated.seat.player, token: seated.seat.token });
      location.assign(gameAddress(seated.game.id));
    } catch (error) {
      const rematch = this.game.rematch?.game_id;
      if (error instanceof ProblemError && error.code === "already_rematched" && rematch !== undefined && heldSeat(rematch) !== null) {
        location.assign(gameAddress(rematch));
      } else {
        this.tell(explain(error));
      }
    }
  }

  private async showHint(): Promise<void> {
    try {
      const hint = await this.client.hint(this.game.id, this.credentials());
      this.hinted = actionSquares(hint.action);
      this.tell(`Hint: ${actionWords(hint.action)}, marked on the board`);
      this.draw();
    } catch (error) {
      this.tell(explain(error));
    }
  }

  /** After the end: every action judged by perfect play, its loss beside it. */
  private async showAnalysis(): Promise<void> {
    this.analysis.replaceChildren(html("h2", {}, "Analysis"), html("p", {}, "Judging every action…"));
    try {
      const analysis = await this.client.analysis(this.game.id, this.credentials());
      this.judged = new Map(analysis.actions.map((judged) => [judged.seq, judged]));
      const { X: x, O: o } = analysis.players;
      this.analysis.replaceChildren(
        html("h2", {}, "Analysis"),
        html("p", {}, `Points given away: X ${x.loss} in ${x.actions_with_loss} of ${x.actions} actions, O ${o.loss} in ${o.actions_with_loss} of ${o.actions}.`),
        html("p", {}, "Each action's loss is beside it in the moves; step to the position before one that lost to see the best action marked on the board."),
      );
      this.draw();
    } catch (error) {
      this.analysis.replaceChildren(html("h2", {}, "Analysis"), html("p", {}, explain(error)));
    }
  }
}
