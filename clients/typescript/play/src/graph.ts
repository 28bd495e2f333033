// The entanglement graph, drawn: the nine squares as nodes where they sit on
// the board, each spooky move as an edge between its two squares, and the
// cycle that waits for a collapse highlighted. Several moves between the same
// two squares bend apart, and an edge that would cross a third square's node
// bends around it.

import type { Drawn } from "./board.js";
import { html, svg } from "./dom.js";

const CELL = 100;
const RADIUS = 17;

/** Where square `square`'s node sits. */
function centre(square: number): [number, number] {
  return [(square % 3) * CELL + CELL / 2, Math.floor(square / 3) * CELL + CELL / 2];
}

/** Whether the straight line from `a` to `b` runs through another square's node. */
function crossesANode(a: number, b: number): boolean {
  const [ax, ay] = centre(a);
  const [bx, by] = centre(b);
  return [0, 1, 2, 3, 4, 5, 6, 7, 8].some((other) => {
    if (other === a || other === b) {
      return false;
    }
    const [ox, oy] = centre(other);
    const cross = (bx - ax) * (oy - ay) - (by - ay) * (ox - ax);
    const along = (ox - ax) * (bx - ax) + (oy - ay) * (by - ay);
    return cross === 0 && along > 0 && along < (bx - ax) ** 2 + (by - ay) ** 2;
  });
}

/** `game`'s entanglement graph with its caption, to fill a figure. */
export function graphFigure(game: Drawn): [SVGSVGElement, HTMLElement] {
  return [entanglementGraph(game), html("figcaption", {}, "Entanglement: each spooky move joins its two squares")];
}

/** The SVG of `game`'s entanglement graph. */
export function entanglementGraph(game: Drawn): SVGSVGElement {
  const cycle = new Set(game.pending_collapse?.cycle_moves ?? []);
  const spooky = game.moves.filter((move) => move.landed === null);
  const root = svg("svg", {
    viewBox: `0 0 ${3 * CELL} ${3 * CELL}`,
    role: "img",
    "aria-label": "Entanglement graph",
    class: "graph",
  });
  const pairs = new Map<string, number>();
  for (const move of spooky) {
    const [a, b] = move.squares as [number, number];
    pairs.set(`${a}-${b}`, (pairs.get(`${a}-${b}`) ?? 0) + 1);
  }
  const drawn = new Map<string, number>();
  for (const move of spooky) {
    const [a, b] = move.squares as [number, number];
    const pair = `${a}-${b}`;
    const count = pairs.get(pair) ?? 1;
    const index = drawn.get(pair) ?? 0;
    drawn.set(pair, index + 1);
    const [ax, ay] = centre(a);
    const [bx, by] = centre(b);
    const length = Math.hypot(bx - ax, by - ay);
    const bend = (index - (count - 1) / 2) * 34 + (crossesANode(a, b) ? 30 : 0);
    const [nx, ny] = [-(by - ay) / length, (bx - ax) / length];
    const [cx, cy] = [(ax + bx) / 2 + nx * bend * 2, (ay + by) / 2 + ny * bend * 2];
    const [lx, ly] = [(ax + bx) / 2 + nx * bend, (ay + by) / 2 + ny * bend];
    const mark = `${move.player}${move.move}`;
    root.append(
      svg(
        "g",
        { "data-move": move.move, class: `edge ${move.player.toLowerCase()}${cycle.has(move.move) ? " cycle" : ""}` },
        svg("path", { d: `M ${ax} ${ay} Q ${cx} ${cy} ${bx} ${by}` }),
        svg("text", { x: lx, y: ly + 5, "text-anchor": "middle" }, mark),
      ),
    );
  }
  for (const cell of game.board) {
    const [x, y] = centre(cell.square);
    const mark = cell.classical;
    root.append(
      svg(
        "g",
        { class: `node${mark === null ? "" : ` classical ${mark.charAt(0).toLowerCase()}`}` },
        svg("circle", { cx: x, cy: y, r: RADIUS }),
        svg("text", { x, y: y + 5, "text-anchor": "middle" }, mark ?? String(cell.square)),
      ),
    );
  }
  return root;
}
