//! Submissions: every post that reached a form, kept with its fields and
//! first touch, whatever became of it: `accepted` (a contact was created or
//! updated), `rejected` (the plan's contact limit: no lead is lost), `spam`
//! (the honeypot was filled). `GET /forms/{id}/submissions`, newest first.

use crm_sdk::http::Error;
use crm_sdk::kv;
use crm_sdk::store::Write;
use crm_sdk::types::{Request, Response};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::form;

pub const ACCEPTED: &str = "accepted";
pub const REJECTED: &str = "rejected";
pub const SPAM: &str = "spam";

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Submission {
    pub id: String,
    pub form_id: String,
    pub status: String,
    /// The fields as sent.
    pub fields: Map<String, Value>,
    pub attribution: Value,
    pub contact_id: Option<String>,
    pub deal_id: Option<String>,
    /// Why a rejected submission made no contact (`{code, message}`).
    pub reason: Option<Value>,
    pub created_at: String,
}

fn count_key(form_id: &str) -> String {
    format!("meta/submissions/{form_id}")
}

/// The writes that record `submission`, for its commit.
pub fn writes(submission: &Submission) -> Result<Vec<Write>, Error> {
    let key = format!("s/{}/{}", submission.form_id, submission.id);
    Ok(vec![
        Write::Put((key.into_bytes(), serde_json::to_vec(submission).map_err(Error::internal)?)),
        Write::Add((count_key(&submission.form_id).into_bytes(), 1)),
    ])
}

pub fn list(req: &Request, form_id: &str) -> Result<Response, Error> {
    let form = form::load(form_id)?;
    kv::newest_first(req, &format!("s/{}/", form.id), &count_key(&form.id))
}
