//! Where a conversation stands: `PUT /conversations/{id}/stage` `{pipelineId,
//! stageId}` moves it (a conversation is in one pipeline at a time) and
//! `GET` reads it. The conversation itself is the contacts module's, read
//! through the `contacts` interface. Entering another stage emits
//! `conversation.stage_entered` in the move's own commit, with the
//! conversation and `pipelineId`, `fromStage`, `toStage`, `stageName`.

use crm_sdk::http::{Error, json_object, json_response};
use crm_sdk::store::{self, Condition, Write};
use crm_sdk::types::Response;
use crm_sdk::{runtime, types::Request};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::bindings::crm::plugin::contacts;
use crate::pipeline::{self, STAGE_ENTERED};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Position {
    pub conversation_id: String,
    pub pipeline_id: String,
    pub stage_id: String,
    pub stage_name: String,
    pub entered_at: String,
}

fn key(conversation_id: &str) -> String {
    format!("cs/{conversation_id}")
}

fn not_found() -> Error {
    Error::new(404, "CONVERSATION_NOT_FOUND", "The conversation does not exist in this organization")
        .with("error", "CONVERSATION_NOT_FOUND")
}

fn invalid(field: &str, why: &str) -> Error {
    Error::validation(format!("{field} {why}"), json!({ "field": field }))
}

/// The conversation as the contacts module shows it.
fn conversation(id: &str) -> Result<Value, Error> {
    let found = crm_sdk::is_id(id).then(|| contacts::conversation(id)).flatten().ok_or_else(not_found)?;
    serde_json::from_str(&found).map_err(Error::internal)
}

/// `GET /conversations/{id}/stage`: 200 its position, `data: null` when it
/// was never placed in a pipeline.
pub fn get(id: &str) -> Result<Response, Error> {
    conversation(id)?;
    let position: Option<Position> = crm_sdk::kv::get(&key(id))?;
    Ok(json_response(200, &json!({ "success": true, "data": position })))
}

/// `PUT /conversations/{id}/stage`: 200 the new position. An unknown pipeline
/// (or one of deals) or a stage not in it is 400 `VALIDATION_ERROR`; the
/// same stage again changes nothing and emits nothing.
pub fn set(req: &Request, id: &str) -> Result<Response, Error> {
    let body = json_object(req)?;
    if let Some(other) = body.keys().find(|k| !["pipelineId", "stageId"].contains(&k.as_str())) {
        return Err(invalid(other, "is not a field of a move (pipelineId, stageId)"));
    }
    let text = |field: &str| match body.get(field) {
        Some(Value::String(s)) => Ok(s.clone()),
        _ => Err(invalid(field, "must be an id")),
    };
    let (pipeline_id, stage_id) = (text("pipelineId")?, text("stageId")?);
    let pipeline = match pipeline::find(&pipeline_id)? {
        Some(p) if p.kind == "conversations" => p,
        Some(_) => return Err(invalid("pipelineId", "is a deal pipeline, not a conversation pipeline")),
        None => return Err(invalid("pipelineId", "is not a pipeline of this organization")),
    };
    let stage = pipeline
        .stages
        .iter()
        .find(|s| s.id == stage_id)
        .ok_or_else(|| invalid("stageId", "is not a stage of that pipeline"))?;
    let mut data = conversation(id)?;
    for _ in 0..3 {
        let stored = store::get(key(id).as_bytes())?;
        let before: Option<Position> =
            stored.as_deref().map(serde_json::from_slice).transpose().map_err(Error::internal)?;
        if let Some(same) = before.as_ref().filter(|b| b.pipeline_id == pipeline.id && b.stage_id == stage.id) {
            return Ok(json_response(200, &json!({ "success": true, "data": same })));
        }
        let position = Position {
            conversation_id: id.into(),
            pipeline_id: pipeline.id.clone(),
            stage_id: stage.id.clone(),
            stage_name: stage.name.clone(),
            entered_at: runtime::now(),
        };
        if let Value::Object(fields) = &mut data {
            let from = before.as_ref().filter(|b| b.pipeline_id == pipeline.id).map(|b| b.stage_id.clone());
            fields.insert("pipelineId".into(), json!(pipeline.id));
            fields.insert("fromStage".into(), json!(from));
            fields.insert("toStage".into(), json!(stage.id));
            fields.insert("stageName".into(), json!(stage.name));
            fields.insert("enteredAt".into(), json!(position.entered_at));
        }
        crm_sdk::emit(STAGE_ENTERED, &data)?;
        let write = Write::Put((key(id).into_bytes(), serde_json::to_vec(&position).map_err(Error::internal)?));
        if store::commit(&[Condition::Equals((key(id).into_bytes(), stored))], &[write])? {
            return Ok(json_response(200, &json!({ "success": true, "data": position })));
        }
    }
    Err(Error::new(409, "CONVERSATION_BUSY", "The conversation is being moved by another request; try again"))
}
