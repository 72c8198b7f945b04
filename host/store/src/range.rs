//! The key ranges that prefix scans read, worked out once for every backend.

/// A range of keys: from `.0` (inclusive) to `.1` (exclusive; `None` is the
/// end of the namespace).
pub type KeyRange = (Vec<u8>, Option<Vec<u8>>);

/// The range a forward scan of `prefix` from `start` (inclusive) reads. A
/// start past the prefix gives an empty range (from = to), never a reversed one.
pub fn scan_range(prefix: &[u8], start: Option<&[u8]>) -> KeyRange {
    let end = prefix_end(prefix);
    let from = match (start, &end) {
        (Some(s), Some(e)) if s >= e.as_slice() => e.clone(),
        (Some(s), _) if s > prefix => s.to_vec(),
        _ => prefix.to_vec(),
    };
    (from, end)
}

/// The range a reverse scan of `prefix` below `before` (exclusive) reads;
/// `None` when it is empty. The end is never past the prefix's keys, else a
/// walk down from it would start on a key outside the prefix.
pub fn reverse_range(prefix: &[u8], before: Option<&[u8]>) -> Option<KeyRange> {
    let end = match (before, prefix_end(prefix)) {
        (Some(b), _) if b <= prefix => return None,
        (Some(b), Some(e)) => Some(b.min(e.as_slice()).to_vec()),
        (Some(b), None) => Some(b.to_vec()),
        (None, e) => e,
    };
    Some((prefix.to_vec(), end))
}

/// The smallest key after `key`: where a scan continues past the last key
/// of its previous page.
pub fn key_after(key: &[u8]) -> Vec<u8> {
    [key, &[0]].concat()
}

/// The smallest key greater than every key that starts with `prefix`; `None`
/// when there is none (an empty prefix, or one of only `0xff` bytes).
fn prefix_end(prefix: &[u8]) -> Option<Vec<u8>> {
    let mut end = prefix.to_vec();
    while let Some(last) = end.pop() {
        if last < u8::MAX {
            end.push(last + 1);
            return Some(end);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_stay_inside_the_prefix() {
        assert_eq!(scan_range(b"a/", None), (b"a/".to_vec(), Some(b"a0".to_vec())));
        assert_eq!(scan_range(b"a/", Some(b"a/5")), (b"a/5".to_vec(), Some(b"a0".to_vec())));
        assert_eq!(scan_range(b"a/", Some(b"0")).0, b"a/".to_vec(), "a start before the prefix starts at it");
        assert_eq!(scan_range(b"a/", Some(b"b")), (b"a0".to_vec(), Some(b"a0".to_vec())), "past the prefix: empty");
        assert_eq!(scan_range(b"\xff", None).1, None);
        assert_eq!(reverse_range(b"a/", Some(b"z")), Some((b"a/".to_vec(), Some(b"a0".to_vec()))));
        assert_eq!(reverse_range(b"a/", Some(b"a/")), None);
        assert_eq!(reverse_range(b"", None), Some((Vec::new(), None)));
        assert_eq!(key_after(b"a/1"), b"a/1\0".to_vec());
        assert!(key_after(b"a/1") < b"a/10".to_vec(), "no key fits between");
    }
}
