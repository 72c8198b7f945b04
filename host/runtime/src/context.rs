//! Who a call is for.

use crm_tenancy::Org;

use crate::bindings::platform::crm::plugin::types;

/// Who a call is for: the organization its instance is bound to and the
/// caller's token.
#[derive(Debug, Clone)]
pub struct CallContext {
    pub org: Org,
    pub token_id: String,
    pub user_id: Option<String>,
    pub permissions: Vec<String>,
    pub request_id: String,
}

impl CallContext {
    /// A call the host makes itself on `org` (an admin route, the tracking
    /// webhook, the scheduler): every permission, token id `admin`.
    pub fn admin(org: Org, request_id: &str) -> CallContext {
        CallContext {
            org,
            token_id: "admin".into(),
            user_id: None,
            permissions: vec!["*".into()],
            request_id: request_id.to_string(),
        }
    }

    /// A visitor of a public route of `org` (a form's public door): no token,
    /// no permission.
    pub fn public(org: Org, request_id: &str) -> CallContext {
        CallContext {
            org,
            token_id: "public".into(),
            user_id: None,
            permissions: Vec::new(),
            request_id: request_id.to_string(),
        }
    }

    /// The caller of an instance bound to no organization.
    pub(crate) fn nobody() -> types::Caller {
        types::Caller { org_id: String::new(), token_id: "public".into(), user_id: None, permissions: Vec::new() }
    }

    /// The caller as the component's `handle` receives it.
    pub(crate) fn caller(&self) -> types::Caller {
        types::Caller {
            org_id: self.org.id.clone(),
            token_id: self.token_id.clone(),
            user_id: self.user_id.clone(),
            permissions: self.permissions.clone(),
        }
    }
}
