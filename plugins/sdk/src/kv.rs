//! Typed JSON records on the component's store.

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::http::Error;
use crate::store;

pub fn get<T: DeserializeOwned>(key: &str) -> Result<Option<T>, Error> {
    store::get(key.as_bytes())?.map(|bytes| decode(key, &bytes)).transpose()
}

/// The JSON record stored at `key`, read as `T`; a 500 naming the key when
/// it does not read.
pub fn decode<T: DeserializeOwned>(key: &str, bytes: &[u8]) -> Result<T, Error> {
    serde_json::from_slice(bytes).map_err(|e| Error::internal(format!("corrupt {key}: {e}")))
}

/// Most keys one `get-many` call takes (the host's bound).
const MANY: usize = 1000;

/// The raw values of `keys`, in their order (`None` where absent), in as few
/// store calls as the host allows.
pub fn get_many_raw(keys: &[String]) -> Result<Vec<Option<Vec<u8>>>, Error> {
    let mut values = Vec::with_capacity(keys.len());
    for chunk in keys.chunks(MANY) {
        let bytes: Vec<Vec<u8>> = chunk.iter().map(|k| k.as_bytes().to_vec()).collect();
        values.extend(store::get_many(&bytes)?);
    }
    Ok(values)
}

/// The records at `keys`, in their order (`None` where absent).
pub fn get_many<T: DeserializeOwned>(keys: &[String]) -> Result<Vec<Option<T>>, Error> {
    get_many_raw(keys)?
        .into_iter()
        .zip(keys)
        .map(|(value, key)| value.map(|bytes| decode(key, &bytes)).transpose())
        .collect()
}

pub fn put<T: Serialize>(key: &str, value: &T) -> Result<(), Error> {
    Ok(store::put(key.as_bytes(), &serde_json::to_vec(value).map_err(Error::internal)?)?)
}

/// A counter's value (decimal text, as `store.commit`'s `add` writes it;
/// absent is 0).
pub fn counter(key: &str) -> Result<u64, Error> {
    Ok(counter_value(store::get(key.as_bytes())?.as_deref()))
}

/// A counter's value from its stored bytes (absent is 0).
pub fn counter_value(stored: Option<&[u8]>) -> u64 {
    stored.and_then(|v| std::str::from_utf8(v).ok()?.trim().parse().ok()).unwrap_or(0)
}

/// [`counter_value`] of the `i`th value a `get-many` answered (absent, or
/// past the answer's end, is 0).
pub fn counter_at(values: &[Option<Vec<u8>>], i: usize) -> u64 {
    counter_value(values.get(i).and_then(Option::as_deref))
}

/// Up to `take` pairs under `prefix`, newest first (descending keys: ids
/// sort by creation), after skipping `skip` of them: one page of a list.
/// Reads at most `skip + take` pairs, a thousand at a time.
pub fn page_reverse(prefix: &str, skip: u64, take: usize) -> Result<Vec<(String, Vec<u8>)>, Error> {
    page_reverse_where(prefix, skip, take, |_| true)
}

/// [`page_reverse`] of only the pairs whose value `keep` accepts: `skip`
/// and `take` count kept pairs. Reads until the page is full or the prefix
/// ends, so it suits filters most values pass.
pub fn page_reverse_where(
    prefix: &str,
    skip: u64,
    take: usize,
    mut keep: impl FnMut(&[u8]) -> bool,
) -> Result<Vec<(String, Vec<u8>)>, Error> {
    const CHUNK: u64 = 1000;
    let (mut skip, mut out) = (skip, Vec::with_capacity(take.min(1000)));
    let mut before: Option<Vec<u8>> = None;
    while out.len() < take {
        let want = (skip + (take - out.len()) as u64).min(CHUNK) as u32;
        let chunk = store::scan_reverse(prefix.as_bytes(), before.as_deref(), want)?;
        let n = chunk.len();
        for (k, v) in chunk {
            before = Some(k.clone());
            if !keep(&v) {
                continue;
            }
            if skip > 0 {
                skip -= 1;
            } else if out.len() < take {
                out.push((String::from_utf8_lossy(&k).into_owned(), v));
            }
        }
        if n < want as usize {
            break;
        }
    }
    Ok(out)
}

/// One page of the records an index names, newest first: each index key is
/// `<prefix><id>` (its value unused), and `record_key(id)` is where the
/// record is; they are read in one `get-many`. Records gone since the index
/// entry was read are left out.
pub fn page_indexed<T: DeserializeOwned>(
    prefix: &str,
    skip: u64,
    take: usize,
    record_key: impl Fn(&str) -> String,
) -> Result<Vec<T>, Error> {
    Ok(get_many(&indexed_keys(prefix, skip, take, record_key)?)?.into_iter().flatten().collect())
}

/// [`page_indexed`] of the raw stored values.
pub fn page_indexed_raw(
    prefix: &str,
    skip: u64,
    take: usize,
    record_key: impl Fn(&str) -> String,
) -> Result<Vec<Vec<u8>>, Error> {
    Ok(get_many_raw(&indexed_keys(prefix, skip, take, record_key)?)?.into_iter().flatten().collect())
}

fn indexed_keys(
    prefix: &str,
    skip: u64,
    take: usize,
    record_key: impl Fn(&str) -> String,
) -> Result<Vec<String>, Error> {
    Ok(page_reverse(prefix, skip, take)?.iter().map(|(k, _)| record_key(k.strip_prefix(prefix).unwrap_or(k))).collect())
}

/// [`page_reverse`] of JSON records, read as `T`.
pub fn page_reverse_records<T: DeserializeOwned>(prefix: &str, skip: u64, take: usize) -> Result<Vec<T>, Error> {
    page_reverse(prefix, skip, take)?.into_iter().map(|(k, v)| decode(&k, &v)).collect()
}

/// A list answer of the JSON records under `prefix`, newest first, with
/// `total` from the counter at `count_key` (default 20 a page, at most 100).
pub fn newest_first(
    req: &crate::types::Request,
    prefix: &str,
    count_key: &str,
) -> Result<crate::types::Response, Error> {
    let paging = crate::http::Paging::from_query(req, 20, 100)?;
    let total = counter(count_key)? as usize;
    let items: Vec<serde_json::Value> = page_reverse_records(prefix, paging.offset(), paging.limit)?;
    Ok(paging.response(&items, total))
}

/// Hands `visit` every pair under `prefix`, newest first (descending keys),
/// read a thousand at a time: memory is bounded by what `visit` keeps.
pub fn walk_reverse(prefix: &str, mut visit: impl FnMut(&[u8], &[u8])) -> Result<(), Error> {
    const CHUNK: u32 = 1000;
    let mut before: Option<Vec<u8>> = None;
    loop {
        let chunk = store::scan_reverse(prefix.as_bytes(), before.as_deref(), CHUNK)?;
        let n = chunk.len();
        for (k, v) in &chunk {
            visit(k, v);
        }
        match chunk.into_iter().last() {
            Some((k, _)) if n == CHUNK as usize => before = Some(k),
            _ => return Ok(()),
        }
    }
}

/// Every value under `prefix`, in key order, read in pages.
pub fn scan_all(prefix: &str) -> Result<Vec<(String, Vec<u8>)>, Error> {
    const PAGE: u32 = 1000;
    let mut out = Vec::new();
    let mut start: Option<Vec<u8>> = None;
    loop {
        let page = store::scan(prefix.as_bytes(), start.as_deref(), PAGE)?;
        let n = page.len();
        for (k, v) in page {
            let mut next = k.clone();
            next.push(0);
            start = Some(next);
            out.push((String::from_utf8_lossy(&k).into_owned(), v));
        }
        if n < PAGE as usize {
            return Ok(out);
        }
    }
}
