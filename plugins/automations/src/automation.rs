//! An automation: a trigger and the HTTP calls it makes.
//!
//! Through the API an automation is only ever saved as a draft (the spec:
//! "Automations can only be read and saved as drafts"): a body asking for any
//! other `status` is 403 `AUTOMATION_DRAFT_ONLY` and nothing is written, and
//! saving an active automation makes it a draft again. The app activates and
//! pauses it (`POST /admin/orgs/{org}/automations/{id}/activate`, `/pause`).

use crm_first_party::delivery;
use crm_first_party::pipeline::DEAL_STAGES;
use crm_sdk::http::{Error, Paging, json_object, json_response};
use crm_sdk::store::{self, Condition, Write};
use crm_sdk::types::{Request, Response};
use crm_sdk::{events, kv, runtime};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::bindings::crm::plugin::webhooks;

const COUNT_KEY: &str = "meta/automations";
/// Most automations of one organization.
pub const MAX_AUTOMATIONS: u64 = 200;
const MAX_NAME: usize = 200;
const MAX_ACTIONS: usize = 10;
const MAX_HEADERS: usize = 20;
const MAX_HEADER_VALUE: usize = 1000;
/// Headers the host sets on every delivery: an action may not set them.
const RESERVED_HEADERS: &[&str] =
    &["content-type", "content-length", "host", "webhook-id", "webhook-timestamp", "webhook-signature"];
const TRIGGERS: &[&str] = &["deal.stage_changed", "contact.created", "form.submitted", "webhook.endpoint_disabled"];

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Automation {
    pub id: String,
    pub name: String,
    pub status: String,
    pub trigger: Trigger,
    pub actions: Vec<Action>,
    pub created_at: String,
    pub updated_at: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Trigger {
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to_stage: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub form_id: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Action {
    #[serde(rename = "type")]
    pub kind: String,
    pub url: String,
    pub headers: Map<String, Value>,
    /// At most this many deliveries a second to `url`.
    #[serde(rename = "maxPerSecond", default, skip_serializing_if = "Option::is_none")]
    pub max_per_second: Option<u32>,
    /// One resource's events delivered in the order they were committed.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ordered: bool,
}

fn key(id: &str) -> String {
    format!("a/{id}")
}

fn not_found() -> Error {
    Error::new(404, "AUTOMATION_NOT_FOUND", "The automation does not exist")
}

fn invalid(field: &str, why: &str) -> Error {
    Error::validation(format!("{field} {why}"), json!({ "field": field }))
}

fn load(id: &str) -> Result<Automation, Error> {
    match crm_sdk::is_id(id) {
        true => kv::get(&key(id))?.ok_or_else(not_found),
        false => Err(not_found()),
    }
}

pub fn get(id: &str) -> Result<Response, Error> {
    Ok(json_response(200, &json!({ "success": true, "data": load(id)? })))
}

/// `GET /automations`, newest first.
pub fn list(req: &Request) -> Result<Response, Error> {
    let paging = Paging::from_query(req, 20, 100)?;
    let items: Vec<Automation> = kv::page_reverse_records("a/", paging.offset(), paging.limit)?;
    Ok(paging.response(&items, kv::counter(COUNT_KEY)? as usize))
}

/// `POST /automations` (201) and `PUT /automations/{id}` (200): the whole
/// automation, saved as a draft.
pub fn save(req: &Request, id: Option<&str>) -> Result<Response, Error> {
    let body = json_object(req)?;
    match body.get("status") {
        None | Some(Value::Null) => {}
        Some(Value::String(s)) if s == "draft" => {}
        Some(_) => {
            return Err(Error::new(
                403,
                "AUTOMATION_DRAFT_ONLY",
                "Automations are saved as drafts through the API; the app activates them",
            ));
        }
    }
    let (name, trigger, actions) = parse(&body)?;
    let now = runtime::now();
    let (automation, conditions, count) = match id {
        None => {
            let automation = Automation {
                id: runtime::new_id(),
                name,
                status: "draft".into(),
                trigger,
                actions,
                created_at: now.clone(),
                updated_at: now,
            };
            (automation, vec![Condition::Below((COUNT_KEY.into(), MAX_AUTOMATIONS))], 1)
        }
        Some(id) => {
            let before = load(id)?;
            let automation = Automation { name, status: "draft".into(), trigger, actions, updated_at: now, ..before };
            (automation, Vec::new(), 0)
        }
    };
    let mut writes = vec![Write::Put((key(&automation.id).into_bytes(), to_bytes(&automation)?))];
    if count > 0 {
        writes.push(Write::Add((COUNT_KEY.into(), count)));
    }
    if id.is_some() {
        // A saved automation is a draft again: it stops running.
        events::unsubscribe(&automation.id).map_err(Error::internal)?;
    }
    if !store::commit(&conditions, &writes)? {
        return Err(Error::validation(
            format!("An organization has at most {MAX_AUTOMATIONS} automations"),
            json!({ "limit": "automations", "max": MAX_AUTOMATIONS }),
        ));
    }
    let status = if id.is_none() { 201 } else { 200 };
    Ok(json_response(status, &json!({ "success": true, "data": automation })))
}

/// The app's `activate` and `pause`: 200 the automation. Written on the
/// condition that the automation is still the one read, so a save landing
/// in between is never overwritten with the older content.
pub fn set_status(id: &str, status: &str) -> Result<Response, Error> {
    for _ in 0..3 {
        let stored = match crm_sdk::is_id(id) {
            true => store::get(key(id).as_bytes())?.ok_or_else(not_found)?,
            false => return Err(not_found()),
        };
        let mut automation: Automation = serde_json::from_slice(&stored).map_err(Error::internal)?;
        automation.status = status.into();
        automation.updated_at = runtime::now();
        let write = Write::Put((key(id).into_bytes(), to_bytes(&automation)?));
        match status {
            "active" => {
                let (subscription, options) = subscription(&automation);
                events::subscribe_with_options(&subscription, &options)
            }
            _ => events::unsubscribe(id),
        }
        .map_err(Error::internal)?;
        if store::commit(&[Condition::Equals((key(id).into_bytes(), Some(stored)))], &[write])? {
            return Ok(json_response(200, &automation));
        }
    }
    Err(Error::new(409, "AUTOMATION_BUSY", "The automation is being changed by another request; try again"))
}

/// What the host delivers for an active automation: its trigger's events,
/// filtered by `toStage` or `formId`, to each action's URL at its pace and
/// order.
fn subscription(automation: &Automation) -> (events::Subscription, Vec<events::DeliveryOptions>) {
    let trigger = &automation.trigger;
    let filter = [("toStage", &trigger.to_stage), ("formId", &trigger.form_id)]
        .into_iter()
        .filter_map(|(field, value)| Some((field.to_string(), value.clone()?)))
        .collect();
    let targets = automation
        .actions
        .iter()
        .map(|a| events::Target {
            url: a.url.clone(),
            headers: a.headers.iter().map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string())).collect(),
        })
        .collect();
    let options = automation
        .actions
        .iter()
        .map(|a| events::DeliveryOptions { max_per_second: a.max_per_second, ordered: a.ordered })
        .collect();
    (events::Subscription { id: automation.id.clone(), event_type: trigger.kind.clone(), filter, targets }, options)
}

fn to_bytes(automation: &Automation) -> Result<Vec<u8>, Error> {
    serde_json::to_vec(automation).map_err(Error::internal)
}

/// The name, trigger and actions of a body, every rule checked.
fn parse(body: &Map<String, Value>) -> Result<(String, Trigger, Vec<Action>), Error> {
    if let Some(other) = body.keys().find(|k| !["name", "status", "trigger", "actions"].contains(&k.as_str())) {
        return Err(invalid(other, "is not an automation field (name, status, trigger, actions)"));
    }
    let name = match body.get("name") {
        Some(Value::String(s)) if !s.trim().is_empty() && s.chars().count() <= MAX_NAME => s.trim().to_string(),
        _ => return Err(invalid("name", &format!("must be a text of 1 to {MAX_NAME} characters"))),
    };
    let trigger = trigger(body.get("trigger"))?;
    let actions = match body.get("actions") {
        Some(Value::Array(list)) if (1..=MAX_ACTIONS).contains(&list.len()) => {
            list.iter().enumerate().map(|(i, a)| action(i, a)).collect::<Result<Vec<_>, _>>()?
        }
        _ => return Err(invalid("actions", &format!("must be a list of 1 to {MAX_ACTIONS} actions"))),
    };
    Ok((name, trigger, actions))
}

fn trigger(value: Option<&Value>) -> Result<Trigger, Error> {
    let Some(Value::Object(t)) = value else {
        return Err(invalid("trigger", "must be an object with a type"));
    };
    let kind = match t.get("type") {
        Some(Value::String(s)) if TRIGGERS.contains(&s.as_str()) => s.clone(),
        _ => return Err(invalid("trigger.type", &format!("must be one of {}", TRIGGERS.join(", ")))),
    };
    let allowed: &[&str] = match kind.as_str() {
        "deal.stage_changed" => &["type", "toStage"],
        "form.submitted" => &["type", "formId"],
        _ => &["type"],
    };
    if let Some(other) = t.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(invalid(&format!("trigger.{other}"), &format!("does not apply to {kind}")));
    }
    let to_stage = match t.get("toStage") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if DEAL_STAGES.contains(&s.as_str()) => Some(s.clone()),
        Some(_) => return Err(invalid("trigger.toStage", &format!("must be one of {}", DEAL_STAGES.join(", ")))),
    };
    let form_id = match t.get("formId") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if crm_sdk::is_id(s) => Some(s.clone()),
        Some(_) => return Err(invalid("trigger.formId", "must be a form id")),
    };
    Ok(Trigger { kind, to_stage, form_id })
}

fn action(i: usize, value: &Value) -> Result<Action, Error> {
    let field = |name: &str| format!("actions[{i}].{name}");
    let Value::Object(a) = value else {
        return Err(invalid(&format!("actions[{i}]"), "must be an object"));
    };
    const FIELDS: [&str; 5] = ["type", "url", "headers", "maxPerSecond", "ordered"];
    if let Some(other) = a.keys().find(|k| !FIELDS.contains(&k.as_str())) {
        return Err(invalid(&field(other), "is not an action field (type, url, headers, maxPerSecond, ordered)"));
    }
    if a.get("type") != Some(&json!("http_request")) {
        return Err(invalid(&field("type"), "must be http_request"));
    }
    let Some(Value::String(url)) = a.get("url") else {
        return Err(invalid(&field("url"), "must be a URL"));
    };
    if let Err(reason) = webhooks::check_url(url) {
        return Err(Error::new(400, "WEBHOOK_URL_NOT_ALLOWED", format!("{} is not allowed: {reason}", field("url")))
            .with("details", json!({ "field": field("url"), "reason": reason })));
    }
    let headers = match a.get("headers") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(h)) if h.len() <= MAX_HEADERS => h.clone(),
        Some(_) => {
            return Err(invalid(&field("headers"), &format!("must be an object of at most {MAX_HEADERS} headers")));
        }
    };
    for (name, value) in &headers {
        let token = !name.is_empty()
            && name.len() <= 64
            && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b));
        if !token || RESERVED_HEADERS.contains(&name.to_ascii_lowercase().as_str()) {
            return Err(invalid(&field("headers"), &format!("{name:?} is not a header an action may set")));
        }
        match value {
            Value::String(v) if v.len() <= MAX_HEADER_VALUE && !v.chars().any(char::is_control) => {}
            _ => {
                return Err(invalid(
                    &field("headers"),
                    &format!("{name} must be a text of at most {MAX_HEADER_VALUE} bytes without control characters"),
                ));
            }
        }
    }
    let options = delivery::parse(a, "maxPerSecond", "ordered").map_err(|(key, why)| invalid(&field(&key), &why))?;
    Ok(Action {
        kind: "http_request".into(),
        url: url.clone(),
        headers,
        max_per_second: options.max_per_second,
        ordered: options.ordered,
    })
}
