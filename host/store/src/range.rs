//! The key ranges that prefix scans read, worked out once for every backend.

use std::ops::Bound;

/// A key range, as the engines' `range` takes it.
pub(crate) type Bounds = (Bound<Vec<u8>>, Bound<Vec<u8>>);

/// `whole`, the keys under `prefix` from `first` to `last`, as `parts`
/// adjacent ranges that together hold each key once, cut at points spread
/// evenly between `first` and `last` (read as numbers from their first 16
/// bytes after the prefix): what a count reads on several threads. Keys
/// spread unevenly make uneven parts, never a key missed or repeated.
pub(crate) fn split(whole: Bounds, prefix: &[u8], first: &[u8], last: &[u8], parts: usize) -> Vec<Bounds> {
    let number = |key: &[u8]| {
        let mut bytes = [0u8; 16];
        let suffix = &key[prefix.len()..];
        let n = suffix.len().min(16);
        bytes[..n].copy_from_slice(&suffix[..n]);
        u128::from_be_bytes(bytes)
    };
    let (low, high) = (number(first), number(last));
    let step = (high - low) / parts.max(1) as u128;
    if step == 0 {
        return vec![whole];
    }
    let cuts: Vec<Vec<u8>> = (1..parts as u128).map(|i| [prefix, &(low + step * i).to_be_bytes()].concat()).collect();
    let (start, end) = whole;
    let starts = std::iter::once(start).chain(cuts.iter().cloned().map(Bound::Included));
    let ends = cuts.iter().cloned().map(Bound::Excluded).chain(std::iter::once(end));
    starts.zip(ends).collect()
}

/// Threads one count takes at most.
const MOST_COUNT_THREADS: usize = 4;

/// How many parts a count splits its range into: one per core, at most
/// [`MOST_COUNT_THREADS`].
pub(crate) fn count_parts() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get()).min(MOST_COUNT_THREADS)
}

/// The sum of `count` over `parts`, each on a thread of its own: reading
/// every value is CPU-bound, so one large count takes the machine's cores
/// instead of one.
pub(crate) fn count_in_parallel(
    parts: Vec<Bounds>,
    count: impl Fn(Bounds) -> crate::StoreResult<u64> + Sync,
) -> crate::StoreResult<u64> {
    std::thread::scope(|scope| {
        let counting: Vec<_> = parts.into_iter().map(|part| scope.spawn(|| count(part))).collect();
        counting.into_iter().map(|part| part.join().expect("a counting thread panicked")).sum()
    })
}

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

/// A namespace's pairs in key order, a page of at most `size` at a time:
/// what a copy or a count of a whole namespace reads, holding one page.
pub fn pages<'a>(store: &'a dyn crate::Store, ns: &'a crate::Namespace, size: usize) -> Pages<'a> {
    Pages { store, ns, size, start: None, done: false }
}

/// See [`pages`].
pub struct Pages<'a> {
    store: &'a dyn crate::Store,
    ns: &'a crate::Namespace,
    size: usize,
    /// Where the next page starts (inclusive).
    start: Option<Vec<u8>>,
    done: bool,
}

impl Iterator for Pages<'_> {
    type Item = crate::StoreResult<Vec<crate::KeyValue>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let page = match self.store.scan(self.ns, b"", self.start.as_deref(), self.size) {
            Ok(page) => page,
            Err(e) => {
                self.done = true;
                return Some(Err(e));
            }
        };
        self.done = page.len() < self.size;
        self.start = page.last().map(|(key, _)| key_after(key));
        (!page.is_empty()).then_some(Ok(page))
    }
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

    #[test]
    fn pages_hold_every_pair_once_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let store = crate::SledStore::open(dir.path()).unwrap();
        let (ns, other) = (crate::Namespace::org("o1"), crate::Namespace::org("o2"));
        // Another namespace's keys are never a page's.
        crate::Store::put(&store, &other, b"a", b"x").unwrap();
        let sizes = |store: &crate::SledStore| -> Vec<Vec<Vec<u8>>> {
            pages(store, &ns, 2).map(|page| page.unwrap().into_iter().map(|(k, _)| k).collect()).collect()
        };
        assert_eq!(sizes(&store), Vec::<Vec<Vec<u8>>>::new(), "an empty namespace has no page");
        for key in [b"k1", b"k2", b"k3", b"k4"] {
            crate::Store::put(&store, &ns, key, b"v").unwrap();
        }
        let k = |s: &str| s.as_bytes().to_vec();
        assert_eq!(sizes(&store), vec![vec![k("k1"), k("k2")], vec![k("k3"), k("k4")]], "a last full page, then none");
        crate::Store::put(&store, &ns, b"k5", b"v").unwrap();
        assert_eq!(sizes(&store).concat(), ["k1", "k2", "k3", "k4", "k5"].map(k).to_vec());
    }
}
