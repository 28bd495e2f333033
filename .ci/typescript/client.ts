// A small client of the API, typed from openapi/openapi.json by openapi-typescript
// and checked by `tsc --strict` in CI: a field the spec types loosely, a code it
// forgets, or a payload it does not name fails here before a frontend finds it.
import type { components } from "./api";

type Schemas = components["schemas"];
type Game = Schemas["GameView"];
type Code = Schemas["Problem"]["code"];

/** Every code a problem can carry, handled; a new one breaks the build. */
export function advice(code: Code): string {
  switch (code) {
    case "same_square_twice":
    case "square_out_of_range":
    case "square_is_classical":
    case "move_not_in_cycle":
    case "square_not_in_move":
      return "choose other squares";
    case "not_your_turn":
    case "collapse_pending":
    case "no_collapse_pending":
    case "not_the_chooser":
      return "wait for your turn";
    case "game_over":
      return "the game is over";
    case "hints_disabled":
      return "no hints in this game";
    case "rated_game":
      return "no help in a rated game until it ends";
    case "waiting_for_opponent":
      return "wait for the other player to join";
    case "abort_not_allowed":
      return "resign instead";
    case "game_not_over":
      return "finish the game first";
    case "already_rematched":
      return "the rematch is on already";
    case "name_taken":
      return "choose another name";
    case "self_challenge":
      return "challenge someone else";
    case "too_many_open":
      return "cancel one first";
    case "not_open":
      return "it was answered, paired or cancelled, or expired";
    case "too_early":
      return "wait a little longer";
    case "claim_not_allowed":
      return "play on";
    case "not_found":
      return "no such game";
    case "forbidden":
    case "unauthorized":
      return "take a seat first";
    case "conflict":
      return "reload the game and try again";
    case "unavailable":
    case "busy":
    case "rate_limited":
      return "try again shortly";
    case "clock_offset":
      return "this instance's clock is off; try another";
    case "storage_full":
      return "the server cannot save games now; try again later";
    case "invalid_body":
    case "invalid_path":
    case "invalid_query":
    case "invalid_header":
    case "method_not_allowed":
    case "rejected":
      return "a bug in this client";
    case "internal":
      return "a fault on the server";
    default: {
      const unhandled: never = code;
      return unhandled;
    }
  }
}

/** What the side to act may do now, from `to_act` and `pending_collapse` alone. */
export function prompt(game: Game): string {
  const toAct = game.to_act;
  if (toAct === null) {
    return `${game.result}: X ${game.score.X}, O ${game.score.O}`;
  }
  switch (toAct.kind) {
    case "collapse": {
      const pending = game.pending_collapse;
      if (pending === null) {
        throw new Error("a collapse to choose is pending");
      }
      const squares = pending.options.map((option) => option.square).join(" or ");
      return `${toAct.player}: move ${pending.closing_move} ends in square ${squares}`;
    }
    case "move": {
      const forced = toAct.forced_squares;
      return forced === null ? `${toAct.player}: two squares` : `${toAct.player}: square ${forced[0]}, forced`;
    }
    default: {
      const unhandled: never = toAct.kind;
      return unhandled;
    }
  }
}

/** How the game ended, and the clocks, from `end` and `clock`. */
export function ending(game: Game): string {
  const end = game.end;
  const clock = game.clock;
  const clocks = clock === null ? "untimed" : `X ${clock.remaining_ms.X} ms, O ${clock.remaining_ms.O} ms`;
  if (end === null) {
    const deadline = clock === null || clock.deadline === null ? "" : `, until ${clock.deadline}`;
    return `goes on (${clocks}${deadline})`;
  }
  const who = end.player === null ? "" : ` by ${end.player}`;
  const rematch = game.rematch === null ? "" : `; rematch in game ${game.rematch.game_id}`;
  return `${end.reason}${who}: ${game.result}${rematch}`;
}

/** The board as one line: each square's classical mark, or its odds of X. */
export function board(game: Game): string {
  return game.board.map((cell) => cell.classical ?? `${Math.round(cell.probabilities.X * 100)}%`).join(" ");
}

/** Follows a game live; `render` sees each game as it changes, and the last. */
export function watch(api: string, id: number, render: (game: Game) => void): EventSource {
  const events = new EventSource(`${api}/games/${id}/events`);
  for (const kind of ["seat", "move", "collapse", "resign", "timeout", "abort", "abandon", "rematch"]) {
    events.addEventListener(kind, (message: MessageEvent<string>) => {
      const event: Schemas["LiveEvent"] = JSON.parse(message.data);
      const entry = event.entry;
      if (entry.kind === "move") {
        console.log(`move ${entry.move} by ${entry.player} in ${entry.squares.join(", ")}`);
      }
      render(event.game);
    });
  }
  events.addEventListener("end", (message: MessageEvent<string>) => {
    const end: Schemas["LiveEnd"] = JSON.parse(message.data);
    render(end.game);
    events.close();
  });
  return events;
}

/** Each action that gave something away, as a review lists it: who, what, how much, and what was best. */
export function review(analysis: Schemas["AnalysisView"]): string[] {
  return analysis.actions
    .filter((judged) => judged.loss > 0)
    .map((judged) => {
      const squares = (action: Schemas["ActionView"]) =>
        action.kind === "move" ? `squares ${action.squares.join(", ")}` : `move ${action.move} in ${action.square}`;
      const measured = judged.measurement?.outcomes.find((outcome) => outcome.happened);
      const chance = measured === undefined ? "" : `; measured: ${measured.square} (${measured.value})`;
      return `${judged.player} at ${judged.seq}: ${squares(judged.action)} gave away ${judged.loss}, best ${squares(judged.best)}${chance}`;
    });
}

/** A seat's rating as lichess shows it: "1500?" while provisional, then the game's change once rated. */
export function seatRating(game: Game, seat: "X" | "O"): string {
  const rating = game.seats[seat]?.rating ?? null;
  if (rating === null) {
    return game.rated ? "" : "casual";
  }
  const shown = `${Math.round(rating.rating)}${rating.provisional ? "?" : ""}`;
  const diff = rating.rating_diff;
  return diff === null ? shown : `${shown} ${diff >= 0 ? "+" : ""}${Math.round(diff)}`;
}

/** A leaderboard as lines, the bots marked. */
export function leaderboard(board: Schemas["Leaderboard"]): string[] {
  return board.players.map((leader) => `${leader.rank}. ${leader.name}${leader.bot ? " (bot)" : ""} ${Math.round(leader.rating)}`);
}
