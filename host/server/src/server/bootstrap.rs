//! What the first start does beside the admin token (`admin/token.rs`): the
//! host's name and the demo organization.

use std::fs;
use std::path::Path;

use crm_store::{Namespace, StoreResult};
use crm_tenancy::{Tenancy, plans, secrets};

const HOST_ID_FILE: &str = "host-id";
const BOOTSTRAPPED_KEY: &[u8] = b"meta/bootstrapped";

/// This host's name among the hosts sharing a store (the holder of its
/// leases): generated on the first start of a data dir and kept there, so a
/// restarted host takes its own leases back at once.
pub fn host_id(data_dir: &Path) -> std::io::Result<String> {
    let path = data_dir.join(HOST_ID_FILE);
    if let Ok(id) = fs::read_to_string(&path)
        && !id.trim().is_empty()
    {
        return Ok(id.trim().to_string());
    }
    let id = format!("host_{}", secrets::random_secret().chars().take(16).collect::<String>());
    fs::write(&path, format!("{id}\n"))?;
    Ok(id)
}

/// The demo organization, its owner and a `*` token; created only on the first
/// start of an empty store (claimed first, so of hosts starting together on
/// one database only one makes it). Returns the org id and token text when created.
pub fn demo_org(tenancy: &Tenancy) -> StoreResult<Option<(String, String)>> {
    let store = tenancy.store();
    if store.compare_and_swap(&Namespace::system(), BOOTSTRAPPED_KEY, None, Some(b"claimed"))?.is_err() {
        return Ok(None);
    }
    let org = tenancy.create_org(
        "Demo Organization".into(),
        plans::DEFAULT_PLAN.into(),
        Default::default(),
        Default::default(),
    )?;
    let owner = tenancy.create_user(
        &org.id,
        "owner@demo.example".into(),
        Some("Demo".into()),
        Some("Owner".into()),
        Some("propietario".into()),
    )?;
    let (_, token) = tenancy.issue_token(&org.id, "demo".into(), vec!["*".into()], None, Some(owner.id))?;
    store.put(&Namespace::system(), BOOTSTRAPPED_KEY, org.id.as_bytes())?;
    Ok(Some((org.id, token)))
}
