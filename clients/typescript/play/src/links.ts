// The page's addresses, and the words it uses for a game's terms, shared by
// every screen.

import type { Schemas } from "../../src/index.js";

/** The page's address with `query`. */
function address(query: Record<string, string>): string {
  const link = new URL("/play", location.origin);
  for (const [name, value] of Object.entries(query)) {
    link.searchParams.set(name, value);
  }
  return link.toString();
}

/** The page's address of game `id`, with a private game's invite. */
export function gameAddress(id: number, invite?: string): string {
  return address({ game: String(id), ...(invite !== undefined && { invite }) });
}

/** A player's profile. */
export function profileAddress(name: string): string {
  return address({ player: name });
}

/** A variant's leaderboard. */
export function leaderboardAddress(variant: Schemas["VariantName"]): string {
  return address({ leaderboard: variant });
}

/** A variant's name. */
export function variantName(variant: Schemas["VariantName"]): string {
  return variant === "player_choice" ? "Goff's rule" : "measurement";
}

/** A clock's terms, such as `3 min + 2 s`, or `no clock`. */
export function clockName(clock: Schemas["ClockSettingsView"] | null): string {
  if (clock === null) {
    return "no clock";
  }
  const initial = clock.initial_ms / 1000;
  const shown = initial % 60 === 0 ? `${initial / 60} min` : `${initial} s`;
  return `${shown} + ${clock.increment_ms / 1000} s`;
}

/** A rating as lichess shows it: rounded, with "?" while provisional. */
export function ratingText(rating: { rating: number; provisional: boolean }): string {
  return `${Math.round(rating.rating)}${rating.provisional ? "?" : ""}`;
}

/** A rating's change, signed: `+12`, `−8` (a minus sign), `0`. */
export function diffText(diff: number): string {
  const rounded = Math.round(diff);
  return rounded > 0 ? `+${rounded}` : rounded < 0 ? `−${-rounded}` : "0";
}
