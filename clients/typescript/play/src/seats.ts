// The seats this browser holds, kept in localStorage by game: a seat's token
// is shown once, when the seat is taken, and is the only way to act for it.
// A private game's invite is kept beside its creator's seat, to share again.

import type { Credentials, Seat } from "../../src/index.js";

/** A seat held here. */
export interface HeldSeat {
  player: Seat;
  token: string;
  /** The invite of a private game this seat created, to pass on. */
  invite?: string;
}

const key = (gameId: number): string => `qttt.seat.${gameId}`;

/** The seat held in game `gameId`, if any. */
export function heldSeat(gameId: number): HeldSeat | null {
  try {
    const kept = localStorage.getItem(key(gameId));
    const seat = kept === null ? null : (JSON.parse(kept) as HeldSeat);
    return seat !== null && (seat.player === "X" || seat.player === "O") && typeof seat.token === "string" ? seat : null;
  } catch {
    return null;
  }
}

/** Keeps `seat` as the one held in game `gameId`. */
export function holdSeat(gameId: number, seat: HeldSeat): void {
  localStorage.setItem(key(gameId), JSON.stringify(seat));
}

/**
 * A seat carried by a link's fragment, `#seat=X.token`: the fragment is never
 * sent to a server, so the token stays out of logs. Answers null for none.
 */
export function seatInFragment(fragment: string): HeldSeat | null {
  const match = /^#seat=([XO])\.([A-Za-z0-9_-]+)$/.exec(fragment);
  return match === null ? null : { player: match[1] as Seat, token: match[2] as string };
}

/** What reads a game for its viewer: the seat's token if one is held here, else the link's invite. */
export function credentialsOf(seat: HeldSeat | null, invite: string | undefined): Credentials {
  return seat !== null ? { token: seat.token } : invite !== undefined ? { invite } : {};
}
