//! Many upserts in one call (`contacts.upsert-many`, for imports): each body
//! through the same rule as `POST /contacts`, in order.
//!
//! A real run commits its rows a [`Chunk`] at a time: each row is checked
//! and prepared exactly as alone, but its writes wait, and up to
//! [`batch::CHUNK_ROWS`] rows go in one commit. A commit per row cost a store
//! transaction per row, and the store seals each one in its log on its own:
//! two device writes a row, most of an import's time (`docs/bench-log/2026-11.md`,
//! "Where an import's time goes").
//!
//! A row reads the store as it was before its chunk, so a row that names a
//! unique key (email, mobile) an earlier row of the chunk looked up, took or
//! gave back waits for that chunk's commit first; so does a row that links a
//! conversation (its claim is not part of the commit). The count the plan
//! limit checks adds the chunk's creates, and each create's condition on
//! the stored count is lowered by those before it, so creates that land
//! between a chunk's check and its commit cannot take the organization past
//! its plan. The chunk's commit still checks
//! every row's conditions (its record unchanged, its keys still free, the
//! plan's room); when one fails (a concurrent request got there first)
//! nothing of the chunk is written, and its rows run again one commit each,
//! as they would have alone. Each row is atomic; so is each chunk.
//!
//! A dry run writes nothing; what it would have written lives in the
//! [`Batch`], so a later body finds an earlier one (and the plan limit counts
//! it) exactly as the real run would.

use crm_sdk::runtime;
use crm_sdk::store;

use crate::batch::{self, Batch, Chunk};
use crate::upsert::{self, Options, Outcome};

/// `upsert-many`: the outcomes of `bodies`, in order, each turned into what
/// the caller keeps (`answer`) as soon as it is known: 10,000 outcomes held
/// as JSON values, each with its city's candidates, would outgrow the
/// instance's memory.
pub fn upsert_many<T>(bodies: &[String], options: &Options, mut answer: impl FnMut(Outcome) -> T) -> Vec<T> {
    let mut batch = Batch::compact();
    if options.dry_run {
        return bodies.iter().map(|body| answer(upsert::upsert(body.as_bytes(), options, &mut batch))).collect();
    }
    let mut answers = Vec::with_capacity(bodies.len());
    batch.chunk = Some(Chunk::default());
    // The chunk's rows (their body) and what each answers once it commits.
    let mut rows: Vec<(&str, Outcome)> = Vec::new();
    for body in bodies {
        let input = upsert::read(body.as_bytes());
        let links = input.as_ref().is_ok_and(|input| input.linked_conversation_id.is_some());
        if links || input.as_ref().is_ok_and(|input| batch.clashes(input)) || batch.is_full(rows.len()) {
            answers.extend(commit(&mut batch, std::mem::take(&mut rows), options).into_iter().map(&mut answer));
        }
        if links {
            // Its conversation's claim is not part of a commit: alone.
            answers.push(answer(upsert::upsert_input(input, options, &mut Batch::compact())));
            continue;
        }
        let keys: Vec<String> = input.as_ref().map(|input| batch::input_keys(input).collect()).unwrap_or_default();
        rows.push((body, upsert::upsert_input(input, options, &mut batch)));
        if let Some(chunk) = &mut batch.chunk {
            chunk.keys.extend(keys);
        }
    }
    answers.extend(commit(&mut batch, rows, options).into_iter().map(&mut answer));
    answers
}

/// Commits the chunk: the outcomes of its `rows`, in order. When its commit
/// is refused or fails, nothing of it was written, and its rows run again,
/// each committed alone, as they would have without a chunk.
fn commit(batch: &mut Batch, rows: Vec<(&str, Outcome)>, options: &Options) -> Vec<Outcome> {
    let chunk = batch.chunk.replace(Chunk::default()).unwrap_or_default();
    batch.created = 0;
    if chunk.writes.is_empty() {
        return rows.into_iter().map(|(_, outcome)| outcome).collect();
    }
    match store::commit(&chunk.conditions, &chunk.writes) {
        Ok(true) => return rows.into_iter().map(|(_, outcome)| outcome).collect(),
        Ok(false) => {
            let message =
                format!("a chunk of {} upserts found the store changed; its rows run again alone", rows.len());
            runtime::log(runtime::Level::Debug, &message);
        }
        Err(e) => {
            runtime::log(runtime::Level::Warn, &format!("a chunk of upserts failed ({e}); its rows run again alone"))
        }
    }
    rows.iter().map(|(body, _)| upsert::upsert(body.as_bytes(), options, &mut Batch::compact())).collect()
}
