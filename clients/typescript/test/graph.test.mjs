// The entanglement graph's layout, over many made-up sets of spooky moves:
// no label overlaps another or a square, and no edge passes through a square
// it does not join. The layout is the play page's own (play/src/graph.ts),
// bundled for node.

import assert from "node:assert/strict";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { test } from "node:test";

import { build } from "esbuild";

const folder = await mkdtemp(join(tmpdir(), "qttt-graph-"));
const bundled = join(folder, "graph.mjs");
await build({ entryPoints: [fileURLToPath(new URL("../play/src/graph.ts", import.meta.url))], bundle: true, format: "esm", outfile: bundled, logLevel: "silent" });
const { layOut, geometry } = await import(bundled);

/** A label's box as a 15px bold label such as `X7` fills it, half wide and half high. */
const [HALF_WIDTH, HALF_HEIGHT] = [11, 9];

/** Numbers from a fixed seed, so that a failure can be found again. */
function numbers(seed) {
  let state = seed;
  return (below) => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return Math.floor((state / 2147483648) * below);
  };
}

test("2,000 graphs of up to nine spooky moves keep their labels and edges clear", () => {
  const draw = numbers(7);
  let edges = 0;
  for (let graph = 0; graph < 2000; graph += 1) {
    const pairs = [];
    for (let count = 1 + draw(9); pairs.length < count; ) {
      const [a, b] = [draw(9), draw(9)];
      if (a !== b) pairs.push([Math.min(a, b), Math.max(a, b)]);
    }
    const laid = layOut(pairs);
    laid.forEach(({ bend, label: [x, y] }, index) => {
      const [a, b] = pairs[index];
      edges += 1;
      for (const { label: [ox, oy] } of laid.slice(0, index)) {
        if (Math.abs(ox - x) < 2 * HALF_WIDTH && Math.abs(oy - y) < 2 * HALF_HEIGHT) assert.fail(`labels overlap in ${JSON.stringify(pairs)}`);
      }
      for (let square = 0; square < 9; square += 1) {
        const [cx, cy] = geometry.centre(square);
        const near = Math.hypot(Math.max(Math.abs(cx - x) - HALF_WIDTH, 0), Math.max(Math.abs(cy - y) - HALF_HEIGHT, 0));
        if (near < geometry.radius) assert.fail(`a label over square ${square} in ${JSON.stringify(pairs)}`);
        if (square === a || square === b) continue;
        for (let step = 1; step < 100; step += 1) {
          const [px, py] = geometry.along(a, b, bend, step / 100);
          if (Math.hypot(px - cx, py - cy) < geometry.radius) assert.fail(`edge ${a}-${b} through square ${square} in ${JSON.stringify(pairs)}`);
        }
      }
    });
  }
  assert.ok(edges > 8000, `${edges} edges laid out`);
});
