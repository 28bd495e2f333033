//! Players: an identity a person keeps across games. A player is a name and a
//! token (shown once, kept as its hash); a seat a player takes acts with their
//! token as with its own, and the games they hold seats in are theirs to list.
//! Where a player was last seen is kept too, at most once every
//! [`SEEN_EVERY`], so that every instance knows who is present.

use rand::RngExt;

use super::presence::{is_present, is_stale};
use super::{GameService, unknown_player};
use crate::engine::Variant;
use crate::error::Error;
use crate::rating::{Rating, Standing};
use crate::record::{
    GameId, Holder, ListedGame, Page, PlayerId, Results, StoredChallenge, StoredPlayer, StoredPlayerEvent, Subject,
    Username, VariantRating,
};
use crate::token;

/// How many of a player's events are read at once.
pub const EVENTS_AT_ONCE: u32 = 100;

/// How many of their last events a player's stream sends on a first
/// connection: the recent past, beside what is open now.
const RECENT_EVENTS: i64 = 20;

/// One of a player's events, with what it is about as it stands now.
#[derive(Debug, Clone)]
pub struct PlayerEvent {
    /// The event as stored.
    pub event: StoredPlayerEvent,
    /// The game or the challenge it is about; none when a deletion of old
    /// games took it (and the event with it) as it was read.
    pub about: Option<About>,
}

/// What a player's event is about, as it stands now.
#[derive(Debug, Clone)]
pub enum About {
    /// A game of theirs.
    Game(ListedGame),
    /// A challenge they sent or were sent.
    Challenge(StoredChallenge),
}

/// How many names the server draws for a player who asks for none before it
/// gives up: a draw is one of about ten million.
const NAME_DRAWS: usize = 8;

/// The words of the names the server draws: an adjective and a noun, then four digits.
const ADJECTIVES: [&str; 32] = [
    "amber", "bold", "brave", "bright", "calm", "clever", "cosmic", "curious", "dapper", "eager", "fancy", "gentle",
    "glad", "golden", "happy", "jolly", "keen", "lively", "lucky", "merry", "mighty", "nimble", "noble", "plucky",
    "quick", "quiet", "rapid", "shiny", "spooky", "swift", "witty", "zesty",
];
const NOUNS: [&str; 32] = [
    "badger", "bison", "boson", "comet", "crane", "falcon", "ferret", "gluon", "heron", "ibex", "lemur", "lynx",
    "magpie", "marten", "meson", "newt", "nova", "otter", "panda", "photon", "pulsar", "qubit", "quark", "raven",
    "robin", "spin", "stoat", "swan", "tiger", "vole", "walrus", "wren",
];

/// A player's public profile.
#[derive(Debug, Clone)]
pub struct Profile {
    /// The player.
    pub player: StoredPlayer,
    /// How their finished games ended for them.
    pub results: Results,
    /// Their rating in each variant as it stands now (its deviation grown by
    /// the time since their last rated game), and how many rated games it counts.
    pub ratings: [(Variant, Rating, i64); 2],
    /// Their puzzle rating in each variant as it stands now, and how many
    /// rated attempts it counts.
    pub puzzle_ratings: [(Variant, Rating, i64); 2],
}

/// A bot, as the list of bots shows it.
#[derive(Debug, Clone)]
pub struct ListedBot {
    /// The bot's player.
    pub player: StoredPlayer,
    /// Whether it is online: one of the server's, or seen within [`super::PRESENT_FOR`].
    pub online: bool,
    /// Its rating in each variant as it stands now, and how many rated games it counts.
    pub ratings: [(Variant, Rating, i64); 2],
}

impl Profile {
    /// The profile of `player`, who has just come: no games, and the start's ratings.
    pub(crate) fn of_new(player: StoredPlayer) -> Profile {
        Profile {
            player,
            results: Results::default(),
            ratings: Variant::ALL.map(|variant| (variant, Rating::START, 0)),
            puzzle_ratings: Variant::ALL.map(|variant| (variant, Rating::START, 0)),
        }
    }
}

impl GameService {
    /// Creates a player named `name`, or, without one, a name the server draws;
    /// answers the player and their token, shown only this once.
    ///
    /// # Errors
    /// [`Error::NameTaken`]; database failures.
    pub async fn create_player(&self, name: Option<Username>) -> Result<(StoredPlayer, String), Error> {
        let token = token::new_player_token();
        let created_at = self.now();
        let drawn = name.is_none();
        let mut names = name.into_iter().chain(std::iter::repeat_with(draw_name).take(NAME_DRAWS));
        loop {
            let name = names.next().ok_or(Error::NameTaken)?;
            match self.store.create_player(&name, token::hash(&token), created_at).await {
                Ok(id) => return Ok((StoredPlayer { id, name, created_at, bot: false, server_bot: None }, token)),
                // A drawn name that is taken: draw another.
                Err(crate::store::StoreError::NameTaken) if drawn => {}
                Err(error) => return Err(error.into()),
            }
        }
    }

    /// The player whose token `token` is, as a seat's holder would name them;
    /// seen now.
    ///
    /// # Errors
    /// [`Error::Unauthenticated`] for a token that is nobody's; database failures.
    pub async fn player(&self, token: &str) -> Result<Holder, Error> {
        let token_hash = token::hash(token);
        let (player, last_seen_at) = self.store.player_by_token(&token_hash).await?.ok_or_else(unknown_player)?;
        let bot_account = player.bot_account();
        let holder = Holder { id: player.id, name: player.name, token_hash, last_seen_at, bot_account };
        self.seen(holder).await
    }

    /// Whether `holder`'s token is still theirs: a new one replaces it.
    ///
    /// # Errors
    /// Database failures.
    pub(crate) async fn still_holds_token(&self, holder: &Holder) -> Result<bool, Error> {
        Ok(self.store.player_by_token(&holder.token_hash).await?.is_some_and(|(player, _)| player.id == holder.id))
    }

    /// `holder`, seen now: the sighting is written when the last is
    /// [`SEEN_EVERY`] old or more.
    async fn seen(&self, mut holder: Holder) -> Result<Holder, Error> {
        self.keep_seen(&mut holder).await?;
        Ok(holder)
    }

    /// Notes that `holder` is here now, as [`GameService::player`] does: for a
    /// player whose event stream stays open.
    ///
    /// # Errors
    /// Database failures.
    pub(crate) async fn keep_seen(&self, holder: &mut Holder) -> Result<(), Error> {
        let now = self.now();
        if is_stale(holder.last_seen_at, now) {
            self.store.touch_player(holder.id, now).await?;
            holder.last_seen_at = Some(now);
        }
        Ok(())
    }

    /// Where a first connection of player `id`'s stream starts: after all but
    /// their last [`RECENT_EVENTS`] events.
    ///
    /// # Errors
    /// Database failures.
    pub async fn recent_events_start(&self, id: PlayerId) -> Result<i64, Error> {
        Ok((self.store.last_player_event(id).await? - RECENT_EVENTS).max(0))
    }

    /// At most [`EVENTS_AT_ONCE`] of player `id`'s events after number `after`,
    /// in order, each with the game or challenge it is about as it stands now.
    ///
    /// # Errors
    /// Database failures.
    pub async fn player_events(&self, id: PlayerId, after: i64) -> Result<Vec<PlayerEvent>, Error> {
        let events = self.store.player_events(id, after, EVENTS_AT_ONCE).await?;
        let game_ids: Vec<GameId> = events
            .iter()
            .filter_map(|event| match event.subject {
                Subject::Game(id) => Some(id),
                Subject::Challenge(_) => None,
            })
            .collect();
        let games = self.store.listed_games(game_ids).await?;
        let mut told = Vec::with_capacity(events.len());
        for event in events {
            let about = match event.subject {
                Subject::Game(game_id) => games.iter().find(|game| game.id == game_id).cloned().map(About::Game),
                Subject::Challenge(challenge_id) => self.store.challenge(challenge_id).await?.map(About::Challenge),
            };
            told.push(PlayerEvent { event, about });
        }
        Ok(told)
    }

    /// The player named `name`, and how their finished games ended.
    ///
    /// # Errors
    /// [`Error::NotFound`]; database failures.
    pub async fn profile(&self, name: &Username) -> Result<Profile, Error> {
        let player = self.named(name).await?;
        let results = self.store.player_results(player.id).await?;
        let ratings = self.as_it_stands(&self.store.player_ratings(player.id).await?);
        let puzzle_ratings = self.as_it_stands(&self.store.puzzle_ratings(player.id).await?);
        Ok(Profile { player, results, ratings, puzzle_ratings })
    }

    /// Each variant's rating of `stored` as it stands now, the start's where
    /// there is none, and how many rated games or attempts it counts.
    fn as_it_stands(&self, stored: &[VariantRating]) -> [(Variant, Rating, i64); 2] {
        let (now, period) = (self.now(), self.store.rating_period());
        Variant::ALL.map(|variant| {
            let standing = stored.iter().find(|rating| rating.variant == variant).map_or(Standing::NEW, |r| r.standing);
            (variant, standing.at(now, period), standing.games)
        })
    }

    /// At most `most` bots whose names come after `after` (in any case), by
    /// name: the server's, which are always online, and the bot accounts.
    ///
    /// # Errors
    /// Database failures.
    pub(crate) async fn bots(&self, after: Option<&Username>, most: u32) -> Result<Vec<ListedBot>, Error> {
        let now = self.now();
        let stored = self.store.bots(after.map(Username::key).unwrap_or_default(), most).await?;
        Ok(stored
            .into_iter()
            .map(|bot| ListedBot {
                online: bot.player.server_bot.is_some() || is_present(bot.last_seen_at, now),
                ratings: self.as_it_stands(&bot.ratings),
                player: bot.player,
            })
            .collect())
    }

    /// The player named `name`, in any case.
    ///
    /// # Errors
    /// [`Error::NotFound`]; database failures.
    pub(super) async fn named(&self, name: &Username) -> Result<StoredPlayer, Error> {
        self.store.player_by_name(name).await?.ok_or_else(|| Error::NotFound(format!("there is no player {name}")))
    }

    /// Makes `holder` a bot, for good: a program plays their games from now on.
    ///
    /// # Errors
    /// [`Error::Conflict`] for a bot, and for a player who holds a seat of a
    /// game already; database failures.
    pub(crate) async fn make_bot(&self, holder: &Holder) -> Result<(), Error> {
        if self.store.make_bot(holder.id, self.now()).await? {
            return Ok(());
        }
        let detail = if self.named(&holder.name).await?.bot {
            format!("{} is a bot already", holder.name)
        } else {
            format!("{} has played: only a player who has played no game becomes a bot", holder.name)
        };
        Err(Error::Conflict { detail, current_version: None })
    }

    /// Gives `holder` a new token, which is answered, shown only this once: the
    /// old one stops working at once, on every instance.
    ///
    /// # Errors
    /// Database failures.
    pub(crate) async fn new_player_token(&self, holder: &Holder) -> Result<String, Error> {
        let token = token::new_player_token();
        self.store.set_player_token(holder.id, token::hash(&token)).await?;
        // Their streams here read again, and those of the old token end.
        self.player_hub.publish_unknown(holder.id);
        Ok(token)
    }

    /// A page of the games player `id` holds a seat in, newest first.
    ///
    /// # Errors
    /// Database failures.
    pub(crate) async fn player_games(&self, id: PlayerId, page: Page) -> Result<Vec<ListedGame>, Error> {
        Ok(self.store.player_games(id, page, false).await?)
    }

    /// A page of the public games the player named `name` holds a seat in,
    /// newest first.
    ///
    /// # Errors
    /// [`Error::NotFound`]; database failures.
    pub(crate) async fn public_games_of(&self, name: &Username, page: Page) -> Result<Vec<ListedGame>, Error> {
        let player = self.named(name).await?;
        Ok(self.store.player_games(player.id, page, true).await?)
    }
}

/// A readable name: an adjective and a noun, then four digits, such as `swift_otter0042`.
fn draw_name() -> Username {
    let mut rng = rand::rng();
    let (adjective, noun) =
        (ADJECTIVES[rng.random_range(0..ADJECTIVES.len())], NOUNS[rng.random_range(0..NOUNS.len())]);
    let name = format!("{adjective}_{noun}{:04}", rng.random_range(0..10_000));
    Username::parse(&name).expect("every drawn name is a name")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_the_server_can_draw_is_a_name() {
        let longest = ADJECTIVES.iter().map(|word| word.len()).max().unwrap()
            + 1
            + NOUNS.iter().map(|word| word.len()).max().unwrap()
            + 4;
        assert!(longest <= Username::MAX_CHARS, "{longest}");
        for _ in 0..100 {
            let name = draw_name();
            assert!(name.as_str().contains('_'), "{name}");
        }
    }
}
