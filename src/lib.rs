//! qttt: a game server for Quantum Tic-Tac-Toe.
//!
//! # Layout
//!
//! Pure rules at the bottom, I/O at the edges; each layer names only those below
//! it, and no two files depend on each other, directly or round a circle: a
//! file depends on the files that define what its code names, a re-export
//! followed to where it leads (`tests/integration/layers.rs` reads the sources
//! to hold both). From the bottom up:
//!
//! - [`engine`]: the rules, pure: no I/O, no clock, no randomness of its own.
//!   `board.rs` (players, squares, marks, lines), `moves.rs` (the log's words:
//!   the variant, who acts, an action, a placed move), `graph.rs` (the
//!   entanglement graph), `collapse.rs` (cycles, their two outcomes, who
//!   chooses), `measurement.rs` (a cycle measured, each square's odds),
//!   `scoring.rs`, `game.rs` (a game as a fold over its log, legal actions),
//!   `notation.rs` (Goff's transcripts), `error.rs` (the rules an action can
//!   break), `stack.rs` (fixed-size storage that keeps a game `Copy`).
//! - [`quantum`]: a small state-vector simulator (H, X, CNOT, projection,
//!   measurement), pure; the engine measures cycles and computes each square's
//!   odds with it.
//! - [`bot`]: the computer players, pure, behind one `Strategy` trait:
//!   `random.rs`, `parasite.rs` (the original app's heuristic), `perfect.rs`
//!   (exact search) on `value.rs` (a position's value and best action) with
//!   `symmetry.rs` (the board's eight symmetries) and `book.rs` (the opening
//!   book in `data/book-*.bin`, which `bookmaker.rs` makes with the search),
//!   `analysis.rs` (every action of a game judged by the perfect player),
//!   `series.rs` (a series of games between two bots), `protocol.rs` (QTP, the engine protocol:
//!   `qttt engine`'s side of it).
//! - [`record`]: a game's record, pure: the words the store keeps and the
//!   service and the API speak (a game as stored, its log entries, its ending,
//!   summary and listing); `players.rs` the players' (a name, the seats they
//!   hold, their events, challenges and seeks); `arenas.rs` an arena's (its
//!   settings, who joined it, its games as its standings read them).
//! - [`store`]: the only SQL, with its own errors. Each operation is written
//!   once, over one transaction interface (`tx.rs`: statements run with values,
//!   rows read by column name) that both backends implement; each statement
//!   once, in PostgreSQL's dialect, SQLite's text derived from it (`sql.rs`).
//!   By subject: `games.rs` (creating, reading and writing a game, the timer's
//!   questions, retention), `write.rs` (what a write to a game carries, and
//!   what it writes besides: its players' events, a rated end's ratings),
//!   `listing.rs` (the lobby, a player's games), `players.rs`, `challenges.rs`,
//!   `seeks.rs`, `arenas.rs` (an arena, its players and games, its pairing
//!   under a hold on its row), `ratings.rs`, `puzzles.rs`, and `tables.rs` (the tables
//!   `qttt copy` copies row for row); `rows.rs` reads a game (in one
//!   statement on PostgreSQL, one a table on SQLite) and converts its rows, by
//!   name, into its record; `space.rs` keeps whether the database has room to
//!   write. Only what really differs is each backend's: SQLite (`sqlite/mod.rs`,
//!   opening it and running the operations; `sqlite/tx.rs`; its connection
//!   threads and batched commits in `sqlite/worker.rs`; its settings in
//!   `sqlite/connection.rs`; the checkpointer in `sqlite/checkpointer.rs`; the
//!   start-up checks of its file and `qttt backup` in `sqlite/file.rs`) and
//!   PostgreSQL (`postgres/mod.rs`, a game's creation in one statement, running
//!   the operations, and the notifications; `postgres/tx.rs`; its batched game
//!   writes in `postgres/writes.rs`, their queue in `postgres/batches.rs` and
//!   their statements in `postgres/statements.rs`; its connections in
//!   `postgres/connections.rs`). `migrations/sqlite/` and
//!   `migrations/postgres/` hold each one's schema.
//! - [`error`]: what the service's operations fail with, in its own words.
//! - [`service`]: the only orchestrator: load the log, replay it, apply the
//!   action, append. `seating.rs` (creating a game, joining, a rematch),
//!   `acting.rs` (a move or collapse choice and the bot's answer, resigning,
//!   aborting), `timer.rs` (the server's own writes: a clock run out, a game
//!   that waited too long, retention; it pairs the running arenas too), `records.rs` (a game replayed from its
//!   record, as of a moment, and when it may be claimed), `life.rs` (seats, clocks and the endings beside the
//!   rules, folded from the log), `time.rs` and `randomness.rs` (where its time
//!   and its randomness come from), `searches.rs` (the bounded pool of perfect
//!   searches, and the hint and analysis caches), `copy.rs` (`qttt copy`, and
//!   the check of every game of a backup), `players.rs` (a player, their token,
//!   their games and events), `presence.rs` (who counts as present, and when a
//!   sighting is written again), `pairing.rs` (challenges and
//!   seeks, and the games they start), `arenas/` (an arena's standings and
//!   who is paired, decided on it as read; its rules pure beside it:
//!   `scoring.rs`, lichess's arena scoring, and `pairing.rs`, a weighted
//!   matching of the free players by `integer_blossom`), `bots.rs` (the cap
//!   on rated games between bots), `help.rs` (hints and analysis).
//! - `live`: who watches which game (and which player's events), for the live
//!   event streams; news of other instances' writes reaches it from the store.
//!   `token`: seat and player tokens and their hashes.
//! - [`config`]: the settings, each a flag of `qttt serve` or its environment
//!   variable, with defaults.
//! - [`api`]: the HTTP API: handlers (`games.rs`, `life.rs` for resigning,
//!   aborting and rematches, `events.rs` for the live streams, `health.rs`, and
//!   `players.rs`, `pairing.rs` for challenges and seeks, `arenas.rs` and
//!   `arena_events.rs` for arenas and their live stream, `player_events.rs`
//!   for a player's live stream, and the original app's routes in
//!   `original_app.rs`), extractors (`extract.rs`), each
//!   client's limits (`limit.rs`), each request's id, log line and metrics
//!   (`observe.rs`), problem+json and status codes (`problem.rs`), views with
//!   their schemas (`views/`), and the OpenAPI document (`docs.rs`, committed as
//!   `openapi/openapi.json`).
//! - [`server`]: start-up and graceful shutdown. [`logging`]: the server's log,
//!   as text or JSON, each line about a request with its id. `metrics`: the
//!   names and meanings of the metrics, and their recorder.
//! - [`terminal`] and [`board_text`]: `qttt play`, and the board and an analysis
//!   as text. [`bridge`]: `qttt bridge`, a client of the API that plays a bot
//!   account's games with an engine speaking QTP (`bot/protocol.rs` is the
//!   engine's side): `decide.rs` (its choices, pure), `engine.rs` (an engine
//!   process), `http.rs` (the API and its streams), `game.rs` (one game). `src/main.rs` and `src/cli/`: the `qttt` command, its failures
//!   typed (`CliError`).
//!
//! Around the code: `tests/integration/` is one test binary (the rules against
//! the worked scenarios, properties, bots, the command line, the layers, both
//! backends' schemas, the documentation, and the HTTP API in `api/`);
//! `benches/` holds the engine, bot, analysis, arena pairing, in-process and
//! load benchmarks;
//! `docs/` the guides; `deploy/` nginx and a compose file; `.ci/run` what CI runs.
//!
//! # Words
//!
//! One word for each idea, the same in the code, the API, the database and the
//! guides:
//!
//! - a game's **id** is its own (`GameId`; `id` in its view, `games.id`), and
//!   **`game_id`** is a reference to a game from something else (a log, an
//!   analysis, a rematch, a log entry's row).
//! - a **log entry** has a **`seq`**, its place in the log from 1; a game's
//!   **version** is the `seq` of its last entry, which `ETag` and `If-Match`
//!   carry. Each entry is one **event** of the game's live stream, of the
//!   entry's **kind**.
//! - an entry's **actor** is who acted; a collapse's actor is its **chooser**
//!   (a player, or the measurement), as a pending collapse names who must choose.
//! - an **ending** beside the rules is a log entry of kind `resign`, `timeout`
//!   or `abort` (`Ending`); the game's **end reason** says why it ended:
//!   `lines`, `full_board`, `resignation`, `timeout` or `aborted` (`EndReason`).
//! - a **player** (X or O) is a seat of a game (`engine::Player`, `PlayerName`
//!   in the views); a **player** in `/players` is a person's identity across
//!   games (`PlayerId`, `StoredPlayer`, `Username`), who is the **holder** of
//!   the seats they take (`Holder`; `seats.X.name` names them).
//! - a game **walked away from** ends with the log's `abandon` and the end
//!   reason `abandoned`, claimed by the other player; a game **nobody joined**
//!   is **unjoined**: the server aborts it when its free seat waited too long,
//!   and deletes it after `UNJOINED_GAME_RETENTION_HOURS` (`Ended::Unjoined`,
//!   the timer's `abort_unjoined_games`, the index `games_unjoined_by_end`).
//! - the **original app** is the Python app qttt replaces: its routes (`/state`,
//!   `/reset`, `/move`) play the **original app's game** (`original_app.rs`,
//!   `ORIGINAL_APP_ROUTES`, the `original_app_game` table).

pub mod api;
pub mod board_text;
pub mod bot;
pub mod bridge;
pub mod config;
pub mod engine;
pub mod error;
mod live;
pub mod logging;
mod metrics;
pub mod quantum;
pub mod rating;
pub mod record;
pub mod server;
pub mod service;
pub mod store;
pub mod terminal;
mod token;
