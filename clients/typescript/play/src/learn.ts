// Lessons for a newcomer at /play?learn: one idea each, learnt by playing on a
// real board. Each lesson sets up its position by playing a real game through
// the API, both seats held here, then checks the learner's action by what the
// server answers: the page keeps no rules of its own.

import type { Game, QtttClient, Schemas } from "../../src/index.js";
import { explain } from "./advice.js";
import { Board, collapseOutcomes, placeable, pressed } from "./board.js";
import { button, html } from "./dom.js";
import { graphFigure } from "./graph.js";

type Seat = Schemas["PlayerName"];
/** An action of a lesson's setup: a move's two squares, or a collapse, "move k ends in square s". */
type Setup = { squares: [number, number] } | { move: number; square: number };

interface Lesson {
  title: string;
  /** What the idea is. */
  idea: string;
  /** What to do. */
  goal: string;
  variant: Schemas["VariantName"];
  setup: Setup[];
  /** With an answer, the lesson asks for a square before anything is played, then plays `then` to show it. */
  predict?: { answer: number; then: Setup; wrong: string };
  /** What the learner's action did, read from the game after it: null when the goal is met, else what went wrong. */
  check: (game: Game) => string | null;
  /** Said once the goal is met. */
  right: (game: Game) => string;
}

/** The move numbered `number` of `game`. */
function moveOf(game: Game, number: number): Schemas["MoveView"] | undefined {
  return game.moves.find((move) => move.move === number);
}

const LESSONS: Lesson[] = [
  {
    title: "1. The spooky move",
    idea: "Each move places one mark in two squares at once: a spooky mark, labelled with its player and its number, X1 for X's first move. Until it collapses, nobody knows which of the two squares it will take.",
    goal: "Place X1 in the two ends of a diagonal: click square 0, then square 8 (or 2 and 6).",
    variant: "player_choice",
    setup: [],
    check: (game) => {
      const squares = moveOf(game, 1)?.squares.join(" and ");
      return squares === "0 and 8" || squares === "2 and 6" ? null : `X1 went in squares ${squares ?? "?"}, not the ends of a diagonal.`;
    },
    right: () => "Right: X1 is in both squares at once, shaded by its odds of landing in each.",
  },
  {
    title: "2. Entanglement",
    idea: "Two moves that share a square are entangled: where one lands decides where the other may. The graph beside the board draws each move as an edge between its two squares.",
    goal: "X1 is in squares 0 and 4. Place O2 so that it shares one square with X1, and only one.",
    variant: "player_choice",
    setup: [{ squares: [0, 4] }],
    check: (game) => {
      const shared = moveOf(game, 2)?.squares.filter((square) => square === 0 || square === 4).length ?? 0;
      return shared === 1 ? null : shared === 0 ? "O2 shares no square with X1: the two stay apart." : "O2 shares both squares with X1: that closes a cycle, the next lesson's idea.";
    },
    right: () => "Right: X1 and O2 are entangled, one edge after the other in the graph.",
  },
  {
    title: "3. A cycle, and its collapse by choice",
    idea: "When a move closes a cycle of entangled moves, the cycle collapses: each of its moves lands in one of its squares, in one of two ways. In Goff's rule, the player who did not close the cycle chooses which.",
    goal: "X1 (squares 0, 1), O2 (1, 2) and X3 (0, 2) make a cycle, closed by X. You are O: choose the outcome in which your O2 takes square 1, the middle of the top row.",
    variant: "player_choice",
    setup: [{ squares: [0, 1] }, { squares: [1, 2] }, { squares: [0, 2] }],
    check: (game) => {
      const o2 = moveOf(game, 2)?.landed;
      return o2 === 1 ? null : `In that outcome O2 landed in square ${o2 ?? "?"}, not 1.`;
    },
    right: () => "Right: every move of the cycle is classical now, O2 in the middle.",
  },
  {
    title: "4. Measurement",
    idea: "In the measurement variant nobody chooses: the moment a cycle closes, the server measures it, and each of its two outcomes happens with probability 1/2.",
    goal: "X1 is in squares 0 and 1, O2 in 1 and 2. Close the cycle with X3, and let chance decide.",
    variant: "measurement",
    setup: [{ squares: [0, 1] }, { squares: [1, 2] }],
    check: (game) => (game.collapses.length === 1 ? null : "X3 closed no cycle: put it in the two squares that X1 and O2 join, 0 and 2."),
    right: (game) => `Right: measured, X3 landed in square ${moveOf(game, 3)?.landed ?? "?"}.`,
  },
  {
    title: "5. A stem is forced",
    idea: "A move hanging off a cycle, a stem, has no choice when the cycle collapses: the cycle fills its square either way, so the stem takes its other square.",
    goal: "O4 closed the cycle of O2 (4, 8), X3 (2, 4) and O4 (2, 8). X1 is in squares 0 and 4. Before X chooses: click the square where X1 must end up.",
    variant: "player_choice",
    setup: [{ squares: [0, 4] }, { squares: [4, 8] }, { squares: [2, 4] }, { squares: [2, 8] }],
    predict: { answer: 0, then: { move: 4, square: 2 }, wrong: "Not there: square 4 is in the cycle, which fills it in both outcomes." },
    check: (game) => (moveOf(game, 1)?.landed === 0 ? null : "X1 did not land in square 0."),
    right: () => "Right: X chose O4 in square 2, and X1 was forced into square 0, as it would have been either way.",
  },
  {
    title: "6. Scoring, and the last square",
    idea: "A line of three classical marks scores by its highest subscript: the earliest line scores 1, any later one ½. X, with five marks, can make two lines at once: 1½, or 2 when both end with X9. After move 8, if one square is left, X's move 9 puts both its marks there, classical at once.",
    goal: "Eight squares are classical and nobody has a line. Place X9 in the last square.",
    variant: "player_choice",
    setup: [
      { squares: [0, 1] },
      { squares: [1, 2] },
      { squares: [2, 3] },
      { squares: [3, 0] },
      { move: 4, square: 3 },
      { squares: [4, 5] },
      { squares: [5, 6] },
      { squares: [6, 7] },
      { squares: [7, 4] },
      { move: 8, square: 4 },
    ],
    check: (game) => (game.end !== null ? null : "The game goes on: X9 goes in the one square left."),
    right: (game) => `Right: ${game.lines.map((line) => `${line.player}'s line ${line.squares.join("-")} ends with move ${line.max_move} and scores ${line.points === 1 ? "1" : "½"}`).join("; ")}. X wins ${game.score.X} to ${game.score.O}.`,
  },
];

/** The lessons' screen, at lesson `start` (from 0). */
export function learnScreen(client: QtttClient, start: number): HTMLElement {
  const main = html("main", { class: "learn" });
  const show = (index: number): void => {
    const lesson = LESSONS[index];
    if (lesson === undefined) {
      main.replaceChildren(html("h1", {}, "Lessons"), html("p", { role: "status" }, "That was the last lesson: you know the game. Play it!"), html("a", { href: "/play" }, "To the lobby"));
      return;
    }
    main.replaceChildren(new LessonScreen(client, lesson, () => show(index + 1)).element);
  };
  show(Math.min(Math.max(0, start), LESSONS.length));
  return main;
}

/** One lesson on screen: its position set up through the API, then the learner's action checked by the server's answer. */
class LessonScreen {
  readonly element: HTMLElement;
  private game: Game | null = null;
  private tokens: Record<Seat, string> = { X: "", O: "" };
  private selected: number | null = null;
  private predicted = false;
  private busy = true;
  private readonly status = html("p", { class: "status", role: "status", "aria-live": "polite" });
  private readonly board = new Board((square) => void this.press(square));
  private readonly outcomes = html("div", { class: "outcomes-place" });
  private readonly graph = html("figure", { class: "graph-place" });
  private readonly next: HTMLButtonElement;
  private readonly again = button("Try again", () => void this.setUp());

  constructor(
    private readonly client: QtttClient,
    private readonly lesson: Lesson,
    onward: () => void,
  ) {
    this.next = button("Next lesson", onward, { hidden: true });
    this.again.hidden = true;
    this.element = html(
      "section",
      { "aria-label": lesson.title },
      html("h1", {}, lesson.title),
      html("p", {}, lesson.idea),
      html("p", { class: "goal" }, html("strong", {}, "Goal: "), lesson.goal),
      this.status,
      this.outcomes,
      html("div", { class: "play" }, this.board.element, this.graph),
      html("div", { class: "actions" }, this.again, this.next, html("a", { href: "/play" }, "To the lobby")),
    );
    void this.setUp();
  }

  /** A new game, both seats held here, played up to the lesson's position. */
  private async setUp(): Promise<void> {
    this.busy = true;
    this.selected = null;
    this.predicted = false;
    this.again.hidden = true;
    this.say("Setting up the position…");
    try {
      const created = await this.client.createGame({ variant: this.lesson.variant, play_as: "X", private: true, hints: false });
      const joined = await this.client.joinGame(created.game.id, created.invite === null ? {} : { invite: created.invite });
      this.tokens = { X: created.seat.token, O: joined.seat.token };
      let game = joined.game;
      for (const action of this.lesson.setup) {
        game = await this.play(game, action);
      }
      this.busy = false;
      this.draw(game);
      this.say(this.lesson.predict === undefined ? `Your turn: ${game.to_act?.player ?? ""}.` : "Click a square.");
    } catch (error) {
      this.say(explain(error));
      this.again.hidden = false;
    }
  }

  /** Ends a lesson's game that goes on, once the lesson is done with it, so that no game of it is left open. */
  private close(game: Game): void {
    if (game.end === null) {
      this.client.resign(game.id, { token: this.tokens.X }).catch(() => undefined);
    }
  }

  /** Plays `action` for the seat to act in `game`. */
  private play(game: Game, action: Setup): Promise<Game> {
    const token = this.tokens[game.to_act?.player ?? "X"];
    return "squares" in action ? this.client.move(game.id, action.squares, { token }) : this.client.collapse(game.id, action.move, action.square, { token });
  }

  private say(text: string): void {
    this.status.textContent = text;
  }

  private draw(game: Game): void {
    this.game = game;
    const toAct = game.to_act;
    const open = !this.busy && game.end === null && toAct !== null;
    const predicting = this.lesson.predict !== undefined && !this.predicted;
    this.board.show(game, (square) => open && (predicting || placeable(game, square)), this.selected);
    const choose = open && !predicting && toAct.kind === "collapse" ? (move: number, square: number) => void this.act({ move, square }) : null;
    this.outcomes.replaceChildren(collapseOutcomes(game, choose) ?? "");
    this.graph.replaceChildren(...graphFigure(game));
  }

  /** A square pressed: a prediction, or a move's first or second square. */
  private async press(square: number): Promise<void> {
    const game = this.game;
    const predict = this.lesson.predict;
    if (game === null) {
      return;
    }
    if (predict !== undefined && !this.predicted) {
      if (square !== predict.answer) {
        this.say(`Not quite: ${predict.wrong} Click another square.`);
        return;
      }
      this.predicted = true;
      await this.act(predict.then);
      return;
    }
    const next = pressed(square, this.selected, game.to_act?.forced_squares ?? null);
    if ("selected" in next) {
      this.selected = next.selected;
      this.draw(game);
    } else {
      this.selected = null;
      await this.act(next);
    }
  }

  /** Plays the learner's action through the API, and checks what it did. */
  private async act(action: Setup): Promise<void> {
    const game = this.game;
    if (game === null || this.busy) {
      return;
    }
    this.busy = true;
    try {
      const after = await this.play(game, action);
      this.draw(after);
      this.close(after);
      const wrong = this.lesson.check(after);
      if (wrong === null) {
        this.say(this.lesson.right(after));
        this.next.hidden = false;
      } else {
        this.say(`Not quite: ${wrong}`);
        this.again.hidden = false;
      }
    } catch (error) {
      // Refused by the rules: nothing changed, try again on the same position.
      this.busy = false;
      this.say(`Not quite: ${explain(error)}`);
      this.draw(game);
    }
  }
}
