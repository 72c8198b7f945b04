//! Ids: 24 lowercase hex characters, ObjectId-like: 4 bytes of seconds, a
//! 3-byte counter, then 5 random bytes. The counter comes before the random
//! part so that ids made by one host sort by creation even within a second
//! (lists show newest first by id order).

use std::sync::atomic::{AtomicU32, Ordering};

static COUNTER: AtomicU32 = AtomicU32::new(0);

/// A new unique id.
pub fn new_id() -> String {
    let secs = chrono::Utc::now().timestamp() as u32;
    let mut random = [0u8; 5];
    getrandom::fill(&mut random).expect("the OS random source works");
    let count = COUNTER.fetch_add(1, Ordering::Relaxed) & 0x00ff_ffff;
    let mut bytes = [0u8; 12];
    bytes[..4].copy_from_slice(&secs.to_be_bytes());
    bytes[4..7].copy_from_slice(&count.to_be_bytes()[1..]);
    bytes[7..].copy_from_slice(&random);
    hex::encode(bytes)
}

/// Whether `text` has the shape of an id (so a malformed one is told apart from an unknown one).
pub fn is_id(text: &str) -> bool {
    text.len() == 24 && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// A short machine name: `[a-z][a-z0-9_-]{0,31}` (module and plugin names).
pub fn is_slug(text: &str) -> bool {
    let mut bytes = text.bytes();
    bytes.next().is_some_and(|b| b.is_ascii_lowercase())
        && text.len() <= 32
        && bytes.all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_24_hex_and_unique() {
        let a = new_id();
        let b = new_id();
        assert!(is_id(&a) && is_id(&b));
        assert_ne!(a, b);
        assert!(!is_id("ABCDEF0123456789abcdef01"));
        assert!(!is_id("abc"));
    }

    #[test]
    fn ids_of_one_second_sort_by_creation() {
        let ids: Vec<String> = (0..1000).map(|_| new_id()).collect();
        let mut sorted = ids.clone();
        sorted.sort();
        assert_eq!(ids, sorted);
    }

    #[test]
    fn slugs() {
        assert!(is_slug("shipping") && is_slug("my-courier_2"));
        assert!(!is_slug("") && !is_slug("Shipping") && !is_slug("2fast") && !is_slug(&"a".repeat(33)));
    }
}
