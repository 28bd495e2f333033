// A player's profile, with a challenge to them, and a variant's leaderboard.

import type { QtttClient, Schemas } from "../../src/index.js";
import type { Account } from "./account.js";
import { explain } from "./advice.js";
import { button, choice, html } from "./dom.js";
import { termsOf } from "./lobby.js";
import { CLOCKS, RULES, SCORINGS, diffText, gameAddress, leaderboardAddress, profileAddress, ratingText, resultFor, rulesName, seatNamed, variantName } from "./links.js";

const VARIANTS: Schemas["VariantName"][] = ["player_choice", "measurement"];

/** A screen that says why it has nothing to show. */
function failed(title: string, error: unknown): HTMLElement {
  return html("main", {}, html("h1", {}, title), html("p", { role: "alert" }, explain(error)), html("a", { href: "/play" }, "To the lobby"));
}

/** How `game` went for the player named `name`, in a few words. */
function gameLine(game: Schemas["GameSummary"], name: string): HTMLElement {
  const seat = seatNamed(game, name);
  const other = seat === "X" ? "O" : "X";
  const opponentName = game.players[other];
  const opponent = game.bot !== null ? `the ${game.bot} bot` : (opponentName ?? (game.status === "waiting" ? "nobody yet" : "anonymous"));
  const diff = game.ratings[seat]?.rating_diff;
  return html(
    "li",
    {},
    html("a", { href: gameAddress(game.id) }, `Game ${game.id}`),
    ` · ${rulesName(game)} · vs `,
    opponentName !== null && game.bot === null ? html("a", { href: profileAddress(opponentName) }, opponentName) : opponent,
    ` · ${resultFor(game, seat)}`,
    diff === null || diff === undefined ? "" : html("span", { class: "diff" }, ` ${diffText(diff)}`),
    ` · ${new Date(game.created_at).toLocaleDateString()}`,
  );
}

/** The profile of the player named `name`. */
export async function profileScreen(client: QtttClient, account: Account, name: string): Promise<HTMLElement> {
  let player: Schemas["PlayerView"];
  let games: Schemas["GameSummary"][];
  try {
    [player, { games }] = await Promise.all([client.player(name), client.playerGames(name, { limit: 20 })]);
  } catch (error) {
    return failed(name, error);
  }
  const rows = VARIANTS.map((variant) => {
    const rating = player.ratings[variant];
    return html(
      "tr",
      {},
      html("th", { scope: "row" }, variantName(variant)),
      html("td", {}, ratingText(rating)),
      html("td", {}, String(Math.round(rating.deviation))),
      html("td", {}, String(rating.games)),
      html("td", {}, rating.provisional ? "provisional" : ""),
    );
  });
  const results = player.games;
  const me = account.player?.name.toLowerCase() === player.name.toLowerCase();
  return html(
    "main",
    { class: "profile" },
    html("h1", {}, player.name, player.bot ? html("span", { class: "variant" }, " · bot") : ""),
    html(
      "table",
      { "aria-label": "Ratings" },
      html("thead", {}, html("tr", {}, ...["Variant", "Rating", "Deviation", "Rated games", ""].map((heading) => html("th", { scope: "col" }, heading)))),
      html("tbody", {}, ...rows),
    ),
    html("p", {}, `Played ${results.played}: won ${results.won}, lost ${results.lost}, drawn ${results.drawn}. Aborted ${results.aborted}.`),
    !me && !player.bot && account.playing !== null ? challengeForm(account, player.name) : "",
    html("section", { "aria-label": "Recent games" }, html("h2", {}, "Recent games"), games.length === 0 ? html("p", {}, "None yet.") : html("ul", { class: "games" }, ...games.map((game) => gameLine(game, player.name)))),
  );
}

/** A form that challenges the player named `name`, then waits for the answer. */
function challengeForm(account: Account, name: string): HTMLElement {
  const playing = account.playing;
  const notice = html("p", { class: "notice", role: "status" });
  const waiting = html("div", { class: "actions" });
  const form = html(
    "form",
    { class: "create", "aria-label": `Challenge ${name}` },
    html("h2", {}, `Challenge ${name}`),
    choice("Collapse rule", "variant", RULES),
    choice("Scoring", "scoring", SCORINGS),
    choice("Clock", "clock", CLOCKS),
    choice("Your colour", "colour", [
      ["random", "At random"],
      ["X", "X (moves first)"],
      ["O", "O"],
    ]),
    html("label", { class: "check" }, html("input", { type: "checkbox", name: "rated" }), "Rated"),
    html("button", { type: "submit" }, "Challenge"),
    notice,
    waiting,
  );
  let sent: Schemas["ChallengeView"] | null = null;
  account.listen((kind, event) => {
    const challenge = event.challenge;
    if (sent === null || challenge === null || challenge.id !== sent.id) {
      return;
    }
    if (kind === "challenge_accepted" && challenge.game_id !== null) {
      location.assign(gameAddress(challenge.game_id));
    } else if (kind === "challenge_declined") {
      notice.textContent = `${name} declined${challenge.decline_reason ? `: ${challenge.decline_reason}` : "."}`;
      waiting.replaceChildren();
      sent = null;
    }
  });
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const fields = new FormData(form);
    const terms: Schemas["ChallengeRequest"] = { ...termsOf(fields), colour: fields.get("colour") as Schemas["ColourName"] };
    playing?.challenge(name, terms).then(
      (challenge) => {
        sent = challenge;
        notice.textContent = `Challenge sent: waiting for ${name}'s answer.`;
        waiting.replaceChildren(
          button("Cancel challenge", () => {
            playing.cancelChallenge(challenge.id).then(
              () => {
                notice.textContent = "Challenge cancelled.";
                waiting.replaceChildren();
                sent = null;
              },
              (error: unknown) => (notice.textContent = explain(error)),
            );
          }),
        );
      },
      (error: unknown) => (notice.textContent = explain(error)),
    );
  });
  return form;
}

/** The leaderboard of `variant`, as the API ranks it. */
export async function leaderboardScreen(client: QtttClient, variant: Schemas["VariantName"]): Promise<HTMLElement> {
  let board: Schemas["Leaderboard"];
  try {
    board = await client.leaderboard(variant);
  } catch (error) {
    return failed("Leaderboard", error);
  }
  const rows = board.players.map((leader) =>
    html(
      "tr",
      {},
      html("td", {}, String(leader.rank)),
      html("td", {}, html("a", { href: profileAddress(leader.name) }, leader.name), leader.bot ? " (bot)" : ""),
      html("td", {}, String(Math.round(leader.rating))),
      html("td", {}, String(leader.games)),
    ),
  );
  return html(
    "main",
    { class: "leaderboard" },
    html("h1", {}, `Leaderboard: ${variantName(variant)}`),
    html("p", {}, ...VARIANTS.filter((other) => other !== variant).map((other) => html("a", { href: leaderboardAddress(other) }, `The leaderboard of ${variantName(other)}`))),
    html("p", {}, "Players whose ratings are not provisional: a deviation under 110."),
    html(
      "table",
      { "aria-label": "Leaderboard" },
      html("thead", {}, html("tr", {}, ...["Rank", "Name", "Rating", "Rated games"].map((heading) => html("th", { scope: "col" }, heading)))),
      html("tbody", {}, ...rows),
    ),
    rows.length === 0 ? html("p", {}, "Nobody yet.") : "",
  );
}
