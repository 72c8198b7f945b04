//! Users of an organization (tokens may act on behalf of one).

use serde::{Deserialize, Serialize};

use super::Tenancy;
use crate::{clock, ids};
use crm_store::{Namespace, StoreResult};

/// Roles a user can have, as the spec spells them.
pub const ROLES: &[&str] = &["propietario", "empleado", "lector"];

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct User {
    pub id: String,
    pub email: String,
    pub first_name: Option<String>,
    pub last_name: Option<String>,
    pub role: Option<String>,
    pub created_at: String,
}

fn user_key(id: &str) -> String {
    format!("users/{id}")
}

impl Tenancy {
    pub fn create_user(
        &self,
        org_id: &str,
        email: String,
        first_name: Option<String>,
        last_name: Option<String>,
        role: Option<String>,
    ) -> StoreResult<User> {
        let user = User { id: ids::new_id(), email, first_name, last_name, role, created_at: clock::now_text() };
        self.write(&Namespace::org(org_id), &user_key(&user.id), &user)?;
        Ok(user)
    }

    pub fn user(&self, org_id: &str, user_id: &str) -> StoreResult<Option<User>> {
        if !ids::is_id(user_id) {
            return Ok(None);
        }
        self.read(&Namespace::org(org_id), &user_key(user_id))
    }
}
