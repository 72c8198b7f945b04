//! Submissions: every post that reached a form, kept with its fields and
//! first touch, whatever became of it: `accepted` (a contact was created or
//! updated), `rejected` (the plan's contact limit: no lead is lost), `spam`
//! (the honeypot was filled). `GET /forms/{id}/submissions[?status=]`,
//! newest first.
//!
//! The rare outcomes, `rejected` and `spam`, are also indexed with their own
//! counters, so the app finds the leads a full plan refused without reading
//! every submission; `accepted` is every submission but those. A new lead,
//! the common case, writes no index key.

use crm_sdk::http::{Error, Paging, query_choice};
use crm_sdk::kv;
use crm_sdk::store::Write;
use crm_sdk::types::{Request, Response};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::form;

pub const ACCEPTED: &str = "accepted";
pub const REJECTED: &str = "rejected";
pub const SPAM: &str = "spam";

/// A submission as it is stored and emitted (`form.submitted`); it borrows
/// the fields and the first touch, which stay the same through the rounds
/// of its commit.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Submission<'a> {
    pub id: String,
    pub form_id: &'a str,
    pub status: &'static str,
    /// The fields as sent.
    pub fields: &'a Map<String, Value>,
    pub attribution: &'a RawValue,
    pub contact_id: Option<String>,
    pub deal_id: Option<String>,
    /// Why a rejected submission made no contact (`{code, message}`).
    pub reason: Option<Value>,
    pub created_at: String,
}

fn count_key(form_id: &str) -> String {
    format!("meta/submissions/{form_id}")
}

/// The index of a form's submissions with a rare `status`, and its counter.
fn index_prefix(form_id: &str, status: &str) -> String {
    format!("sx/{form_id}/{status}/")
}

fn index_count_key(form_id: &str, status: &str) -> String {
    format!("meta/submissions/{form_id}/{status}")
}

fn key(form_id: &str, id: &str) -> String {
    format!("s/{form_id}/{id}")
}

/// The writes that record `submission`, for its commit.
pub fn writes(submission: &Submission) -> Result<Vec<Write>, Error> {
    let (form_id, status) = (submission.form_id, submission.status);
    let mut writes = vec![
        Write::Put((
            key(form_id, &submission.id).into_bytes(),
            serde_json::to_vec(submission).map_err(Error::internal)?,
        )),
        Write::Add((count_key(form_id).into_bytes(), 1)),
    ];
    if status != ACCEPTED {
        writes
            .push(Write::Put((format!("{}{}", index_prefix(form_id, status), submission.id).into_bytes(), Vec::new())));
        writes.push(Write::Add((index_count_key(form_id, status).into_bytes(), 1)));
    }
    Ok(writes)
}

/// `GET /forms/{id}/submissions`: all of them, or with `status` only those
/// of one outcome; newest first.
pub fn list(req: &Request, form_id: &str) -> Result<Response, Error> {
    let form = form::load(form_id)?;
    let Some(status) = query_choice(req, "status", &[ACCEPTED, REJECTED, SPAM])? else {
        return kv::newest_first(req, &format!("s/{}/", form.id), &count_key(&form.id));
    };
    let paging = Paging::from_query(req, 20, 100)?;
    let (skip, take) = (paging.offset(), paging.limit);
    let rare = |s| kv::counter(&index_count_key(&form.id, s));
    if status == ACCEPTED {
        let total = kv::counter(&count_key(&form.id))?.saturating_sub(rare(REJECTED)? + rare(SPAM)?);
        let page = kv::page_reverse_where(&format!("s/{}/", form.id), skip, take, |v| !is_rare(v))?;
        let items: Vec<Value> = page.into_iter().map(|(k, v)| kv::decode(&k, &v)).collect::<Result<_, _>>()?;
        return Ok(paging.response(&items, total as usize));
    }
    let items: Vec<Value> = kv::page_indexed(&index_prefix(&form.id, status), skip, take, |id| key(&form.id, id))?;
    Ok(paging.response(&items, rare(status)? as usize))
}

/// Whether a stored submission is one of the indexed outcomes.
fn is_rare(stored: &[u8]) -> bool {
    #[derive(Deserialize)]
    struct Status<'a> {
        #[serde(borrow)]
        status: &'a str,
    }
    serde_json::from_slice::<Status>(stored).is_ok_and(|s| s.status != ACCEPTED)
}
