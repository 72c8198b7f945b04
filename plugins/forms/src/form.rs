//! Forms: what the app creates (`/admin/orgs/{org}/forms`), what the API
//! reads (`GET /forms`, `GET /forms/{id}`), and the public key that lets a
//! web page submit without a token. A new form's id is published in the
//! host's directory, so its public door finds this organization.

use crm_sdk::http::{self, Error, json_response};
use crm_sdk::store::{self, Write};
use crm_sdk::types::{Request, Response};
use crm_sdk::{kv, runtime};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::bindings::crm::plugin::directory;

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Form {
    pub id: String,
    pub name: String,
    pub public_key: String,
    pub create_deal: bool,
    /// Addresses told of each submission.
    pub notify: Vec<String>,
    /// Origins (`https://shop.example`) a browser may post from; empty is any.
    pub allowed_origins: Vec<String>,
    /// Where an HTML form's post is sent after a submission (303).
    pub redirect_url: Option<String>,
    pub created_at: String,
    pub updated_at: String,
}

const MAX_NAME: usize = 200;
const MAX_NOTIFY: usize = 20;
const MAX_ORIGINS: usize = 50;
const MAX_URL: usize = 2000;
const COUNT_KEY: &str = "meta/forms";

pub fn key(id: &str) -> String {
    format!("f/{id}")
}

pub fn not_found() -> Error {
    Error::new(404, "FORM_NOT_FOUND", "The form does not exist")
}

/// The form with this id, or 404 `FORM_NOT_FOUND`.
pub fn load(id: &str) -> Result<Form, Error> {
    let found = if crm_sdk::is_id(id) { kv::get::<Form>(&key(id))? } else { None };
    found.ok_or_else(not_found)
}

/// A new public key: `pk_` and 32 hex characters from the host's secure random source.
fn new_public_key() -> Result<String, Error> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| Error::internal(format!("random: {e}")))?;
    Ok(format!("pk_{}", hex::encode(bytes)))
}

/// `POST /admin/forms`.
pub fn create(req: &Request) -> Result<Response, Error> {
    let body = http::json_object(req)?;
    let now = runtime::now();
    let mut form = Form {
        id: runtime::new_id(),
        name: String::new(),
        public_key: new_public_key()?,
        create_deal: false,
        notify: Vec::new(),
        allowed_origins: Vec::new(),
        redirect_url: None,
        created_at: now.clone(),
        updated_at: now,
    };
    apply(&mut form, &body, true)?;
    if !directory::publish(&form.id).map_err(Error::internal)? {
        return Err(Error::internal("a new form id is already published"));
    }
    let saved = store::commit(
        &[],
        &[Write::Put((key(&form.id).into_bytes(), to_bytes(&form)?)), Write::Add((COUNT_KEY.as_bytes().to_vec(), 1))],
    )?;
    if !saved {
        return Err(Error::internal("an unconditional commit was refused"));
    }
    Ok(json_response(201, &form))
}

/// `GET /admin/forms/{id}`.
pub fn admin_get(id: &str) -> Result<Response, Error> {
    Ok(json_response(200, &load(id)?))
}

/// `PATCH /admin/forms/{id}`: the fields sent change, the others stay.
pub fn update(req: &Request, id: &str) -> Result<Response, Error> {
    let body = http::json_object(req)?;
    let mut form = load(id)?;
    apply(&mut form, &body, false)?;
    form.updated_at = runtime::now();
    kv::put(&key(id), &form)?;
    Ok(json_response(200, &form))
}

/// `POST /admin/forms/{id}/rotate-key`: the old key stops working at once
/// (every submission reads the form).
pub fn rotate_key(id: &str) -> Result<Response, Error> {
    let mut form = load(id)?;
    form.public_key = new_public_key()?;
    form.updated_at = runtime::now();
    kv::put(&key(id), &form)?;
    Ok(json_response(200, &json!({ "publicKey": form.public_key })))
}

/// `GET /forms`, newest first.
pub fn list(req: &Request) -> Result<Response, Error> {
    kv::newest_first(req, "f/", COUNT_KEY)
}

/// `GET /forms/{id}`.
pub fn get(id: &str) -> Result<Response, Error> {
    Ok(json_response(200, &json!({ "success": true, "data": load(id)? })))
}

fn to_bytes(form: &Form) -> Result<Vec<u8>, Error> {
    serde_json::to_vec(form).map_err(Error::internal)
}

fn invalid(field: &str, why: &str) -> Error {
    Error::validation(format!("{field} {why}"), json!({ "field": field }))
}

/// Copies the body's fields onto `form`, checking each; `name` is required on create.
fn apply(form: &mut Form, body: &Map<String, Value>, creating: bool) -> Result<(), Error> {
    if let Some(unknown) =
        body.keys().find(|k| !["name", "createDeal", "notify", "allowedOrigins", "redirectUrl"].contains(&k.as_str()))
    {
        return Err(invalid(unknown, "is not a field of a form"));
    }
    match body.get("name") {
        Some(Value::String(name)) if !name.trim().is_empty() && name.chars().count() <= MAX_NAME => {
            form.name = name.trim().to_string();
        }
        None if !creating => {}
        _ => return Err(invalid("name", &format!("is required: a text of 1 to {MAX_NAME} characters"))),
    }
    match body.get("createDeal") {
        Some(Value::Bool(b)) => form.create_deal = *b,
        None | Some(Value::Null) => {}
        Some(_) => return Err(invalid("createDeal", "must be true or false")),
    }
    if let Some(value) = body.get("notify") {
        form.notify = texts(value, "notify", MAX_NOTIFY)?;
        if let Some(bad) = form.notify.iter().find(|e| !is_email(e)) {
            return Err(invalid("notify", &format!("has {bad:?}, which is not an email address")));
        }
    }
    if let Some(value) = body.get("allowedOrigins") {
        form.allowed_origins = texts(value, "allowedOrigins", MAX_ORIGINS)?
            .iter()
            .map(|o| {
                normalize_origin(o).ok_or_else(|| {
                    invalid("allowedOrigins", &format!("has {o:?}, which is not an origin like https://shop.example"))
                })
            })
            .collect::<Result<_, _>>()?;
    }
    match body.get("redirectUrl") {
        None => {}
        Some(Value::Null) => form.redirect_url = None,
        Some(Value::String(url)) if url.trim().is_empty() => form.redirect_url = None,
        Some(Value::String(url)) if is_http_url(url.trim()) => form.redirect_url = Some(url.trim().to_string()),
        Some(_) => {
            return Err(invalid("redirectUrl", &format!("must be an http(s) URL of at most {MAX_URL} characters")));
        }
    }
    Ok(())
}

/// A list of texts, trimmed, at most `max`.
fn texts(value: &Value, field: &str, max: usize) -> Result<Vec<String>, Error> {
    match value {
        Value::Null => Ok(Vec::new()),
        Value::Array(items) if items.len() <= max => items
            .iter()
            .map(|i| i.as_str().map(|s| s.trim().to_string()).ok_or_else(|| invalid(field, "must hold only texts")))
            .collect(),
        _ => Err(invalid(field, &format!("must be a list of at most {max} texts"))),
    }
}

fn is_email(text: &str) -> bool {
    let mut parts = text.splitn(2, '@');
    let (local, domain) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    !local.is_empty()
        && domain.contains('.')
        && text.len() <= 254
        && !text.chars().any(|c| c.is_whitespace() || c.is_control())
}

fn is_http_url(text: &str) -> bool {
    let rest = text.strip_prefix("https://").or_else(|| text.strip_prefix("http://"));
    text.len() <= MAX_URL
        && rest.is_some_and(|r| !r.is_empty() && !r.starts_with('/'))
        && !text.chars().any(|c| c.is_whitespace() || c.is_control())
}

/// `scheme://host[:port]`, lower case, without a path: how origins are kept
/// and compared. `None` when `text` is not one.
pub fn normalize_origin(text: &str) -> Option<String> {
    let text = text.trim().trim_end_matches('/').to_ascii_lowercase();
    let rest = text.strip_prefix("https://").or_else(|| text.strip_prefix("http://"))?;
    let valid = !rest.is_empty()
        && rest.len() <= 253
        && rest.bytes().all(|b| b.is_ascii_alphanumeric() || b".-:[]".contains(&b));
    valid.then_some(text)
}
