//! Seat and player tokens: random bearer secrets, stored only as hashes.

use rand::Rng;
use sha2::{Digest, Sha256};

/// A fresh seat token: 256 bits from a cryptographically secure generator that the
/// operating system seeds, as 64 hex digits.
pub(crate) fn new_token() -> String {
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    const HEX_DIGITS: &[u8; 16] = b"0123456789abcdef";
    bytes
        .iter()
        .flat_map(|byte| [byte >> 4, byte & 0xf])
        .map(|digit| char::from(HEX_DIGITS[usize::from(digit)]))
        .collect()
}

/// What a player's token begins with, so that a person, a frontend or a
/// secret scanner tells it from a seat's.
pub(crate) const PLAYER_TOKEN_PREFIX: &str = "qtp_";

/// A fresh player's token: [`PLAYER_TOKEN_PREFIX`], then as many random bits as
/// a seat's.
pub(crate) fn new_player_token() -> String {
    format!("{PLAYER_TOKEN_PREFIX}{}", new_token())
}

/// The hash under which a token is stored and looked up. The token has 256 bits of
/// entropy, so a plain SHA-256 is enough: there is nothing to guess.
pub(crate) fn hash(token: &str) -> Vec<u8> {
    Sha256::digest(token.as_bytes()).to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_long_random_and_hash_stably() {
        let (a, b) = (new_token(), new_token());
        assert_eq!(a.len(), 64);
        assert!(a.chars().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
        assert_eq!(hash(&a), hash(&a));
        assert_ne!(hash(&a), hash(&b));
        assert_eq!(hash(&a).len(), 32);
        let player = new_player_token();
        assert_eq!((player.len(), &player[..4]), (68, "qtp_"));
    }
}
