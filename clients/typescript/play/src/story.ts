// A game's story: each action in words and in Goff's notation, from its log's
// entries and the game as it stood after each, as the game's live stream sends
// them. The words name squares 0-8, as the board and the API do; Goff's
// notation numbers them 1-9, as transcripts do.

import type { Game, Schemas } from "../../src/index.js";

/** An entry of a game's log. */
export type Entry = Schemas["LogEntryView"];
/** A move or a collapse, and the game right after it. */
export interface Step {
  entry: Entry & { kind: "move" | "collapse" };
  game: Game;
}

/** Whether `entry` is an action: a move or a collapse. */
export function isAction(entry: Entry): entry is Step["entry"] {
  return entry.kind === "move" || entry.kind === "collapse";
}

/** The player whose move `number` is: X's are odd. */
function playerOf(number: number): Schemas["PlayerName"] {
  return number % 2 === 1 ? "X" : "O";
}

/** What `step` did, in words; `next` is the step after it, if any. */
export function words(step: Step, next: Step | undefined): string {
  const { entry, game } = step;
  if (entry.kind === "move") {
    const name = `${entry.player}${entry.move}`;
    const [a, b] = entry.squares;
    const bot = entry.by_bot ? `the ${game.opponent?.bot ?? ""} bot answered ` : "";
    if (a === b) {
      return `${bot}${name} in square ${a}, the last square: classical at once`;
    }
    const closed = game.pending_collapse?.closing_move === entry.move || (next?.entry.kind === "collapse" && next.entry.closing_move === entry.move);
    return `${bot}${name} in squares ${a} and ${b}${closed ? ", which closes a cycle" : ""}`;
  }
  const closing = `${playerOf(entry.closing_move)}${entry.closing_move}`;
  return entry.chooser === "measurement" ? `Measured: ${closing} in square ${entry.square} (1 in 2)` : `${entry.chooser} chose: ${closing} lands in square ${entry.square}`;
}

/** `step` in Goff's notation, squares 1-9: `X3+(2,6)`, `O4!X3(2)`. */
export function notation(step: Step): string {
  const { entry, game } = step;
  if (entry.kind === "move") {
    const [a, b] = entry.squares.map((square) => square + 1);
    const move = `${entry.player}${entry.move}+(${a},${b})`;
    return a === b ? `${move}; ${entry.player}${entry.move}!(${a})` : move;
  }
  // A collapse is written under the next move's number, by its player.
  const turn = game.moves.length + 1;
  return `${playerOf(turn)}${turn}!${playerOf(entry.closing_move)}${entry.closing_move}(${entry.square + 1})`;
}

/** The squares `step` placed marks in, or the square its collapse landed the closing move in. */
export function squaresOf(step: Step): number[] {
  return step.entry.kind === "move" ? [...new Set(step.entry.squares)] : [step.entry.square];
}

/** The squares an action takes: a move's two, or the square a collapse lands its move in. */
export function actionSquares(action: Schemas["ActionView"]): number[] {
  return action.kind === "move" ? action.squares : [action.square];
}

/** An action in words: `squares 0 and 8`, `move 3 to square 1`. */
export function actionWords(action: Schemas["ActionView"]): string {
  return action.kind === "move" ? `squares ${action.squares.join(" and ")}` : `move ${action.move} to square ${action.square}`;
}
