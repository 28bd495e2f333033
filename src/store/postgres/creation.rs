//! A game's creation on PostgreSQL in one statement: the game, its seats, its
//! log and a rematch's entry in the game it follows, one round trip, where the
//! shared creation over [`super::tx::PgTx`] takes a transaction and a statement
//! for each row (docs/PERFORMANCE.md, "Creation written once").

use sqlx::Connection;
use sqlx::postgres::PgConnection;

use super::super::rows::{SummaryColumns, bot_code, mistake_chance};
use super::super::write::insert_player_events;
use super::super::{Notice, StoreError};
use super::statements::{EntryColumns, INSERT_GAME};
use super::tx::{in_sqlx_terms, is_unique_violation};
use super::{PgStore, conflict};
use crate::record::{Event, GameId, PlayerEventKind, PlayerId, RematchOf, StoredEntry, StoredGame, Subject, stamp};

impl PgStore {
    pub(in crate::store) async fn create_game(
        &self,
        game: StoredGame,
        rematch: Option<RematchOf>,
        player_events: Vec<(PlayerId, PlayerEventKind)>,
    ) -> Result<GameId, StoreError> {
        let mut held = self.connections.get().await?;
        let created = match create(held.connection(), &game, rematch, &player_events).await {
            Err(error) if held.may_retry(&error) => {
                held.reopen().await?;
                create(held.connection(), &game, rematch, &player_events).await
            }
            created => created,
        };
        // A rematch asked for at the same moment by the other player took the
        // place in the old game's log, or the old game's one rematch.
        let id = match (created, rematch) {
            (Ok(None), Some(rematch)) => conflict(held, rematch.game_id).await,
            (Err(error), Some(rematch)) if is_unique_violation(&error) => conflict(held, rematch.game_id).await,
            (created, _) => {
                held.finish(created)?.ok_or_else(|| StoreError::Other("a new game was not inserted".into()))
            }
        }?;
        self.created(StoredGame { id, ..game }, rematch, &player_events);
        Ok(id)
    }

    /// Has the other instances told of `game`, just created, of the
    /// `player_events` its creation wrote and of the new entry in the game it is
    /// the `rematch` of; keeps `game` as this instance knows it, and forgets
    /// that other game.
    fn created(&self, game: StoredGame, rematch: Option<RematchOf>, player_events: &[(PlayerId, PlayerEventKind)]) {
        self.tell(Notice::Changed { id: game.id, version: game.version() });
        for &(player, _) in player_events {
            self.tell(Notice::PlayerEvents { id: player });
        }
        if let Some(rematch) = rematch {
            self.tell(Notice::Changed { id: rematch.game_id, version: rematch.seq });
            self.known.remove(&rematch.game_id);
        }
        self.known.insert(game.id, game);
    }
}

/// Creates `game` in one statement, with `player_events` about it in the same
/// transaction when it has any; none when its insert was refused (a second
/// rematch of one game).
async fn create(
    connection: &mut PgConnection,
    game: &StoredGame,
    rematch: Option<RematchOf>,
    player_events: &[(PlayerId, PlayerEventKind)],
) -> Result<Option<GameId>, sqlx::Error> {
    if player_events.is_empty() {
        return insert_game(connection, game, rematch).await;
    }
    let mut tx = connection.begin().await?;
    let Some(id) = insert_game(&mut tx, game, rematch).await? else { return Ok(None) };
    in_sqlx_terms(&mut tx, async |tx| {
        insert_player_events(tx, Subject::Game(id), player_events, game.created_at).await
    })
    .await?;
    tx.commit().await?;
    Ok(Some(id))
}

/// [`INSERT_GAME`] of `game`, and with `rematch` its entry in the game it follows.
async fn insert_game(
    connection: &mut PgConnection,
    game: &StoredGame,
    rematch: Option<RematchOf>,
) -> Result<Option<GameId>, sqlx::Error> {
    let clock = game.clock.map(|clock| (clock.initial_ms, clock.increment_ms));
    let mut entries = EntryColumns::default();
    entries.push(None, &game.log);
    if let Some(RematchOf { game_id, seq, player }) = rematch {
        // Its rematch column is filled in with the new game's id by the statement.
        let event = Event::Rematch { player, game_id: GameId::new(0) };
        entries.push(Some(game_id), &[StoredEntry { seq, created_at: game.created_at, event, by_bot: false }]);
    }
    let summary = SummaryColumns::of(&game.summary);
    let seats = &game.seats;
    let query = sqlx::query_scalar::<_, i64>(INSERT_GAME.as_str())
        .bind(game.variant.code())
        .bind(stamp(game.created_at))
        .bind(bot_code(game))
        .bind(mistake_chance(game))
        .bind(game.hints)
        .bind(clock.map(|(initial, _)| initial))
        .bind(clock.map(|(_, increment)| increment))
        .bind(game.rematch_of.map(GameId::get))
        .bind(summary.status)
        .bind(summary.result)
        .bind(summary.end_reason)
        .bind(summary.end_player)
        .bind(summary.deadline.map(stamp))
        .bind(summary.ended_at.map(stamp))
        .bind(game.invite_hash.clone())
        .bind(seats.iter().map(|seat| seat.player.to_string()).collect::<Vec<_>>())
        .bind(seats.iter().map(|seat| seat.token_hash.clone()).collect::<Vec<_>>())
        .bind(seats.iter().map(|seat| seat.holder.as_ref().map(|holder| holder.id.get())).collect::<Vec<_>>());
    let query = entries.bind(query).bind(game.rated);
    Ok(query.fetch_optional(connection).await?.map(GameId::new))
}
