//! A pipeline: `{id, kind, name, stages: [{id, name, webhookUrl}], isDefault,
//! createdAt}`. Two per organization exist without being made, the default
//! deal pipeline and the default conversation pipeline (stages and ids from
//! `crm_first_party::pipeline`); the app creates more (`POST
//! /admin/orgs/{org}/pipelines`). Pipelines are not edited afterwards.

use crm_first_party::delivery;
use crm_first_party::pipeline::{self as defaults, CONVERSATION_STAGES, DEAL_STAGES};
use crm_sdk::http::{Error, Paging, json_object, json_response, query_choice};
use crm_sdk::store::{self, Condition, Write};
use crm_sdk::types::{Request, Response};
use crm_sdk::{events, kv, runtime, tenant};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::bindings::crm::plugin::webhooks;

const COUNT_KEY: &str = "meta/pipelines";
/// Most pipelines the app creates for one organization, stages of one, and
/// characters of a name.
pub const MAX_PIPELINES: u64 = 50;
const MAX_STAGES: usize = 20;
const MAX_NAME: usize = 100;
pub const KINDS: &[&str] = &["deals", "conversations"];
/// The event a conversation entering a stage makes.
pub const STAGE_ENTERED: &str = "conversation.stage_entered";

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Pipeline {
    pub id: String,
    pub kind: String,
    pub name: String,
    pub stages: Vec<Stage>,
    pub is_default: bool,
    pub created_at: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Stage {
    pub id: String,
    pub name: String,
    pub webhook_url: Option<String>,
    /// At most this many `webhookUrl` deliveries a second.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub webhook_max_per_second: Option<u32>,
    /// One conversation's moves delivered to `webhookUrl` in order.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub webhook_ordered: bool,
}

fn key(id: &str) -> String {
    format!("p/{id}")
}

/// The organization's default pipeline of `kind`.
fn default_pipeline(kind: &str) -> Pipeline {
    let id = defaults::default_pipeline_id(&tenant::organization_id(), kind);
    let (name, names) = match kind {
        "deals" => ("Negocios", DEAL_STAGES),
        _ => ("Conversaciones", CONVERSATION_STAGES),
    };
    let stages = names
        .iter()
        .enumerate()
        .map(|(i, n)| Stage {
            id: defaults::default_stage_id(&id, i),
            name: n.to_string(),
            webhook_url: None,
            webhook_max_per_second: None,
            webhook_ordered: false,
        })
        .collect();
    Pipeline { id, kind: kind.into(), name: name.into(), stages, is_default: true, created_at: None }
}

/// The pipeline `id` of this organization, default or created.
pub fn find(id: &str) -> Result<Option<Pipeline>, Error> {
    if !crm_sdk::is_id(id) {
        return Ok(None);
    }
    if let Some(default) = KINDS.iter().map(|k| default_pipeline(k)).find(|p| p.id == id) {
        return Ok(Some(default));
    }
    kv::get(&key(id))
}

fn not_found() -> Error {
    Error::new(404, "PIPELINE_NOT_FOUND", "The pipeline does not exist in this organization")
}

fn invalid(field: &str, why: &str) -> Error {
    Error::validation(format!("{field} {why}"), json!({ "field": field }))
}

/// `GET /pipelines/{id}`.
pub fn get(id: &str) -> Result<Response, Error> {
    let pipeline = find(id)?.ok_or_else(not_found)?;
    Ok(json_response(200, &json!({ "success": true, "data": pipeline })))
}

/// `GET /pipelines?kind=`: the defaults first, then the app's, oldest first,
/// in the lists' one shape (`pagination`). At most 52 pipelines exist, so the
/// default page (100) holds them all.
pub fn list(req: &Request) -> Result<Response, Error> {
    let paging = Paging::from_query(req, 100, 100)?;
    let kind = query_choice(req, "kind", KINDS)?;
    let mut pipelines: Vec<Pipeline> = KINDS.iter().map(|k| default_pipeline(k)).collect();
    for (_, bytes) in kv::scan_all("p/")? {
        pipelines.push(serde_json::from_slice(&bytes).map_err(Error::internal)?);
    }
    pipelines.retain(|p| kind.is_none_or(|k| p.kind == k));
    let page: Vec<&Pipeline> = pipelines.iter().skip(paging.skip()).take(paging.limit).collect();
    Ok(paging.response(&page, pipelines.len()))
}

/// `POST /admin/orgs/{org}/pipelines` `{kind, name, stages: [{name, webhookUrl?}]}`
/// → 201 the pipeline. Each stage webhook of a conversation pipeline is a
/// subscription to `conversation.stage_entered` for that stage, written in
/// the pipeline's own commit.
pub fn create(req: &Request) -> Result<Response, Error> {
    let body = json_object(req)?;
    if let Some(other) = body.keys().find(|k| !["kind", "name", "stages"].contains(&k.as_str())) {
        return Err(invalid(other, "is not a pipeline field (kind, name, stages)"));
    }
    let kind = match body.get("kind") {
        Some(Value::String(k)) if KINDS.contains(&k.as_str()) => k.clone(),
        _ => return Err(invalid("kind", "must be deals or conversations")),
    };
    let name = text(&body, "name", "name")?;
    let id = runtime::new_id();
    let stages = match body.get("stages") {
        Some(Value::Array(list)) if (1..=MAX_STAGES).contains(&list.len()) => {
            list.iter().enumerate().map(|(i, s)| stage(&kind, i, s)).collect::<Result<Vec<_>, _>>()?
        }
        _ => return Err(invalid("stages", &format!("must be a list of 1 to {MAX_STAGES} stages"))),
    };
    let mut names: Vec<String> = stages.iter().map(|s| s.name.to_lowercase()).collect();
    names.sort();
    if names.windows(2).any(|pair| matches!(pair, [a, b] if a == b)) {
        return Err(invalid("stages", "must have distinct names"));
    }
    let pipeline = Pipeline { id, kind, name, stages, is_default: false, created_at: Some(runtime::now()) };
    for stage in &pipeline.stages {
        if let Some(url) = &stage.webhook_url {
            let subscription = events::Subscription {
                id: format!("{}-{}", pipeline.id, stage.id),
                event_type: STAGE_ENTERED.into(),
                filter: vec![("pipelineId".into(), pipeline.id.clone()), ("toStage".into(), stage.id.clone())],
                targets: vec![events::Target { url: url.clone(), headers: Vec::new() }],
            };
            let options = events::DeliveryOptions {
                max_per_second: stage.webhook_max_per_second,
                ordered: stage.webhook_ordered,
            };
            events::subscribe_with_options(&subscription, &[options]).map_err(Error::internal)?;
        }
    }
    let writes = [
        Write::Put((key(&pipeline.id).into_bytes(), serde_json::to_vec(&pipeline).map_err(Error::internal)?)),
        Write::Add((COUNT_KEY.into(), 1)),
    ];
    if !store::commit(&[Condition::Below((COUNT_KEY.into(), MAX_PIPELINES))], &writes)? {
        return Err(Error::validation(
            format!("An organization has at most {MAX_PIPELINES} pipelines besides its defaults"),
            json!({ "limit": "pipelines", "max": MAX_PIPELINES }),
        ));
    }
    Ok(json_response(201, &pipeline))
}

/// A name: 1 to [`MAX_NAME`] characters, trimmed.
fn text(body: &Map<String, Value>, key: &str, field: &str) -> Result<String, Error> {
    match body.get(key) {
        Some(Value::String(s)) if !s.trim().is_empty() && s.trim().chars().count() <= MAX_NAME => Ok(s.trim().into()),
        _ => Err(invalid(field, &format!("must be a text of 1 to {MAX_NAME} characters"))),
    }
}

fn stage(kind: &str, i: usize, value: &Value) -> Result<Stage, Error> {
    let field = |name: &str| format!("stages[{i}].{name}");
    let Value::Object(s) = value else { return Err(invalid(&format!("stages[{i}]"), "must be an object")) };
    const FIELDS: [&str; 4] = ["name", "webhookUrl", "webhookMaxPerSecond", "webhookOrdered"];
    if let Some(other) = s.keys().find(|k| !FIELDS.contains(&k.as_str())) {
        return Err(invalid(
            &field(other),
            "is not a stage field (name, webhookUrl, webhookMaxPerSecond, webhookOrdered)",
        ));
    }
    let name = text(s, "name", &field("name"))?;
    let webhook_url = match s.get("webhookUrl") {
        None | Some(Value::Null) => None,
        Some(Value::String(url)) if kind == "conversations" => {
            if let Err(reason) = webhooks::check_url(url) {
                return Err(Error::new(
                    400,
                    "WEBHOOK_URL_NOT_ALLOWED",
                    format!("{} is not allowed: {reason}", field("webhookUrl")),
                )
                .with("details", json!({ "field": field("webhookUrl"), "reason": reason })));
            }
            Some(url.clone())
        }
        Some(Value::String(_)) => return Err(invalid(&field("webhookUrl"), "applies to conversation pipelines only")),
        Some(_) => return Err(invalid(&field("webhookUrl"), "must be a URL")),
    };
    let options = delivery::parse(s, "webhookMaxPerSecond", "webhookOrdered")
        .map_err(|(key, why)| invalid(&field(&key), &why))?;
    if webhook_url.is_none() && (options.max_per_second.is_some() || options.ordered) {
        return Err(invalid(&field("webhookUrl"), "is needed for webhookMaxPerSecond and webhookOrdered"));
    }
    Ok(Stage {
        id: runtime::new_id(),
        name,
        webhook_url,
        webhook_max_per_second: options.max_per_second,
        webhook_ordered: options.ordered,
    })
}
