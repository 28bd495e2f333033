//! Writes to games in PostgreSQL, several games' in one statement.
//!
//! PostgreSQL's cost of a write is mostly the statement's, not its rows'
//! (measured with pgbench in docs/PERFORMANCE.md). So a write decided on a game
//! this instance knows waits in a queue, from which a few tasks write what
//! waits, one write a game, in one statement. The primary key still decides
//! every race (see [`super::statements::WRITES`]); a write that does not land
//! is decided again, alone, on the log as it is.

use std::collections::HashSet;

use jiff::SignedDuration;
use sqlx::Connection;
use sqlx::postgres::PgConnection;
use tokio::sync::oneshot;

use super::super::StoreError;
use super::super::rows::{SummaryColumns, read_game};
use super::super::write::{write_besides, writes_besides};
use super::batches::{Landing, Waiting};
use super::connections::is_broken;
use super::statements::{EntryColumns, Summaries, WRITES};
use super::tx::{in_sqlx_terms, on_connection};
use super::{MOST_ATTEMPTS, PgStore, conflict};
use crate::metrics::STORE_BATCHES;
use crate::record::{GameId, StoredGame, Write};

impl PgStore {
    pub(in crate::store) async fn write(
        &self,
        id: GameId,
        write: Write,
        period: SignedDuration,
    ) -> Result<(), StoreError> {
        // Decided already: it lands on the version it was decided on, or not at all.
        let base = write.entries.first().map_or(0, |entry| entry.seq - 1);
        self.update(id, period, move |stored| match stored.version() {
            version if version == base => Ok((Some(write.clone()), ())),
            current_version => Err(StoreError::Conflict { current_version }),
        })
        .await
    }

    pub(in crate::store) async fn update<T: Send + 'static, E: From<StoreError> + Send + 'static>(
        &self,
        id: GameId,
        period: SignedDuration,
        mut decide: impl FnMut(StoredGame) -> Result<(Option<Write>, T), E> + Send + 'static,
    ) -> Result<T, E> {
        // A write whose connection broke as it was sent, which may have landed.
        let mut unsure: Option<(Write, T)> = None;
        if let Some(known) = self.known.get(&id) {
            let before = known.clone();
            match decide(known) {
                Ok((None, decided)) => return Ok(decided),
                Ok((Some(write), decided)) => match self.write_in_batch(id, write.clone(), before, period).await {
                    Landing::Landed => return Ok(decided),
                    Landing::Lost => {}
                    Landing::Unsure => unsure = Some((write, decided)),
                    Landing::Failed(failure) => return Err(E::from(failure)),
                },
                // Refused on a copy that may be out of date: decided again on the log.
                Err(_) => {}
            }
        }
        let mut held = self.connections.get().await?;
        for _ in 0..MOST_ATTEMPTS {
            let stored = match on_connection(held.connection(), async |tx| read_game(tx, id).await).await {
                (Ok(stored), _) => stored,
                (Err(_), Some(error)) if held.may_retry(&error) => {
                    held.reopen().await?;
                    continue;
                }
                (Err(_), Some(error)) => return Err(E::from(held.fail(error))),
                (Err(failure), None) => return Err(E::from(failure)),
            };
            if let Some((write, decided)) = unsure.take()
                && landed(&stored, &write)
            {
                held.finish(Ok(()))?;
                self.wrote(id, &write);
                return Ok(decided);
            }
            let before = stored.clone();
            let (write, decided) = match decide(stored) {
                Ok((Some(write), decided)) => (write, decided),
                Ok((None, decided)) => {
                    self.known.insert(id, before);
                    return Ok(held.finish(Ok(decided))?);
                }
                Err(error) => {
                    held.finish(Ok(()))?;
                    return Err(error);
                }
            };
            match write_batch(held.connection(), &[(id, &write)], period).await {
                Ok(landed) if landed.contains(&id) => {
                    held.finish(Ok(()))?;
                    self.wrote(id, &write);
                    self.known.insert(id, write.applied_to(before));
                    return Ok(decided);
                }
                // Another write took the next sequence number, or the players'
                // events it tells met another write's: decide again on the log.
                Ok(_) => {}
                Err(error) if is_deadlock(&error) => {}
                Err(error) if is_broken(&error) => {
                    unsure = Some((write, decided));
                    held.reopen().await?;
                }
                Err(error) => return Err(E::from(held.fail(error))),
            }
        }
        conflict(held, id).await.map_err(E::from)
    }

    /// Writes `write` of game `id`, decided on `before`, together with whatever
    /// other writes wait, and tells how it went. It is written even if its caller
    /// gives up waiting.
    async fn write_in_batch(&self, id: GameId, write: Write, before: StoredGame, period: SignedDuration) -> Landing {
        let (told, landing) = oneshot::channel();
        let after = write.applied_to(before);
        if self.batches.push(Waiting { id, write, period, after, told }) {
            tokio::spawn(self.clone().flush());
        }
        // A flusher that panicked wrote nothing, or everything.
        landing.await.unwrap_or(Landing::Unsure)
    }

    /// Writes batches until none waits.
    async fn flush(self) {
        loop {
            let mut batch = Vec::new();
            self.batches.take(&mut batch);
            if batch.is_empty() {
                return;
            }
            let held = self.connections.get().await;
            // The writes that came while the flusher waited for its connection go too.
            self.batches.take(&mut batch);
            let landing = match held {
                Err(failure) => vec![Landing::Failed(failure); batch.len()],
                Ok(mut held) => {
                    let writes: Vec<(GameId, &Write)> =
                        batch.iter().map(|waiting| (waiting.id, &waiting.write)).collect();
                    match write_batch(held.connection(), &writes, batch[0].period).await {
                        Ok(landed) => {
                            let _ = held.finish(Ok(()));
                            let landed: HashSet<GameId> = landed.into_iter().collect();
                            let landing = |id| if landed.contains(&id) { Landing::Landed } else { Landing::Lost };
                            batch.iter().map(|waiting| landing(waiting.id)).collect()
                        }
                        Err(error) => {
                            let broken = is_broken(&error);
                            vec![failed(held.fail(error), broken); batch.len()]
                        }
                    }
                }
            };
            self.batches.written(&batch);
            for (waiting, landing) in batch.into_iter().zip(landing) {
                if landing == Landing::Landed {
                    self.wrote(waiting.id, &waiting.write);
                    self.known.insert(waiting.id, waiting.after);
                }
                let _ = waiting.told.send(landing);
            }
        }
    }
}

/// How each write of a batch that failed with `failure` went, the connection
/// `broken` or not.
fn failed(failure: StoreError, broken: bool) -> Landing {
    match failure {
        _ if broken => Landing::Unsure,
        StoreError::Unavailable(_) | StoreError::Full(_) => Landing::Failed(failure),
        // Such as a write to a game deleted meanwhile, which fails its whole batch.
        _ => Landing::Lost,
    }
}

/// Whether `error` is PostgreSQL's refusal of a transaction that waited for
/// another in a circle (two writes telling the same players at once): the
/// transaction was undone, and may be tried again.
fn is_deadlock(error: &sqlx::Error) -> bool {
    error.as_database_error().and_then(|database| database.code()).is_some_and(|code| code == "40P01")
}

/// Whether `stored`'s log holds what `write` appends, where it appends it.
fn landed(stored: &StoredGame, write: &Write) -> bool {
    write.entries.iter().all(|entry| {
        let seq = usize::try_from(entry.seq - 1).ok();
        seq.and_then(|seq| stored.log.get(seq))
            .is_some_and(|stored| (stored.event, stored.by_bot) == (entry.event, entry.by_bot))
    })
}

/// Carries out `writes`, one a game, in one statement; answers the games whose
/// writes landed. What the landed writes write besides their games' rows (the
/// players' events, the results' counts, the ratings, with rating periods of
/// length `period`) is written in the same transaction, after that statement:
/// a start or an end of a game, not a move, so that most batches are the one
/// statement alone.
async fn write_batch(
    connection: &mut PgConnection,
    writes: &[(GameId, &Write)],
    period: SignedDuration,
) -> Result<Vec<GameId>, sqlx::Error> {
    if !writes.iter().any(|(_, write)| writes_besides(write)) {
        return write_games(connection, writes).await;
    }
    let mut tx = connection.begin().await?;
    let landed = write_games(&mut tx, writes).await?;
    in_sqlx_terms(&mut tx, async |tx| {
        for &(id, write) in writes.iter().filter(|(id, _)| landed.contains(id)) {
            write_besides(tx, id, write, period).await?;
        }
        Ok(())
    })
    .await?;
    tx.commit().await?;
    Ok(landed)
}

/// The games' part of [`write_batch`]: one statement.
async fn write_games(connection: &mut PgConnection, writes: &[(GameId, &Write)]) -> Result<Vec<GameId>, sqlx::Error> {
    let (mut firsts, mut rest) = (EntryColumns::default(), EntryColumns::default());
    let mut seats = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut summaries = Summaries::default();
    for &(id, write) in writes {
        // A write that appends nothing has no sequence number to decide its race: it never lands.
        let Some((first, others)) = write.entries.split_first() else { continue };
        firsts.push(id, std::slice::from_ref(first));
        rest.push(id, others);
        if let Some(seat) = &write.seat {
            seats.0.push(id.get());
            seats.1.push(seat.player.to_string());
            seats.2.push(seat.token_hash.clone());
            seats.3.push(seat.holder.as_ref().map(|holder| holder.id.get()));
        }
        if let Some(summary) = &write.summary {
            summaries.push(id, SummaryColumns::of(summary));
        }
    }
    let (with_seats, with_summaries) = (!seats.0.is_empty(), !summaries.is_empty());
    let statement = &WRITES[usize::from(with_seats) * 2 + usize::from(with_summaries)];
    let mut query = rest.bind(firsts.bind(sqlx::query_scalar::<_, i64>(statement.as_str())));
    if with_seats {
        query = query.bind(seats.0).bind(seats.1).bind(seats.2).bind(seats.3);
    }
    if with_summaries {
        query = summaries.bind(query);
    }
    STORE_BATCHES.record(u32::try_from(writes.len()).unwrap_or(u32::MAX));
    Ok(query.fetch_all(connection).await?.into_iter().map(GameId::new).collect())
}
