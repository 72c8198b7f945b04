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
//! its plan. The chunk's commit still checks every row's conditions (its
//! record unchanged, its keys still free, the plan's room); the rows'
//! entries in the search log take the epoch open at the commit, not the one
//! open at the chunk's first row, which a fold may have sealed since
//! ([`crate::postings::Unlogged`]). When one fails (a concurrent request got
//! there first) nothing of the chunk is written, and its rows run again one
//! commit each, as they would have alone. Each row is atomic; so is each chunk.
//!
//! A dry run writes nothing; what it would have written lives in the
//! [`Batch`], so a later body finds an earlier one (and the plan limit counts
//! it) exactly as the real run would.
//!
//! The caller's [`Progress`] hears of each body as it begins and of each
//! outcome once it is final (committed, or nothing of it written): the
//! `contacts` export tells the host through `upsert-progress`, so a trap
//! costs the host only the body begun last.

use crm_sdk::runtime;

use crate::batch::{self, Batch, Chunk};
use crate::postings;
use crate::upsert::{self, Options, Outcome};

/// Who hears how an `upsert_many` goes.
pub trait Progress {
    /// The body at `index` begins.
    fn begin(&mut self, index: usize);
    /// The next body's outcome, final.
    fn settled(&mut self, outcome: Outcome);
}

/// The outcomes kept in order (the admin API's bulk path).
impl Progress for Vec<Outcome> {
    fn begin(&mut self, _index: usize) {}

    fn settled(&mut self, outcome: Outcome) {
        self.push(outcome);
    }
}

/// `upsert-many`: the outcome of each of `bodies`, in order, told to
/// `progress` as soon as it is final: 10,000 outcomes held as JSON values,
/// each with its city's candidates, would outgrow the instance's memory.
pub fn upsert_many(bodies: &[String], options: &Options, progress: &mut impl Progress) {
    let mut batch = Batch::compact();
    if options.dry_run {
        for (i, body) in bodies.iter().enumerate() {
            progress.begin(i);
            progress.settled(upsert::upsert(body.as_bytes(), options, &mut batch));
        }
        return;
    }
    batch.chunk = Some(Chunk::default());
    // The chunk's rows (their index in `bodies`) and what each answers once it commits.
    let mut rows: Vec<(usize, Outcome)> = Vec::new();
    for (i, body) in bodies.iter().enumerate() {
        progress.begin(i);
        let input = upsert::read(body.as_bytes());
        let links = input.as_ref().is_ok_and(|input| input.linked_conversation_id.is_some());
        if links || input.as_ref().is_ok_and(|input| batch.clashes(input)) || batch.is_full(rows.len()) {
            commit(&mut batch, std::mem::take(&mut rows), bodies, options, progress);
        }
        if links {
            // Its conversation's claim is not part of a commit: alone.
            progress.settled(upsert::upsert_input(input, options, &mut Batch::compact()));
            continue;
        }
        let keys: Vec<String> = input.as_ref().map(|input| batch::input_keys(input).collect()).unwrap_or_default();
        rows.push((i, upsert::upsert_input(input, options, &mut batch)));
        if let Some(chunk) = &mut batch.chunk {
            chunk.keys.extend(keys);
        }
    }
    commit(&mut batch, rows, bodies, options, progress);
}

/// Commits the chunk and settles the outcomes of its `rows`, in order. When
/// its commit is refused or fails, nothing of it was written, and its rows
/// run again, each committed alone, as they would have without a chunk.
fn commit(
    batch: &mut Batch,
    rows: Vec<(usize, Outcome)>,
    bodies: &[String],
    options: &Options,
    progress: &mut impl Progress,
) {
    let chunk = batch.chunk.replace(Chunk::default()).unwrap_or_default();
    batch.created = 0;
    let committed = chunk.writes.is_empty()
        || match postings::commit_logging(chunk.conditions, chunk.writes, chunk.logged) {
            Ok(true) => true,
            Ok(false) => {
                let message =
                    format!("a chunk of {} upserts found the store changed; its rows run again alone", rows.len());
                runtime::log(runtime::Level::Debug, &message);
                false
            }
            Err(e) => {
                runtime::log(
                    runtime::Level::Warn,
                    &format!("a chunk of upserts failed ({e}); its rows run again alone"),
                );
                false
            }
        };
    for (i, outcome) in rows {
        if committed {
            progress.settled(outcome);
        } else if let Some(body) = bodies.get(i) {
            progress.begin(i);
            progress.settled(upsert::upsert(body.as_bytes(), options, &mut Batch::compact()));
        }
    }
}
