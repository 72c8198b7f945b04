//! Secondary indexes, written in the same atomic batch as the record:
//!
//! - `ix/c/<createdAt>/<id>` and `ix/u/<updatedAt>/<id>`: order by creation and update;
//! - `ix/city/<cityCode>/<createdAt>/<id>` and `ix/state/<stateCode>/<createdAt>/<id>`.
//!
//! Times are fixed-width RFC 3339 (`2026-11-22T13:29:07.097Z`), so key order is
//! time order. Index values are empty: the key says everything.
//!
//! `s/<id>` is the search projection: the searched fields, lower case, one per
//! line, so `search` is the host's byte scan of small values ([`search`]).
//!
//! `r/<id>` is the read model: the contact's flattened JSON, rendered at write
//! time so a list page is a concatenation, not a parse and a render per row.

use crm_sdk::http::Error;
use crm_sdk::store::{self, Op};

use crate::record::{self, Contact};
use crate::unique;

fn entries(c: &Contact) -> Vec<String> {
    let mut keys = vec![format!("ix/c/{}/{}", c.created_at, c.id), format!("ix/u/{}/{}", c.updated_at, c.id)];
    if let Some(code) = &c.city_code {
        keys.push(format!("ix/city/{code}/{}/{}", c.created_at, c.id));
    }
    if let Some(code) = &c.state_code {
        keys.push(format!("ix/state/{code}/{}/{}", c.created_at, c.id));
    }
    keys
}

/// Writes `new` and moves its index entries from those of `old`, atomically,
/// then its city and state counts (totals of filtered lists). A crash between
/// the two can leave a count off by one; the entries stay exact.
pub fn save(old: Option<&Contact>, new: &Contact) -> Result<(), Error> {
    write(old, new)?;
    unique::move_code("city", old.and_then(|c| c.city_code.as_deref()), new.city_code.as_deref())?;
    unique::move_code("state", old.and_then(|c| c.state_code.as_deref()), new.state_code.as_deref())
}

fn write(old: Option<&Contact>, new: &Contact) -> Result<(), Error> {
    let fresh = entries(new);
    let mut ops: Vec<Op> = old
        .map(entries)
        .unwrap_or_default()
        .into_iter()
        .filter(|k| !fresh.contains(k))
        .map(|k| Op::Delete(k.into_bytes()))
        .collect();
    ops.extend(fresh.into_iter().map(|k| Op::Put((k.into_bytes(), Vec::new()))));
    let record = serde_json::to_vec(new).map_err(Error::internal)?;
    ops.push(Op::Put((record::key(&new.id).into_bytes(), record)));
    let rendered = serde_json::to_vec(&new.flattened()).map_err(Error::internal)?;
    ops.push(Op::Put((rendered_key(&new.id).into_bytes(), rendered)));
    ops.push(Op::Put((format!("s/{}", new.id).into_bytes(), projection(new).into_bytes())));
    Ok(store::batch(&ops)?)
}

/// The fields `search` looks in: first and last name, email, mobile, phone, company.
fn projection(c: &Contact) -> String {
    [&c.first_name, &c.last_name, &c.email, &c.mobile, &c.phone, &c.company]
        .iter()
        .map(|f| f.as_deref().unwrap_or("").replace('\n', " ").to_lowercase())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Ids of the contacts whose searched fields contain `needle` (case-insensitive, literal).
pub fn search(needle: &str) -> Result<Vec<String>, Error> {
    let needle = needle.replace('\n', " ").to_lowercase();
    let keys = store::find(b"s/", needle.as_bytes(), 100_000)?;
    Ok(keys.iter().map(|k| id_of(k)).collect())
}

fn rendered_key(id: &str) -> String {
    format!("r/{id}")
}

/// The flattened JSON of each contact, in the order of `ids` (missing ones skipped).
pub fn rendered(ids: &[String]) -> Result<Vec<Vec<u8>>, Error> {
    let mut out = Vec::with_capacity(ids.len());
    for id in ids {
        if let Some(json) = store::get(rendered_key(id).as_bytes())? {
            out.push(json);
        }
    }
    Ok(out)
}

/// The contact id at the end of an index key.
pub fn id_of(key: &[u8]) -> String {
    let key = String::from_utf8_lossy(key);
    key.rsplit('/').next().unwrap_or_default().to_string()
}

/// Ids of one page of an index, walking it forward or backward.
pub fn page(prefix: &str, ascending: bool, skip: usize, take: usize) -> Result<Vec<String>, Error> {
    const CHUNK: usize = 1000;
    let mut out = Vec::with_capacity(take);
    let mut skipped = 0;
    let mut cursor: Option<Vec<u8>> = None;
    while out.len() < take {
        let wanted = (skip - skipped + take - out.len()).min(CHUNK);
        let chunk = if ascending {
            store::scan(prefix.as_bytes(), cursor.as_deref(), wanted as u32)?
        } else {
            store::scan_reverse(prefix.as_bytes(), cursor.as_deref(), wanted as u32)?
        };
        let n = chunk.len();
        for (key, _) in chunk {
            cursor = Some(if ascending {
                let mut next = key.clone();
                next.push(0);
                next
            } else {
                key.clone()
            });
            if skipped < skip {
                skipped += 1;
            } else if out.len() < take {
                out.push(id_of(&key));
            }
        }
        if n < wanted {
            break;
        }
    }
    Ok(out)
}

/// Every key under `prefix` (values are empty), in key order.
pub fn keys(prefix: &str) -> Result<Vec<Vec<u8>>, Error> {
    Ok(crm_sdk::kv::scan_all(prefix)?.into_iter().map(|(k, _)| k.into_bytes()).collect())
}
