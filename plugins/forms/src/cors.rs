//! What browsers are told on the public door. A form's `allowedOrigins`
//! (empty: any) decides: a preflight from an allowed origin gets 204 with
//! `Access-Control-Allow-Origin` naming it; any other gets 403 without CORS
//! headers, and so does a `POST` whose `Origin` is not allowed (nothing is
//! written). A post without `Origin` is not from a browser page and passes.

use crm_sdk::http::{self, Error};
use crm_sdk::types::{Request, Response};

use crate::form::{self, Form};

/// The request's `Origin`, when it has one.
pub fn origin(req: &Request) -> Option<&str> {
    http::header(req, "origin")
}

fn allows(form: &Form, origin: &str) -> bool {
    form.allowed_origins.is_empty() || form::normalize_origin(origin).is_some_and(|o| form.allowed_origins.contains(&o))
}

pub fn not_allowed() -> Error {
    Error::new(403, "ORIGIN_NOT_ALLOWED", "This form does not accept submissions from this site")
}

/// A `POST`'s origin check.
pub fn check(form: &Form, req: &Request) -> Result<(), Error> {
    match origin(req) {
        Some(o) if !allows(form, o) => Err(not_allowed()),
        _ => Ok(()),
    }
}

/// Adds `Access-Control-Allow-Origin` for an allowed browser origin, so the
/// page can read the answer (errors included).
pub fn stamp(form: Option<&Form>, req: &Request, mut response: Response) -> Response {
    if let (Some(form), Some(o)) = (form, origin(req))
        && allows(form, o)
    {
        response.headers.push(("access-control-allow-origin".into(), o.to_string()));
        response.headers.push(("vary".into(), "Origin".into()));
    }
    response
}

/// `OPTIONS /api/v1/forms/submit/{id}`: a browser asking before it posts.
pub fn preflight(req: &Request, id: &str) -> Result<Response, Error> {
    let form = form::load(id)?;
    let Some(o) = origin(req).filter(|o| allows(&form, o)) else { return Err(not_allowed()) };
    Ok(Response {
        status: 204,
        headers: vec![
            ("access-control-allow-origin".into(), o.to_string()),
            ("access-control-allow-methods".into(), "POST, OPTIONS".into()),
            ("access-control-allow-headers".into(), "content-type".into()),
            ("access-control-max-age".into(), "600".into()),
            ("vary".into(), "Origin".into()),
        ],
        body: Vec::new(),
    })
}
