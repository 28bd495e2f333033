//! Live updates: who watches which game (or which player's events), and the
//! news that it changed.
//!
//! A write publishes the game's new version after it committed, and so does news
//! of another instance's write (on PostgreSQL); every watcher of that game, on any
//! worker, wakes and reads what it missed from the log, which stays the only source
//! of truth: a lost, doubled or merged notice costs nothing. A version already
//! told is not told again: the writing instance's own watchers wake once for its
//! write, whether its publish or the database's notice of it comes first. A
//! player's events are watched the same way, keyed by the player: their
//! numbers are the database's, so their notices carry none, and a watcher reads
//! what the database holds after what it sent.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::Mutex;

use tokio::sync::broadcast;

/// Notices kept for a slow watcher before it must reread the log.
const BACKLOG: usize = 16;

/// The version a notice carries when news may have been lost: the game may be at
/// any version, so its watchers read the log from where they are.
pub(crate) const UNKNOWN_VERSION: i64 = 0;

/// What is being watched (games, or players' events, by their ids), and a
/// channel of version notices for each.
#[derive(Debug)]
pub(crate) struct Hub<K> {
    channels: Mutex<HashMap<K, Channel>>,
}

impl<K> Default for Hub<K> {
    fn default() -> Hub<K> {
        Hub { channels: Mutex::default() }
    }
}

/// A watched game's notices, and the newest version they told.
#[derive(Debug)]
struct Channel {
    sender: broadcast::Sender<i64>,
    told: i64,
}

impl<K: Copy + Eq + Hash> Hub<K> {
    /// Starts watching `id`: the receiver hears each new version.
    pub fn watch(&self, id: K) -> broadcast::Receiver<i64> {
        let mut channels = self.channels.lock().expect("the hub's lock is never poisoned");
        // Games whose watchers all left, and that never changed since, go now.
        channels.retain(|_, channel| channel.sender.receiver_count() > 0);
        let channel = channels.entry(id).or_insert_with(|| Channel { sender: broadcast::channel(BACKLOG).0, told: 0 });
        channel.sender.subscribe()
    }

    /// Tells the watchers of `id` that it is at `version` now, unless they were
    /// told of that version, or a later one, already.
    pub(crate) fn publish(&self, id: K, version: i64) {
        let mut channels = self.channels.lock().expect("the hub's lock is never poisoned");
        if let Some(channel) = channels.get_mut(&id).filter(|channel| channel.told < version) {
            channel.told = version;
            // A game nobody watches any more costs nothing from here on.
            if channel.sender.send(version).is_err() {
                channels.remove(&id);
            }
        }
    }

    /// Tells the watchers of `id` to look again: it changed, to a version the
    /// notice does not know.
    pub(crate) fn publish_unknown(&self, id: K) {
        let channels = self.channels.lock().expect("the hub's lock is never poisoned");
        if let Some(channel) = channels.get(&id) {
            let _ = channel.sender.send(UNKNOWN_VERSION);
        }
    }

    /// Tells every watcher to look again: news may have been lost.
    pub(crate) fn publish_everywhere(&self) {
        let channels = self.channels.lock().expect("the hub's lock is never poisoned");
        for channel in channels.values() {
            let _ = channel.sender.send(UNKNOWN_VERSION);
        }
    }

    /// Ends every watch: each watcher's stream finishes, so that a server that
    /// stops need not wait for streams that would never end.
    pub fn close(&self) {
        self.channels.lock().expect("the hub's lock is never poisoned").clear();
    }

    /// The number of ids with a channel.
    #[cfg(test)]
    fn watched_games(&self) -> usize {
        self.channels.lock().expect("the hub's lock is never poisoned").len()
    }
}

#[cfg(test)]
mod tests {
    use crate::record::GameId;

    type Hub = super::Hub<GameId>;

    #[test]
    fn watchers_hear_each_new_version_once_and_a_game_nobody_watches_is_forgotten() {
        let hub = Hub::default();
        let mut watcher = hub.watch(GameId::new(7));
        hub.publish(GameId::new(7), 3);
        hub.publish(GameId::new(8), 1);
        hub.publish(GameId::new(7), 3);
        hub.publish(GameId::new(7), 2);
        assert_eq!(watcher.try_recv(), Ok(3));
        assert!(watcher.try_recv().is_err(), "a version told once is not told again, nor an older one");
        hub.publish_everywhere();
        assert_eq!(watcher.try_recv(), Ok(super::UNKNOWN_VERSION));
        assert_eq!(hub.watched_games(), 1);
        drop(watcher);
        hub.publish(GameId::new(7), 4);
        assert_eq!(hub.watched_games(), 0, "the last watcher left: the channel goes with it");
        drop(hub.watch(GameId::new(9)));
        let _other = hub.watch(GameId::new(10));
        assert_eq!(hub.watched_games(), 1, "a game left unwatched goes when another is watched");
    }
}
