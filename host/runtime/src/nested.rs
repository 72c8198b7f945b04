//! Nested calls: one module of an organization calling another's interface
//! (today the contacts module's `upsert-with`, `upsert-many`, `get` and
//! `conversation`, and `contacts-joined.upsert`), in a fresh instance bound to
//! the same organization, under the nested deadline.

use std::sync::Arc;
use std::time::Duration;

use crate::bindings::contacts_provider::ContactsProvider;
use crate::bindings::contacts_provider::exports::crm::plugin::contacts as exported_contacts;
use crate::bindings::platform::crm::plugin::contacts;
use crate::context::CallContext;
use crate::deferred::Deferred;
use crate::runtime::{HostState, LoadedModule, Runtime};
use crate::turns::Held;

/// How long one `upsert-many` may run: an import of 10,000 rows is one call.
pub const BATCH_DEADLINE: Duration = Duration::from_secs(120);

/// An outcome the contacts module did not give: the call could not be made.
pub(crate) fn failed(status: u16) -> contacts::UpsertOutcome {
    contacts::UpsertOutcome { status, contact_id: None, body: "{}".into() }
}

/// The importing side's options as the contacts component's export takes them.
fn exported(o: contacts::UpsertOptions) -> exported_contacts::UpsertOptions {
    exported_contacts::UpsertOptions {
        attribution: o.attribution,
        lenient_location: o.lenient_location,
        dry_run: o.dry_run,
    }
}

/// An outcome of the contacts component's export, as the caller's import answers it.
fn imported(o: exported_contacts::UpsertOutcome) -> contacts::UpsertOutcome {
    contacts::UpsertOutcome { status: o.status, contact_id: o.contact_id, body: o.body }
}

impl Runtime {
    pub(crate) fn contacts_module(&self) -> Option<Arc<LoadedModule>> {
        self.find_module(|m| m.contacts.is_some())
    }

    /// A fresh instance of the contacts module for a call nested in another,
    /// in its own store; `None` when no module offers contacts. The store
    /// shares its caller's compute turn (the caller is suspended meanwhile)
    /// and passes it on at a tick as the caller would, so an import's nested
    /// upsert of 10,000 rows is sliced like any long call.
    pub(crate) async fn nested_contacts(
        self: &Arc<Self>,
        ctx: Arc<CallContext>,
        turn: Held,
        deadline: Duration,
    ) -> Option<wasmtime::Result<(wasmtime::Store<HostState>, ContactsProvider)>> {
        let module = self.contacts_module()?;
        let pre = module.contacts.as_ref()?;
        let mut store = self.new_store(&module.name, Some(ctx), deadline);
        store.data_mut().turn = turn;
        Some(pre.instantiate_async(&mut store).await.map(|instance| (store, instance)))
    }

    /// The contacts module's `upsert-with`, for another module of the same organization.
    pub(crate) async fn contacts_upsert(
        self: &Arc<Self>,
        ctx: Arc<CallContext>,
        turn: Held,
        body: String,
        options: contacts::UpsertOptions,
    ) -> contacts::UpsertOutcome {
        let Some(started) = self.nested_contacts(ctx, turn, self.nested_deadline).await else { return failed(501) };
        let outcome = async {
            let (mut store, instance) = started?;
            instance.crm_plugin_contacts().call_upsert_with(&mut store, &body, &exported(options)).await
        }
        .await;
        match outcome {
            Ok(o) => imported(o),
            Err(e) => {
                tracing::error!(error = %e, "the contacts module failed a nested upsert");
                failed(500)
            }
        }
    }

    /// The contacts module's `upsert-many` (an import), under [`BATCH_DEADLINE`].
    /// A failed call fails every body.
    pub(crate) async fn contacts_upsert_many(
        self: &Arc<Self>,
        ctx: Arc<CallContext>,
        turn: Held,
        bodies: Vec<String>,
        options: contacts::UpsertOptions,
    ) -> Vec<contacts::UpsertOutcome> {
        self.call_upsert_many(ctx, turn, bodies, options, BATCH_DEADLINE, false).await.0
    }

    /// The WIT's `contacts-joined.upsert`: one body through `upsert-many`, in
    /// a holding instance; the writes it held, for the caller's next commit
    /// (none when the upsert was refused).
    pub(crate) async fn contacts_upsert_joined(
        self: &Arc<Self>,
        ctx: Arc<CallContext>,
        turn: Held,
        body: String,
        options: contacts::UpsertOptions,
    ) -> (contacts::UpsertOutcome, Deferred) {
        let (mut outcomes, held) =
            self.call_upsert_many(ctx, turn, vec![body], options, self.nested_deadline, true).await;
        let outcome = outcomes.pop().unwrap_or_else(|| failed(500));
        let held = if outcome.status < 300 { held } else { Deferred::default() };
        (outcome, held)
    }

    /// `upsert-many` in a fresh contacts instance, `holding` its writes or not.
    async fn call_upsert_many(
        self: &Arc<Self>,
        ctx: Arc<CallContext>,
        turn: Held,
        bodies: Vec<String>,
        options: contacts::UpsertOptions,
        deadline: Duration,
        holding: bool,
    ) -> (Vec<contacts::UpsertOutcome>, Deferred) {
        let count = bodies.len();
        let Some(started) = self.nested_contacts(ctx, turn, deadline).await else {
            return ((0..count).map(|_| failed(501)).collect(), Deferred::default());
        };
        let mut held = Deferred::default();
        let outcome = async {
            let (mut store, instance) = started?;
            store.data_mut().holding = holding;
            let outcomes =
                instance.crm_plugin_contacts().call_upsert_many(&mut store, &bodies, &exported(options)).await;
            held = std::mem::take(&mut store.data_mut().deferred);
            outcomes
        }
        .await;
        let outcomes = match outcome {
            Ok(outcomes) if outcomes.len() == count => outcomes.into_iter().map(imported).collect(),
            Ok(_) => {
                tracing::error!("the contacts module answered a nested upsert-many with the wrong count");
                (0..count).map(|_| failed(500)).collect()
            }
            Err(e) => {
                tracing::error!(error = %e, "the contacts module failed a nested upsert-many");
                (0..count).map(|_| failed(500)).collect()
            }
        };
        (outcomes, held)
    }

    /// The contacts module's `conversation`, for another module of the same organization.
    pub(crate) async fn contacts_conversation(
        self: &Arc<Self>,
        ctx: Arc<CallContext>,
        turn: Held,
        id: String,
    ) -> Option<String> {
        let (mut store, instance) = self.nested_contacts(ctx, turn, self.nested_deadline).await?.ok()?;
        instance.crm_plugin_contacts().call_conversation(&mut store, &id).await.ok().flatten()
    }

    /// The contacts module's `get`, for another module of the same organization.
    pub(crate) async fn contacts_get(
        self: &Arc<Self>,
        ctx: Arc<CallContext>,
        turn: Held,
        id: String,
    ) -> Option<String> {
        let (mut store, instance) = self.nested_contacts(ctx, turn, self.nested_deadline).await?.ok()?;
        instance.crm_plugin_contacts().call_get(&mut store, &id).await.ok().flatten()
    }
}
