//! The cap on rated games between bots: a bot account plays at most
//! [`super::ServiceOptions::bot_games_per_day`] rated games against bots in a
//! day, so that two programs cannot pump each other's ratings.

use std::time::Duration;

use super::GameService;
use super::time::before;
use crate::error::Error;
use crate::record::{Holder, PlayerId, StoredPlayer, Username};

/// The day the cap counts over.
const DAY: Duration = Duration::from_secs(24 * 3600);

/// Who plays one side of a rated game about to start, as the cap sees them.
#[derive(Debug, Clone, Copy)]
pub(super) enum Side<'a> {
    /// A person: a game against one is never capped.
    Person,
    /// One of the server's bots, which the cap does not count for.
    ServerBot,
    /// A bot account, whose games against bots are counted.
    Account(PlayerId, &'a Username),
}

impl<'a> Side<'a> {
    /// The side `player` plays.
    pub(super) fn of(player: &'a StoredPlayer) -> Side<'a> {
        match (player.server_bot, player.bot) {
            (Some(_), _) => Side::ServerBot,
            (None, true) => Side::Account(player.id, &player.name),
            (None, false) => Side::Person,
        }
    }

    /// The side the seat's holder `holder` plays.
    pub(super) fn held_by(holder: &'a Holder) -> Side<'a> {
        if holder.bot_account { Side::Account(holder.id, &holder.name) } else { Side::Person }
    }
}

impl GameService {
    /// Refuses a rated game between `sides` when both are bots and a bot
    /// account among them has started the day's most rated games against bots.
    ///
    /// # Errors
    /// [`Error::RatedGame`] at the cap; database failures.
    pub(super) async fn admit_bot_game(&self, rated: bool, sides: [Side<'_>; 2]) -> Result<(), Error> {
        if !rated || sides.iter().any(|side| matches!(side, Side::Person)) {
            return Ok(());
        }
        let since = before(self.now(), DAY);
        let most = self.options.bot_games_per_day;
        for side in sides {
            let Side::Account(id, name) = side else { continue };
            if self.store.rated_games_against_bots(id, since).await? >= i64::from(most) {
                return Err(Error::RatedGame(format!(
                    "{name} has started {most} rated games against bots in the last 24 hours, the most a bot may \
                     (BOT_GAMES_PER_DAY): play a person, or a casual game"
                )));
            }
        }
        Ok(())
    }
}
