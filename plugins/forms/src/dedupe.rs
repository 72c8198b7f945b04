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
//! forever: one body in [`SWEEP_ONE_IN`] also deletes, in a commit of its
//! own after its answer's, the expired answers among the [`SWEEP_SCAN`]
//! entries that follow its own key. Under a steady flow the old answers
//! settle at about a third as many as the last minute's; a form that goes
//! quiet keeps its last ones until it is posted to again; a sweep that fails
//! only leaves its garbage to the next one.

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
/// One body in this many also sweeps, chosen by its hash's last byte: the
/// key is the hash in hex, so a choice by the first byte would start every
/// sweep in one sixteenth of the keys and never reach most of the others.
const SWEEP_ONE_IN: u8 = 16;
/// Entries one sweep reads.
const SWEEP_SCAN: u32 = 64;

#[derive(Serialize, Deserialize)]
struct Entry {
    at: u64,
    answer: Answer,
}

/// An entry's age, read without its answer.
#[derive(Deserialize)]
struct Stamp {
    at: u64,
}

#[derive(Serialize, Deserialize)]
struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

/// A body's slot: its key and what the key held when last read.
pub struct Slot {
    /// `dd/<formId>/`: where the form's answers are.
    prefix: String,
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
    let prefix = format!("dd/{form_id}/");
    let key = format!("{prefix}{}", hex::encode(hash)).into_bytes();
    let mut slot = Slot { prefix, key, seen: None, sweeps: hash[31] % SWEEP_ONE_IN == 0 };
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

    /// The condition and the write that keep `response` as the answer to
    /// twins, for the submission's commit.
    pub fn finish(&self, response: &Response) -> Result<(Condition, Write), Error> {
        let answer = Answer {
            status: response.status,
            headers: response.headers.clone(),
            body: String::from_utf8_lossy(&response.body).into_owned(),
        };
        let entry = serde_json::to_vec(&Entry { at: runtime::now_millis(), answer }).map_err(Error::internal)?;
        Ok((Condition::Equals((self.key.clone(), self.seen.clone())), Write::Put((self.key.clone(), entry))))
    }

    /// For one body in [`SWEEP_ONE_IN`], after its answer was committed:
    /// deletes the expired answers among the entries from this slot's key
    /// on, each only if it still holds what was read.
    pub fn sweep(&self) -> Result<(), Error> {
        if !self.sweeps {
            return Ok(());
        }
        let now = runtime::now_millis();
        let (mut unchanged, mut deletes) = (Vec::new(), Vec::new());
        for (key, value) in store::scan(self.prefix.as_bytes(), Some(&self.key), SWEEP_SCAN)? {
            let at = serde_json::from_slice::<Stamp>(&value).map_or(0, |s| s.at);
            if now.saturating_sub(at) > SWEEP_AFTER_MS {
                unchanged.push(Condition::Equals((key.clone(), Some(value))));
                deletes.push(Write::Delete(key));
            }
        }
        if !deletes.is_empty() {
            store::commit(&unchanged, &deletes)?;
        }
        Ok(())
    }
}

impl Answer {
    fn response(&self) -> Response {
        Response { status: self.status, headers: self.headers.clone(), body: self.body.clone().into_bytes() }
    }
}
