//! `GET /api/webhooks/event-types` (`automations:read`): the event types the
//! host sends, each with what it announces and its body's JSON Schema.
//!
//! The list is made from the OpenAPI document's top-level `webhooks`, so
//! the two cannot disagree; `tests/it/webhooks.rs` checks that every type a
//! host sends is in both.

use std::sync::LazyLock;

use http::StatusCode;
use serde_json::{Value, json};

use crate::api::auth::Caller;
use crate::http::router::Params;
use crate::http::{ApiError, ApiRequest, Response};
use crate::state::ServerState;

/// The answer's `data`, made once from the document.
static EVENT_TYPES: LazyLock<Value> = LazyLock::new(|| {
    let doc = super::openapi::document();
    let envelope = doc.pointer("/components/schemas/Event").and_then(Value::as_object);
    let envelope = envelope.expect("the document has the Event schema");
    let types = doc.get("webhooks").and_then(Value::as_object).expect("the document lists its webhooks");
    let listed = types.iter().map(|(name, hook)| {
        let mut schema = envelope.clone();
        schema.insert("$schema".into(), json!("https://json-schema.org/draft/2020-12/schema"));
        if let Some(properties) = schema.get_mut("properties").and_then(Value::as_object_mut) {
            properties.insert("type".into(), json!({ "const": name }));
        }
        let description = hook.pointer("/post/summary").cloned().unwrap_or(Value::Null);
        json!({ "type": name, "description": description, "schema": schema })
    });
    Value::Array(listed.collect())
});

pub fn list(_: &ServerState, _: &Caller, _: &ApiRequest, _: &Params) -> Result<Response, ApiError> {
    Ok(Response::json(StatusCode::OK, &json!({ "success": true, "data": *EVENT_TYPES })))
}

#[cfg(test)]
mod tests {
    use super::EVENT_TYPES;

    #[test]
    fn each_type_of_the_document_is_listed_with_its_own_schema() {
        let listed = EVENT_TYPES.as_array().unwrap();
        let names: Vec<&str> = listed.iter().map(|t| t["type"].as_str().unwrap()).collect();
        let expected = [
            "conversation.stage_entered",
            "deal.stage_changed",
            "contact.created",
            "form.submitted",
            "webhook.endpoint_disabled",
        ];
        assert_eq!(names, expected);
        for t in listed {
            assert_eq!(t["schema"]["properties"]["type"]["const"], t["type"]);
            assert!(t["description"].as_str().is_some_and(|d| !d.is_empty()));
            assert_eq!(t["schema"]["required"][1], "type");
        }
    }
}
