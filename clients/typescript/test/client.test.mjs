// The client against a real server: whole games, a bot, a rematch, a stream
// resumed after it dropped, and the refusals, each as a ProblemError.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { ProblemError, QtttClient } from "../dist/index.js";
import { startServer } from "./server.mjs";

let server;
let client;

before(async () => {
  // A finished game's stream ends a second after the end, not a minute.
  server = await startServer({ REMATCH_WINDOW_SECONDS: "1" });
  client = new QtttClient({ baseUrl: server.baseUrl });
});

after(async () => {
  await server.stop();
});

/** Plays `id` to its end, each side taking its first legal action with its own token. */
async function playOut(id, tokens) {
  let game = await client.game(id);
  for (let actions = 0; game.to_act !== null; actions += 1) {
    assert.ok(actions < 40, "a game ends within 40 actions");
    const token = tokens[game.to_act.player];
    const { actions: legal } = await client.legal(id, { token });
    assert.ok(legal.length > 0, "the side to act has an action");
    game = await client.act(id, legal[0], { token });
  }
  return game;
}

/** A game between two people in `variant`, both seats taken: its id and the seats' tokens. */
async function gameBetweenTwo(variant) {
  const created = await client.createGame({ variant });
  assert.equal(created.game.status, "waiting");
  // Nobody may move while a seat is free.
  assert.equal(created.game.to_act, null);
  assert.equal(created.game.next_to_move, null);
  assert.equal(created.seat.player, "X");
  const joined = await client.joinGame(created.game.id);
  assert.equal(joined.seat.player, "O");
  assert.equal(joined.game.status, "ongoing");
  return { id: created.game.id, tokens: { X: created.seat.token, O: joined.seat.token } };
}

for (const variant of ["measurement", "player_choice"]) {
  test(`a whole game of ${variant} between two people`, async () => {
    const { id, tokens } = await gameBetweenTwo(variant);
    const game = await playOut(id, tokens);
    assert.equal(game.status, "finished");
    assert.ok(["x_wins", "o_wins", "draw"].includes(game.result), game.result);
    assert.ok(["lines", "full_board"].includes(game.end?.reason), JSON.stringify(game.end));
    assert.equal(game.variant, variant);
    assert.equal(typeof game.score.X, "number");
    // The first legal actions close a cycle at once (two moves on squares 0 and 1).
    assert.ok(game.collapses.length >= 1, JSON.stringify(game.collapses));
    const log = await client.log(id);
    assert.equal(log.entries.at(-1).seq, game.version);
    const transcript = await client.transcript(id);
    const [header, actions] = transcript.split("\n");
    assert.equal(header, `[Variant "${variant}"] [Scoring "goff"]`);
    assert.match(actions, /^X1\+\(/);
  });
}

test("a game against the random bot, which answers each move", async () => {
  const created = await client.createGame({ variant: "measurement", opponent: { bot: "random" } });
  assert.deepEqual(created.game.opponent, { bot: "random", player: "O", mistake_chance: null });
  const token = created.seat.token;
  let game = created.game;
  while (game.to_act !== null) {
    assert.equal(game.to_act.player, "X", "the bot has answered before the answer comes");
    const { actions } = await client.legal(game.id, { token });
    game = await client.act(game.id, actions[0], { token });
  }
  assert.equal(game.status, "finished");
  const hintless = await client.hint(game.id, { token }).catch((error) => error);
  assert.ok(hintless instanceof ProblemError);
  assert.equal(hintless.code, "game_over");
});

test("a rematch: the first to ask gets the new game with colours swapped, the other joins it", async () => {
  const { id, tokens } = await gameBetweenTwo("player_choice");
  await client.resign(id, { token: tokens.O });
  const asked = await client.rematch(id, { token: tokens.X });
  assert.equal(asked.seat.player, "O");
  assert.equal(asked.game.status, "waiting");
  const answered = await client.rematch(id, { token: tokens.O });
  assert.equal(answered.game.id, asked.game.id);
  assert.equal(answered.seat.player, "X");
  assert.equal(answered.game.status, "ongoing");
  const first = await client.game(id);
  assert.equal(first.rematch?.game_id, asked.game.id);
  // Asking again names the rematch.
  const again = await client.rematch(id, { token: tokens.O }).catch((error) => error);
  assert.ok(again instanceof ProblemError);
  assert.equal(again.code, "already_rematched");
  assert.equal(again.problem.game_id, asked.game.id);
});

test("a draw: offered, declined, offered again and accepted", async () => {
  const { id, tokens } = await gameBetweenTwo("player_choice");
  assert.equal((await client.offerDraw(id, { token: tokens.X })).draw_offer, "X");
  assert.equal((await client.declineDraw(id, { token: tokens.O })).draw_offer, null);
  const refused = await client.declineDraw(id, { token: tokens.O }).catch((error) => error);
  assert.equal(refused.code, "draw_not_allowed");
  assert.equal((await client.offerDraw(id, { token: tokens.O })).draw_offer, "O");
  const agreed = await client.offerDraw(id, { token: tokens.X });
  assert.deepEqual([agreed.result, agreed.end], ["draw", { reason: "agreement", player: "X" }]);
});

test("a stream resumed after it dropped sees every event once, and ends with the game", async () => {
  const { id, tokens } = await gameBetweenTwo("measurement");
  const seen = [];
  const spectators = [];
  let games = 0;
  // The count of spectators comes beside the log's events: this follower, without a token, is one.
  const heard = (events) => (kind, data, eventId) => (kind === "spectators" ? spectators.push(data.spectators) : events.push([kind, eventId]));
  const first = client.follow(id, { event: heard(seen), game: () => (games += 1) });
  await client.move(id, [0, 1], { token: tokens.X });
  await client.move(id, [2, 3], { token: tokens.O });
  await waitFor(() => seen.length >= 4);
  first.close();
  await first.finished;
  const resumeAfter = first.lastEventId;
  assert.equal(resumeAfter, 4);
  // Written while nobody follows.
  await client.move(id, [4, 5], { token: tokens.X });
  await client.resign(id, { token: tokens.X });
  const kinds = [];
  const second = client.follow(id, { event: heard(kinds) }, { lastEventId: resumeAfter });
  await second.finished;
  assert.deepEqual(seen, [["seat", 1], ["seat", 2], ["move", 3], ["move", 4]]);
  assert.deepEqual(kinds, [["move", 5], ["resign", 6], ["end", null]]);
  assert.equal(games, 4);
  assert.deepEqual(spectators, [1, 1]);
  // A game over whose events were all seen: the server answers 204, and the stream is done.
  const third = client.follow(id, {}, { lastEventId: 6 });
  await third.finished;
});

test("each refusal is a ProblemError with the spec's code", async () => {
  const refusal = async (call) => {
    const error = await call().then(
      () => assert.fail("refused"),
      (error) => error,
    );
    assert.ok(error instanceof ProblemError, String(error));
    return error;
  };
  const { id, tokens } = await gameBetweenTwo("measurement");
  const waiting = await client.createGame({});
  const cases = [
    [() => client.move(waiting.game.id, [0, 1], { token: waiting.seat.token }), 422, "waiting_for_opponent"],
    [() => client.move(id, [0, 1], { token: tokens.O }), 422, "not_your_turn"],
    [() => client.move(id, [0, 0], { token: tokens.X }), 422, "same_square_twice"],
    [() => client.move(id, [0, 9], { token: tokens.X }), 422, "square_out_of_range"],
    [() => client.move(id, ["a", 1], { token: tokens.X }), 400, "invalid_body"],
    [() => client.move(id, [0, 1]), 401, "unauthorized"],
    [() => client.move(id, [0, 1], { token: waiting.seat.token }), 403, "forbidden"],
    [() => client.move(id, [0, 1], { token: tokens.X, ifMatch: 1 }), 409, "conflict"],
    [() => client.game(999_999), 404, "not_found"],
    [() => client.hint(id, { token: tokens.X }), 422, "hints_disabled"],
    [() => client.collapse(id, 1, 0, { token: tokens.X }), 422, "no_collapse_pending"],
    [() => client.player("nobody-here"), 404, "not_found"],
  ];
  for (const [call, status, code] of cases) {
    const error = await refusal(call);
    assert.equal(error.status, status, `${code}: ${error.message}`);
    assert.equal(error.code, code, error.message);
  }
  const conflict = await refusal(() => client.move(id, [0, 1], { token: tokens.X, ifMatch: 1 }));
  assert.equal(conflict.problem.current_version, 2);
});

test("a rate limit's refusal carries its Retry-After", async () => {
  const limited = await startServer({ CREATE_RATE_LIMIT: "1", CREATE_RATE_BURST: "1" });
  try {
    const tight = new QtttClient({ baseUrl: limited.baseUrl });
    await tight.createGame({});
    const error = await tight.createGame({}).catch((error) => error);
    assert.ok(error instanceof ProblemError);
    assert.equal(error.code, "rate_limited");
    assert.equal(error.status, 429);
    assert.ok(error.retryAfter !== null && error.retryAfter > 0, String(error.retryAfter));
  } finally {
    await limited.stop();
  }
});

/** Both first moves of game `id`, each made by the client of `byName` whose player is to act: a rated game resigned before is aborted, unrated. */
async function firstMoves(id, byName) {
  for (const squares of [[0, 1], [2, 3]]) {
    const game = await client.game(id);
    await byName[game.seats[game.to_act.player].name].move(id, squares);
  }
}

test("players, a rated challenge, ratings and the leaderboard", async () => {
  const alice = client.withToken((await client.createPlayer("alice")).token);
  const bob = client.withToken((await client.createPlayer("bob")).token);
  const challenge = await alice.challenge("bob", { variant: "player_choice", colour: "x", rated: true });
  assert.equal(challenge.rated, true);
  const { received } = await bob.myChallenges();
  assert.equal(received[0]?.id, challenge.id);
  const accepted = await bob.acceptChallenge(challenge.id);
  assert.equal(accepted.seat.player, "O");
  const hint = await alice.hint(accepted.game.id).catch((error) => error);
  assert.equal(hint.code, "rated_game");
  await firstMoves(accepted.game.id, { alice, bob });
  const resigned = await bob.resign(accepted.game.id);
  assert.equal(resigned.result, "x_wins");
  assert.ok((resigned.seats.X?.rating?.rating_diff ?? 0) > 0, JSON.stringify(resigned.seats));
  const profile = await client.player("alice");
  assert.equal(profile.ratings.player_choice.games, 1);
  const history = await client.ratingHistory("alice", "player_choice");
  assert.equal(history.points[0]?.game_id, accepted.game.id);
  const board = await client.leaderboard("player_choice");
  assert.deepEqual(board.players, [], "one game leaves both provisional");
  const mine = await alice.myGames();
  assert.equal(mine.games[0]?.id, accepted.game.id);
});

test("a bot account, the list of bots, and a server bot that accepts a challenge at once", async () => {
  const engine = client.withToken((await client.createPlayer("engine")).token);
  assert.equal((await engine.makeBot()).bot, true);
  const page = await client.bots({ limit: 2 });
  assert.deepEqual(page.bots.map((bot) => [bot.name, bot.bot_account]), [["engine", true], ["parasite", false]]);
  assert.equal(page.next_cursor, "parasite");
  const challenge = await engine.challenge("random", { variant: "measurement", rated: true, colour: "o" });
  assert.equal(challenge.status, "accepted");
  const game = await engine.game(challenge.game_id);
  assert.equal(game.to_act?.player, "O", "the random bot opened as X");
});

test("a player's stream: challenges sent, declined and cancelled, a seek paired, and profiles", async () => {
  const carol = client.withToken((await client.createPlayer("carol")).token);
  const dave = client.withToken((await client.createPlayer("dave")).token);
  assert.equal((await carol.me()).name, "carol");
  const heard = [];
  const stream = dave.followPlayer({ event: (kind, data, id) => heard.push([kind, data, id]) });
  const declined = await carol.challenge("dave", { variant: "measurement" });
  await waitFor(() => heard.some(([kind]) => kind === "challenge"));
  const offer = heard.find(([kind]) => kind === "challenge");
  assert.equal(offer[1].challenge.id, declined.id);
  assert.equal(offer[1].challenge.challenger, "carol");
  const answer = await dave.declineChallenge(declined.id, "not now");
  assert.deepEqual([answer.status, answer.decline_reason], ["declined", "not now"]);
  const cancelled = await carol.challenge("dave");
  assert.equal((await carol.cancelChallenge(cancelled.id)).status, "cancelled");
  await waitFor(() => heard.some(([kind]) => kind === "challenge_cancelled"));

  // Two seeks of the same terms pair; the first seeker hears game_start.
  const open = await dave.seek({ variant: "player_choice", rated: true });
  assert.equal(open.status, "open");
  assert.equal((await dave.getSeek(open.id)).status, "open");
  const paired = await carol.seek({ variant: "player_choice", rated: true });
  assert.equal(paired.status, "paired");
  await waitFor(() => heard.some(([kind]) => kind === "game_start"));
  const start = heard.find(([kind]) => kind === "game_start");
  assert.equal(start[1].game.id, paired.game_id);
  assert.equal((await dave.getSeek(open.id)).game_id, paired.game_id);
  const lastId = stream.lastEventId;
  assert.equal(lastId, start[2]);
  stream.close();
  await stream.finished;
  // Resumed after the last event seen: nothing again until something new.
  const again = [];
  const resumed = dave.followPlayer({ event: (kind) => again.push(kind) }, { lastEventId: lastId });
  const spare = await dave.seek({ variant: "measurement" });
  assert.equal((await dave.cancelSeek(spare.id)).status, "cancelled");
  await firstMoves(paired.game_id, { carol, dave });
  await carol.resign(paired.game_id);
  await waitFor(() => again.length > 0);
  assert.deepEqual(again, ["game_finish"]);
  resumed.close();

  // Dave's profile lists the game, with both names and the rating change.
  const { games } = await client.playerGames("dave");
  assert.equal(games[0]?.id, paired.game_id);
  const seat = games[0]?.players.X === "dave" ? "X" : "O";
  assert.ok((games[0]?.ratings[seat]?.rating_diff ?? 0) > 0, JSON.stringify(games[0]));
  const missing = await client.playerGames("nobody").catch((error) => error);
  assert.equal(missing.code, "not_found");
});

/** Waits until `condition` holds, 5 s at most. */
async function waitFor(condition) {
  const started = Date.now();
  while (!condition()) {
    assert.ok(Date.now() - started < 5_000, "in time");
    await new Promise((wait) => setTimeout(wait, 10));
  }
}

test("a puzzle: the next, today's, and an attempt played to its end", async () => {
  const daily = await client.dailyPuzzle("player_choice");
  assert.deepEqual(await client.puzzle(daily.id), daily);
  assert.equal(daily.variant, "player_choice");
  assert.equal("solution" in daily, false, "no solution before an attempt");
  const { token } = await client.createPlayer("puzzler");
  const puzzler = client.withToken(token);
  const puzzle = await puzzler.nextPuzzle("player_choice");
  assert.equal(puzzle.position.to_act?.player, puzzle.player);
  // The first legal action at each turn: right or wrong, the attempt ends.
  let attempt = await puzzler.attemptPuzzle(puzzle.id, puzzle.position.legal_actions[0]);
  for (let steps = 1; attempt.status === "ongoing"; steps += 1) {
    assert.ok(steps < 10, "an attempt ends within 10 actions");
    assert.equal(attempt.solution, null);
    attempt = await puzzler.attemptPuzzle(puzzle.id, attempt.position.legal_actions[0], attempt.id);
  }
  assert.ok(["solved", "failed"].includes(attempt.status), attempt.status);
  assert.ok(attempt.solution.length >= 1, JSON.stringify(attempt.solution));
  assert.equal(attempt.rated, true);
  assert.equal(Math.sign(attempt.rating.rating_diff), attempt.status === "solved" ? 1 : -1);
  // Tried, it is not given again; an attempt that is over takes no action.
  assert.notEqual((await puzzler.nextPuzzle("player_choice")).id, puzzle.id);
  await assert.rejects(puzzler.attemptPuzzle(puzzle.id, puzzle.position.legal_actions[0], attempt.id), (error) => {
    assert.ok(error instanceof ProblemError);
    assert.equal(error.code, "not_open");
    return true;
  });
});
