// The board: nine square buttons, made once and updated in place (so that the
// keyboard's focus stays where it was), each shaded by the odds of what it
// would hold if measured now; and a pending collapse's two outcomes, drawn side
// by side as small boards to click.

import type { Game, Schemas } from "../../src/index.js";
import { html } from "./dom.js";

/** What draws a board: a game's view, or a puzzle's position, which has the same fields. */
export type Drawn = Pick<Game, "board" | "lines" | "moves" | "pending_collapse">;

/** Squares to mark on the board: the last action's, a hint's, the best action's. */
export interface Marks {
  last?: number[];
  hint?: number[];
  best?: number[];
}

/** Whether a move may be placed in `square` of `game` now: a move is to make, the square is not classical, and it is one of a forced move's squares, if the move is forced. */
export function placeable(game: Pick<Game, "board" | "to_act">, square: number): boolean {
  const toAct = game.to_act;
  const forced = toAct?.forced_squares ?? null;
  return toAct?.kind === "move" && game.board[square]?.classical === null && (forced === null || forced.includes(square));
}

/**
 * What pressing `square` does to a move being made, `selected` its first
 * square so far, `forced` the squares of a forced move: the move's two
 * squares once it is whole; else the first square selected now (null when
 * pressing it again lets it go).
 */
export function pressed(square: number, selected: number | null, forced: number[] | null): { squares: [number, number] } | { selected: number | null } {
  if (forced !== null) {
    return { squares: [forced[0] as number, forced[1] as number] };
  }
  if (selected === null || selected === square) {
    return { selected: selected === null ? square : null };
  }
  return { squares: [selected, square] };
}

/** What a square's button says to a screen reader: `Square 4: X1, O2 spooky`. */
function squareName(cell: Schemas["CellView"]): string {
  if (cell.classical !== null) {
    return `Square ${cell.square}: ${cell.classical}`;
  }
  return cell.spooky.length === 0 ? `Square ${cell.square}: empty` : `Square ${cell.square}: ${cell.spooky.join(", ")} spooky`;
}

/** The board's nine buttons; `pressed` is called with a square's number. */
export class Board {
  readonly element: HTMLElement;
  private readonly squares: HTMLButtonElement[];

  constructor(pressed: (square: number) => void) {
    this.squares = [0, 1, 2, 3, 4, 5, 6, 7, 8].map((square) => {
      // Its number is drawn by the style sheet, from data-square.
      const element = html("button", { type: "button", class: "square", "aria-label": `Square ${square}`, "data-square": square });
      element.addEventListener("click", () => pressed(square));
      return element;
    });
    this.element = html("div", { class: "board", role: "group", "aria-label": "Board" }, ...this.squares);
  }

  /**
   * Shows `game`: `playable` says which squares the viewer may press now,
   * `selected` the first square of a move being made, `marks` what to mark.
   */
  show(game: Drawn, playable: (square: number) => boolean, selected: number | null, marks: Marks = {}): void {
    const lineOf = new Map(game.lines.flatMap((line) => line.squares.map((square) => [square, line.player] as const)));
    for (const cell of game.board) {
      const element = this.squares[cell.square];
      if (element === undefined) {
        continue;
      }
      element.setAttribute("aria-label", squareName(cell));
      element.disabled = !playable(cell.square);
      element.setAttribute("aria-pressed", String(selected === cell.square));
      // Each player's lines in that player's colour.
      const line = lineOf.get(cell.square);
      element.classList.toggle("line", line !== undefined);
      element.classList.toggle("line-x", line === "X");
      element.classList.toggle("line-o", line === "O");
      for (const [mark, squares] of [["data-last", marks.last], ["data-hint", marks.hint], ["data-best", marks.best]] as const) {
        if (squares?.includes(cell.square) === true) {
          element.setAttribute(mark, "true");
        } else {
          element.removeAttribute(mark);
        }
      }
      element.replaceChildren(
        ...(cell.classical === null
          ? cell.spooky.map((mark) => html("span", { class: `spooky ${mark.charAt(0).toLowerCase()}` }, mark))
          : [html("span", { class: `classical ${cell.classical.charAt(0).toLowerCase()}` }, cell.classical)]),
      );
      // Shading: from the bottom, X's odds in X's colour, then O's in O's.
      const { X: x, O: o } = cell.probabilities;
      element.style.setProperty(
        "--odds",
        cell.classical === null && x + o > 0
          ? `linear-gradient(to top, var(--x-shade) 0 ${x * 100}%, var(--o-shade) ${x * 100}% ${(x + o) * 100}%, transparent ${(x + o) * 100}% 100%)`
          : "none",
      );
    }
  }
}

/**
 * The two outcomes of `game`'s pending collapse, each a button that chooses
 * it; without `choose` (the viewer is not the chooser) the buttons are off.
 */
export function collapseOutcomes(game: Drawn, choose: ((move: number, square: number) => void) | null): HTMLElement | null {
  const pending = game.pending_collapse;
  if (pending === null) {
    return null;
  }
  const players = new Map(game.moves.map((move) => [move.move, move.player]));
  const outcomes = pending.options.map((option) => {
    const marks = new Map(game.board.filter((cell) => cell.classical !== null).map((cell) => [cell.square, cell.classical]));
    for (const landing of option.outcome) {
      marks.set(landing.square, `${players.get(landing.move) ?? "?"}${landing.move}`);
    }
    const preview = html(
      "span",
      { class: "preview", "aria-hidden": "true" },
      ...[0, 1, 2, 3, 4, 5, 6, 7, 8].map((square) => {
        const mark = marks.get(square) ?? null;
        const landed = option.outcome.some((landing) => landing.square === square);
        return html("span", { class: `cell${mark === null ? "" : ` ${mark.charAt(0).toLowerCase()}`}${landed ? " landed" : ""}` }, mark ?? "");
      }),
    );
    const closing = `${players.get(pending.closing_move) ?? "?"}${pending.closing_move}`;
    const element = html(
      "button",
      { type: "button", class: "outcome", "aria-label": `Outcome: ${closing} in square ${option.square}`, disabled: choose === null },
      preview,
      html("span", {}, `${closing} in square ${option.square}`),
    );
    element.addEventListener("click", () => choose?.(pending.closing_move, option.square));
    return element;
  });
  return html("div", { class: "outcomes" }, ...outcomes);
}
