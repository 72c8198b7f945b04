//! Team notifications: one per address a form's `notify` lists, for each
//! accepted submission, written in the submission's commit.
//! `GET /notifications`, newest first; `PUT /notifications/{id}` `{read}`.

use crm_sdk::http::{Error, json_object, json_response};
use crm_sdk::store::Write;
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
        writes.push(Write::Put((format!("n/{}", n.id).into_bytes(), serde_json::to_vec(&n).map_err(Error::internal)?)));
    }
    if !form.notify.is_empty() {
        writes.push(Write::Add((COUNT_KEY.as_bytes().to_vec(), form.notify.len() as i64)));
    }
    Ok(writes)
}

pub fn list(req: &Request) -> Result<Response, Error> {
    kv::newest_first(req, "n/", COUNT_KEY)
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
    let key = format!("n/{id}");
    let found = match crm_sdk::is_id(id) {
        true => kv::get::<Notification>(&key)?,
        false => None,
    };
    let mut notification =
        found.ok_or_else(|| Error::new(404, "NOTIFICATION_NOT_FOUND", "The notification does not exist"))?;
    if notification.read != read {
        notification.read = read;
        kv::put(&key, &notification)?;
    }
    Ok(json_response(200, &json!({ "success": true, "data": notification })))
}
