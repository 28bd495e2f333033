//! What the perfect player tells the players of a game: a hint for the seat
//! to act, and every action judged once it has ended (or, while it goes on,
//! for its players, where hints are allowed).

use std::sync::Arc;

use super::{Credentials, GameRecord, GameService};
use crate::bot::{Analysis, Solution};
use crate::engine::{Actor, Player, RuleError, Variant};
use crate::error::Error;
use crate::record::GameId;
use crate::token;

/// What perfect play makes of a position: the best action for the side to act.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hint {
    /// The game's collapse rule, which says whether the value is sure or expected.
    pub variant: Variant,
    /// The player to act: a measurement never waits to be asked.
    pub player: Player,
    /// The best action and the final score difference X minus O it leads to.
    pub solution: Solution,
}

/// The refusal of a hint or an analysis in a game without hints, while it goes on.
fn no_hints() -> Error {
    Error::HintsDisabled(
        "this game gives neither hints nor analysis while it goes on; its creator can ask for them with \"hints\": true"
            .into(),
    )
}

impl GameService {
    /// The best action of game `id` for the seat holding `token`, by exact
    /// search, when that seat is to act: a hint is advice to a player, never to
    /// a spectator, nor about the opponent's turn.
    ///
    /// # Errors
    /// [`Error::NotFound`]; [`Error::Forbidden`] for a token that is no seat of
    /// the game; [`RuleError::GameOver`] when nobody is to act;
    /// [`Error::RatedGame`] in a rated game; [`Error::HintsDisabled`] in a game
    /// without hints, and to a bot account, an engine already;
    /// [`RuleError::NotYourTurn`] when the other side is to act; [`Error::Busy`]
    /// when too many searches wait; a corrupt log; database failures.
    pub async fn hint(&self, id: GameId, token: &str) -> Result<(GameRecord, Hint), Error> {
        let record = self.record(id).await?;
        let Some(seat) = record.stored.seat_of(&token::hash(token)) else { return Err(self.refusal_of(token).await) };
        let Some(Actor::Player(player)) = record.game.actor_to_act().filter(|_| record.end().is_none()) else {
            return Err(Error::Rule(RuleError::GameOver));
        };
        if record.stored.rated {
            return Err(no_help_in_rated_games());
        }
        if !record.stored.hints {
            return Err(no_hints());
        }
        if record.stored.seat(seat).and_then(|seat| seat.holder.as_ref()).is_some_and(|holder| holder.bot_account) {
            return Err(Error::HintsDisabled("a bot gets no hints: it is an engine already".into()));
        }
        if player != seat {
            return Err(Error::Rule(RuleError::NotYourTurn));
        }
        let solution = self.searches.hint(id, record.version(), record.game).await?;
        let hint = Hint { variant: record.game.variant(), player, solution };
        Ok((record, hint))
    }

    /// Every action of game `id` so far judged by the perfect player, for a
    /// reader with `credentials`: anyone who may read a finished game, only
    /// its players while it goes on.
    ///
    /// # Errors
    /// [`Error::NotFound`]; [`Error::RatedGame`] in a rated game and
    /// [`Error::HintsDisabled`] in a game without hints, while it goes on; [`Error::Forbidden`] without a seat's token in one that
    /// does; [`Error::Busy`] when too many searches wait; a corrupt log;
    /// database failures.
    pub async fn analysis(&self, id: GameId, credentials: &Credentials) -> Result<(GameRecord, Arc<Analysis>), Error> {
        let record = self.game(id, credentials).await?;
        // Judging the moves of a game that goes on is advice to its players.
        if record.end().is_none() {
            if record.stored.rated {
                return Err(no_help_in_rated_games());
            }
            if !record.stored.hints {
                return Err(no_hints());
            }
            if credentials.seat(&record.stored).is_none() {
                return Err(Error::Forbidden(
                    "a game that goes on is analysed for its players only: send a seat's token".into(),
                ));
            }
        }
        let analysis = self.searches.analysis(id, record.version(), record.game).await?;
        Ok((record, analysis))
    }

    /// How many perfect searches have begun since the server started.
    pub fn searches_begun(&self) -> u64 {
        self.searches.begun()
    }
}

/// The refusal of a hint or an analysis in a rated game that goes on.
fn no_help_in_rated_games() -> Error {
    Error::RatedGame(
        "a rated game gives neither hints nor analysis until it has ended: the players play it alone".into(),
    )
}
