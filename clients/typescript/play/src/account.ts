// The player this browser is signed in as, kept in localStorage as seats are:
// a player's token is their only credential. Every screen shows the player at
// its top and follows their event stream, on which a challenge arrives (to
// accept or decline wherever the person is) and a game sought or challenged
// for starts.

import { ProblemError, type PlayerEvent, type QtttClient, type Schemas } from "../../src/index.js";
import { explain } from "./advice.js";
import { button, html } from "./dom.js";
import { clockName, gameAddress, leaderboardAddress, profileAddress, rulesName } from "./links.js";
import { holdSeat } from "./seats.js";

/** A player signed in here. */
export interface Player {
  name: string;
  token: string;
}

const KEY = "qttt.player";
/** Where the id of the last event of the player's stream seen here is kept. */
const lastEventKey = (name: string): string => `qttt.player.${name}.last_event`;

/** The player signed in here, if any. */
export function signedIn(): Player | null {
  try {
    const kept = localStorage.getItem(KEY);
    const player = kept === null ? null : (JSON.parse(kept) as Player);
    return player !== null && typeof player.name === "string" && typeof player.token === "string" ? player : null;
  } catch {
    return null;
  }
}

/** Signs in as the player of `token`, after the server says whose it is. */
export async function signIn(client: QtttClient, token: string): Promise<Player> {
  const me = await client.withToken(token).me();
  const player = { name: me.name, token };
  localStorage.setItem(KEY, JSON.stringify(player));
  return player;
}

function signOut(): void {
  localStorage.removeItem(KEY);
}

/** What a screen hears of the player's stream: every event, as it comes. */
export type Listener = (kind: string, event: PlayerEvent) => void;

/** The top of every screen: the player and their challenges, or a way to become one. */
export class Account {
  readonly element: HTMLElement;
  readonly player: Player | null;
  private readonly listeners: Listener[] = [];
  private readonly offers = html("div", { class: "offers", "aria-live": "polite" });
  private readonly notice = html("p", { class: "notice", role: "alert" });

  constructor(private readonly client: QtttClient) {
    this.player = signedIn();
    const home = html("a", { href: "/play" }, "Quantum Tic-Tac-Toe");
    const boards = html("a", { href: leaderboardAddress("player_choice") }, "Leaderboards");
    if (this.player === null) {
      this.element = html("header", { class: "account" }, home, boards, html("a", { href: "/play#player" }, "Become a player or sign in"));
      return;
    }
    const player = this.player;
    const token = html("input", { type: "text", readonly: true, value: player.token, "aria-label": "Your token", class: "link" });
    this.element = html(
      "header",
      { class: "account" },
      home,
      boards,
      html("a", { href: profileAddress(player.name), class: "me" }, player.name),
      html(
        "details",
        { class: "token" },
        html("summary", {}, "Your token"),
        html("p", {}, "Paste it on another device to sign in there as you. Whoever has it plays as you: keep it to yourself."),
        token,
        button("Copy token", () => void navigator.clipboard?.writeText(player.token).then(() => (this.notice.textContent = "Copied."), () => token.select())),
      ),
      button("Sign out", () => {
        signOut();
        location.assign("/play");
      }),
      this.notice,
      this.offers,
    );
    this.follow(player);
  }

  /** The client acting as the player signed in. */
  get playing(): QtttClient | null {
    return this.player === null ? null : this.client.withToken(this.player.token);
  }

  /** Tells `listener` every event of the player's stream from now on. */
  listen(listener: Listener): void {
    this.listeners.push(listener);
  }

  /** Follows the player's stream from the last event seen here, after offering the challenges that wait. */
  private follow(player: Player): void {
    const playing = this.client.withToken(player.token);
    playing.myChallenges().then(
      (challenges) => challenges.received.forEach((challenge) => this.offer(challenge)),
      (error: unknown) => this.refused(error),
    );
    const kept = Number(localStorage.getItem(lastEventKey(player.name)));
    playing.followPlayer(
      {
        event: (kind, event, id) => {
          if (id !== null) {
            localStorage.setItem(lastEventKey(player.name), String(id));
          }
          const challenge = event.challenge;
          if (kind === "challenge" && challenge !== null) {
            this.offer(challenge);
          } else if (kind === "challenge_cancelled" && challenge !== null) {
            this.offers.querySelector(`[data-challenge="${challenge.id}"]`)?.remove();
          }
          this.listeners.forEach((listener) => listener(kind, event));
        },
        error: (error) => this.refused(error),
      },
      Number.isSafeInteger(kept) && kept > 0 ? { lastEventId: kept } : {},
    );
  }

  /** A refusal of the player's calls: a token that is nobody's any more signs them out. */
  private refused(error: unknown): void {
    if (error instanceof ProblemError) {
      this.notice.textContent = error.status === 401 ? "Your token no longer works: sign in again with your new one." : explain(error);
      if (error.status === 401) {
        signOut();
      }
    }
  }

  /** Offers a challenge sent to the player, while it is open and not offered already. */
  private offer(challenge: Schemas["ChallengeView"]): void {
    const open = challenge.status === "open" && Date.parse(challenge.expires_at) > Date.now();
    if (!open || this.offers.querySelector(`[data-challenge="${challenge.id}"]`) !== null) {
      return;
    }
    const terms = `${rulesName(challenge)}, ${clockName(challenge.clock)}, ${challenge.rated ? "rated" : "casual"}, ${challenge.colour === "random" ? "colours at random" : `they play ${challenge.colour}`}`;
    const playing = this.playing;
    const element = html(
      "div",
      { class: "offer", role: "group", "aria-label": `Challenge from ${challenge.challenger}`, "data-challenge": challenge.id },
      html("a", { href: profileAddress(challenge.challenger) }, challenge.challenger),
      ` challenges you: ${terms}. `,
      button("Accept", () => {
        playing?.acceptChallenge(challenge.id).then(
          (seated) => {
            holdSeat(seated.game.id, { player: seated.seat.player, token: seated.seat.token });
            location.assign(gameAddress(seated.game.id));
          },
          (error: unknown) => {
            element.remove();
            this.notice.textContent = explain(error);
          },
        );
      }),
      button("Decline", () => {
        playing?.declineChallenge(challenge.id).then(
          () => element.remove(),
          (error: unknown) => {
            element.remove();
            this.notice.textContent = explain(error);
          },
        );
      }),
    );
    this.offers.append(element);
  }
}
