//! The bots on the ladder (`qttt ladder`): rated games between the bots,
//! played through the service as a person's game against a bot is, so that
//! their ratings settle where their strength puts them. One bot holds a seat
//! as the player of its own name, the other is the game's bot.

use rand::Rng;

use super::GameService;
use crate::bot::Bot;
use crate::engine::{GameResult, Player, Scoring, Variant};
use crate::error::{Error, Fault};
use crate::record::{GameSettings, Holder, Status, Username};

/// The bots that play rated games, weakest first.
pub const LADDER_BOTS: [Bot; 3] =
    [Bot::Random, Bot::Parasite { mistake_chance: Bot::DEFAULT_MISTAKE_CHANCE }, Bot::Perfect];

impl GameService {
    /// Plays one rated game of `variant` between two bots: `seated`, as the
    /// player of its name in seat `seat`, its choices drawn from `rng`, and
    /// `opponent`, the game's bot. Answers how it ended.
    ///
    /// # Errors
    /// [`Error::NotFound`] for a bot that is not a player (the migrations make
    /// them); database failures.
    pub async fn ladder_game(
        &self,
        variant: Variant,
        (seated, seat): (Bot, Player),
        opponent: Bot,
        rng: &mut dyn Rng,
    ) -> Result<GameResult, Error> {
        let name = Username::parse(seated.code()).map_err(|_| Error::Internal(Fault::new("a bot's name")))?;
        let player = self.named(&name).await?;
        let holder =
            Holder { id: player.id, name: player.name, token_hash: Vec::new(), last_seen_at: None, bot_account: false };
        let settings = GameSettings {
            variant,
            // The ladder finds the bots' ratings, which are Goff's.
            scoring: Scoring::Goff,
            play_as: seat,
            opponent: Some(opponent),
            hints: Some(false),
            clock: None,
            private: false,
            rated: true,
        };
        let (mut record, held) = self.create_game_by(settings, Some(holder)).await?;
        let mut strategy = seated.strategy();
        while record.status() != Status::Finished {
            let action = strategy.choose(&record.game, rng);
            record = self.act(record.stored.id, &held.token, action, None).await?;
        }
        Ok(record.game.result())
    }
}
