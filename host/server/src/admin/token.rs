//! The admin API's token: taken from `CRM_ADMIN_TOKEN`, or generated on a
//! first start and kept in the data dir (mode 0600) for the admin CLI, and on
//! a shared store as a digest every host accepts.

use std::error::Error;
use std::fs;
use std::io::Write;
use std::path::Path;

use crm_store::{Namespace, Store, StoreResult};
use crm_tenancy::secrets;

use crate::console::tell_operator;

const ADMIN_TOKEN_FILE: &str = "admin-token";
/// On a shared store: the digest of the admin token every host accepts.
const ADMIN_TOKEN_DIGEST_KEY: &[u8] = b"meta/admin-token-sha256";

/// The digest of the admin token this host accepts:
/// - `CRM_ADMIN_TOKEN` when set;
/// - on a shared store (`--store-url`), the one kept in the store: the first
///   host to start generates it (one winner among hosts starting together);
///   a host that did not generate it accepts it without knowing it;
/// - else the one in the data dir, or a new one written there.
///
/// A generated token is written to the data dir (mode 0600) for the admin
/// CLI on this machine, and only its place is printed: stdout often ends in
/// a log (a container's) that keeps what it is given.
pub fn digest(data_dir: &Path, store: &dyn Store, shared: bool) -> Result<String, Box<dyn Error>> {
    if let Ok(token) = std::env::var("CRM_ADMIN_TOKEN")
        && !token.trim().is_empty()
    {
        return Ok(secrets::digest(token.trim()));
    }
    let path = data_dir.join(ADMIN_TOKEN_FILE);
    let local = fs::read_to_string(&path).ok().map(|t| t.trim().to_string());
    if !shared {
        return match local {
            Some(token) => Ok(secrets::digest(&token)),
            None => {
                let token = format!("adm_{}", secrets::random_secret());
                keep(&path, &token)?;
                Ok(secrets::digest(&token))
            }
        };
    }
    if let Some(digest) = store.get(&Namespace::system(), ADMIN_TOKEN_DIGEST_KEY)? {
        return Ok(String::from_utf8_lossy(&digest).into_owned());
    }
    // The first start on this database: the token of this data dir, if any
    // (a store copied from an embedded one keeps its token), else a new one.
    let (token, fresh) = match local {
        Some(token) => (token, false),
        None => (format!("adm_{}", secrets::random_secret()), true),
    };
    let digest = secrets::digest(&token);
    if let Err(winner) =
        store.compare_and_swap(&Namespace::system(), ADMIN_TOKEN_DIGEST_KEY, None, Some(digest.as_bytes()))?
    {
        return Ok(String::from_utf8_lossy(&winner.unwrap_or_default()).into_owned());
    }
    if fresh {
        keep(&path, &token)?;
    }
    Ok(digest)
}

/// After a copy from the embedded store of `data_dir` into a shared one:
/// hosts of the shared store accept the data dir's admin token, unless the
/// shared store already has one.
pub fn carry(data_dir: &Path, destination: &dyn Store) -> StoreResult<()> {
    if let Ok(token) = fs::read_to_string(data_dir.join(ADMIN_TOKEN_FILE)) {
        let digest = secrets::digest(token.trim());
        let _ = destination.compare_and_swap(
            &Namespace::system(),
            ADMIN_TOKEN_DIGEST_KEY,
            None,
            Some(digest.as_bytes()),
        )?;
    }
    Ok(())
}

/// Writes a generated admin token to `path` (mode 0600) and says where.
fn keep(path: &Path, token: &str) -> std::io::Result<()> {
    let mut file = open_private(path)?;
    writeln!(file, "{token}")?;
    file.sync_all()?;
    tell_operator(format_args!(
        "crm-host: generated the admin token; it is in {} (mode 0600), where `crm-host admin` reads it",
        path.display()
    ));
    Ok(())
}

/// Reads the admin token a running host uses, for the admin CLI.
pub fn read(data_dir: &Path) -> Option<String> {
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
