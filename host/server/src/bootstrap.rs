//! What the first start does: the admin token and the demo organization.

use std::fs;
use std::io::Write;
use std::path::Path;

use crm_store::{Namespace, StoreResult};
use crm_tenancy::{Tenancy, plans, secrets};

const ADMIN_TOKEN_FILE: &str = "admin-token";
const BOOTSTRAPPED_KEY: &[u8] = b"meta/bootstrapped";

/// The admin token: `CRM_ADMIN_TOKEN` when set, else the one in the data dir,
/// else a new one written there (mode 0600) and printed once.
pub fn admin_token(data_dir: &Path) -> std::io::Result<String> {
    if let Ok(token) = std::env::var("CRM_ADMIN_TOKEN")
        && !token.trim().is_empty()
    {
        return Ok(token.trim().to_string());
    }
    let path = data_dir.join(ADMIN_TOKEN_FILE);
    if let Ok(token) = fs::read_to_string(&path) {
        return Ok(token.trim().to_string());
    }
    let token = format!("adm_{}", secrets::random_secret());
    let mut file = open_private(&path)?;
    writeln!(file, "{token}")?;
    file.sync_all()?;
    println!("crm-host: generated the admin token (stored in {}): {token}", path.display());
    Ok(token)
}

/// Reads the admin token a running host uses, for the admin CLI.
pub fn read_admin_token(data_dir: &Path) -> Option<String> {
    fs::read_to_string(data_dir.join(ADMIN_TOKEN_FILE)).ok().map(|t| t.trim().to_string())
}

#[cfg(unix)]
fn open_private(path: &Path) -> std::io::Result<fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(path)
}

#[cfg(not(unix))]
fn open_private(path: &Path) -> std::io::Result<fs::File> {
    fs::OpenOptions::new().write(true).create_new(true).open(path)
}

/// The demo organization, its owner and a `*` token; created only on the first
/// start of an empty data dir. Returns the org id and token text when created.
pub fn demo_org(tenancy: &Tenancy) -> StoreResult<Option<(String, String)>> {
    let store = tenancy.store();
    if store.get(&Namespace::system(), BOOTSTRAPPED_KEY)?.is_some() {
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
