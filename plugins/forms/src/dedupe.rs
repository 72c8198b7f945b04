//! The double click: the same body posted twice to the same form, through
//! the same door, within [`WINDOW_MS`] is answered exactly like the first
//! (same status, same `submissionId`) and records nothing new.
//!
//! The first request claims `dd/<formId>/<sha256 of the body>` with a
//! pending mark (compare-and-swap: one winner); its final answer replaces the
//! mark in the submission's own commit. A twin that arrives meanwhile waits
//! for that answer. A mark left by a crash is taken over after
//! [`STALE_MS`]; an answer that recorded nothing (a 400) is given back.

use crm_sdk::http::Error;
use crm_sdk::runtime;
use crm_sdk::store::{self, Write};
use crm_sdk::types::Response;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

pub const WINDOW_MS: u64 = 30_000;
/// A pending mark older than this was left by a call that died (calls end within 5 s).
const STALE_MS: u64 = 10_000;
/// How long a twin waits for the first answer.
const WAIT_MS: u64 = 5_000;

#[derive(Serialize, Deserialize)]
struct Entry {
    at: u64,
    /// `None` while the first request runs.
    answer: Option<Answer>,
}

#[derive(Serialize, Deserialize)]
struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

/// The claim of a first request.
pub struct Claim {
    key: Vec<u8>,
    mark: Vec<u8>,
}

pub enum Seen {
    First(Claim),
    Twin(Response),
}

/// Claims the body's slot, or hands back the answer of its twin.
pub fn begin(form_id: &str, door: &str, sent: &Map<String, Value>) -> Result<Seen, Error> {
    let mut hash = Sha256::new();
    hash.update(door.as_bytes());
    hash.update([0]);
    hash.update(serde_json::to_vec(sent).map_err(Error::internal)?);
    let hex: String = hash.finalize().iter().map(|b| format!("{b:02x}")).collect();
    let key = format!("dd/{form_id}/{hex}").into_bytes();
    let started = runtime::now_millis();
    loop {
        let now = runtime::now_millis();
        let mark = serde_json::to_vec(&Entry { at: now, answer: None }).map_err(Error::internal)?;
        let current = store::get(&key)?;
        let entry = current.as_deref().and_then(|v| serde_json::from_slice::<Entry>(v).ok());
        let take_over = match &entry {
            None => true,
            Some(e) if now.saturating_sub(e.at) > WINDOW_MS => true,
            Some(Entry { answer: Some(a), .. }) => return Ok(Seen::Twin(a.response())),
            Some(e) => now.saturating_sub(e.at) > STALE_MS,
        };
        if take_over {
            if store::compare_and_swap(&key, current.as_deref(), Some(&mark))? {
                return Ok(Seen::First(Claim { key, mark }));
            }
            continue;
        }
        if now.saturating_sub(started) > WAIT_MS {
            return Err(Error::new(409, "SUBMISSION_IN_PROGRESS", "The same submission is being processed"));
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

impl Answer {
    fn response(&self) -> Response {
        Response { status: self.status, headers: self.headers.clone(), body: self.body.clone().into_bytes() }
    }
}

impl Claim {
    /// The write that keeps `response` as the answer to twins, for the
    /// submission's commit.
    pub fn finish(&self, response: &Response) -> Result<Write, Error> {
        let answer = Answer {
            status: response.status,
            headers: response.headers.clone(),
            body: String::from_utf8_lossy(&response.body).into_owned(),
        };
        let entry = Entry { at: runtime::now_millis(), answer: Some(answer) };
        Ok(Write::Put((self.key.clone(), serde_json::to_vec(&entry).map_err(Error::internal)?)))
    }

    /// Gives the slot back: nothing was recorded, a corrected retry is new.
    pub fn abandon(self) -> Result<(), Error> {
        store::compare_and_swap(&self.key, Some(&self.mark), None)?;
        Ok(())
    }
}
