//! The default pipelines every organization has. The modules that move
//! deals (forms), react to a move (automations) or list pipelines
//! (pipelines) read their stages and ids from here, so each names them alike
//! without asking another.

/// The stage a new deal starts in.
pub const DEAL_FIRST_STAGE: &str = "new";
/// The stages of the default deal pipeline, in order.
pub const DEAL_STAGES: &[&str] = &[DEAL_FIRST_STAGE, "qualified", "proposal", "won", "lost"];
/// The stages of the default conversation pipeline, in order.
pub const CONVERSATION_STAGES: &[&str] = &["new", "in_progress", "closed"];

/// What sets a kind's default pipeline id apart from the organization's id.
fn mask(kind: &str) -> [u8; 12] {
    match kind {
        "deals" => *b"\x0d\xea\x15pipeline\x01",
        _ => *b"\xc0\x4e\x00pipeline\x02",
    }
}

/// The id (24 hex characters, like every id) of organization `org_id`'s
/// default pipeline of `kind` (`deals` or `conversations`): the organization
/// id with a fixed pattern per kind, so it is the same in every module and
/// distinct between organizations.
pub fn default_pipeline_id(org_id: &str, kind: &str) -> String {
    derive(org_id, &mask(kind), 0)
}

/// The id of the `index`-th stage of a default pipeline.
pub fn default_stage_id(pipeline_id: &str, index: usize) -> String {
    derive(pipeline_id, &[0; 12], index as u8 + 1)
}

fn derive(id: &str, mask: &[u8; 12], last: u8) -> String {
    let mut bytes = crm_sdk::id_bytes(id);
    for (byte, mask) in bytes.iter_mut().zip(mask) {
        *byte ^= mask;
    }
    bytes[11] ^= last;
    crm_sdk::id_text(&bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_ids_are_ids_distinct_per_kind_organization_and_stage() {
        let org = "6b052f4b0000138387408ed5";
        let deals = default_pipeline_id(org, "deals");
        let conversations = default_pipeline_id(org, "conversations");
        assert!(crm_sdk::is_id(&deals) && crm_sdk::is_id(&conversations));
        assert_ne!(deals, conversations);
        assert_ne!(deals, default_pipeline_id("6b052f4b0000138387408ed6", "deals"));
        assert_eq!(deals, default_pipeline_id(org, "deals"), "the same every time");
        let stages: Vec<String> = (0..5).map(|i| default_stage_id(&deals, i)).collect();
        assert!(stages.iter().all(|s| crm_sdk::is_id(s) && *s != deals));
        assert_eq!(stages.iter().collect::<std::collections::BTreeSet<_>>().len(), 5);
    }
}
