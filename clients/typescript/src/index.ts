// A typed client of the qttt server, on the types generated from its OpenAPI
// document (src/api.ts). No dependencies: the platform's fetch, in browsers and
// Node 20+. The live streams are read with fetch as well, not EventSource, so
// that every kind of event reaches the caller (an EventSource drops the named
// events nobody listens for) and a refusal's status and Retry-After are seen.

import type { components } from "./api.js";

/** Every schema of the API, by name. */
export type Schemas = components["schemas"];
/** A game as the server shows it. */
export type Game = Schemas["GameView"];
/** A game and the caller's seat in it, with its token. */
export type SeatedGame = Schemas["SeatedGame"];
/** A legal action: a move or a collapse choice. */
export type Action = Schemas["ActionView"];
/** Every code a problem can carry. */
export type ProblemCode = Schemas["Problem"]["code"];
/** A player's seat, `X` or `O`. */
export type Seat = Schemas["PlayerName"];
/** A collapse rule. */
export type Variant = Schemas["VariantName"];
/** A puzzle: a position with one winning action. */
export type Puzzle = Schemas["PuzzleView"];
/** An attempt at a puzzle after its last action. */
export type PuzzleAttempt = Schemas["AttemptView"];

/** A refusal of the server: its problem document, and when to try again. */
export class ProblemError extends Error {
  /** The HTTP status. */
  readonly status: number;
  /** The stable code: one of the spec's. */
  readonly code: ProblemCode;
  /** The whole problem document (RFC 9457). */
  readonly problem: Schemas["Problem"];
  /** Seconds to wait before trying again, from `Retry-After` (429, 503). */
  readonly retryAfter: number | null;

  constructor(problem: Schemas["Problem"], retryAfter: number | null) {
    super(`${problem.status} ${problem.code}: ${problem.detail}`);
    this.name = "ProblemError";
    this.status = problem.status;
    this.code = problem.code;
    this.problem = problem;
    this.retryAfter = retryAfter;
  }
}

/** How a client reaches the server. */
export interface ClientOptions {
  /** The server's address, such as `http://127.0.0.1:8000`: the API is under `/api/v1`. */
  baseUrl: string;
  /** The token sent when a call names none: a player's, or a seat's. */
  token?: string;
  /** The fetch to use; the platform's by default. */
  fetch?: typeof fetch;
}

/** A call's own credentials: a seat's or player's token, or a private game's invite. */
export interface Credentials {
  token?: string;
  invite?: string;
}

/** What `follow` tells its caller. */
export interface FollowHandlers {
  /** The game as it changed: after each event of its log, and at its end. */
  game?: (game: Game) => void;
  /**
   * Every event, of every kind, this package's version knows of or not:
   * `kind` is the event's name (`seat`, `move`, `collapse`, `resign`,
   * `timeout`, `end`, ... or one added later), `data` its parsed JSON.
   */
  event?: (kind: string, data: unknown, id: number | null) => void;
  /** A refusal or a dropped connection; the stream tries again unless it was told to stop. */
  error?: (error: ProblemError | Error) => void;
  /** The stream is done: the game ended, or `close` was called. */
  done?: () => void;
}

/** What `followPlayer` tells its caller. */
export interface PlayerHandlers {
  /**
   * Every event, of every kind: `game_start`, `game_finish`, `challenge`,
   * `challenge_accepted`, `challenge_declined`, `challenge_cancelled`, or one
   * added later; `data` its parsed JSON, a `PlayerEvent` for the kinds known.
   */
  event?: (kind: string, data: PlayerEvent, id: number | null) => void;
  /** A refusal or a dropped connection; the stream tries again unless it was told to stop. */
  error?: (error: ProblemError | Error) => void;
  /** The stream is done: `close` was called, or a refusal without `Retry-After`. */
  done?: () => void;
}

/** What `followArena` tells its caller. */
export interface ArenaHandlers {
  /** Each game the arena starts, with its two players. */
  pairing?: (pairing: Schemas["ArenaGameView"], id: number | null) => void;
  /** The arena with its standings, when the stream opens and whenever they move; once more at the end. */
  standings?: (arena: Schemas["ArenaDetail"]) => void;
  /** The arena finished and its last game ended: the stream is done. */
  end?: (arena: Schemas["ArenaDetail"]) => void;
  /** A refusal or a dropped connection; the stream tries again unless it was told to stop. */
  error?: (error: ProblemError | Error) => void;
  /** The stream is done. */
  done?: () => void;
}

/** An event of a player's stream. */
export type PlayerEvent = Schemas["PlayerEventView"];

/** A followed stream, of a game or a player. */
export interface Following {
  /** Stops following. */
  close(): void;
  /** The id of the last event seen: pass it as `lastEventId` after a reload. */
  readonly lastEventId: number | null;
  /** Settles when the stream is done. */
  readonly finished: Promise<void>;
}

/** The seconds of a `Retry-After` header, or null. */
function retryAfterOf(response: Response): number | null {
  const header = response.headers.get("Retry-After");
  const seconds = header === null ? NaN : Number(header);
  return Number.isFinite(seconds) ? seconds : null;
}

/** The refusal `response` carries. */
async function problemOf(response: Response): Promise<ProblemError> {
  const text = await response.text();
  let problem: Schemas["Problem"];
  try {
    problem = JSON.parse(text) as Schemas["Problem"];
  } catch {
    problem = {
      type: "urn:qttt:problem:internal",
      title: response.statusText,
      status: response.status,
      detail: text,
      code: "internal",
    };
  }
  return new ProblemError(problem, retryAfterOf(response));
}

/** Waits `seconds`, or less if `signal` aborts first. */
function pause(seconds: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, seconds * 1000);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** The client. Each call answers the server's JSON, typed, or throws a `ProblemError`. */
export class QtttClient {
  readonly baseUrl: string;
  readonly token: string | undefined;
  private readonly fetcher: typeof fetch;

  constructor(options: ClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.token = options.token;
    this.fetcher = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  /** The same client, sending `token` when a call names none. */
  withToken(token: string): QtttClient {
    return new QtttClient({ baseUrl: this.baseUrl, token, fetch: this.fetcher });
  }

  /** A call to `path` under `/api/v1`. */
  private async call<T>(
    method: string,
    path: string,
    options: { body?: unknown; credentials?: Credentials; query?: Record<string, string | number | undefined>; ifMatch?: number } = {},
  ): Promise<T> {
    const response = await this.send(method, path, options);
    if (!response.ok) {
      throw await problemOf(response);
    }
    const type = response.headers.get("Content-Type") ?? "";
    return (type.includes("json") ? await response.json() : await response.text()) as T;
  }

  private send(
    method: string,
    path: string,
    options: { body?: unknown; credentials?: Credentials; query?: Record<string, string | number | undefined>; ifMatch?: number; lastEventId?: number | null; signal?: AbortSignal },
  ): Promise<Response> {
    const url = new URL(`${this.baseUrl}/api/v1${path}`);
    const query = { ...options.query, invite: options.credentials?.invite };
    for (const [name, value] of Object.entries(query)) {
      if (value !== undefined) {
        url.searchParams.set(name, String(value));
      }
    }
    const headers: Record<string, string> = { Accept: "application/json" };
    const token = options.credentials?.token ?? this.token;
    if (token !== undefined) {
      headers["Authorization"] = `Bearer ${token}`;
    }
    if (options.body !== undefined) {
      headers["Content-Type"] = "application/json";
    }
    if (options.ifMatch !== undefined) {
      headers["If-Match"] = `"${options.ifMatch}"`;
    }
    if (options.lastEventId !== undefined && options.lastEventId !== null) {
      headers["Last-Event-ID"] = String(options.lastEventId);
    }
    const init: RequestInit = { method, headers };
    if (options.body !== undefined) {
      init.body = JSON.stringify(options.body);
    }
    if (options.signal !== undefined) {
      init.signal = options.signal;
    }
    return this.fetcher(url, init);
  }

  // Games.

  /** Creates a game; the answer holds your seat's token (keep it) and, for a private game, its invite. */
  createGame(settings: Schemas["CreateGameRequest"] = {}, credentials?: Credentials): Promise<SeatedGame> {
    return this.call("POST", "/games", { body: settings, ...(credentials && { credentials }) });
  }

  /** Takes a game's free seat; a private game needs its invite. */
  joinGame(id: number, credentials: Credentials = {}): Promise<SeatedGame> {
    const body = credentials.invite === undefined ? {} : { invite: credentials.invite };
    return this.call("POST", `/games/${id}/join`, { body, credentials: { ...(credentials.token !== undefined && { token: credentials.token }) } });
  }

  /** A game as it stands. */
  game(id: number, credentials?: Credentials): Promise<Game> {
    return this.call("GET", `/games/${id}`, { ...(credentials && { credentials }) });
  }

  /** A page of public games, newest first. */
  games(query: { status?: Schemas["StatusName"]; limit?: number; cursor?: string } = {}): Promise<Schemas["GameList"]> {
    return this.call("GET", "/games", { query });
  }

  /** Places your next move in `squares`; with `ifMatch`, only on that version of the game. */
  move(id: number, squares: [number, number], options: Credentials & { ifMatch?: number } = {}): Promise<Game> {
    return this.call("POST", `/games/${id}/moves`, { body: { squares }, credentials: options, ...(options.ifMatch !== undefined && { ifMatch: options.ifMatch }) });
  }

  /** Chooses a pending collapse: "move `move` ends in square `square`". */
  collapse(id: number, move: number, square: number, options: Credentials & { ifMatch?: number } = {}): Promise<Game> {
    return this.call("POST", `/games/${id}/collapse`, { body: { move, square }, credentials: options, ...(options.ifMatch !== undefined && { ifMatch: options.ifMatch }) });
  }

  /** Takes `action`, as the legal actions and the hint give it. */
  act(id: number, action: Action, credentials: Credentials = {}): Promise<Game> {
    if (action.kind === "move") {
      const [a, b] = action.squares;
      if (a === undefined || b === undefined) {
        throw new Error("a move has two squares");
      }
      return this.move(id, [a, b], credentials);
    }
    return this.collapse(id, action.move, action.square, credentials);
  }

  /** Resigns your seat: the other player wins. */
  resign(id: number, credentials?: Credentials): Promise<Game> {
    return this.call("POST", `/games/${id}/resign`, { ...(credentials && { credentials }) });
  }

  /** Calls the game off, before both players moved. */
  abort(id: number, credentials?: Credentials): Promise<Game> {
    return this.call("POST", `/games/${id}/abort`, { ...(credentials && { credentials }) });
  }

  /** Offers a draw, or accepts the other player's offer: the game is then drawn, `agreement`. */
  offerDraw(id: number, credentials?: Credentials): Promise<Game> {
    return this.call("POST", `/games/${id}/draw`, { ...(credentials && { credentials }) });
  }

  /** Declines the other player's offer of a draw. */
  declineDraw(id: number, credentials?: Credentials): Promise<Game> {
    return this.call("POST", `/games/${id}/draw/decline`, { ...(credentials && { credentials }) });
  }

  /** A new game after a finished one, colours swapped; the other player's call joins it. */
  rematch(id: number, credentials?: Credentials): Promise<SeatedGame> {
    return this.call("POST", `/games/${id}/rematch`, { ...(credentials && { credentials }) });
  }

  /** Declines the rematch the other player asked for: answers the rematch, aborted. */
  declineRematch(id: number, credentials?: Credentials): Promise<Game> {
    return this.call("POST", `/games/${id}/rematch/decline`, { ...(credentials && { credentials }) });
  }

  /** Wins a game without a clock whose player to act walked away. */
  claimVictory(id: number, credentials?: Credentials): Promise<Game> {
    return this.call("POST", `/games/${id}/claim-victory`, { ...(credentials && { credentials }) });
  }

  /** Every legal action of the side to act. */
  legal(id: number, credentials?: Credentials): Promise<Schemas["LegalActions"]> {
    return this.call("GET", `/games/${id}/legal`, { ...(credentials && { credentials }) });
  }

  /** Your best action on your turn, where the game gives hints. */
  hint(id: number, credentials?: Credentials): Promise<Schemas["HintView"]> {
    return this.call("GET", `/games/${id}/hint`, { ...(credentials && { credentials }) });
  }

  /** Every action judged by perfect play. */
  analysis(id: number, credentials?: Credentials): Promise<Schemas["AnalysisView"]> {
    return this.call("GET", `/games/${id}/analysis`, { ...(credentials && { credentials }) });
  }

  /** The game's log. */
  log(id: number, credentials?: Credentials): Promise<Schemas["GameLog"]> {
    return this.call("GET", `/games/${id}/log`, { ...(credentials && { credentials }) });
  }

  /** The game in Goff's notation. */
  transcript(id: number, credentials?: Credentials): Promise<string> {
    return this.call("GET", `/games/${id}/transcript`, { ...(credentials && { credentials }) });
  }

  // Players.

  /** A new player, and their token, shown only here. */
  createPlayer(name?: string): Promise<Schemas["CreatedPlayer"]> {
    return this.call("POST", "/players", { body: name === undefined ? {} : { name } });
  }

  /** Your player (the client's token must be a player's). */
  me(): Promise<Schemas["PlayerView"]> {
    return this.call("GET", "/players/me");
  }

  /** A player's public profile. */
  player(name: string): Promise<Schemas["PlayerView"]> {
    return this.call("GET", `/players/${encodeURIComponent(name)}`);
  }

  /** Makes your player a bot, for good: only before your first game. */
  makeBot(): Promise<Schemas["PlayerView"]> {
    return this.call("POST", "/players/me/bot");
  }

  /** The bots, by name, a page at a time: the server's own and the bot accounts. */
  bots(query: { limit?: number; cursor?: string } = {}): Promise<Schemas["BotList"]> {
    return this.call("GET", "/bots", { query });
  }

  /** A new token; the old one stops at once. */
  newToken(): Promise<Schemas["PlayerTokenView"]> {
    return this.call("POST", "/players/me/token");
  }

  /** A player's public games, newest first: a profile's recent games. */
  playerGames(name: string, query: { status?: Schemas["StatusName"]; limit?: number; cursor?: string } = {}): Promise<Schemas["GameList"]> {
    return this.call("GET", `/players/${encodeURIComponent(name)}/games`, { query });
  }

  /** Your games, newest first, private ones too. */
  myGames(query: { status?: Schemas["StatusName"]; limit?: number; cursor?: string } = {}): Promise<Schemas["GameList"]> {
    return this.call("GET", "/players/me/games", { query });
  }

  /** Challenges the player named `name`. */
  challenge(name: string, terms: Schemas["ChallengeRequest"] = {}): Promise<Schemas["ChallengeView"]> {
    return this.call("POST", `/players/${encodeURIComponent(name)}/challenges`, { body: terms });
  }

  /** A page of the challenges you sent and were sent that wait for an answer, newest first. */
  myChallenges(query: { limit?: number; cursor?: string } = {}): Promise<Schemas["ChallengeList"]> {
    return this.call("GET", "/players/me/challenges", { query });
  }

  /** Accepts a challenge sent to you: its game, and your seat. */
  acceptChallenge(id: number): Promise<SeatedGame> {
    return this.call("POST", `/challenges/${id}/accept`);
  }

  /** Declines a challenge sent to you. */
  declineChallenge(id: number, reason?: string): Promise<Schemas["ChallengeView"]> {
    return this.call("POST", `/challenges/${id}/decline`, { body: reason === undefined ? {} : { reason } });
  }

  /** Cancels a challenge you sent. */
  cancelChallenge(id: number): Promise<Schemas["ChallengeView"]> {
    return this.call("POST", `/challenges/${id}/cancel`);
  }

  /** Seeks a game: paired at once, or open until another seek pairs it. */
  seek(terms: Schemas["SeekRequest"] = {}): Promise<Schemas["SeekView"]> {
    return this.call("POST", "/seeks", { body: terms });
  }

  /** One of your seeks. */
  getSeek(id: number): Promise<Schemas["SeekView"]> {
    return this.call("GET", `/seeks/${id}`);
  }

  /** Cancels one of your open seeks. */
  cancelSeek(id: number): Promise<Schemas["SeekView"]> {
    return this.call("DELETE", `/seeks/${id}`);
  }

  /** A page of a player's rating history in a variant: the latest points first, `next_cursor` to earlier ones. */
  ratingHistory(name: string, variant: Variant, query: { limit?: number; cursor?: string } = {}): Promise<Schemas["RatingHistory"]> {
    return this.call("GET", `/players/${encodeURIComponent(name)}/ratings/${variant}`, { query });
  }

  /** A variant's leaderboard. */
  leaderboard(variant: Variant): Promise<Schemas["Leaderboard"]> {
    return this.call("GET", `/leaderboards/${variant}`);
  }

  // Arenas.

  /** Creates an arena (the client's token must be a player's); join it to play. */
  createArena(arena: Schemas["ArenaRequest"]): Promise<Schemas["ArenaView"]> {
    return this.call("POST", "/arenas", { body: arena });
  }

  /** The arenas of a status (`running` by default), newest first, a page at a time. */
  arenas(query: { status?: Schemas["ArenaStatusName"]; limit?: number; cursor?: string } = {}): Promise<Schemas["ArenaList"]> {
    return this.call("GET", "/arenas", { query });
  }

  /** An arena with its standings and the games being played. */
  arena(id: number): Promise<Schemas["ArenaDetail"]> {
    return this.call("GET", `/arenas/${id}`);
  }

  /** Joins an arena, or comes back to it. */
  joinArena(id: number): Promise<Schemas["ArenaDetail"]> {
    return this.call("POST", `/arenas/${id}/join`);
  }

  /** Adds one of the server's bots to an arena you created that allows bots. */
  addArenaBot(id: number, bot: Schemas["BotName"]): Promise<Schemas["ArenaDetail"]> {
    return this.call("POST", `/arenas/${id}/bots/${bot}`);
  }

  /** Withdraws from an arena: your points stay, and you are not paired. */
  withdrawFromArena(id: number): Promise<Schemas["ArenaDetail"]> {
    return this.call("POST", `/arenas/${id}/withdraw`);
  }

  /** An arena's results, once it finished. */
  arenaResults(id: number): Promise<Schemas["ArenaDetail"]> {
    return this.call("GET", `/arenas/${id}/results`);
  }

  // Puzzles.

  /** A puzzle to try: with a player's token one you have not tried, near your puzzle rating; else an easy one. */
  nextPuzzle(variant?: Variant): Promise<Puzzle> {
    return this.call("GET", "/puzzles/next", { query: { variant } });
  }

  /** Today's puzzle, the same on every instance. */
  dailyPuzzle(variant?: Variant): Promise<Puzzle> {
    return this.call("GET", "/puzzles/daily", { query: { variant } });
  }

  /** A puzzle by id: its position, not its solution. */
  puzzle(id: number): Promise<Puzzle> {
    return this.call("GET", `/puzzles/${id}`);
  }

  /**
   * Plays `action` in a puzzle: the first action of a new attempt, or, with
   * `attempt`, the next of that attempt. A right action is answered with the
   * defence (`reply`); the answer shows the solution once the attempt is over.
   */
  attemptPuzzle(id: number, action: Action, attempt?: number): Promise<PuzzleAttempt> {
    const path = attempt === undefined ? `/puzzles/${id}/attempts` : `/puzzles/${id}/attempts/${attempt}`;
    return this.call("POST", path, { body: { action } });
  }

  // The live stream.

  /**
   * Follows game `id` live. Every event goes to `handlers.event`, the game to
   * `handlers.game`. A dropped connection is resumed after the last event seen
   * (pass `lastEventId` to resume after a reload); a refusal with
   * `Retry-After` (429, 503) is told to `handlers.error` and tried again after
   * it; the stream is done after `end`, or when the server answers 204 (nothing
   * more will come), or after `close`.
   */
  follow(id: number, handlers: FollowHandlers, options: Credentials & { lastEventId?: number } = {}): Following {
    const credentials: Credentials = { ...(options.token !== undefined && { token: options.token }), ...(options.invite !== undefined && { invite: options.invite }) };
    const heard = (kind: string, data: unknown, id: number | null): boolean => {
      handlers.event?.(kind, data, id);
      const game = (data as { game?: Game }).game;
      if (game !== undefined) {
        handlers.game?.(game);
      }
      return kind === "end";
    };
    return this.stream(`/games/${id}/events`, credentials, options.lastEventId ?? null, heard, handlers);
  }

  /**
   * Follows your own events live (the client's token must be a player's):
   * games of yours starting and finishing, challenges coming and answered.
   * Pass `lastEventId`, the last event's id, to hear only what came after it;
   * without it the stream sends every event of yours first. A dropped
   * connection is resumed after the last event seen; the stream stays open
   * until `close`. While it is open you count as present in all your games.
   */
  followPlayer(handlers: PlayerHandlers, options: { lastEventId?: number } = {}): Following {
    const heard = (kind: string, data: unknown, id: number | null): boolean => {
      handlers.event?.(kind, data as PlayerEvent, id);
      return false;
    };
    return this.stream("/players/me/events", {}, options.lastEventId ?? null, heard, handlers);
  }

  /**
   * Follows an arena live: each pairing, the standings whenever they move,
   * and the end. Pass `lastEventId`, the last pairing's id, to hear only
   * the pairings after it.
   */
  followArena(id: number, handlers: ArenaHandlers, options: { lastEventId?: number } = {}): Following {
    const heard = (kind: string, data: unknown, eventId: number | null): boolean => {
      if (kind === "pairing") {
        handlers.pairing?.(data as Schemas["ArenaGameView"], eventId);
      } else if (kind === "standings" || kind === "end") {
        handlers.standings?.(data as Schemas["ArenaDetail"]);
      }
      if (kind === "end") {
        handlers.end?.(data as Schemas["ArenaDetail"]);
      }
      return kind === "end";
    };
    return this.stream(`/arenas/${id}/stream`, {}, options.lastEventId ?? null, heard, handlers);
  }

  /**
   * Reads the stream at `path`, each event told to `heard`, until `heard`
   * says it ended, or the server answers 204, or `close` is called; resumes
   * a dropped connection after the last event seen, and waits out a
   * refusal's `Retry-After`.
   */
  private stream(
    path: string,
    credentials: Credentials,
    resumeAfter: number | null,
    heard: (kind: string, data: unknown, id: number | null) => boolean,
    handlers: { error?: (error: ProblemError | Error) => void; done?: () => void },
  ): Following {
    const stop = new AbortController();
    let lastEventId = resumeAfter;
    const run = async (): Promise<void> => {
      let wait = 1;
      while (!stop.signal.aborted) {
        let response: Response;
        try {
          response = await this.send("GET", path, { credentials, lastEventId, signal: stop.signal });
        } catch (error) {
          if (stop.signal.aborted) {
            return;
          }
          handlers.error?.(error as Error);
          await pause(wait, stop.signal);
          wait = Math.min(wait * 2, 16);
          continue;
        }
        if (response.status === 204) {
          return;
        }
        if (!response.ok) {
          const problem = await problemOf(response);
          handlers.error?.(problem);
          if (problem.retryAfter === null) {
            return;
          }
          await pause(problem.retryAfter, stop.signal);
          continue;
        }
        wait = 1;
        const ended = await this.read(response, heard, (seen) => {
          lastEventId = seen;
        });
        if (ended) {
          return;
        }
        if (!stop.signal.aborted) {
          handlers.error?.(new Error("the stream was cut; resuming"));
          await pause(wait, stop.signal);
        }
      }
    };
    const finished = run()
      .catch((error: unknown) => {
        if (!stop.signal.aborted) {
          handlers.error?.(error as Error);
        }
      })
      .finally(() => handlers.done?.());
    return {
      close: () => stop.abort(),
      get lastEventId() {
        return lastEventId;
      },
      finished,
    };
  }

  /** Reads one connection's events, each told to `heard`; answers whether `heard` said the stream ended. */
  private async read(response: Response, heard: (kind: string, data: unknown, id: number | null) => boolean, seen: (id: number) => void): Promise<boolean> {
    const body = response.body;
    if (body === null) {
      return false;
    }
    const reader = body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    let kind = "message";
    let data: string[] = [];
    let id: number | null = null;
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) {
          return false;
        }
        buffer += value;
        let newline: number;
        while ((newline = buffer.search(/\r?\n/)) >= 0) {
          const line = buffer.slice(0, newline);
          buffer = buffer.slice(newline + (buffer[newline] === "\r" ? 2 : 1));
          if (line === "") {
            if (data.length > 0) {
              const parsed: unknown = JSON.parse(data.join("\n"));
              if (id !== null) {
                seen(id);
              }
              if (heard(kind, parsed, id)) {
                return true;
              }
            }
            kind = "message";
            data = [];
            id = null;
            continue;
          }
          if (line.startsWith(":")) {
            continue;
          }
          const colon = line.indexOf(":");
          const field = colon < 0 ? line : line.slice(0, colon);
          const text = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
          if (field === "event") {
            kind = text;
          } else if (field === "data") {
            data.push(text);
          } else if (field === "id") {
            const number = Number(text);
            id = Number.isInteger(number) ? number : null;
          }
        }
      }
    } finally {
      reader.releaseLock();
    }
  }
}
