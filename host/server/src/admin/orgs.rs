//! Admin calls on organizations, their users and their tokens.

use std::collections::BTreeMap;

use http::StatusCode;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use crm_events::sign::Shown;
use crm_tenancy::orgs::LimitOverrides;
use crm_tenancy::webhook_secrets::Scheme;
use crm_tenancy::{Org, clock, ids, permissions, plans, users};

use crate::http::{ApiError, ApiRequest, Response};
use crate::state::ServerState;

const MAX_NAME: usize = 200;
const MAX_PERMISSIONS: usize = 100;

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct OrgInput {
    name: Option<String>,
    plan: Option<String>,
    /// `{module: bool}`; in a PATCH, `null` removes an override.
    modules: Option<Map<String, Value>>,
    /// `{contacts: n}`; in a PATCH, `null` removes the override.
    limits: Option<Map<String, Value>>,
}

pub fn list(app: &ServerState) -> Result<Response, ApiError> {
    let orgs: Vec<Value> = app.tenancy.list_orgs()?.iter().map(Org::to_admin_json).collect();
    Ok(Response::json(StatusCode::OK, &json!({ "data": orgs })))
}

pub fn create(app: &ServerState, req: &ApiRequest) -> Result<Response, ApiError> {
    let input: OrgInput = req.json()?;
    let name = valid_name(input.name.as_deref(), "name")?;
    let plan = valid_plan(input.plan.as_deref().unwrap_or(plans::DEFAULT_PLAN))?;
    let mut modules = BTreeMap::new();
    apply_modules(&mut modules, input.modules)?;
    let mut limits = LimitOverrides::default();
    apply_limits(&mut limits, input.limits)?;
    let org = app.tenancy.create_org(name, plan, modules, limits)?;
    Ok(Response::json(StatusCode::CREATED, &org.to_admin_json()))
}

pub fn get(app: &ServerState, org_id: &str) -> Result<Response, ApiError> {
    Ok(Response::json(StatusCode::OK, &existing(app, org_id)?.to_admin_json()))
}

/// Applied to the organization as it is at the write, so two updates at
/// once both land and one racing a delete does not bring it back.
pub fn update(app: &ServerState, org_id: &str, req: &ApiRequest) -> Result<Response, ApiError> {
    existing(app, org_id)?; // 404 before the body's 400, as the other admin routes
    let input: OrgInput = req.json()?;
    let updated = app.tenancy.update_org(org_id, |org| -> Result<(), ApiError> {
        if let Some(name) = input.name.as_deref() {
            org.name = valid_name(Some(name), "name")?;
        }
        if let Some(plan) = input.plan.as_deref() {
            org.plan = valid_plan(plan)?;
        }
        apply_modules(&mut org.module_overrides, input.modules.clone())?;
        apply_limits(&mut org.limit_overrides, input.limits.clone())?;
        org.updated_at = clock::now_text();
        Ok(())
    })?;
    let org = updated.ok_or_else(|| ApiError::not_found("Organization"))?;
    Ok(Response::json(StatusCode::OK, &org.to_admin_json()))
}

pub fn delete(app: &ServerState, org_id: &str) -> Result<Response, ApiError> {
    if !app.tenancy.delete_org(org_id)? {
        return Err(ApiError::not_found("Organization"));
    }
    Ok(Response::empty(StatusCode::NO_CONTENT))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct UserInput {
    email: Option<String>,
    first_name: Option<String>,
    last_name: Option<String>,
    role: Option<String>,
}

pub fn create_user(app: &ServerState, org_id: &str, req: &ApiRequest) -> Result<Response, ApiError> {
    let org = existing(app, org_id)?;
    let input: UserInput = req.json()?;
    let email = input.email.as_deref().map(str::trim).unwrap_or("");
    if email.len() > 254 || !email.contains('@') || email.starts_with('@') || email.ends_with('@') {
        return Err(ApiError::validation("email must be an email address", json!({ "field": "email" })));
    }
    if let Some(role) = input.role.as_deref()
        && !users::ROLES.contains(&role)
    {
        return Err(ApiError::validation(
            format!("role must be one of {}", users::ROLES.join(", ")),
            json!({ "field": "role" }),
        ));
    }
    let user = app.tenancy.create_user(&org.id, email.to_string(), input.first_name, input.last_name, input.role)?;
    Ok(Response::json(StatusCode::CREATED, &user))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct TokenInput {
    name: Option<String>,
    permissions: Option<Vec<String>>,
    expires_at: Option<String>,
    user_id: Option<String>,
}

pub fn create_token(app: &ServerState, org_id: &str, req: &ApiRequest) -> Result<Response, ApiError> {
    let org = existing(app, org_id)?;
    let input: TokenInput = req.json()?;
    let name = valid_name(input.name.as_deref(), "name")?;
    let permissions = input.permissions.unwrap_or_default();
    if permissions.is_empty() || permissions.len() > MAX_PERMISSIONS {
        return Err(ApiError::validation(
            format!("permissions must list 1 to {MAX_PERMISSIONS} permissions"),
            json!({ "field": "permissions" }),
        ));
    }
    if let Some(bad) = permissions.iter().find(|p| !permissions::is_valid(p)) {
        return Err(ApiError::validation(
            format!("{bad:?} is not a permission: use \"*\", \"resource:action\" or \"resource:*\""),
            json!({ "field": "permissions" }),
        ));
    }
    let expires_at = match input.expires_at.as_deref() {
        None => None,
        Some(text) => Some(clock::parse(text).ok_or_else(|| {
            ApiError::validation("expiresAt must be an RFC 3339 date-time or null", json!({ "field": "expiresAt" }))
        })?),
    };
    if let Some(user_id) = &input.user_id
        && app.tenancy.user(&org.id, user_id)?.is_none()
    {
        return Err(ApiError::validation(
            "userId does not name a user of this organization",
            json!({ "field": "userId" }),
        ));
    }
    let (record, token) = app.tenancy.issue_token(&org.id, name, permissions, expires_at, input.user_id)?;
    Ok(Response::json(
        StatusCode::CREATED,
        &json!({
            "id": record.id,
            "token": token,
            "name": record.name,
            "permissions": record.permissions,
            "expiresAt": record.expires_at,
            "userId": record.user_id,
            "createdAt": record.created_at,
        }),
    ))
}

pub fn revoke_token(app: &ServerState, org_id: &str, token_id: &str) -> Result<Response, ApiError> {
    let org = existing(app, org_id)?;
    let record =
        app.tenancy.token(token_id)?.filter(|t| t.org_id == org.id).ok_or_else(|| ApiError::not_found("Token"))?;
    app.tenancy.revoke_token(record)?;
    Ok(Response::empty(StatusCode::NO_CONTENT))
}

/// `GET /admin/orgs/{org}/webhook-secret`: 200 what receivers verify with
/// (made on first use), and the previous key's while it still signs.
pub fn webhook_secret(app: &ServerState, org_id: &str) -> Result<Response, ApiError> {
    let org = existing(app, org_id)?;
    Ok(Response::json(StatusCode::OK, &Shown::of(&app.tenancy.webhook_secret(&org.id)?)))
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RotateInput {
    scheme: Option<Scheme>,
}

/// `POST /admin/orgs/{org}/webhook-secret/rotate` `{scheme?: "v1"|"v1a"}`:
/// 200 the new key's; the old one keeps signing beside it for 24 hours.
pub fn rotate_webhook_secret(app: &ServerState, org_id: &str, req: &ApiRequest) -> Result<Response, ApiError> {
    let org = existing(app, org_id)?;
    let input: RotateInput = if req.body.is_empty() { RotateInput::default() } else { req.json()? };
    Ok(Response::json(StatusCode::OK, &Shown::of(&app.tenancy.rotate_webhook_secret(&org.id, input.scheme)?)))
}

// --- validation helpers ------------------------------------------------------------

/// The organization `org_id`, or 404: what every admin call on one starts with.
pub(super) fn existing(app: &ServerState, org_id: &str) -> Result<Org, ApiError> {
    app.tenancy.org(org_id)?.ok_or_else(|| ApiError::not_found("Organization"))
}

fn valid_name(name: Option<&str>, field: &str) -> Result<String, ApiError> {
    match name.map(str::trim) {
        Some(n) if !n.is_empty() && n.chars().count() <= MAX_NAME => Ok(n.to_string()),
        _ => Err(ApiError::validation(
            format!("{field} is required, 1 to {MAX_NAME} characters"),
            json!({ "field": field }),
        )),
    }
}

fn valid_plan(plan: &str) -> Result<String, ApiError> {
    match plans::plan(plan) {
        Some(p) => Ok(p.name.to_string()),
        None => {
            let names: Vec<&str> = plans::PLANS.iter().map(|p| p.name).collect();
            Err(ApiError::validation(format!("plan must be one of {}", names.join(", ")), json!({ "field": "plan" })))
        }
    }
}

fn apply_modules(overrides: &mut BTreeMap<String, bool>, input: Option<Map<String, Value>>) -> Result<(), ApiError> {
    for (module, value) in input.unwrap_or_default() {
        if !ids::is_slug(&module) {
            return Err(ApiError::validation(
                format!("{module:?} is not a module name"),
                json!({ "field": "modules" }),
            ));
        }
        match value {
            Value::Bool(on) => {
                overrides.insert(module, on);
            }
            Value::Null => {
                overrides.remove(&module);
            }
            _ => {
                return Err(ApiError::validation(
                    format!("modules.{module} must be true, false or null"),
                    json!({ "field": "modules" }),
                ));
            }
        }
    }
    Ok(())
}

fn apply_limits(limits: &mut LimitOverrides, input: Option<Map<String, Value>>) -> Result<(), ApiError> {
    for (name, value) in input.unwrap_or_default() {
        match (name.as_str(), value) {
            ("contacts", Value::Null) => limits.contacts = None,
            ("contacts", Value::Number(n)) if n.as_u64().is_some() => limits.contacts = n.as_u64(),
            ("contacts", _) => {
                return Err(ApiError::validation(
                    "limits.contacts must be a whole number or null",
                    json!({ "field": "limits.contacts" }),
                ));
            }
            (other, _) => {
                return Err(ApiError::validation(format!("unknown limit {other:?}"), json!({ "field": "limits" })));
            }
        }
    }
    Ok(())
}
