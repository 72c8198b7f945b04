//! Organizations: the tenants. Each has a plan, optional module and limit
//! overrides, and its own store namespace.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::Tenancy;
use super::plans::{self, Plan};
use crate::{clock, ids};
use chrono::{DateTime, Utc};
use crm_store::{BatchOp, Condition, Namespace, StoreError, StoreResult};

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct LimitOverrides {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub contacts: Option<u64>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Org {
    pub id: String,
    pub name: String,
    pub plan: String,
    /// Module switches set on this organization, over its plan's.
    pub module_overrides: BTreeMap<String, bool>,
    pub limit_overrides: LimitOverrides,
    pub created_at: String,
    pub updated_at: String,
}

impl Org {
    /// `None` when the stored plan name is not a known plan.
    pub fn plan(&self) -> Option<&'static Plan> {
        plans::plan(&self.plan)
    }

    /// The plan's modules with this organization's overrides on top.
    pub fn effective_modules(&self) -> BTreeMap<String, bool> {
        let mut modules = self.plan().map(Plan::modules).unwrap_or_default();
        modules.extend(self.module_overrides.iter().map(|(k, v)| (k.clone(), *v)));
        modules
    }

    pub fn module_enabled(&self, module: &str) -> bool {
        match self.module_overrides.get(module) {
            Some(&on) => on,
            None => self.plan().is_some_and(|p| !p.modules_off.contains(&module) && plans::MODULES.contains(&module)),
        }
    }

    /// Most contacts this organization may hold; `None` is unlimited.
    pub fn contact_limit(&self) -> Option<u64> {
        self.limit_overrides.contacts.or_else(|| self.plan().and_then(|p| p.contact_limit))
    }

    /// The admin API's view: effective modules and limits.
    pub fn to_admin_json(&self) -> Value {
        json!({
            "id": self.id,
            "name": self.name,
            "plan": self.plan,
            "modules": self.effective_modules(),
            "limits": { "contacts": self.contact_limit() },
            "createdAt": self.created_at,
            "updatedAt": self.updated_at,
        })
    }

    pub fn namespace(&self) -> Namespace {
        Namespace::org(&self.id)
    }
}

/// Updates that find the organization changed before they give up.
const UPDATE_ROUNDS: usize = 16;

fn org_key(id: &str) -> String {
    format!("orgs/{id}")
}

impl Tenancy {
    pub fn create_org(
        &self,
        name: String,
        plan: String,
        module_overrides: BTreeMap<String, bool>,
        limit_overrides: LimitOverrides,
    ) -> StoreResult<Org> {
        let now = clock::now_text();
        let org = Org {
            id: ids::new_id(),
            name,
            plan,
            module_overrides,
            limit_overrides,
            created_at: now.clone(),
            updated_at: now,
        };
        self.write(&Namespace::system(), &org_key(&org.id), &org)?;
        Ok(org)
    }

    pub fn org(&self, id: &str) -> StoreResult<Option<Org>> {
        if !ids::is_id(id) {
            return Ok(None);
        }
        self.read(&Namespace::system(), &org_key(id))
    }

    /// Changes organization `id` with `change` and saves it, only if nobody
    /// changed or deleted it since it was read (else it reads it again):
    /// two updates at once both land, and an organization deleted meanwhile
    /// is not brought back. `None`: there is no such organization.
    pub fn update_org<E: From<StoreError>>(
        &self,
        id: &str,
        mut change: impl FnMut(&mut Org) -> Result<(), E>,
    ) -> Result<Option<Org>, E> {
        if !ids::is_id(id) {
            return Ok(None);
        }
        let (ns, key) = (Namespace::system(), org_key(id));
        for _ in 0..UPDATE_ROUNDS {
            let Some(read) = self.store().get(&ns, key.as_bytes())? else { return Ok(None) };
            let mut org: Org = crate::parse(&key, &read)?;
            change(&mut org)?;
            let bytes = serde_json::to_vec(&org).expect("records serialise");
            if self.store().compare_and_swap(&ns, key.as_bytes(), Some(&read), Some(&bytes))?.is_ok() {
                return Ok(Some(org));
            }
        }
        Err(StoreError::new(format!("organization {id} kept changing while it was updated")).into())
    }

    pub fn list_orgs(&self) -> StoreResult<Vec<Org>> {
        self.store()
            .scan(&Namespace::system(), b"orgs/", None, usize::MAX)?
            .into_iter()
            .map(|(k, v)| {
                serde_json::from_slice(&v).map_err(|e| {
                    crm_store::StoreError::new(format!("corrupt record {}: {e}", String::from_utf8_lossy(&k)))
                })
            })
            .collect()
    }

    /// Deletes the organization and all its data, leaving a tombstone for
    /// [`Tenancy::sweep_deleted`]. Its tokens stay on record and answer 401
    /// `ORGANIZATION_NOT_FOUND`. Returns whether it existed; of two deletes
    /// at once, one answers `true`.
    pub fn delete_org(&self, id: &str) -> StoreResult<bool> {
        if !ids::is_id(id) {
            return Ok(false);
        }
        let (system, key) = (Namespace::system(), org_key(id));
        let tombstone = serde_json::to_vec(&Tombstone { deleted_at: clock::now_text() }).expect("records serialise");
        for _ in 0..UPDATE_ROUNDS {
            let Some(stored) = self.store().get(&system, key.as_bytes())? else {
                return Ok(false);
            };
            let removed = vec![Condition::Equals(key.clone().into_bytes(), Some(stored))];
            let ops = vec![
                BatchOp::Delete(key.clone().into_bytes()),
                BatchOp::Put(tombstone_key(id).into_bytes(), tombstone.clone()),
            ];
            if self.store().batch_if(&system, removed, ops)? {
                self.store().drop_namespace(&Namespace::org(id))?;
                return Ok(true);
            }
        }
        Err(StoreError::new(format!("organization {id} kept changing while being deleted")))
    }

    /// Drops the namespaces of organizations deleted in the last
    /// [`TOMBSTONE_KEPT`] again, and forgets older tombstones. A call that
    /// read the organization just before its delete (an API request, an
    /// admin call, a webhook attempt) may still write after the namespace
    /// was dropped, which opens it anew; nobody reads it any more, since
    /// organization ids are never reused, so this only gives the space back.
    /// A drop of a namespace that is not there costs a lookup (reading it
    /// first would open it anew on sled). Answers how many were dropped.
    pub fn sweep_deleted(&self, now: DateTime<Utc>) -> StoreResult<usize> {
        let system = Namespace::system();
        let mut start: Option<Vec<u8>> = None;
        let mut swept = 0;
        loop {
            let page = self.store().scan(&system, TOMBSTONES.as_bytes(), start.as_deref(), SWEEP_PAGE)?;
            for (key, value) in &page {
                let id = String::from_utf8_lossy(key.strip_prefix(TOMBSTONES.as_bytes()).unwrap_or(key)).into_owned();
                self.store().drop_namespace(&Namespace::org(&id))?;
                swept += 1;
                let deleted_at =
                    serde_json::from_slice::<Tombstone>(value).ok().and_then(|t| clock::parse(&t.deleted_at));
                if deleted_at.is_none_or(|at| now - at > TOMBSTONE_KEPT) {
                    self.store().delete(&system, key)?;
                }
            }
            match page.last() {
                Some((last, _)) if page.len() == SWEEP_PAGE => start = Some(crm_store::key_after(last)),
                _ => return Ok(swept),
            }
        }
    }
}

/// How long a deleted organization's tombstone is kept: far longer than a
/// call that read the organization before its delete may go on writing.
pub const TOMBSTONE_KEPT: chrono::TimeDelta = chrono::TimeDelta::days(1);
/// Tombstones read at a time by [`Tenancy::sweep_deleted`].
const SWEEP_PAGE: usize = 256;
const TOMBSTONES: &str = "deleted-orgs/";

fn tombstone_key(id: &str) -> String {
    format!("{TOMBSTONES}{id}")
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Tombstone {
    deleted_at: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn org(plan: &str, overrides: &[(&str, bool)]) -> Org {
        Org {
            id: ids::new_id(),
            name: "x".into(),
            plan: plan.into(),
            module_overrides: overrides.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
            limit_overrides: LimitOverrides::default(),
            created_at: String::new(),
            updated_at: String::new(),
        }
    }

    #[test]
    fn overrides_win_over_the_plan() {
        let free = org("free", &[("api", true)]);
        assert!(free.module_enabled("api"));
        assert!(!free.module_enabled("shipping"));
        assert!(free.effective_modules()["api"]);
        let pro = org("pro", &[("shipping", false)]);
        assert!(!pro.module_enabled("shipping"));
        assert!(pro.module_enabled("contacts"));
    }

    #[test]
    fn contact_limits_follow_plan_unless_overridden() {
        assert_eq!(org("free", &[]).contact_limit(), Some(100));
        assert_eq!(org("unlimited", &[]).contact_limit(), None);
        let mut o = org("pro", &[]);
        o.limit_overrides.contacts = Some(5);
        assert_eq!(o.contact_limit(), Some(5));
    }

    fn tenancy() -> (Tenancy, tempfile::TempDir) {
        let dir = tempfile::tempdir().unwrap();
        let store = crm_store::SledStore::open(dir.path()).unwrap();
        (Tenancy::new(std::sync::Arc::new(store)), dir)
    }

    /// Another update lands between this one's read and its write: this one
    /// reads again, and both changes stand.
    #[test]
    fn an_update_racing_another_keeps_both() {
        let (tenancy, _dir) = tenancy();
        let id =
            tenancy.create_org("Acme".into(), "pro".into(), BTreeMap::new(), LimitOverrides::default()).unwrap().id;
        let mut rounds = 0;
        let updated = tenancy
            .update_org(&id, |org| -> Result<(), StoreError> {
                rounds += 1;
                if rounds == 1 {
                    let other = tenancy.update_org(&id, |o| -> Result<(), StoreError> {
                        o.plan = "free".into();
                        Ok(())
                    });
                    assert!(other.unwrap().is_some());
                }
                org.name = "Renamed".into();
                Ok(())
            })
            .unwrap()
            .unwrap();
        assert_eq!(rounds, 2, "the first write was refused: the record had changed");
        let stored = tenancy.org(&id).unwrap().unwrap();
        assert_eq!((updated.name.as_str(), updated.plan.as_str()), ("Renamed", "free"));
        assert_eq!((stored.name.as_str(), stored.plan.as_str()), ("Renamed", "free"));
    }

    /// The organization is deleted between an update's read and its write:
    /// the update finds nothing and does not bring it back.
    #[test]
    fn an_update_racing_a_delete_does_not_revive_it() {
        let (tenancy, _dir) = tenancy();
        let id =
            tenancy.create_org("Acme".into(), "pro".into(), BTreeMap::new(), LimitOverrides::default()).unwrap().id;
        let updated = tenancy
            .update_org(&id, |org| -> Result<(), StoreError> {
                if tenancy.org(&id)?.is_some() {
                    assert!(tenancy.delete_org(&id)?);
                }
                org.name = "Renamed".into();
                Ok(())
            })
            .unwrap();
        assert!(updated.is_none());
        assert!(tenancy.org(&id).unwrap().is_none(), "revived");
        assert!(tenancy.update_org(&ids::new_id(), |_| -> Result<(), StoreError> { Ok(()) }).unwrap().is_none());
    }

    /// A write that read the organization before its delete lands after the
    /// drop (it opens the namespace anew): the sweep drops it again, leaves
    /// live organizations alone, and forgets the tombstone after a day.
    #[test]
    fn a_write_after_the_delete_is_swept() {
        let (tenancy, _dir) = tenancy();
        let store = tenancy.store().clone();
        let create = || tenancy.create_org("Acme".into(), "pro".into(), BTreeMap::new(), LimitOverrides::default());
        let (gone, live) = (create().unwrap().id, create().unwrap().id);
        store.put(&Namespace::org(&live), b"contacts/1", b"{}").unwrap();
        assert!(tenancy.delete_org(&gone).unwrap());
        assert!(!tenancy.delete_org(&gone).unwrap(), "deleted once");
        store.put(&Namespace::org(&gone), b"contacts/late", b"{}").unwrap();

        let now = clock::now();
        assert_eq!(tenancy.sweep_deleted(now).unwrap(), 1);
        assert!(store.scan(&Namespace::org(&gone), b"", None, 10).unwrap().is_empty(), "the late write stayed");
        let live_data = store.scan(&Namespace::org(&live), b"", None, 10).unwrap();
        assert_eq!(live_data.len(), 1, "a live organization lost data");
        let tombstones = || store.scan(&Namespace::system(), TOMBSTONES.as_bytes(), None, 10).unwrap().len();
        assert_eq!(tombstones(), 1, "a day's late writes are still swept");

        assert_eq!(tenancy.sweep_deleted(now + TOMBSTONE_KEPT * 2).unwrap(), 1);
        assert_eq!(tombstones(), 0, "kept for good");
        assert_eq!(tenancy.sweep_deleted(now).unwrap(), 0);
        assert!(tenancy.org(&live).unwrap().is_some());
    }

    #[test]
    fn of_deletes_at_once_one_deletes() {
        let (tenancy, _dir) = tenancy();
        let id =
            tenancy.create_org("Acme".into(), "pro".into(), BTreeMap::new(), LimitOverrides::default()).unwrap().id;
        let deleted: usize = std::thread::scope(|scope| {
            let deletes: Vec<_> = (0..8).map(|_| scope.spawn(|| tenancy.delete_org(&id).unwrap())).collect();
            deletes.into_iter().map(|d| usize::from(d.join().unwrap())).sum()
        });
        assert_eq!(deleted, 1);
    }

    #[test]
    fn an_unknown_plan_enables_nothing() {
        let o = org("legacy", &[]);
        assert!(o.plan().is_none());
        assert!(!o.module_enabled("api"));
    }
}
