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
//! there first) nothing of the chunk is written, and its rows run again: its
//! updates one commit each, as they would have alone, and its creates in a
//! chunk again; when that one is refused too, each row alone. Each row is
//! atomic; so is each chunk.
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
    if options.dry_run {
        let mut batch = Batch::compact();
        for (i, body) in bodies.iter().enumerate() {
            progress.begin(i);
            progress.settled(upsert::upsert(body.as_bytes(), options, &mut batch));
        }
        return;
    }
    let every: Vec<usize> = (0..bodies.len()).collect();
    Run { bodies, options, progress }.pass(&every, &|_| false, Refused::SecondPass);
}

/// What a pass does with a chunk whose commit was refused.
#[derive(Clone, Copy)]
enum Refused {
    /// Its rows run again in a pass of their own: its updates alone, its
    /// creates in a chunk again. A contact updated meanwhile is what refuses
    /// a chunk (a client's sync beside the import): the row that updates it
    /// commits alone, and the rest still share one commit, not one a row.
    SecondPass,
    /// Each of its rows runs again alone.
    EachAlone,
}

/// One `upsert-many` under way.
struct Run<'a, P> {
    bodies: &'a [String],
    options: &'a Options,
    progress: &'a mut P,
}

impl<P: Progress> Run<'_, P> {
    /// Upserts the bodies at `indices`, in order, a chunk at a time; those
    /// `alone` names (and those that link a conversation) commit alone.
    fn pass(&mut self, indices: &[usize], alone: &dyn Fn(usize) -> bool, refused: Refused) {
        let mut batch = Batch::compact();
        batch.chunk = Some(Chunk::default());
        // The chunk's rows (their index in `bodies`) and what each answers once it commits.
        let mut rows: Vec<(usize, Outcome)> = Vec::new();
        for &i in indices {
            let Some(body) = self.bodies.get(i) else { continue };
            self.progress.begin(i);
            let input = upsert::read(body.as_bytes());
            // A conversation's claim is not part of a commit: alone.
            let by_itself = alone(i) || input.as_ref().is_ok_and(|input| input.linked_conversation_id.is_some());
            if by_itself || input.as_ref().is_ok_and(|input| batch.clashes(input)) || batch.is_full(rows.len()) {
                self.commit(&mut batch, std::mem::take(&mut rows), refused);
            }
            if by_itself {
                self.progress.settled(upsert::upsert_input(input, self.options, &mut Batch::compact()));
                continue;
            }
            let keys: Vec<String> = input.as_ref().map(|input| batch::input_keys(input).collect()).unwrap_or_default();
            rows.push((i, upsert::upsert_input(input, self.options, &mut batch)));
            if let Some(chunk) = &mut batch.chunk {
                chunk.keys.extend(keys);
            }
        }
        self.commit(&mut batch, rows, refused);
    }

    /// Commits the chunk and settles the outcomes of its `rows`, in order.
    /// When its commit is refused, nothing of it was written, and its rows
    /// run again as `refused` says; when it fails, each alone.
    fn commit(&mut self, batch: &mut Batch, rows: Vec<(usize, Outcome)>, refused: Refused) {
        let chunk = batch.chunk.replace(Chunk::default()).unwrap_or_default();
        batch.created = 0;
        let committed = match chunk.writes.is_empty() {
            true => Ok(true),
            false => postings::commit_logging(chunk.conditions, chunk.writes, chunk.logged),
        };
        let again = match committed {
            Ok(true) => return rows.into_iter().for_each(|(_, outcome)| self.progress.settled(outcome)),
            Ok(false) => {
                let how = match refused {
                    Refused::SecondPass => "its updates run again alone, its creates in a chunk",
                    Refused::EachAlone => "its rows run again alone",
                };
                let message = format!("a chunk of {} upserts found the store changed; {how}", rows.len());
                runtime::log(runtime::Level::Debug, &message);
                refused
            }
            Err(e) => {
                let message = format!("a chunk of upserts failed ({e}); its rows run again alone");
                runtime::log(runtime::Level::Warn, &message);
                Refused::EachAlone
            }
        };
        let indices: Vec<usize> = rows.iter().map(|(i, _)| *i).collect();
        match again {
            Refused::SecondPass => {
                let updates: Vec<usize> = rows.iter().filter(|(_, o)| o.status == 200).map(|(i, _)| *i).collect();
                self.pass(&indices, &|i| updates.contains(&i), Refused::EachAlone);
            }
            Refused::EachAlone => self.pass(&indices, &|_| true, Refused::EachAlone),
        }
    }
}
