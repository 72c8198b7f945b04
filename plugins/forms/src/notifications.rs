//! Team notifications: one per address a form's `notify` lists, for each
//! accepted submission, written in the submission's commit; and those the
//! app or the host leaves for the whole team (`POST /admin/notifications`:
//! the host's delivery worker tells of a webhook endpoint it disabled).
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

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Notification {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: String,
    /// The address told; `None`: the whole team.
    pub recipient: Option<String>,
    pub form_id: Option<String>,
    pub submission_id: Option<String>,
    pub contact_id: Option<String>,
    /// What happened, for a notification that is not a submission's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The address it is about (a webhook endpoint).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
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
    let notifications = form.notify.iter().map(|recipient| Notification {
        id: runtime::new_id(),
        kind: "form_submission".into(),
        recipient: Some(recipient.clone()),
        form_id: Some(form.id.clone()),
        submission_id: Some(submission_id.to_string()),
        contact_id: contact_id.map(str::to_string),
        message: None,
        url: None,
        read: false,
        created_at: now.to_string(),
    });
    unread_writes(notifications)
}

/// The writes of new, unread notifications: each record, its index entry
/// and the counters.
fn unread_writes(notifications: impl Iterator<Item = Notification>) -> Result<Vec<Write>, Error> {
    let mut writes = Vec::new();
    let mut n = 0;
    for notification in notifications {
        let id = &notification.id;
        writes.push(Write::Put((key(id).into_bytes(), serde_json::to_vec(&notification).map_err(Error::internal)?)));
        writes.push(Write::Put((format!("{}{id}", index_prefix(false)).into_bytes(), Vec::new())));
        n += 1;
    }
    if n > 0 {
        writes.push(Write::Add((COUNT_KEY.as_bytes().to_vec(), n)));
        writes.push(Write::Add((index_count_key(false).as_bytes().to_vec(), n)));
    }
    Ok(writes)
}

/// `POST /admin/notifications` `{type, message, url?}`: a notification for
/// the whole team (the app's, or the host's when it disables a webhook
/// endpoint). 201 the notification.
pub fn create(req: &Request) -> Result<Response, Error> {
    let body = json_object(req)?;
    if let Some(other) = body.keys().find(|k| !["type", "message", "url"].contains(&k.as_str())) {
        return Err(Error::validation(
            format!("{other} is not a notification field (type, message, url)"),
            json!({ "field": other }),
        ));
    }
    let text = |field: &str, max: usize| match body.get(field) {
        Some(Value::String(s)) if !s.trim().is_empty() && s.chars().count() <= max => Ok(Some(s.trim().to_string())),
        None | Some(Value::Null) if field == "url" => Ok(None),
        _ => Err(Error::validation(
            format!("{field} must be a text of 1 to {max} characters"),
            json!({ "field": field }),
        )),
    };
    let kind = text("type", 64)?.unwrap_or_default();
    if !kind.bytes().all(|b| b.is_ascii_lowercase() || b == b'_') {
        return Err(Error::validation("type must be lowercase letters and _", json!({ "field": "type" })));
    }
    let notification = Notification {
        id: runtime::new_id(),
        kind,
        recipient: None,
        form_id: None,
        submission_id: None,
        contact_id: None,
        message: text("message", 1000)?,
        url: text("url", 2000)?,
        read: false,
        created_at: runtime::now(),
    };
    store::commit(&[], &unread_writes(std::iter::once(notification.clone()))?)?;
    Ok(json_response(201, &notification))
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
