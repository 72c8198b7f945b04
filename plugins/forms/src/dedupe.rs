//! The double click: the same body posted twice to the same form, through
//! the same door, within [`WINDOW_MS`] is answered exactly like the first
//! (same status, same `submissionId`) and records nothing new.
//!
//! The answer of a submission that recorded something is kept at
//! `dd/<formId>/<sha256 of the door and body>`, written by the submission's
//! own commit on the condition that the key still holds what was read before
//! the submission began. Of twins posted at once, one commits; the others'
//! commits fail whole (their contact writes too), and they answer with the
//! winner's answer. An answer that recorded nothing (a 400) is not kept: a
//! corrected retry is new.
//!
//! Answers are needed for [`WINDOW_MS`] only, so they are swept, not kept
//! forever. The same commit queues the answer by age, at
//! `ddq/<formId>/<millis>/<hash>` (no value), and one body in
//! [`SWEEP_ONE_IN`] also deletes, in a commit of its own after its answer's,
//! up to [`SWEEP_SCAN`] of the oldest answers once they are expired, with
//! their queue entries. So a sweep reads little more than what it deletes
//! (one entry when nothing has expired), and sweeps delete up to twice what
//! arrives between them: the expired answers do not pile up. A form that goes
//! quiet keeps its last ones until it is posted to again; a sweep that fails
//! (a concurrent one deleted the same answers first) only leaves its work to
//! the next one.

use crm_sdk::http::Error;
use crm_sdk::runtime;
use crm_sdk::store::{self, Condition, Write};
use crm_sdk::types::Response;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

pub const WINDOW_MS: u64 = 30_000;
/// How old an answer is when a sweep deletes it: the window and as much
/// again, so a host whose clock runs ahead does not take a twin's answer
/// from one whose clock is behind.
const SWEEP_AFTER_MS: u64 = 2 * WINDOW_MS;
/// One body in this many also sweeps, chosen by its hash.
const SWEEP_ONE_IN: u8 = 16;
/// The most answers one sweep deletes: twice [`SWEEP_ONE_IN`], so sweeps
/// keep up with a steady flow and catch up after a burst.
const SWEEP_SCAN: u32 = 2 * SWEEP_ONE_IN as u32;
/// Digits of the milliseconds in a queue key, so that keys sort by age.
const MILLIS_DIGITS: usize = 13;

#[derive(Serialize, Deserialize)]
struct Entry {
    at: u64,
    answer: Answer,
}

#[derive(Serialize, Deserialize)]
struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

/// A body's slot: its key and what the key held when last read.
pub struct Slot {
    form_id: String,
    /// The body's hash, in hex.
    hash: String,
    key: Vec<u8>,
    seen: Option<Vec<u8>>,
    sweeps: bool,
}

pub enum Seen {
    First(Slot),
    Twin(Response),
}

/// The answer of the body's twin, or its slot for a first submission.
pub fn look(form_id: &str, door: &str, sent: &Map<String, Value>) -> Result<Seen, Error> {
    let mut hash = Sha256::new();
    hash.update(door.as_bytes());
    hash.update([0]);
    hash.update(serde_json::to_vec(sent).map_err(Error::internal)?);
    let hash = hash.finalize();
    let sweeps = hash[31] % SWEEP_ONE_IN == 0;
    let hash = hex::encode(hash);
    let key = answer_key(form_id, &hash).into_bytes();
    let mut slot = Slot { form_id: form_id.to_string(), hash, key, seen: None, sweeps };
    Ok(match slot.twin()? {
        Some(answer) => Seen::Twin(answer),
        None => Seen::First(slot),
    })
}

impl Slot {
    /// Reads the slot again: the answer a twin committed within the window,
    /// if any (after a commit of ours that failed, it may be why).
    pub fn twin(&mut self) -> Result<Option<Response>, Error> {
        self.seen = store::get(&self.key)?;
        let entry = self.seen.as_deref().and_then(|v| serde_json::from_slice::<Entry>(v).ok());
        Ok(entry.filter(|e| runtime::now_millis().saturating_sub(e.at) <= WINDOW_MS).map(|e| e.answer.response()))
    }

    /// The condition and the writes that keep `response` as the answer to
    /// twins, and queue it for its sweep, for the submission's commit.
    pub fn finish(&self, response: &Response) -> Result<(Condition, [Write; 2]), Error> {
        let answer = Answer {
            status: response.status,
            headers: response.headers.clone(),
            body: String::from_utf8_lossy(&response.body).into_owned(),
        };
        let at = runtime::now_millis();
        let entry = serde_json::to_vec(&Entry { at, answer }).map_err(Error::internal)?;
        let queued = format!("{}{at:0MILLIS_DIGITS$}/{}", queue_prefix(&self.form_id), self.hash);
        Ok((
            Condition::Equals((self.key.clone(), self.seen.clone())),
            [Write::Put((self.key.clone(), entry)), Write::Put((queued.into_bytes(), Vec::new()))],
        ))
    }

    /// For one body in [`SWEEP_ONE_IN`], after its answer was committed:
    /// deletes up to [`SWEEP_SCAN`] of the oldest answers that expired, each
    /// only if it still holds what was read (a body posted again since
    /// has a new answer, which stays), with their queue entries.
    pub fn sweep(&self) -> Result<(), Error> {
        if !self.sweeps {
            return Ok(());
        }
        let prefix = queue_prefix(&self.form_id);
        let expired_before = runtime::now_millis().saturating_sub(SWEEP_AFTER_MS);
        // An entry that does not parse goes too, or it would hold the head for ever.
        let expired = |queued: &[u8]| queued_at(&queued[prefix.len()..]).is_none_or(|at| at < expired_before);
        // The oldest first: when it has not expired, nothing has.
        if !store::scan(prefix.as_bytes(), None, 1)?.first().is_some_and(|(queued, _)| expired(queued)) {
            return Ok(());
        }
        let queued: Vec<Vec<u8>> = store::scan(prefix.as_bytes(), None, SWEEP_SCAN)?
            .into_iter()
            .map(|(queued, _)| queued)
            .take_while(|queued| expired(queued))
            .collect();
        if queued.is_empty() {
            return Ok(());
        }
        let answers: Vec<Vec<u8>> =
            queued.iter().map(|q| answer_key(&self.form_id, queued_hash(&q[prefix.len()..])).into_bytes()).collect();
        let (mut unchanged, mut deletes) = (Vec::new(), Vec::new());
        let values = store::get_many(&answers)?;
        for (answer, value) in answers.into_iter().zip(values) {
            let Some(value) = value else { continue };
            if serde_json::from_slice::<Entry>(&value).map_or(0, |e| e.at) < expired_before {
                unchanged.push(Condition::Equals((answer.clone(), Some(value))));
                deletes.push(Write::Delete(answer));
            }
        }
        deletes.extend(queued.into_iter().map(Write::Delete));
        store::commit(&unchanged, &deletes)?;
        Ok(())
    }
}

/// Where the answer to a body with this hash is kept.
fn answer_key(form_id: &str, hash: &str) -> String {
    format!("dd/{form_id}/{hash}")
}

/// Where a form's answers are queued by age: `<millis>/<hash>` follows.
fn queue_prefix(form_id: &str) -> String {
    format!("ddq/{form_id}/")
}

/// The milliseconds of a queue entry (`<millis>/<hash>`).
fn queued_at(entry: &[u8]) -> Option<u64> {
    std::str::from_utf8(entry.get(..MILLIS_DIGITS)?).ok()?.parse().ok()
}

/// The hash of a queue entry (`<millis>/<hash>`).
fn queued_hash(entry: &[u8]) -> &str {
    std::str::from_utf8(entry.get(MILLIS_DIGITS + 1..).unwrap_or_default()).unwrap_or_default()
}

impl Answer {
    fn response(&self) -> Response {
        Response { status: self.status, headers: self.headers.clone(), body: self.body.clone().into_bytes() }
    }
}
