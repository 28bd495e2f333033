//! The optional limit on how many games one client address creates per minute.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::problem::ApiError;

const WINDOW: Duration = Duration::from_secs(60);

/// Counts each address's game creations in windows of a minute.
#[derive(Debug)]
pub struct CreationLimit {
    per_minute: u32,
    windows: Mutex<HashMap<IpAddr, (Instant, u32)>>,
}

impl CreationLimit {
    /// At most `per_minute` games per address and minute.
    pub fn new(per_minute: u32) -> CreationLimit {
        CreationLimit { per_minute, windows: Mutex::default() }
    }

    /// Counts a creation by `address`.
    ///
    /// # Errors
    /// [`ApiError::RateLimited`] with the seconds to wait, beyond the limit.
    pub fn admit(&self, address: IpAddr) -> Result<(), ApiError> {
        let now = Instant::now();
        let mut windows = self.windows.lock().expect("the limit's lock is never poisoned");
        // Finished windows go, so that the map holds only this minute's creators.
        windows.retain(|_, (start, _)| now.duration_since(*start) < WINDOW);
        let (start, count) = windows.entry(address).or_insert((now, 0));
        if *count >= self.per_minute {
            let retry_after = (WINDOW - now.duration_since(*start)).as_secs().max(1);
            return Err(ApiError::RateLimited { retry_after });
        }
        *count += 1;
        Ok(())
    }
}
