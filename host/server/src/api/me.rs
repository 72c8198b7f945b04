//! `GET /api/me`: who the token is.

use http::StatusCode;
use serde_json::{Value, json};

use crate::api::auth::Caller;
use crate::http::router::Params;
use crate::http::{ApiError, ApiRequest, Response};
use crate::state::ServerState;

pub fn get(app: &ServerState, caller: &Caller, _req: &ApiRequest, _params: &Params) -> Result<Response, ApiError> {
    let org = &caller.org;
    let token = &caller.token;
    let user = match &token.user_id {
        Some(id) => app.tenancy.user(&org.id, id)?,
        None => None,
    };
    let user = user.map_or(Value::Null, |u| {
        json!({
            "id": u.id,
            "email": u.email,
            "firstName": u.first_name,
            "lastName": u.last_name,
            "role": u.role,
        })
    });
    // An unknown plan gives `plan: null`; it never fails the call.
    let plan = org.plan().map_or(
        Value::Null,
        |p| json!({ "name": p.name, "displayName": p.display_name, "modules": org.effective_modules() }),
    );
    let data = json!({
        "organization": { "id": org.id, "name": org.name },
        "user": user,
        "token": {
            "id": token.id,
            "name": token.name,
            "permissions": token.permissions,
            "expiresAt": token.expires_at,
            "createdAt": token.created_at,
        },
        "plan": plan,
    });
    Ok(Response::json(StatusCode::OK, &json!({ "success": true, "data": data })))
}
