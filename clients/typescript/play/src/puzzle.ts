// A puzzle on screen: its position drawn as a game is, the side to find the
// best action for, and an attempt played an action at a time. The server
// answers each right action with the defence and shows the solution once the
// attempt is over; the page keeps nothing of its own.

import type { Action, Puzzle, PuzzleAttempt, QtttClient, Schemas } from "../../src/index.js";
import { explain } from "./advice.js";
import { Board, collapseOutcomes, pressed } from "./board.js";
import { button, html } from "./dom.js";
import { graphFigure } from "./graph.js";
import { actionSquares } from "./story.js";

const THEMES: Record<Schemas["ThemeName"], string> = {
  double_line: "two lines at once",
  collapse_choice: "a collapse choice",
  closing_cycle: "closing a cycle",
  last_square: "the last square",
  quiet: "a quiet move",
};

/** The page's address of a puzzle: by id, or `next` or `daily` of a variant. */
export function puzzleAddress(which: number | "next" | "daily", variant?: Schemas["VariantName"]): string {
  const address = new URL("/play", location.origin);
  address.searchParams.set("puzzle", String(which));
  if (variant !== undefined) {
    address.searchParams.set("variant", variant);
  }
  return address.toString();
}

/** A step of a solution or a reply, in words: `O: move 5 lands in square 2`. */
function stepText(step: Schemas["ReplyStepView"]): string {
  const who = step.actor === "measurement" ? "Measurement" : step.actor;
  const action = step.action;
  return action.kind === "move"
    ? `${who}: a move in squares ${action.squares.join(" and ")}`
    : `${who}: move ${action.move} lands in square ${action.square}`;
}

/** The screen of one puzzle. */
export class PuzzleScreen {
  readonly element: HTMLElement;
  private position: Schemas["PositionView"];
  private attempt: PuzzleAttempt | null = null;
  private selected: number | null = null;
  private busy = false;
  /** Once the attempt is over, how many steps of the solution the board shows played. */
  private solutionStep = 0;

  private readonly status = html("p", { class: "status", role: "status", "aria-live": "polite" });
  private readonly notice = html("p", { class: "notice", role: "alert" });
  private readonly board: Board;
  private readonly outcomes = html("div", { class: "outcomes-place" });
  private readonly graph = html("figure", { class: "graph-place" });
  private readonly solution = html("section", { class: "solution", "aria-label": "Solution" });
  private readonly again = button("Try again", () => this.start());
  private readonly previous = button("Previous", () => this.showStep(this.solutionStep - 1));
  private readonly next = button("Next", () => this.showStep(this.solutionStep + 1));

  constructor(
    private readonly client: QtttClient,
    private readonly puzzle: Puzzle,
  ) {
    this.position = puzzle.position;
    this.board = new Board((square) => void this.press(square));
    this.element = html(
      "main",
      { class: "game puzzle" },
      html("h1", {}, `Puzzle ${puzzle.id}`, html("span", { class: "variant" }, ` · ${puzzle.variant === "player_choice" ? "Goff's rule" : "measurement"} · rated ${Math.round(puzzle.rating)}`)),
      html("p", { class: "seats" }, `${puzzle.player} to play and win more. Theme: ${THEMES[puzzle.theme]}.`),
      html(
        "p",
        { class: "explain" },
        `Win more: one action leaves ${puzzle.player} at least half a point better off at the end than any other, when both sides play their best from there${puzzle.variant === "measurement" ? " (on average over the measurements)" : ""}. Find it, and then each next action of the line.`,
      ),
      this.status,
      this.notice,
      html("div", { class: "play" }, this.board.element, this.graph),
      this.outcomes,
      html("div", { class: "actions" }, this.again, html("a", { href: puzzleAddress("next", puzzle.variant) }, "Next puzzle"), html("a", { href: "/play" }, "To the lobby")),
      this.solution,
    );
    this.show();
  }

  /** A new attempt, from the puzzle's position. */
  private start(): void {
    this.attempt = null;
    this.position = this.puzzle.position;
    this.selected = null;
    this.solutionStep = 0;
    this.tell("");
    this.show();
  }

  private show(): void {
    const attempt = this.attempt;
    const over = attempt !== null && attempt.status !== "ongoing";
    const toAct = this.position.to_act;
    const mayAct = !over && !this.busy && toAct !== null && toAct.player === this.puzzle.player;
    const moves = this.position.legal_actions.flatMap((action) => (action.kind === "move" ? [action.squares] : []));
    const selected = this.selected;
    const playable = (square: number): boolean =>
      mayAct && moves.some((squares) => squares.includes(square) && (selected === null || selected === square || squares.includes(selected)));
    // Once the attempt is over, the solution step by step: before its first step (which is marked), or after one.
    const steps = over ? (attempt.solution ?? []) : [];
    const shown = steps[this.solutionStep - 1];
    const coming = steps[this.solutionStep];
    const board = steps.length === 0 ? this.position : (shown?.position ?? this.puzzle.position);
    this.board.show(board, playable, selected, {
      last: shown === undefined ? [] : actionSquares(shown.action),
      best: coming === undefined ? [] : actionSquares(coming.action),
    });
    const choose = mayAct && toAct.kind === "collapse" ? (move: number, square: number) => void this.act({ kind: "collapse", move, square }) : null;
    this.outcomes.replaceChildren(collapseOutcomes(board, choose) ?? "");
    this.graph.replaceChildren(...graphFigure(board));
    this.status.textContent = this.statusText();
    this.again.hidden = !over;
    this.previous.disabled = this.solutionStep === 0;
    this.next.disabled = this.solutionStep >= steps.length;
    this.solution.replaceChildren(
      ...(steps.length === 0
        ? []
        : [
            html("h2", {}, "Solution"),
            html("p", {}, "Step through it on the board: the next action's squares are marked, the last one's too."),
            html("div", { class: "steps" }, this.previous, this.next),
            html(
              "ol",
              { "aria-label": "Solution steps" },
              ...steps.map((step, index) =>
                html("li", { "aria-current": index + 1 === this.solutionStep ? "step" : false }, button(stepText(step), () => this.showStep(index + 1))),
              ),
            ),
          ]),
    );
  }

  /** Shows the board after `count` steps of the solution. */
  private showStep(count: number): void {
    this.solutionStep = Math.max(0, Math.min(count, this.attempt?.solution?.length ?? 0));
    this.show();
  }

  private statusText(): string {
    const attempt = this.attempt;
    const rating = attempt?.rating;
    const change = rating === null || rating === undefined ? "" : ` Puzzle rating ${Math.round(rating.rating_after)} (${rating.rating_diff >= 0 ? "+" : ""}${Math.round(rating.rating_diff)}).`;
    if (attempt?.status === "solved") {
      return `Solved!${change}`;
    }
    if (attempt?.status === "failed") {
      return `Not the best: the solution is below, its first action marked on the puzzle's position; step through it on the board.${change}`;
    }
    const kind = this.position.to_act?.kind === "collapse" ? "collapse" : "move";
    return `${attempt === null ? "" : "Right. "}${this.puzzle.player} to play: find the best ${kind}`;
  }

  private tell(text: string): void {
    this.notice.textContent = text;
  }

  /** A square pressed: the first square of a move, or the second, which sends it. */
  private async press(square: number): Promise<void> {
    const next = pressed(square, this.selected, this.position.to_act?.forced_squares ?? null);
    if ("selected" in next) {
      this.selected = next.selected;
      this.show();
    } else {
      this.selected = null;
      await this.act({ kind: "move", squares: next.squares });
    }
  }

  /** Plays `action` in the attempt (a new one first), and shows the answer. */
  private async act(action: Action): Promise<void> {
    if (this.busy) {
      return;
    }
    this.busy = true;
    this.tell("");
    try {
      const attempt = await this.client.attemptPuzzle(this.puzzle.id, action, this.attempt?.id);
      this.attempt = attempt;
      this.position = attempt.position;
      // A failed attempt's solution starts from the puzzle's position; a solved one's shows where it ended.
      this.solutionStep = attempt.status === "solved" ? (attempt.solution?.length ?? 0) : 0;
      if (attempt.reply.length > 0) {
        this.tell(`Answer: ${attempt.reply.map(stepText).join("; ")}.`);
      }
    } catch (error) {
      this.tell(explain(error));
    }
    this.busy = false;
    this.show();
  }
}
