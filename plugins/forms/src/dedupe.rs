//! The double click: the same body posted twice to the same form, through
//! the same door, within [`WINDOW_MS`] is answered exactly like the first
//! (same status, same `submissionId`) and records nothing new.
//!
//! The first answer is kept at `dd/<formId>/<sha256 of the body>`, written
//! in the submission's own commit on the condition that no fresh answer is
//! there yet. A twin that comes later finds it and gives it back; of twins
//! that run at once, one commits, and the others, refused, find its answer
//! (the contact they upserted meanwhile got the same fields again). An
//! answer that recorded nothing (a 400) is never kept.

use crm_sdk::http::Error;
use crm_sdk::runtime;
use crm_sdk::store::{self, Condition, Write};
use crm_sdk::types::Response;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

pub const WINDOW_MS: u64 = 30_000;

#[derive(Serialize, Deserialize)]
struct Kept {
    at: u64,
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

/// Where a body's answer is kept, and what is there now (nothing, or an
/// answer older than the window).
pub struct Slot {
    key: Vec<u8>,
    current: Option<Vec<u8>>,
}

pub enum Seen {
    First(Slot),
    Twin(Response),
}

/// The answer of this body's twin, or the slot to keep this one's in.
pub fn begin(form_id: &str, door: &str, sent: &Map<String, Value>) -> Result<Seen, Error> {
    let mut hash = Sha256::new();
    hash.update(door.as_bytes());
    hash.update([0]);
    hash.update(serde_json::to_vec(sent).map_err(Error::internal)?);
    let hex: String = hash.finalize().iter().map(|b| format!("{b:02x}")).collect();
    let slot = Slot { key: format!("dd/{form_id}/{hex}").into_bytes(), current: None };
    match slot.fresh()? {
        Some(answer) => Ok(Seen::Twin(answer)),
        None => Ok(Seen::First(Slot { current: store::get(&slot.key)?, ..slot })),
    }
}

impl Slot {
    /// A kept answer younger than the window.
    fn fresh(&self) -> Result<Option<Response>, Error> {
        let kept = store::get(&self.key)?.and_then(|v| serde_json::from_slice::<Kept>(&v).ok());
        Ok(kept.filter(|k| runtime::now_millis().saturating_sub(k.at) <= WINDOW_MS).map(|k| Response {
            status: k.status,
            headers: k.headers,
            body: k.body.into_bytes(),
        }))
    }

    /// The condition and the write that keep `response` for twins, for the
    /// submission's commit.
    pub fn keep(&self, response: &Response) -> Result<(Condition, Write), Error> {
        let kept = Kept {
            at: runtime::now_millis(),
            status: response.status,
            headers: response.headers.clone(),
            body: String::from_utf8_lossy(&response.body).into_owned(),
        };
        Ok((
            Condition::Equals((self.key.clone(), self.current.clone())),
            Write::Put((self.key.clone(), serde_json::to_vec(&kept).map_err(Error::internal)?)),
        ))
    }

    /// After a refused commit: the answer a twin kept meanwhile, if that was why.
    pub fn twin(&self) -> Result<Option<Response>, Error> {
        self.fresh()
    }
}
