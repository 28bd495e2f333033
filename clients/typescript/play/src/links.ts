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

/** Arena `id`'s screen. */
export function arenaAddress(id: number): string {
  return address({ arena: String(id) });
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

/** The seat the player named `name` (in any case) holds in a listed game: X, else O. */
export function seatNamed(game: Schemas["GameSummary"], name: string): Schemas["PlayerName"] {
  return game.players.X?.toLowerCase() === name.toLowerCase() ? "X" : "O";
}

/** How a listed game went, or goes, for `seat`: won, lost, draw, aborted, goes on or waiting. */
export function resultFor(game: Schemas["GameSummary"], seat: Schemas["PlayerName"]): string {
  switch (game.result) {
    case "ongoing":
      return game.status === "waiting" ? "waiting" : "goes on";
    case "aborted":
    case "draw":
      return game.result;
    default:
      return game.result === (seat === "X" ? "x_wins" : "o_wins") ? "won" : "lost";
  }
}

/** The collapse rules to choose from in a form. */
export const RULES: [Schemas["VariantName"], string][] = [
  ["player_choice", "Goff's rule: the other player chooses"],
  ["measurement", "Measurement: chance chooses"],
];

/** The scorings a game can be played by (docs/RULES.md). */
export const SCORINGS: [Schemas["ScoringName"], string][] = [
  ["goff", "Goff's: first line 1, later 1/2"],
  ["complete_win", "Complete win: lines at once draw"],
  ["narrow_win", "Narrow win: lower subscript wins"],
];

/** A scoring's name. */
export function scoringName(scoring: Schemas["ScoringName"]): string {
  return scoring === "goff" ? "Goff's scoring" : scoring === "complete_win" ? "complete win" : "narrow win";
}

/** A game's rules in words: its variant's name, and its scoring's unless Goff's. */
export function rulesName(rules: { variant: Schemas["VariantName"]; scoring: Schemas["ScoringName"] }): string {
  return rules.scoring === "goff" ? variantName(rules.variant) : `${variantName(rules.variant)}, ${scoringName(rules.scoring)}`;
}

/** The clocks offered, as `initial+increment` in seconds; "" for none. */
export const CLOCKS: [string, string][] = [
  ["", "No clock"],
  ["60+1", "1 min + 1 s"],
  ["180+2", "3 min + 2 s"],
  ["600+5", "10 min + 5 s"],
];
