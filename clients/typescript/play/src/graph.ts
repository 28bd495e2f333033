// The entanglement graph, drawn: the nine squares as nodes where they sit on
// the board, each spooky move as an edge between its two squares, and the
// cycle that waits for a collapse highlighted. Several moves between the same
// two squares bend apart; an edge bends as far as it must to pass no other
// square's node; and each label slides along its edge until it overlaps no
// other label and no node.

import type { Drawn } from "./board.js";
import { html, svg } from "./dom.js";

const CELL = 100;
const RADIUS = 17;

export type Point = [number, number];

/** Where square `square`'s node sits. */
function centre(square: number): Point {
  return [(square % 3) * CELL + CELL / 2, Math.floor(square / 3) * CELL + CELL / 2];
}

/** The control point of the edge from `a` to `b` bent by `bend`: a quadratic curve whose middle lies `bend` off the straight line. */
function control(a: number, b: number, bend: number): Point {
  const [ax, ay] = centre(a);
  const [bx, by] = centre(b);
  const length = Math.hypot(bx - ax, by - ay);
  return [(ax + bx) / 2 - ((by - ay) / length) * bend * 2, (ay + by) / 2 + ((bx - ax) / length) * bend * 2];
}

/** The point at `t` (0 to 1) of the edge from `a` to `b` bent by `bend`. */
function along(a: number, b: number, bend: number, t: number): Point {
  const [[ax, ay], [bx, by], [cx, cy]] = [centre(a), centre(b), control(a, b, bend)];
  const [p, q, r] = [(1 - t) ** 2, 2 * (1 - t) * t, t ** 2];
  return [p * ax + q * cx + r * bx, p * ay + q * cy + r * by];
}

/** Whether the edge from `a` to `b` bent by `bend` comes near a node other than its own two. */
function passesANode(a: number, b: number, bend: number): boolean {
  const near = RADIUS + 4;
  return [0, 1, 2, 3, 4, 5, 6, 7, 8].some((other) => {
    if (other === a || other === b) {
      return false;
    }
    const [ox, oy] = centre(other);
    return Array.from({ length: 19 }, (_, step) => (step + 1) / 20).some((t) => {
      const [x, y] = along(a, b, bend, t);
      return Math.hypot(x - ox, y - oy) < near;
    });
  });
}

/** Bends from the straight line out, each side in turn, the space between parallel edges apart. */
const BENDS = [0, 1, -1, 2, -2, 3, -3, 4, -4, 5, -5, 6, -6, 7, -7].map((step) => step * 20);

/** Half a label's box, wide and high, with a margin. */
const [HALF_WIDTH, HALF_HEIGHT] = [12, 10];

/** Places along an edge for its label, from the middle out: 0.5, 0.47, 0.53, ... 0.14, 0.86. */
const LABEL_PLACES = Array.from({ length: 25 }, (_, step) => 0.5 + (step % 2 === 0 ? 1 : -1) * Math.ceil(step / 2) * 0.03);

/** Whether a label at `place` keeps clear of the `labels` placed already and of every node. */
function labelFits([x, y]: Point, labels: Point[]): boolean {
  return (
    labels.every(([lx, ly]) => Math.abs(lx - x) >= 2 * HALF_WIDTH || Math.abs(ly - y) >= 2 * HALF_HEIGHT) &&
    [0, 1, 2, 3, 4, 5, 6, 7, 8].every((square) => {
      const [cx, cy] = centre(square);
      return Math.hypot(Math.max(Math.abs(cx - x) - HALF_WIDTH, 0), Math.max(Math.abs(cy - y) - HALF_HEIGHT, 0)) >= RADIUS;
    })
  );
}

/**
 * How an edge from `a` to `b` is drawn: the first bend that keeps clear of the
 * pair's edges bent already (`taken`) and passes no other node, and a place
 * on it where its label overlaps no other label and no node; failing that, the
 * first such bend with its label in the middle.
 */
function placeEdge(a: number, b: number, taken: number[], labels: Point[]): { bend: number; label: Point } {
  const bends = BENDS.filter((bend) => taken.every((other) => Math.abs(other - bend) >= 20));
  const clear = bends.filter((bend) => !passesANode(a, b, bend));
  for (const bend of clear) {
    const label = LABEL_PLACES.map((t) => along(a, b, bend, t)).find((place) => labelFits(place, labels));
    if (label !== undefined) {
      return { bend, label };
    }
  }
  const bend = clear[0] ?? bends[0] ?? 0;
  return { bend, label: along(a, b, bend, 0.5) };
}

/**
 * How the edges between the squares of `pairs` (each pair ascending, in move
 * order) are drawn: each one's bend, and where its label sits. Pure, for the
 * tests to lay out many graphs.
 */
export function layOut(pairs: [number, number][]): { bend: number; label: Point }[] {
  const bends = new Map<string, number[]>();
  const labels: Point[] = [];
  return pairs.map(([a, b]) => {
    const taken = bends.get(`${a}-${b}`) ?? [];
    const placed = placeEdge(a, b, taken, labels);
    bends.set(`${a}-${b}`, [...taken, placed.bend]);
    labels.push(placed.label);
    return placed;
  });
}

/** Where square `square`'s node sits, and a point `t` (0 to 1) along the edge from `a` to `b` bent by `bend`: for the tests. */
export const geometry = { centre, along, radius: RADIUS };

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
  const edges = layOut(spooky.map((move) => move.squares as [number, number]));
  spooky.forEach((move, index) => {
    const [a, b] = move.squares as [number, number];
    const { bend, label } = edges[index]!;
    const [ax, ay] = centre(a);
    const [bx, by] = centre(b);
    const [cx, cy] = control(a, b, bend);
    const [lx, ly] = label;
    root.append(
      svg(
        "g",
        { "data-move": move.move, class: `edge ${move.player.toLowerCase()}${cycle.has(move.move) ? " cycle" : ""}` },
        svg("path", { d: `M ${ax} ${ay} Q ${cx} ${cy} ${bx} ${by}` }),
        svg("text", { x: lx, y: ly + 5, "text-anchor": "middle" }, `${move.player}${move.move}`),
      ),
    );
  });
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
