//! Team notifications: one per address a form's `notify` lists, for each
//! accepted submission, written in the submission's commit.
//! `GET /notifications[?read=]`, newest first; `PUT /notifications/{id}`
//! `{read}`.
//!
//! Store keys: `n/<id>` the notification; `nu/<id>` and `nr/<id>` (empty)
//! index the unread and the read ones, with their counters, so that a
//! team's unread list is a page of an index, not a scan of every
//! notification. The index and counters change in the record's own commit.

use crm_sdk::http::{Error, Paging, json_object, json_response, query_choice};
use crm_sdk::store::{self, Condition, Write};
use crm_sdk::types::{Request, Response};
use crm_sdk::{kv, runtime};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::form::Form;

const COUNT_KEY: &str = "meta/notifications";

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Notification {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub recipient: String,
    pub form_id: String,
    pub submission_id: String,
    pub contact_id: Option<String>,
    pub read: bool,
    pub created_at: String,
}

fn key(id: &str) -> String {
    format!("n/{id}")
}

/// The index of the notifications that are (`read`) or are not read yet.
fn index_prefix(read: bool) -> &'static str {
    if read { "nr/" } else { "nu/" }
}

fn index_count_key(read: bool) -> &'static str {
    if read { "meta/notifications/read" } else { "meta/notifications/unread" }
}

/// The writes of one notification per address of `form.notify`.
pub fn writes(form: &Form, submission_id: &str, contact_id: Option<&str>, now: &str) -> Result<Vec<Write>, Error> {
    let mut writes = Vec::new();
    for recipient in &form.notify {
        let n = Notification {
            id: runtime::new_id(),
            kind: "form_submission".into(),
            recipient: recipient.clone(),
            form_id: form.id.clone(),
            submission_id: submission_id.to_string(),
            contact_id: contact_id.map(str::to_string),
            read: false,
            created_at: now.to_string(),
        };
        writes.push(Write::Put((key(&n.id).into_bytes(), serde_json::to_vec(&n).map_err(Error::internal)?)));
        writes.push(Write::Put((format!("{}{}", index_prefix(false), n.id).into_bytes(), Vec::new())));
    }
    if !form.notify.is_empty() {
        let n = form.notify.len() as i64;
        writes.push(Write::Add((COUNT_KEY.as_bytes().to_vec(), n)));
        writes.push(Write::Add((index_count_key(false).as_bytes().to_vec(), n)));
    }
    Ok(writes)
}

/// `GET /notifications`: all of them, or with `read=false` (`true`) only the
/// unread (read) ones; newest first.
pub fn list(req: &Request) -> Result<Response, Error> {
    let Some(read) = query_choice(req, "read", &["true", "false"])? else {
        return kv::newest_first(req, "n/", COUNT_KEY);
    };
    let read = read == "true";
    let paging = Paging::from_query(req, 20, 100)?;
    let found: Vec<Notification> = kv::page_indexed(index_prefix(read), paging.offset(), paging.limit, key)?;
    Ok(paging.response(&found, kv::counter(index_count_key(read))? as usize))
}

/// `PUT /notifications/{id}` `{read: bool}`: a team member marks one read (or
/// unread again); `read` is the only field a client changes.
pub fn update(req: &Request, id: &str) -> Result<Response, Error> {
    let body = json_object(req)?;
    if let Some(other) = body.keys().find(|k| k.as_str() != "read") {
        return Err(Error::validation(
            format!("{other} is not a notification field a client changes (read)"),
            json!({ "field": other }),
        ));
    }
    let Some(read) = body.get("read").and_then(Value::as_bool) else {
        return Err(Error::validation("read must be true or false", json!({ "field": "read" })));
    };
    let not_found = || Error::new(404, "NOTIFICATION_NOT_FOUND", "The notification does not exist");
    if !crm_sdk::is_id(id) {
        return Err(not_found());
    }
    // Changed by another request between the read and the commit: read again.
    for _ in 0..5 {
        let stored = store::get(key(id).as_bytes())?.ok_or_else(not_found)?;
        let mut notification: Notification = kv::decode(&key(id), &stored)?;
        if notification.read == read {
            return Ok(json_response(200, &json!({ "success": true, "data": notification })));
        }
        notification.read = read;
        let writes = [
            Write::Put((key(id).into_bytes(), serde_json::to_vec(&notification).map_err(Error::internal)?)),
            Write::Delete(format!("{}{id}", index_prefix(!read)).into_bytes()),
            Write::Put((format!("{}{id}", index_prefix(read)).into_bytes(), Vec::new())),
            Write::Add((index_count_key(!read).as_bytes().to_vec(), -1)),
            Write::Add((index_count_key(read).as_bytes().to_vec(), 1)),
        ];
        if store::commit(&[Condition::Equals((key(id).into_bytes(), Some(stored)))], &writes)? {
            return Ok(json_response(200, &json!({ "success": true, "data": notification })));
        }
    }
    Err(Error::new(409, "NOTIFICATION_BUSY", "The notification kept changing under other requests; try again"))
}
