//! Who a call is for.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crm_store::{Store, StoreError};
use crm_tenancy::Org;

use crate::bindings::platform::crm::plugin::types;

/// Who a call is for: the organization its instance is bound to and the
/// caller's token.
#[derive(Clone)]
pub struct CallContext {
    pub org: Org,
    pub token_id: String,
    pub user_id: Option<String>,
    pub permissions: Vec<String>,
    pub request_id: String,
    /// The store the call (and the calls it nests) goes through, when not
    /// the runtime's: an edge host's read, through its replica.
    pub store: Option<Arc<dyn Store>>,
    /// Set when a store call of this call (or of one it nests) failed
    /// because the store could not be reached: no primary answering. Its
    /// 5xx is then a 503 the client may retry.
    pub unreachable: Unreachable,
}

/// Whether a call's store could not be reached, shared by the instances it nests.
#[derive(Clone, Default)]
pub struct Unreachable(Arc<AtomicBool>);

impl Unreachable {
    /// Whether a store call of the call could not reach the store.
    pub fn was_noted(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    pub(crate) fn note(&self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// A store failure as the component sees it (`store failure`), logged with
/// what it was `during`. One that says the store cannot be reached is noted
/// on the call `ctx`, so that its 5xx answers 503
/// ([`Unreachable`]): every import that reaches the store
/// answers its failures through here.
pub(crate) fn store_failure(ctx: Option<&CallContext>, during: &str, e: StoreError) -> String {
    if e.is_unavailable() {
        tracing::warn!(error = %e, during, "a component call's store cannot be reached");
        if let Some(ctx) = ctx {
            ctx.unreachable.note();
        }
    } else {
        tracing::error!(error = %e, during, "store failure in a component call");
    }
    "store failure".into()
}

impl std::fmt::Debug for CallContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallContext")
            .field("org", &self.org.id)
            .field("token_id", &self.token_id)
            .field("request_id", &self.request_id)
            .field("own_store", &self.store.is_some())
            .finish()
    }
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
            store: None,
            unreachable: Unreachable::default(),
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
            store: None,
            unreachable: Unreachable::default(),
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
