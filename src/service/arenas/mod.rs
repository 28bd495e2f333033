//! Arenas: tournaments of a fixed length in which whoever is free is paired
//! again at once. The rules are pure and apart from their storage: the
//! scoring (`scoring.rs`), the pairing (`pairing.rs`), and here the standings
//! and who is paired, both decided on the arena as the store reads it. The
//! timer pairs every running arena each turn, on every instance; the store's
//! hold on the arena pairs each free player once.

mod pairing;
mod scoring;

use std::collections::HashMap;
use std::time::Duration;

use jiff::Timestamp;

pub use pairing::{Free, GROUP, RECENT, pair};
pub use scoring::{Outcome, Scored, Sheet};

use super::GameService;
use super::pairing::{against_bot, between};
use super::presence::is_present;
use super::seating::rated_by_goff;
use super::time::after;
use crate::engine::Player;
use crate::error::{Error, Fault};
use crate::record::{
    ArenaGame, ArenaId, ArenaPlayer, ArenaSettings, ArenaState, ArenaStatus, ArenaTerms, Event, Holder, Joined,
    NewArena, PlayerId, StoredArena, Username,
};

/// The most arenas one player may have created that have not started yet.
pub const MOST_UPCOMING_ARENAS: u32 = 5;

/// The longest an arena runs: twelve hours.
pub const MOST_ARENA_MINUTES: u32 = 720;

/// The longest name of an arena, in characters.
pub const MOST_ARENA_NAME_CHARS: usize = 60;

/// How long after its creation an arena starts, unless its creator says.
pub const DEFAULT_ARENA_DELAY: Duration = Duration::from_secs(300);

/// How far ahead an arena may be set to start: thirty days.
const FURTHEST_START: Duration = Duration::from_secs(30 * 86_400);

/// How far in the past a start may be given and taken as now: a client's clock
/// a little behind the server's.
const START_SLACK: Duration = Duration::from_secs(60);

/// A player's place in an arena.
#[derive(Debug, Clone, PartialEq)]
pub struct ArenaStanding {
    /// The player.
    pub player: ArenaPlayer,
    /// Their rank, from 1.
    pub rank: usize,
    /// Their results.
    pub sheet: Sheet,
}

/// The standings of `state`: each player's sheet, scored from their games
/// in the order they ended, ranked by score, then rating, then who joined first.
pub fn standings(state: &ArenaState) -> Vec<ArenaStanding> {
    let mut sheets: HashMap<PlayerId, Sheet> = HashMap::new();
    for game in &state.games {
        let Some(winner) = game.result else { continue };
        for (seat, player) in [crate::engine::Player::X, crate::engine::Player::O].into_iter().zip(game.players) {
            let outcome = match winner {
                None => Outcome::Draw,
                Some(winner) if winner == seat => Outcome::Win,
                Some(_) => Outcome::Loss,
            };
            let sheet = sheets.remove(&player).unwrap_or_default();
            sheets.insert(player, sheet.with(game.id, outcome));
        }
    }
    let mut standings: Vec<ArenaStanding> = state
        .players
        .iter()
        .map(|player| ArenaStanding {
            sheet: sheets.remove(&player.holder.id).unwrap_or_default(),
            player: player.clone(),
            rank: 0,
        })
        .collect();
    // Stable: players of one score and rating stay in the order they joined.
    standings.sort_by(|a, b| b.sheet.score.cmp(&a.sheet.score).then(b.player.rating.total_cmp(&a.player.rating)));
    for (i, standing) in standings.iter_mut().enumerate() {
        standing.rank = i + 1;
    }
    standings
}

/// The games to start in `state` at `now`, X's player first: the free
/// players paired, those who are present, have not withdrawn and play no
/// game; nobody before the start or after the end.
pub fn pairings<'a>(
    state: &'a ArenaState,
    standings: &[ArenaStanding],
    now: Timestamp,
) -> Vec<(&'a ArenaPlayer, &'a ArenaPlayer)> {
    if state.arena.terms.status_at(now) != ArenaStatus::Running {
        return Vec::new();
    }
    // The server's bots are always there.
    let here = |player: &ArenaPlayer| {
        !player.withdrawn && (player.server_bot.is_some() || is_present(player.holder.last_seen_at, now))
    };
    let free: Vec<Free> = standings
        .iter()
        .filter(|standing| here(&standing.player) && !standing.player.playing)
        .map(|standing| free(standing, &state.games))
        .collect();
    let alone = standings.iter().filter(|standing| here(&standing.player)).count() == 2;
    let players: HashMap<PlayerId, &ArenaPlayer> =
        state.players.iter().map(|player| (player.holder.id, player)).collect();
    pair(&free, alone).into_iter().map(|(x, o)| (players[&x], players[&o])).collect()
}

/// `standing`'s player as the pairing sees them, from the arena's `games`.
fn free(standing: &ArenaStanding, games: &[ArenaGame]) -> Free {
    let id = standing.player.holder.id;
    let mut theirs: Vec<&ArenaGame> = games.iter().filter(|game| game.seat_of(id).is_some()).collect();
    theirs.sort_by_key(|game| std::cmp::Reverse(game.id));
    let x_lead = theirs.iter().map(|game| if game.players[0] == id { 1 } else { -1 }).sum();
    let recent = theirs
        .iter()
        .take(RECENT)
        .map(|game| if game.players[0] == id { game.players[1] } else { game.players[0] })
        .collect();
    Free {
        player: id,
        server_bot: standing.player.server_bot.is_some(),
        rank: standing.rank,
        rating: standing.player.rating,
        x_lead,
        recent,
    }
}

/// The arena `settings` ask `creator` for, created at `now`.
///
/// # Errors
/// What is wrong with the settings, for the client: a blank or long name, a
/// length out of range, a start in the past or too far ahead.
pub fn new_arena(settings: ArenaSettings, creator: PlayerId, now: Timestamp) -> Result<NewArena, String> {
    let name = settings.name.trim().to_owned();
    if name.is_empty() || name.chars().count() > MOST_ARENA_NAME_CHARS {
        return Err(format!("an arena's name has 1 to {MOST_ARENA_NAME_CHARS} characters"));
    }
    if let Some(character) = name.chars().find(|character| character.is_control()) {
        return Err(format!("an arena's name is text to show: U+{:04X} is not", u32::from(character)));
    }
    if !(1..=MOST_ARENA_MINUTES).contains(&settings.minutes) {
        return Err(format!("an arena runs 1 to {MOST_ARENA_MINUTES} minutes"));
    }
    let starts_at = settings.starts_at.unwrap_or_else(|| after(now, DEFAULT_ARENA_DELAY));
    if starts_at < super::time::before(now, START_SLACK) {
        return Err("starts_at is in the past".into());
    }
    if starts_at > after(now, FURTHEST_START) {
        return Err("an arena starts within 30 days".into());
    }
    let starts_at = starts_at.max(now);
    let ends_at = after(starts_at, Duration::from_secs(u64::from(settings.minutes) * 60));
    let terms = ArenaTerms {
        name,
        variant: settings.variant,
        scoring: settings.scoring,
        clock: settings.clock,
        rated: settings.rated,
        bots: settings.bots,
        starts_at,
        ends_at,
    };
    Ok(NewArena { terms, created_by: creator, created_at: now })
}

impl GameService {
    /// Creates arena `new`.
    ///
    /// # Errors
    /// [`Error::RatedGame`] for a rated arena of a scoring other than Goff's;
    /// [`Error::TooManyOpen`] when its creator has [`MOST_UPCOMING_ARENAS`]
    /// upcoming already; database failures.
    pub(crate) async fn create_arena(&self, new: NewArena) -> Result<StoredArena, Error> {
        rated_by_goff(new.terms.rated, new.terms.scoring)?;
        let id = self.store.create_arena(new, MOST_UPCOMING_ARENAS).await?.ok_or_else(|| {
            Error::TooManyOpen(format!(
                "you have {MOST_UPCOMING_ARENAS} arenas that have not started, the most you may; wait for one to start"
            ))
        })?;
        self.arena(id).await
    }

    /// Arena `id`.
    ///
    /// # Errors
    /// [`Error::NotFound`]; database failures.
    pub(crate) async fn arena(&self, id: ArenaId) -> Result<StoredArena, Error> {
        self.store.arena(id).await?.ok_or_else(|| Error::NotFound(format!("there is no arena {id}")))
    }

    /// Arena `id` with its players and games, and its standings.
    ///
    /// # Errors
    /// [`Error::NotFound`]; database failures.
    pub(crate) async fn arena_state(&self, id: ArenaId) -> Result<(ArenaState, Vec<ArenaStanding>), Error> {
        let state =
            self.store.arena_state(id).await?.ok_or_else(|| Error::NotFound(format!("there is no arena {id}")))?;
        let standings = standings(&state);
        Ok((state, standings))
    }

    /// At most `limit` arenas of `status`, newest first, below id `before`.
    ///
    /// # Errors
    /// Database failures.
    pub(crate) async fn arenas(
        &self,
        status: ArenaStatus,
        before: Option<ArenaId>,
        limit: u32,
    ) -> Result<Vec<StoredArena>, Error> {
        let before = before.unwrap_or(ArenaId::new(i64::MAX));
        Ok(self.store.arenas(status, self.now(), before, limit).await?)
    }

    /// `caller` joins arena `id`, or comes back to it; while it runs, they
    /// are paired at once if someone is free.
    ///
    /// # Errors
    /// [`Error::NotFound`]; [`Error::NotOpen`] once it finished;
    /// [`Error::Forbidden`] for a bot in an arena without bots;
    /// [`Error::AlreadyJoined`]; database failures.
    pub(crate) async fn join_arena(&self, caller: &Holder, id: ArenaId) -> Result<Joined, Error> {
        let arena = self.arena(id).await?;
        if caller.bot_account && !arena.terms.bots {
            return Err(Error::Forbidden("this arena is for people: bots may not join it".into()));
        }
        self.enter_arena(&arena, caller.id).await
    }

    /// `caller`, arena `id`'s creator, adds the server's bot named `bot` to it,
    /// or brings it back: it is paired as a player is, and never with
    /// another of the server's bots.
    ///
    /// # Errors
    /// [`Error::NotFound`] for an arena or a bot that is not there;
    /// [`Error::Forbidden`] for anyone but its creator, and in an arena
    /// without bots; then as [`GameService::join_arena`].
    pub(crate) async fn add_arena_bot(&self, caller: &Holder, id: ArenaId, bot: &Username) -> Result<Joined, Error> {
        let arena = self.arena(id).await?;
        if arena.created_by != caller.name {
            return Err(Error::Forbidden("only the arena's creator adds the server's bots to it".into()));
        }
        if !arena.terms.bots {
            return Err(Error::Forbidden("this arena is for people: bots may not join it".into()));
        }
        let player = self.named(bot).await?;
        if player.server_bot.is_none() {
            return Err(Error::NotFound(format!("{bot} is not one of the server's bots (random, parasite, perfect)")));
        }
        self.enter_arena(&arena, player.id).await
    }

    /// `player` joins `arena`, or comes back to it; while it runs, they are
    /// paired at once if someone is free.
    async fn enter_arena(&self, arena: &StoredArena, player: PlayerId) -> Result<Joined, Error> {
        let now = self.now();
        if arena.terms.status_at(now) == ArenaStatus::Finished {
            return Err(Error::NotOpen("this arena has finished".into()));
        }
        let joined = self.store.join_arena(arena.id, player, now).await?;
        if joined == Joined::Already {
            return Err(Error::AlreadyJoined("this player is in this arena already".into()));
        }
        if arena.terms.status_at(now) == ArenaStatus::Running {
            self.pair_arena(arena.id).await?;
        }
        Ok(joined)
    }

    /// `caller` withdraws from arena `id`: they keep their points, and are
    /// not paired until they join again.
    ///
    /// # Errors
    /// [`Error::NotFound`]; [`Error::NotOpen`] for a player not in it, or
    /// withdrawn already; database failures.
    pub(crate) async fn withdraw_from_arena(&self, caller: &Holder, id: ArenaId) -> Result<(), Error> {
        self.arena(id).await?;
        if !self.store.withdraw_from_arena(id, caller.id).await? {
            return Err(Error::NotOpen("you are not playing in this arena: join it first".into()));
        }
        Ok(())
    }

    /// Pairs each arena that runs: the timer's turn. Answers how many games it started.
    ///
    /// # Errors
    /// Database failures; an arena's own failure is logged and the others go on.
    pub async fn pair_arenas(&self) -> Result<usize, Error> {
        let mut started = 0;
        for id in self.store.running_arenas(self.now()).await? {
            match self.pair_arena(id).await {
                Ok(games) => started += games,
                Err(error) => log::warn!("the timer could not pair arena {id}: {error}"),
            }
        }
        Ok(started)
    }

    /// Pairs arena `id`'s free players and starts their games; answers how many.
    ///
    /// # Errors
    /// Database failures.
    async fn pair_arena(&self, id: ArenaId) -> Result<usize, Error> {
        let first_move = self.options.first_move;
        // A server's bot that plays X opens at once: its opening is found
        // before the arena is held, whether or not it is paired.
        let mut openings = HashMap::new();
        for (rules, bot) in self.store.arena_bots(id).await? {
            openings.insert(bot.code(), self.bot_seated(rules, bot, Player::X).await?);
        }
        // The time is read once the arena is held: a pairing that waited for
        // another to land is decided, and stamped, after it.
        let service = self.clone();
        let games = self
            .store
            .pair_arena(id, move |state| {
                let now = service.now();
                let standings = standings(state);
                let terms = state.arena.terms.game_terms();
                pairings(state, &standings, now)
                    .into_iter()
                    .map(|(x, o)| {
                        let (record, game_events) = match (x.server_bot, o.server_bot) {
                            (None, None) => {
                                let (record, events, _) =
                                    between(terms, Some(id), x.holder.clone(), o.holder.clone(), now, first_move)?;
                                (record, events)
                            }
                            (Some(bot), None) => {
                                let opening = openings.get(bot.code()).map_or(&[][..], Vec::as_slice);
                                let person = (o.holder.clone(), Player::O);
                                against_bot(terms, Some(id), person, (bot, opening), now, first_move)?
                            }
                            (None, Some(bot)) => {
                                let seat = [(Event::SeatTaken(Player::O), true)];
                                let person = (x.holder.clone(), Player::X);
                                against_bot(terms, Some(id), person, (bot, &seat), now, first_move)?
                            }
                            (Some(_), Some(_)) => {
                                return Err(Error::Internal(Fault::new("the pairing paired two of the server's bots")));
                            }
                        };
                        Ok((record.stored, game_events))
                    })
                    .collect::<Result<Vec<_>, Error>>()
            })
            .await?;
        let count = games.len();
        for game in games {
            let created_at = game.created_at;
            self.started_pairing(game, created_at)?;
        }
        Ok(count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bot::Bot;
    use crate::engine::{Scoring, Variant};
    use crate::record::{ClockSettings, GameId};

    const START: i64 = 1_800_000_000;

    fn at(second: i64) -> Timestamp {
        Timestamp::from_second(START + second).unwrap()
    }

    /// A ten-minute arena from `START` with `players`, who played `games`.
    fn arena(players: Vec<ArenaPlayer>, games: Vec<ArenaGame>) -> ArenaState {
        let terms = ArenaTerms {
            name: "test".into(),
            variant: Variant::PlayerChoice,
            scoring: Scoring::Goff,
            clock: ClockSettings { initial_ms: 60_000, increment_ms: 0 },
            rated: false,
            bots: true,
            starts_at: at(0),
            ends_at: at(600),
        };
        let created_by = Username::parse("someone").unwrap();
        ArenaState { arena: StoredArena { id: ArenaId::new(1), terms, created_by, created_at: at(0) }, players, games }
    }

    /// Player `id`, rated 1500, last seen at `seen` (seconds from `START`).
    fn player(id: i64, seen: Option<i64>) -> ArenaPlayer {
        ArenaPlayer {
            holder: Holder {
                id: PlayerId::new(id),
                name: Username::parse(&format!("player{id}")).unwrap(),
                token_hash: Vec::new(),
                last_seen_at: seen.map(at),
                bot_account: false,
            },
            server_bot: None,
            rating: 1500.0,
            joined_at: at(0),
            withdrawn: false,
            playing: false,
        }
    }

    fn paired(state: &ArenaState, now: Timestamp) -> Vec<(i64, i64)> {
        let pairs = pairings(state, &standings(state), now);
        pairs.iter().map(|(x, o)| (x.holder.id.get(), o.holder.id.get())).collect()
    }

    #[test]
    fn only_the_present_who_play_no_game_and_did_not_withdraw_are_paired_and_only_while_it_runs() {
        let mut players: Vec<ArenaPlayer> = (1..=8).map(|id| player(id, Some(100))).collect();
        players[1].holder.last_seen_at = Some(at(50));
        players[2].withdrawn = true;
        players[3].playing = true;
        players[4].server_bot = Some(Bot::Perfect);
        players[4].holder.last_seen_at = None;
        players[7].holder.last_seen_at = None;
        let state = arena(players, Vec::new());
        // Seen at 100 s, present until 130 s; the server's bot always.
        let pairs = paired(&state, at(110));
        let mut who: Vec<i64> = pairs.iter().flat_map(|&(x, o)| [x, o]).collect();
        who.sort_unstable();
        assert_eq!(who, [1, 5, 6, 7], "{pairs:?}");
        assert_eq!(paired(&state, at(140)), [], "nobody present but the bot");
        assert_eq!(paired(&state, at(-1)), [], "before the start");
        assert_eq!(paired(&state, at(600)), [], "at the end");
    }

    #[test]
    fn standings_rank_by_score_then_rating_and_score_a_streak_double() {
        let mut players: Vec<ArenaPlayer> = (1..=3).map(|id| player(id, Some(0))).collect();
        players[2].rating = 1600.0;
        let game = |id, x, o, result| ArenaGame {
            id: GameId::new(id),
            players: [PlayerId::new(x), PlayerId::new(o)],
            result,
            ongoing: result.is_none(),
        };
        // Player 1 beats 2 three times; 3 draws with 2, then plays on.
        let x_wins = Some(Some(crate::engine::Player::X));
        let games = vec![
            game(1, 1, 2, x_wins),
            game(2, 1, 2, x_wins),
            game(3, 3, 2, Some(None)),
            game(4, 1, 2, x_wins),
            game(5, 3, 1, None),
        ];
        let state = arena(players, games);
        let ranked: Vec<(i64, u32, usize)> =
            standings(&state).iter().map(|s| (s.player.holder.id.get(), s.sheet.score, s.rank)).collect();
        assert_eq!(ranked, [(1, 8, 1), (3, 1, 2), (2, 1, 3)]);
    }
}
