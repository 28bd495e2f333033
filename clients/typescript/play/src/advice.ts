// What the page tells a person when the server refuses: the problem's detail,
// and what to do about it by its code. The switch covers every code of the
// spec, so a code added to the API breaks the build until it is handled here.

import { ProblemError, type ProblemCode } from "../../src/index.js";

/** What to do after a refusal with `code`. */
export function advice(code: ProblemCode): string {
  switch (code) {
    case "same_square_twice":
    case "square_out_of_range":
    case "square_is_classical":
    case "move_not_in_cycle":
    case "square_not_in_move":
      return "Choose other squares.";
    case "not_your_turn":
    case "collapse_pending":
    case "no_collapse_pending":
    case "not_the_chooser":
      return "Wait for your turn.";
    case "game_over":
      return "The game is over.";
    case "hints_disabled":
      return "This game gives no hints.";
    case "rated_game":
      return "A rated game gives no help until it ends.";
    case "waiting_for_opponent":
      return "Wait for the other player to join.";
    case "abort_not_allowed":
      return "Resign instead.";
    case "game_not_over":
      return "Finish the game first.";
    case "already_rematched":
      return "The rematch is on already.";
    case "name_taken":
      return "Choose another name.";
    case "self_challenge":
      return "Challenge someone else.";
    case "already_joined":
      return "You are in this arena already: wait to be paired.";
    case "too_many_open":
      return "Cancel one first.";
    case "not_open":
      return "It was answered, paired or cancelled, it expired, or the attempt or the arena is over.";
    case "too_early":
      return "Wait a little longer.";
    case "claim_not_allowed":
    case "draw_not_allowed":
      return "Play on.";
    case "not_found":
      return "Check the link.";
    case "forbidden":
    case "unauthorized":
      return "Only a seat's holder may do that.";
    case "conflict":
      return "Reload the page and try again.";
    case "unavailable":
    case "busy":
    case "rate_limited":
    case "clock_offset":
      return "Try again shortly.";
    case "storage_full":
      return "The server cannot save games now; try again later.";
    case "invalid_body":
    case "invalid_path":
    case "invalid_query":
    case "invalid_header":
    case "method_not_allowed":
    case "rejected":
      return "This page sent something wrong: please report it.";
    case "internal":
      return "A fault on the server: please report it.";
    default: {
      const unhandled: never = code;
      return unhandled;
    }
  }
}

/** What to tell a person of `error`: a refusal's detail and advice, or what went wrong. */
export function explain(error: unknown): string {
  if (error instanceof ProblemError) {
    const retry = error.retryAfter === null ? "" : ` (in ${error.retryAfter} s)`;
    return `${error.problem.detail}. ${advice(error.code)}${retry}`;
  }
  return `The server could not be reached: ${String(error)}`;
}
