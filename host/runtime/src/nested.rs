//! Nested calls: one module of an organization calling another's interface
//! (today the contacts module's `upsert-with`, `upsert-many`, `get` and
//! `conversation`, and `contacts-joined.upsert`), in a fresh instance bound to
//! the same organization, under the nested deadline.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::bindings::contacts_provider::ContactsProvider;
use crate::bindings::contacts_provider::exports::crm::plugin::contacts as exported_contacts;
use crate::bindings::platform::crm::plugin::contacts;
use crate::context::CallContext;
use crate::deferred::Deferred;
use crate::runtime::HostState;
use crate::runtime::{LoadedModule, Runtime};
use crate::turns::Held;

/// How long one `upsert-many` may run: an import of 10,000 rows is one call.
pub const BATCH_DEADLINE: Duration = Duration::from_secs(120);

/// An outcome the contacts module did not give: the call could not be made
/// (501: no module offers contacts).
pub(crate) fn failed(status: u16) -> contacts::UpsertOutcome {
    let body = serde_json::json!({
        "success": false,
        "code": "INTERNAL_SERVER_ERROR",
        "message": "The contacts module could not be called",
    });
    contacts::UpsertOutcome { status, contact_id: None, body: body.to_string() }
}

/// The outcome of the body a contacts instance trapped on (a bug, logged
/// without the body): the other bodies of its call go on.
pub(crate) fn trapped_row() -> contacts::UpsertOutcome {
    let body = serde_json::json!({
        "success": false,
        "code": "INTERNAL_ROW_ERROR",
        "message": "The contacts module failed on this row; the other rows went on",
    });
    contacts::UpsertOutcome { status: 500, contact_id: None, body: body.to_string() }
}

/// How one instance's `upsert-many` ended.
enum Ran {
    /// It answered: the outcomes it settled as it went, then its answer's,
    /// and the writes it held.
    Answered(Vec<contacts::UpsertOutcome>, Deferred),
    /// It trapped, having settled the first bodies and begun the one at
    /// `begun` (indexes in the list it was given).
    Trapped { settled: Vec<contacts::UpsertOutcome>, begun: Option<usize> },
    /// No instance ran: every body answers this status.
    NotRun(u16),
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
        store.data_mut().compute.turn = turn;
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

    /// `upsert-many` in fresh contacts instances, `holding` their writes or
    /// not. A trap costs only the body the instance had begun (told through
    /// `upsert-progress`): that body answers [`trapped_row`], what was
    /// settled before it stays, the bodies it had prepared but not committed
    /// run again, and a fresh instance goes on after it. Without that word
    /// (a contacts module built before 1.2.0), or once the deadline has
    /// passed, every body not settled answers 500.
    async fn call_upsert_many(
        self: &Arc<Self>,
        ctx: Arc<CallContext>,
        turn: Held,
        bodies: Vec<String>,
        options: contacts::UpsertOptions,
        deadline: Duration,
        holding: bool,
    ) -> (Vec<contacts::UpsertOutcome>, Deferred) {
        let until = Instant::now() + deadline;
        let mut outcomes = Vec::with_capacity(bodies.len());
        let mut held = Deferred::default();
        // The body a trap was blamed on, answered once those before it are.
        let mut blamed: Option<usize> = None;
        while outcomes.len() < bodies.len() {
            let start = outcomes.len();
            if blamed == Some(start) {
                outcomes.push(trapped_row());
                blamed = None;
                continue;
            }
            let end = blamed.unwrap_or(bodies.len());
            let part = bodies.get(start..end).unwrap_or_default();
            let left = until.saturating_duration_since(Instant::now());
            match self.run_upsert_many(ctx.clone(), turn.clone(), part, &options, left, holding).await {
                Ran::Answered(answered, more) if answered.len() == part.len() => {
                    outcomes.extend(answered);
                    held.join(more);
                }
                Ran::Answered(..) => {
                    tracing::error!("the contacts module answered a nested upsert-many with the wrong count");
                    outcomes.resize_with(bodies.len(), || failed(500));
                }
                Ran::Trapped { settled, begun } => {
                    let settled_all = settled.len() <= part.len();
                    outcomes.extend(settled.into_iter().take(part.len()));
                    let culprit = begun.map(|b| start + b).filter(|b| (outcomes.len()..end).contains(b));
                    match culprit {
                        Some(b) if settled_all && Instant::now() < until => blamed = Some(b),
                        _ => outcomes.resize_with(bodies.len(), || failed(500)),
                    }
                }
                Ran::NotRun(status) => outcomes.resize_with(bodies.len(), || failed(status)),
            }
        }
        (outcomes, held)
    }

    /// One contacts instance's `upsert-many` of `bodies`.
    async fn run_upsert_many(
        self: &Arc<Self>,
        ctx: Arc<CallContext>,
        turn: Held,
        bodies: &[String],
        options: &contacts::UpsertOptions,
        deadline: Duration,
        holding: bool,
    ) -> Ran {
        let Some(started) = self.nested_contacts(ctx, turn, deadline).await else { return Ran::NotRun(501) };
        let (mut store, instance) = match started {
            Ok(started) => started,
            Err(e) => {
                tracing::error!(error = %e, "the contacts module could not be instantiated for an upsert-many");
                return Ran::NotRun(500);
            }
        };
        store.data_mut().writes.holding = holding;
        let answer =
            instance.crm_plugin_contacts().call_upsert_many(&mut store, bodies, &exported(options.clone())).await;
        let state = store.data_mut();
        let progress = std::mem::take(&mut state.progress);
        match answer {
            Ok(answer) => {
                let mut outcomes = progress.settled;
                outcomes.extend(answer.into_iter().map(imported));
                Ran::Answered(outcomes, std::mem::take(&mut state.writes.deferred))
            }
            Err(e) => {
                // The error names the trap and the code it hit, never a body's text.
                tracing::error!(
                    error = %e,
                    settled = progress.settled.len(),
                    begun = progress.begun,
                    "the contacts module trapped in an upsert-many"
                );
                Ran::Trapped { settled: progress.settled, begun: progress.begun.map(|b| b as usize) }
            }
        }
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
