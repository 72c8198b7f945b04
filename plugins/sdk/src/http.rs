//! Requests and responses as components see them, and the error envelope.

use serde::Serialize;
use serde::de::{Deserialize, DeserializeOwned};
use serde_json::{Map, Value, json};

use crate::types::{Request, Response};

/// The first value of a query parameter.
pub fn query_first<'r>(req: &'r Request, key: &str) -> Option<&'r str> {
    req.query.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
}

/// A query parameter that takes one of `choices`: `None` when absent; any
/// other value, an empty one too, is 400 `VALIDATION_ERROR` naming the
/// parameter (`kind must be deals or conversations`).
pub fn query_choice<'c>(req: &Request, key: &str, choices: &[&'c str]) -> Result<Option<&'c str>, Error> {
    let Some(sent) = query_first(req, key) else { return Ok(None) };
    match choices.iter().find(|c| **c == sent) {
        Some(choice) => Ok(Some(choice)),
        None => Err(Error::validation(format!("{key} must be {}", spoken_list(choices)), json!({ "field": key }))),
    }
}

/// A query parameter that names a record by id: `None` when absent; any
/// other value that is not an id ([`crate::is_id`]), an empty one too, is
/// 400 `VALIDATION_ERROR` naming the parameter, so a client's typo is told
/// apart from a record with nothing to list.
pub fn query_id<'r>(req: &'r Request, key: &str) -> Result<Option<&'r str>, Error> {
    match query_first(req, key) {
        None => Ok(None),
        Some(id) if crate::is_id(id) => Ok(Some(id)),
        Some(_) => Err(Error::validation(format!("{key} is not a valid id"), json!({ "field": key }))),
    }
}

/// `a`, `a or b`, `a, b or c`.
fn spoken_list(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => one.to_string(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// Every value of a query parameter, in order.
pub fn query_all<'r>(req: &'r Request, key: &str) -> Vec<&'r str> {
    req.query.iter().filter(|(k, _)| k == key).map(|(_, v)| v.as_str()).collect()
}

/// A path parameter of the route pattern.
pub fn path_param<'r>(req: &'r Request, name: &str) -> Option<&'r str> {
    req.path_params.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

/// A number as JSON, integral values without a fraction (`2`, not `2.0`), so
/// amounts and measures read back as they were sent.
pub fn json_number(n: f64) -> Value {
    if n.fract() == 0.0 && n.abs() < 9e15 { Value::from(n as i64) } else { Value::from(n) }
}

/// A JSON response.
pub fn json_response(status: u16, body: &impl Serialize) -> Response {
    Response {
        status,
        headers: vec![("content-type".into(), "application/json".into())],
        body: serde_json::to_vec(body).unwrap_or_default(),
    }
}

/// An error answer in the spec's envelope: `{success: false, message, code, ...extra}`.
#[derive(Debug, Clone)]
pub struct Error {
    pub status: u16,
    pub body: Map<String, Value>,
}

impl Error {
    pub fn new(status: u16, code: &str, message: impl Into<String>) -> Error {
        let mut body = Map::new();
        body.insert("success".into(), Value::Bool(false));
        body.insert("message".into(), Value::String(message.into()));
        body.insert("code".into(), Value::String(code.into()));
        Error { status, body }
    }

    /// An error whose body has no `code`, only an `error` text (some contact rows).
    pub fn text(status: u16, error: &str) -> Error {
        let mut body = Map::new();
        body.insert("success".into(), Value::Bool(false));
        body.insert("error".into(), Value::String(error.into()));
        body.insert("message".into(), Value::String(error.into()));
        Error { status, body }
    }

    pub fn with(mut self, key: &str, value: impl Into<Value>) -> Error {
        self.body.insert(key.into(), value.into());
        self
    }

    pub fn validation(message: impl Into<String>, details: impl Into<Value>) -> Error {
        Error::new(400, "VALIDATION_ERROR", message).with("details", details)
    }

    pub fn not_found(what: &str) -> Error {
        Error::new(404, "NOT_FOUND", format!("{what} not found"))
    }

    pub fn internal(detail: impl std::fmt::Display) -> Error {
        crate::runtime::log(crate::runtime::Level::Error, &detail.to_string());
        Error::new(500, "INTERNAL_SERVER_ERROR", "Internal server error")
    }

    pub fn into_response(self) -> Response {
        json_response(self.status, &Value::Object(self.body))
    }
}

impl From<crate::store::Error> for Error {
    fn from(e: crate::store::Error) -> Error {
        Error::internal(format!("store: {e}"))
    }
}

/// Turns a handler's result into a response.
pub fn respond(result: Result<Response, Error>) -> Response {
    result.unwrap_or_else(Error::into_response)
}

/// A header's value (names are lower case), the first when repeated.
pub fn header<'r>(req: &'r Request, name: &str) -> Option<&'r str> {
    req.headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

/// The media type of the body, lower case, without parameters (`""` when absent).
pub fn media_type(req: &Request) -> String {
    header(req, "content-type").unwrap_or("").split(';').next().unwrap_or("").trim().to_ascii_lowercase()
}

/// Whether the body is declared JSON (`application/json` or `...+json`).
pub fn is_json(req: &Request) -> bool {
    let mime = media_type(req);
    mime == "application/json" || mime.ends_with("+json")
}

/// The 400 of a body sent as anything but JSON: the same code and message as
/// the host's own routes answer.
fn unsupported_content_type() -> Error {
    Error::new(
        400,
        "UNSUPPORTED_CONTENT_TYPE",
        "The request body must be JSON, sent with Content-Type: application/json",
    )
}

/// The body as a JSON object; a 400 that says what is wrong otherwise (a
/// body not declared JSON included).
pub fn json_object(req: &Request) -> Result<Map<String, Value>, Error> {
    object(json_body(req)?)
}

/// The body, declared JSON, parsed into `T`.
pub fn json_body<T: DeserializeOwned>(req: &Request) -> Result<T, Error> {
    if !is_json(req) {
        return Err(unsupported_content_type());
    }
    parse_json(&req.body)
}

/// A JSON value as a JSON object; a 400 otherwise.
pub fn object(value: Value) -> Result<Map<String, Value>, Error> {
    match value {
        Value::Object(map) => Ok(map),
        _ => Err(Error::validation("The request body must be a JSON object", json!({}))),
    }
}

/// Parses a JSON body into `T` with the host's error codes.
pub fn parse_json<T: DeserializeOwned>(body: &[u8]) -> Result<T, Error> {
    parse_json_or(body, |e| Error::validation(format!("The request body has an invalid field: {e}"), e.to_string()))
}

/// [`parse_json`], with `misfit` making the 400 of a body that is JSON but
/// not the shape of `T`; an empty body or one that is not JSON is
/// `INVALID_JSON`, as the host's own routes answer.
pub fn parse_json_or<'a, T: Deserialize<'a>>(
    body: &'a [u8],
    misfit: impl FnOnce(serde_json::Error) -> Error,
) -> Result<T, Error> {
    // RFC 8259 lets a parser ignore a byte-order mark; the host's routes do.
    let body = crm_text_decoding::without_bom(body);
    if body.iter().all(u8::is_ascii_whitespace) {
        return Err(Error::new(400, "INVALID_JSON", "The request body is empty"));
    }
    serde_json::from_slice(body).map_err(|e| match e.classify() {
        serde_json::error::Category::Data => misfit(e),
        _ => Error::new(400, "INVALID_JSON", format!("The request body is not valid JSON: {e}")),
    })
}

pub use crm_paging::MAX_PAGE;

/// The page a list request asks for, read by the API's one paging rule
/// (`crm_paging`: `page` 1 to [`MAX_PAGE`], `limit` clamped, anything but a
/// whole number 400), with the answers a list gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Paging {
    pub page: u64,
    pub limit: usize,
}

impl Paging {
    /// Reads `page` and `limit`; a `page` above [`MAX_PAGE`] is a 400.
    pub fn from_query(req: &Request, default: usize, max: usize) -> Result<Paging, Error> {
        let (page, limit) = (query_first(req, "page"), query_first(req, "limit"));
        match crm_paging::Paging::parse(page, limit, default, max) {
            Ok(p) => Ok(Paging { page: p.page, limit: p.limit }),
            Err(refused) => {
                let details = match refused.max {
                    Some(max) => json!({ "field": refused.field, "max": max }),
                    None => json!({ "field": refused.field }),
                };
                Err(Error::validation(refused.message, details))
            }
        }
    }

    /// How many items come before this page.
    pub fn offset(&self) -> u64 {
        (self.page - 1).saturating_mul(self.limit as u64)
    }

    /// [`Self::offset`] for skipping an iterator (saturating).
    pub fn skip(&self) -> usize {
        usize::try_from(self.offset()).unwrap_or(usize::MAX)
    }

    /// Whether this page starts at or past the `total`-th item (it is empty).
    pub fn is_past(&self, total: usize) -> bool {
        self.offset() >= total as u64
    }

    /// `{success, data, pagination: {total, page, limit, pages}}`.
    pub fn response<T: Serialize>(&self, data: &[T], total: usize) -> Response {
        json_response(200, &json!({ "success": true, "data": data, "pagination": self.pagination(total) }))
    }

    /// [`Self::response`] for items that are already JSON (a read model).
    pub fn response_raw(&self, items: &[Vec<u8>], total: usize) -> Response {
        let mut body = Vec::with_capacity(64 + items.iter().map(|i| i.len() + 1).sum::<usize>());
        body.extend_from_slice(br#"{"success":true,"data":["#);
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                body.push(b',');
            }
            body.extend_from_slice(item);
        }
        body.extend_from_slice(format!(r#"],"pagination":{}}}"#, self.pagination(total)).as_bytes());
        Response { status: 200, headers: vec![("content-type".into(), "application/json".into())], body }
    }

    fn pagination(&self, total: usize) -> Value {
        let pages = total.div_ceil(self.limit.max(1));
        json!({ "total": total, "page": self.page, "limit": self.limit, "pages": pages })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(query: &[(&str, &str)]) -> Request {
        Request {
            method: "GET".into(),
            path: "/x".into(),
            path_params: vec![],
            query: query.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
            headers: vec![],
            body: vec![],
        }
    }

    #[test]
    fn a_choice_is_absent_one_of_its_values_or_refused() {
        let kinds = ["deals", "conversations"];
        assert_eq!(query_choice(&request(&[]), "kind", &kinds).unwrap(), None);
        assert_eq!(query_choice(&request(&[("kind", "deals")]), "kind", &kinds).unwrap(), Some("deals"));
        for sent in ["", " deals", "Deals", "other"] {
            let e = query_choice(&request(&[("kind", sent)]), "kind", &kinds).unwrap_err();
            assert_eq!(e.status, 400, "{sent:?}");
            assert_eq!(e.body["message"], "kind must be deals or conversations");
            assert_eq!(e.body["details"], json!({ "field": "kind" }));
        }
        let e = query_choice(&request(&[("s", "x")]), "s", &["a", "b", "c"]).unwrap_err();
        assert_eq!(e.body["message"], "s must be a, b or c");
    }

    #[test]
    fn an_id_parameter_is_absent_an_id_or_refused() {
        assert_eq!(query_id(&request(&[]), "contactId").unwrap(), None);
        let id = "6b052f4b0000138387408ed5";
        assert_eq!(query_id(&request(&[("contactId", id)]), "contactId").unwrap(), Some(id));
        for sent in ["", " ", "6b052f4b0000138387408ed", "6B052F4B0000138387408ED5", "../x"] {
            let e = query_id(&request(&[("contactId", sent)]), "contactId").unwrap_err();
            assert_eq!(e.status, 400, "{sent:?}");
            assert_eq!(e.body["message"], "contactId is not a valid id");
            assert_eq!(e.body["details"], json!({ "field": "contactId" }));
        }
    }
}
