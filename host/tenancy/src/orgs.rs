//! Organizations: the tenants. Each has a plan, optional module and limit
//! overrides, and its own store namespace.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::Tenancy;
use super::plans::{self, Plan};
use crate::{clock, ids};
use crm_store::{Namespace, StoreError, StoreResult};

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
        Err(StoreError(format!("organization {id} kept changing while it was updated")).into())
    }

    pub fn list_orgs(&self) -> StoreResult<Vec<Org>> {
        self.store()
            .scan(&Namespace::system(), b"orgs/", None, usize::MAX)?
            .into_iter()
            .map(|(k, v)| {
                serde_json::from_slice(&v)
                    .map_err(|e| crm_store::StoreError(format!("corrupt record {}: {e}", String::from_utf8_lossy(&k))))
            })
            .collect()
    }

    /// Deletes the organization and all its data. Its tokens stay on record and
    /// answer 401 `ORGANIZATION_NOT_FOUND`. Returns whether it existed.
    pub fn delete_org(&self, id: &str) -> StoreResult<bool> {
        if self.org(id)?.is_none() {
            return Ok(false);
        }
        self.store().delete(&Namespace::system(), org_key(id).as_bytes())?;
        self.store().drop_namespace(&Namespace::org(id))?;
        Ok(true)
    }
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

    #[test]
    fn an_unknown_plan_enables_nothing() {
        let o = org("legacy", &[]);
        assert!(o.plan().is_none());
        assert!(!o.module_enabled("api"));
    }
}
