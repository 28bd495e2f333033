//! An arena's scoring, as lichess's arenas score: a win 2, a draw 1, a loss 0;
//! after two wins in a row a player is on fire, and each result counts double
//! until one that is not a win. Pure: a player's sheet is a fold of their
//! results in the order their games ended.

use crate::record::GameId;

/// How a game of the arena ended for one of its players.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// They won.
    Win,
    /// Neither won.
    Draw,
    /// They lost.
    Loss,
}

impl Outcome {
    /// The name used in the API.
    pub fn code(self) -> &'static str {
        match self {
            Outcome::Win => "win",
            Outcome::Draw => "draw",
            Outcome::Loss => "loss",
        }
    }

    /// Its points for a player who is not on fire.
    fn points(self) -> u32 {
        match self {
            Outcome::Win => 2,
            Outcome::Draw => 1,
            Outcome::Loss => 0,
        }
    }
}

/// One game on a player's sheet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scored {
    /// The game.
    pub game_id: GameId,
    /// How it ended for them.
    pub outcome: Outcome,
    /// Whether they were on fire when it began: its points count double.
    pub on_fire: bool,
    /// What it scored.
    pub points: u32,
}

/// A player's results in an arena, in the order their games ended.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sheet {
    /// Each game that counts.
    pub games: Vec<Scored>,
    /// Their points.
    pub score: u32,
    /// Whether their next game counts double: their last two were wins.
    pub on_fire: bool,
}

impl Sheet {
    /// The sheet with `outcome` of `game_id` written on it.
    #[must_use]
    pub fn with(mut self, game_id: GameId, outcome: Outcome) -> Sheet {
        let on_fire = self.on_fire;
        let points = outcome.points() * if on_fire { 2 } else { 1 };
        self.games.push(Scored { game_id, outcome, on_fire, points });
        self.score += points;
        self.on_fire =
            self.games.len() >= 2 && self.games.iter().rev().take(2).all(|game| game.outcome == Outcome::Win);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sheet(outcomes: &[Outcome]) -> Sheet {
        outcomes.iter().enumerate().fold(Sheet::default(), |sheet, (i, &outcome)| {
            sheet.with(GameId::new(i64::try_from(i).unwrap() + 1), outcome)
        })
    }

    #[test]
    fn two_wins_in_a_row_set_a_player_on_fire_until_a_result_that_is_not_a_win() {
        use Outcome::{Draw, Loss, Win};
        let sheet = sheet(&[Win, Win, Win, Draw, Win, Loss, Win, Win, Draw]);
        let points: Vec<u32> = sheet.games.iter().map(|game| game.points).collect();
        assert_eq!(points, [2, 2, 4, 2, 2, 0, 2, 2, 2]);
        assert_eq!(sheet.score, 18);
        assert!(!sheet.on_fire, "a draw puts the fire out");
        let fired: Vec<bool> = sheet.games.iter().map(|game| game.on_fire).collect();
        assert_eq!(fired, [false, false, true, true, false, false, false, false, true]);
    }

    #[test]
    fn a_sheet_of_two_wins_is_on_fire_and_a_loss_scores_nothing() {
        use Outcome::{Loss, Win};
        assert!(sheet(&[Loss, Win, Win]).on_fire);
        assert_eq!(sheet(&[Loss, Loss]).score, 0);
        assert_eq!(sheet(&[]).score, 0);
    }
}
