//! The double click: the same body posted twice to the same form, through
//! the same door, within [`WINDOW_MS`] is answered exactly like the first
//! (same status, same `submissionId`) and records nothing new.
//!
//! The answer of a submission that recorded something is kept at
//! `dd/<formId>/<period>/<sha256 of the door and body>`, where `<period>`
//! numbers the [`WINDOW_MS`]-long span of time its commit fell in. A body's
//! twin can only have committed in the period before, the same, or (a host
//! whose clock runs ahead) the one after, so [`look`] reads those three
//! keys. The submission's own commit writes the answer on the condition that
//! the three still hold what was read: of twins posted at once, one commits;
//! the others' commits fail whole (their contact writes too), and they answer
//! with the winner's answer. An answer that recorded nothing (a 400) is not
//! kept: a corrected retry is new.
//!
//! Answers are needed for [`WINDOW_MS`] only, so they are swept, not kept
//! forever. Keys sort by period, oldest first, and no commit writes into a
//! past period: one body in [`SWEEP_ONE_IN`], after its answer's commit,
//! deletes up to [`SWEEP_SCAN`] of the form's oldest answers whose period
//! ended [`SWEEP_AFTER_MS`] ago, by their keys alone. So each answer costs
//! one write and one delete, a sweep reads one key when nothing has expired,
//! sweeps delete up to twice what arrives between them, and two sweeps at
//! once both succeed. A form that goes quiet keeps its last answers until it
//! is posted to again.

use crm_sdk::http::Error;
use crm_sdk::runtime;
use crm_sdk::store::{self, Condition, Write};
use crm_sdk::types::Response;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

pub const WINDOW_MS: u64 = 30_000;
/// How long after its period ends an answer is swept: the window and as
/// much again, so a host whose clock runs ahead does not take a twin's
/// answer from one whose clock is behind.
const SWEEP_AFTER_MS: u64 = 2 * WINDOW_MS;
/// One body in this many also sweeps, chosen by its hash.
const SWEEP_ONE_IN: u8 = 16;
/// The most answers one sweep deletes: twice [`SWEEP_ONE_IN`], so sweeps
/// keep up with a steady flow and catch up after a burst.
const SWEEP_SCAN: u32 = 2 * SWEEP_ONE_IN as u32;
/// Digits of a period in a key, so that keys sort by age.
const PERIOD_DIGITS: usize = 10;

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

/// A body's slot: where its twin's answer may be, and what those keys held
/// when last read.
pub struct Slot {
    form_id: String,
    /// The body's hash, in hex.
    hash: String,
    /// The period of the last read: its keys are those of the period
    /// before, this one and the one after.
    period: u64,
    keys: Vec<Vec<u8>>,
    seen: Vec<Option<Vec<u8>>>,
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
    serde_json::to_writer(&mut hash, sent).map_err(Error::internal)?;
    let hash: [u8; 32] = hash.finalize().into();
    let sweeps = hash[31].is_multiple_of(SWEEP_ONE_IN);
    let hash = hex::encode(hash);
    let mut slot = Slot { form_id: form_id.to_string(), hash, period: 0, keys: Vec::new(), seen: Vec::new(), sweeps };
    Ok(match slot.twin()? {
        Some(answer) => Seen::Twin(answer),
        None => Seen::First(slot),
    })
}

impl Slot {
    /// Reads the slot again: the answer a twin committed within the window,
    /// if any (after a commit of ours that failed, it may be why).
    pub fn twin(&mut self) -> Result<Option<Response>, Error> {
        let now = runtime::now_millis();
        self.period = period(now);
        self.keys = (self.period.saturating_sub(1)..=self.period + 1)
            .map(|p| answer_key(&self.form_id, p, &self.hash).into_bytes())
            .collect();
        self.seen = store::get_many(&self.keys)?;
        let newest = self
            .seen
            .iter()
            .flatten()
            .filter_map(|v| serde_json::from_slice::<Entry>(v).ok())
            .filter(|e| now.saturating_sub(e.at) <= WINDOW_MS)
            .max_by_key(|e| e.at);
        Ok(newest.map(|e| e.answer.response()))
    }

    /// The conditions and the write that keep `response` as the answer to
    /// twins, for the submission's commit. The answer goes under the period
    /// of now, which is the read's or the next: a round lasts far less than
    /// a period (the call's deadline is seconds), so the conditions cover it.
    pub fn finish(&self, response: &Response) -> Result<(Vec<Condition>, Write), Error> {
        let answer = Answer {
            status: response.status,
            headers: response.headers.clone(),
            body: String::from_utf8_lossy(&response.body).into_owned(),
        };
        let at = runtime::now_millis();
        let entry = serde_json::to_vec(&Entry { at, answer }).map_err(Error::internal)?;
        let key = answer_key(&self.form_id, period(at).clamp(self.period, self.period + 1), &self.hash);
        let unchanged =
            self.keys.iter().zip(&self.seen).map(|(k, seen)| Condition::Equals((k.clone(), seen.clone()))).collect();
        Ok((unchanged, Write::Put((key.into_bytes(), entry))))
    }

    /// For one body in [`SWEEP_ONE_IN`], after its answer was committed:
    /// deletes up to [`SWEEP_SCAN`] of the oldest answers whose period ended
    /// [`SWEEP_AFTER_MS`] ago. No commit writes into a past period, so the
    /// deletes need no condition.
    pub fn sweep(&self) -> Result<(), Error> {
        if !self.sweeps {
            return Ok(());
        }
        let prefix = answers_prefix(&self.form_id);
        // Periods before this one ended at least SWEEP_AFTER_MS ago.
        let expired_before = period(runtime::now_millis().saturating_sub(SWEEP_AFTER_MS));
        // A key whose period does not parse goes too, or it would hold the head for ever.
        let expired = |key: &[u8]| {
            key_period(key.strip_prefix(prefix.as_bytes()).unwrap_or(key)).is_none_or(|p| p < expired_before)
        };
        // The oldest first: when it has not expired, nothing has.
        if !store::scan(prefix.as_bytes(), None, 1)?.first().is_some_and(|(key, _)| expired(key)) {
            return Ok(());
        }
        let deletes: Vec<Write> = store::scan(prefix.as_bytes(), None, SWEEP_SCAN)?
            .into_iter()
            .map(|(key, _)| key)
            .take_while(|key| expired(key))
            .map(Write::Delete)
            .collect();
        // A concurrent sweep may have taken them all since the first look.
        if deletes.is_empty() {
            return Ok(());
        }
        store::commit(&[], &deletes)?;
        Ok(())
    }
}

/// The number of the [`WINDOW_MS`]-long period `millis` falls in.
fn period(millis: u64) -> u64 {
    millis / WINDOW_MS
}

/// Where a form's answers are kept: `<period>/<hash>` follows.
fn answers_prefix(form_id: &str) -> String {
    format!("dd/{form_id}/")
}

/// Where the answer to a body with this hash, committed in `period`, is kept.
fn answer_key(form_id: &str, period: u64, hash: &str) -> String {
    format!("{}{period:0PERIOD_DIGITS$}/{hash}", answers_prefix(form_id))
}

/// The period of an answer's key, after its form's prefix (`<period>/<hash>`).
fn key_period(rest: &[u8]) -> Option<u64> {
    let digits = rest.get(..PERIOD_DIGITS).filter(|_| rest.get(PERIOD_DIGITS) == Some(&b'/'))?;
    std::str::from_utf8(digits).ok()?.parse().ok()
}

impl Answer {
    fn response(&self) -> Response {
        Response { status: self.status, headers: self.headers.clone(), body: self.body.clone().into_bytes() }
    }
}

/// Property tests on hostile text ([`crm_hostile_text`]): a key's period
/// reads back from any form id, and any key bytes are read without a panic.
#[cfg(test)]
mod properties {
    use super::*;
    use crm_hostile_text::{config, text};
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(config())]

        #[test]
        fn a_period_reads_back_from_its_key(form_id in text(30), millis in 0..10u64.pow(PERIOD_DIGITS as u32) * WINDOW_MS, hash in "[0-9a-f]{64}") {
            let period = period(millis);
            let key = answer_key(&form_id, period, &hash);
            let rest = key.strip_prefix(&answers_prefix(&form_id)).unwrap_or_default();
            prop_assert_eq!(key_period(rest.as_bytes()), Some(period));
        }

        #[test]
        fn any_key_bytes_read_without_a_panic(rest in proptest::collection::vec(any::<u8>(), 0..40), digits in "[0-9٣]{0,12}/") {
            let _ = key_period(&rest);
            let _ = key_period(digits.as_bytes());
        }
    }
}
