//! Deals opened by forms: a form with `createDeal` opens one for the
//! submission's contact, in the organization's default deal pipeline, at
//! stage `new`, at most one open deal per contact and form (the key
//! `open/<contactId>/<formId>`, a condition of the submission's commit, has
//! one winner). `GET /deals` (filters `contactId`, `stage`), `GET /deals/{id}`
//! and `PUT /deals/{id}` (move between stages, rename, set the amount).

use crm_sdk::http::{Error, Paging, query_choice, query_id};
use crm_sdk::store::{self, Condition, Write};
use crm_sdk::types::{Request, Response};
use crm_sdk::{kv, runtime};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value, json};

use crm_first_party::pipeline::{DEAL_FIRST_STAGE, DEAL_STAGES as STAGES};
const COUNT_KEY: &str = "meta/deals";
/// Most deals of one contact a filtered list reads.
const MAX_CONTACT_DEALS: usize = 10_000;

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Deal {
    pub id: String,
    pub name: String,
    pub contact_id: String,
    pub form_id: String,
    pub pipeline_id: String,
    pub stage: String,
    /// As sent: pesos are whole, and `1500000` must not come back `1500000.0`.
    pub amount: Option<Number>,
    pub created_at: String,
    pub updated_at: String,
}

fn key(id: &str) -> String {
    format!("d/{id}")
}

fn open_key(contact_id: &str, form_id: &str) -> String {
    format!("open/{contact_id}/{form_id}")
}

fn stage_count_key(stage: &str) -> String {
    format!("meta/deals/stage/{stage}")
}

fn contact_count_key(contact_id: &str) -> String {
    format!("meta/deals/contact/{contact_id}")
}

/// The organization's default deal pipeline (its id is the SDK's rule).
fn default_pipeline_id() -> String {
    crm_first_party::pipeline::default_pipeline_id(&crm_sdk::tenant::organization_id(), "deals")
}

/// The open deal of this contact and form, if any.
pub fn open_deal(contact_id: &str, form_id: &str) -> Result<Option<String>, Error> {
    Ok(store::get(open_key(contact_id, form_id).as_bytes())?.map(|v| String::from_utf8_lossy(&v).into_owned()))
}

/// A new deal, not yet written.
pub fn new_deal(form_id: &str, form_name: &str, contact_id: &str, who: &str, now: &str) -> Result<Deal, Error> {
    let name = if who.is_empty() { form_name.to_string() } else { format!("{form_name}: {who}") };
    Ok(Deal {
        id: runtime::new_id(),
        name: name.chars().take(300).collect(),
        contact_id: contact_id.to_string(),
        form_id: form_id.to_string(),
        pipeline_id: default_pipeline_id(),
        stage: DEAL_FIRST_STAGE.into(),
        amount: None,
        created_at: now.to_string(),
        updated_at: now.to_string(),
    })
}

/// The condition and writes that open `deal`: they apply only while the
/// contact has no open deal from this form.
pub fn opening(deal: &Deal) -> Result<(Condition, Vec<Write>), Error> {
    let put = |k: String, v: Vec<u8>| Write::Put((k.into_bytes(), v));
    let add = |k: String| Write::Add((k.into_bytes(), 1));
    let open = open_key(&deal.contact_id, &deal.form_id);
    Ok((
        Condition::Equals((open.clone().into_bytes(), None)),
        vec![
            put(key(&deal.id), serde_json::to_vec(deal).map_err(Error::internal)?),
            put(format!("dc/{}/{}", deal.contact_id, deal.id), Vec::new()),
            put(format!("ds/{}/{}", deal.stage, deal.id), Vec::new()),
            put(open, deal.id.clone().into_bytes()),
            add(COUNT_KEY.into()),
            add(stage_count_key(&deal.stage)),
            add(contact_count_key(&deal.contact_id)),
        ],
    ))
}

fn load(id: &str) -> Result<Option<Deal>, Error> {
    if crm_sdk::is_id(id) { kv::get(&key(id)) } else { Ok(None) }
}

pub fn get(id: &str) -> Result<Response, Error> {
    let deal = load(id)?.ok_or_else(not_found)?;
    Ok(crm_sdk::http::json_response(200, &json!({ "success": true, "data": deal })))
}

/// Stages after which a deal is no longer open.
const CLOSED: &[&str] = &["won", "lost"];

fn is_open(stage: &str) -> bool {
    !CLOSED.contains(&stage)
}

fn not_found() -> Error {
    Error::new(404, "DEAL_NOT_FOUND", "The deal does not exist")
}

/// What a `PUT /deals/{id}` asks to change.
struct Change {
    stage: Option<String>,
    name: Option<String>,
    amount: Option<Option<Number>>,
}

impl Change {
    fn parse(body: &Map<String, Value>) -> Result<Change, Error> {
        let invalid = |field: &str, why: &str| Error::validation(format!("{field} {why}"), json!({ "field": field }));
        if let Some(other) = body.keys().find(|k| !["stage", "name", "amount"].contains(&k.as_str())) {
            return Err(invalid(other, "is not a deal field (stage, name, amount)"));
        }
        let stage = match body.get("stage") {
            None => None,
            Some(Value::String(s)) if STAGES.contains(&s.as_str()) => Some(s.clone()),
            Some(_) => return Err(invalid("stage", &format!("must be one of {}", STAGES.join(", ")))),
        };
        let name = match body.get("name") {
            None => None,
            Some(Value::String(s)) if !s.trim().is_empty() && s.chars().count() <= 300 => Some(s.trim().to_string()),
            Some(_) => return Err(invalid("name", "must be a text of 1 to 300 characters")),
        };
        let amount = match body.get("amount") {
            None => None,
            Some(Value::Null) => Some(None),
            Some(Value::Number(n)) if n.as_f64().is_some_and(|n| n >= 0.0 && n.is_finite()) => Some(Some(n.clone())),
            Some(_) => return Err(invalid("amount", "must be a number of at least 0, or null")),
        };
        Ok(Change { stage, name, amount })
    }
}

/// `PUT /deals/{id}` `{stage?, name?, amount?}`: the deal moved and edited in
/// one commit with its stage index and counts, on the condition that nobody
/// changed it meanwhile. Winning or losing a deal closes it (the contact may
/// open another from the same form); moving a closed deal back to an open
/// stage is 409 `DEAL_CONFLICT` while the contact has another open deal from
/// that form.
pub fn update(req: &Request, id: &str) -> Result<Response, Error> {
    let change = Change::parse(&crm_sdk::http::json_object(req)?)?;
    for _ in 0..3 {
        let stored = match crm_sdk::is_id(id) {
            true => store::get(key(id).as_bytes())?.ok_or_else(not_found)?,
            false => return Err(not_found()),
        };
        let deal: Deal = serde_json::from_slice(&stored).map_err(Error::internal)?;
        let mut next = deal.clone();
        if let Some(stage) = &change.stage {
            next.stage = stage.clone();
        }
        if let Some(name) = &change.name {
            next.name = name.clone();
        }
        if let Some(amount) = &change.amount {
            next.amount = amount.clone();
        }
        next.updated_at = runtime::now();
        let open = open_key(&deal.contact_id, &deal.form_id);
        let mut conditions = vec![Condition::Equals((key(id).into_bytes(), Some(stored)))];
        let mut writes = vec![Write::Put((key(id).into_bytes(), serde_json::to_vec(&next).map_err(Error::internal)?))];
        if next.stage != deal.stage {
            writes.extend([
                Write::Delete(format!("ds/{}/{}", deal.stage, id).into_bytes()),
                Write::Put((format!("ds/{}/{}", next.stage, id).into_bytes(), Vec::new())),
                Write::Add((stage_count_key(&deal.stage).into_bytes(), -1)),
                Write::Add((stage_count_key(&next.stage).into_bytes(), 1)),
            ]);
            match (is_open(&deal.stage), is_open(&next.stage)) {
                (true, false) if open_deal(&deal.contact_id, &deal.form_id)?.as_deref() == Some(id) => {
                    conditions.push(Condition::Equals((open.clone().into_bytes(), Some(id.as_bytes().to_vec()))));
                    writes.push(Write::Delete(open.into_bytes()));
                }
                (false, true) => {
                    conditions.push(Condition::Equals((open.clone().into_bytes(), None)));
                    writes.push(Write::Put((open.into_bytes(), id.as_bytes().to_vec())));
                }
                _ => {}
            }
        }
        if next.stage != deal.stage {
            crm_sdk::emit("deal.stage_changed", &moved(&next, &deal.stage))?;
        }
        if store::commit(&conditions, &writes)? {
            return Ok(crm_sdk::http::json_response(200, &json!({ "success": true, "data": next })));
        }
        if !is_open(&deal.stage)
            && is_open(&next.stage)
            && open_deal(&deal.contact_id, &deal.form_id)?.is_some_and(|other| other != id)
        {
            return Err(Error::new(409, "DEAL_CONFLICT", "The contact has another open deal from this form")
                .with("dealId", open_deal(&deal.contact_id, &deal.form_id)?));
        }
    }
    Err(Error::new(409, "DEAL_BUSY", "The deal is being changed by another request; try again"))
}

/// A `deal.stage_changed` event's data: the deal after the move, with
/// `fromStage` and `toStage`.
fn moved(deal: &Deal, from: &str) -> Value {
    let mut data = serde_json::to_value(deal).unwrap_or_default();
    if let Value::Object(fields) = &mut data {
        fields.insert("fromStage".into(), json!(from));
        fields.insert("toStage".into(), json!(deal.stage));
    }
    data
}

/// `GET /deals`, newest first; `contactId` and `stage` filter.
pub fn list(req: &Request) -> Result<Response, Error> {
    let paging = Paging::from_query(req, 20, 100)?;
    let stage = query_choice(req, "stage", STAGES)?;
    let contact = query_id(req, "contactId")?;
    let (deals, total) = match (contact, stage) {
        (None, None) => {
            (kv::page_reverse_records::<Deal>("d/", paging.offset(), paging.limit)?, kv::counter(COUNT_KEY)? as usize)
        }
        (None, Some(stage)) => (
            indexed(&format!("ds/{stage}/"), paging.offset(), paging.limit)?,
            kv::counter(&stage_count_key(stage))? as usize,
        ),
        (Some(contact), None) => (
            indexed(&format!("dc/{contact}/"), paging.offset(), paging.limit)?,
            kv::counter(&contact_count_key(contact))? as usize,
        ),
        (Some(contact), Some(stage)) => {
            // A contact's deals are few (one open per form): filter them.
            let all = indexed(&format!("dc/{contact}/"), 0, MAX_CONTACT_DEALS)?;
            let matching: Vec<Deal> = all.into_iter().filter(|d| d.stage == stage).collect();
            let total = matching.len();
            (matching.into_iter().skip(paging.skip()).take(paging.limit).collect(), total)
        }
    };
    Ok(paging.response(&deals, total))
}

/// Deals named by an index (`<prefix><dealId>`), newest first.
fn indexed(prefix: &str, skip: u64, take: usize) -> Result<Vec<Deal>, Error> {
    kv::page_indexed(prefix, skip, take, key)
}
