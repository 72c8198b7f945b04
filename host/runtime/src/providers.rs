//! Calls into shipping providers and into the shipments module's
//! `tracking-sink`.
//!
//! A provider instance is bound to one organization like a module instance,
//! but it gets no store: only its integration settings and outbound HTTP to
//! the hosts it declared plus the URLs the organization configured. A call
//! that outlives the provider timeout, or traps, is an unknown outcome: the
//! provider may have acted before it stopped.

use std::sync::Arc;
use std::time::Duration;

use crm_tenancy::Org;

use crate::bindings::platform::crm::plugin::shipping_types::{Failure, ProviderError, TrackingUpdate};
use crate::bindings::provider_component::ProviderComponent;
use crate::bindings::shipments_module::exports::crm::plugin::tracking_sink::Applied;
use crate::context::CallContext;
use crate::integrations;
use crate::outbound::Allowlist;
use crate::runtime::{HostState, ProviderScope};
use crate::runtime::{Kind, LoadedModule, Runtime};

/// How long the scheduler's refresh of one organization may run.
const REFRESH_DEADLINE: Duration = Duration::from_secs(60);

pub fn rejected(code: &str, message: &str) -> ProviderError {
    ProviderError::Rejected(failure(code, message))
}

fn unknown_outcome(code: &str, message: &str) -> ProviderError {
    ProviderError::UnknownOutcome(failure(code, message))
}

/// Runs a provider call under the provider timeout; a timeout or a trap is
/// an unknown outcome. Counted by provider, operation and outcome.
pub(crate) async fn bounded<T>(
    timeout: Duration,
    provider: &str,
    operation: &'static str,
    call: impl Future<Output = wasmtime::Result<Result<T, ProviderError>>>,
) -> Result<T, ProviderError> {
    let answer = settle(timeout, provider, call).await;
    let outcome = match &answer {
        Ok(_) => "ok",
        Err(ProviderError::Rejected(_)) => "rejected",
        Err(ProviderError::UnknownOutcome(_)) => "unknown_outcome",
    };
    metrics::counter!("crm_provider_calls_total", "provider" => provider.to_string(), "operation" => operation, "outcome" => outcome)
        .increment(1);
    answer
}

async fn settle<T>(
    timeout: Duration,
    provider: &str,
    call: impl Future<Output = wasmtime::Result<Result<T, ProviderError>>>,
) -> Result<T, ProviderError> {
    match tokio::time::timeout(timeout, call).await {
        Ok(Ok(answer)) => answer,
        Ok(Err(trap)) => {
            tracing::error!(provider, error = %format!("{trap:#}"), "a provider call failed");
            Err(unknown_outcome("PROVIDER_FAILED", "The shipping provider failed while answering"))
        }
        Err(_) => Err(unknown_outcome("PROVIDER_TIMEOUT", "The shipping provider did not answer in time")),
    }
}

impl Runtime {
    pub fn providers(&self) -> Vec<Arc<LoadedModule>> {
        self.modules().values().filter(|m| m.kind == Kind::Provider).cloned().collect()
    }

    pub fn provider(&self, name: &str) -> Option<Arc<LoadedModule>> {
        self.find_module(|m| m.kind == Kind::Provider && m.name == name)
    }

    /// Providers `org` has an integration for, by name.
    pub fn configured_providers(&self, org: &Org) -> Vec<String> {
        let ns = org.namespace();
        self.providers()
            .into_iter()
            .filter(|p| matches!(integrations::get(self.store.as_ref(), &ns, &p.name), Ok(Some(_))))
            .map(|p| p.name.clone())
            .collect()
    }

    /// How long one provider call may take, with a margin over the HTTP
    /// timeout so the provider itself can report a timed-out request.
    pub(crate) fn provider_call_timeout(&self) -> Duration {
        self.provider_timeout + Duration::from_secs(1)
    }

    /// An instance of provider `name` bound to `ctx`'s organization and its
    /// integration; `rejected` when there is no such provider or integration.
    /// (Public for `crm-host plugin test`, which calls a provider directly.)
    pub async fn provider_instance(
        self: &Arc<Self>,
        ctx: Arc<CallContext>,
        name: &str,
    ) -> Result<(wasmtime::Store<HostState>, ProviderComponent), ProviderError> {
        let not_configured =
            || rejected("PROVIDER_NOT_CONFIGURED", &format!("The provider {name:?} is not configured"));
        let module = self.provider(name).ok_or_else(not_configured)?;
        let pre = module.provider.as_ref().ok_or_else(not_configured)?;
        let integration = integrations::get(self.store.as_ref(), &ctx.org.namespace(), name)
            .map_err(|e| {
                tracing::error!(error = %e, "cannot read an integration");
                rejected("STORE_FAILURE", "The integration could not be read")
            })?
            .ok_or_else(not_configured)?;
        let allowed = Allowlist::new(&module.hosts, &[&integration.base_url, &integration.queries_url]);
        let scope = ProviderScope { integration, allowed };
        let mut store = self.new_store_for(&module.name, Some(ctx), Some(scope), self.provider_call_timeout());
        match pre.instantiate_async(&mut store).await {
            Ok(instance) => Ok((store, instance)),
            Err(e) => {
                tracing::error!(provider = name, error = %format!("{e:#}"), "cannot instantiate a provider");
                Err(rejected("PROVIDER_FAILED", "The shipping provider could not start"))
            }
        }
    }

    /// The provider's reading of one webhook delivery.
    pub async fn parse_webhook(
        self: &Arc<Self>,
        ctx: CallContext,
        provider: &str,
        headers: Vec<(String, String)>,
        body: Vec<u8>,
    ) -> Result<Vec<TrackingUpdate>, Failure> {
        let _permit = self.permits.acquire().await.map_err(|_| failure("SHUTTING_DOWN", "The host is stopping"))?;
        let (mut store, instance) = self.provider_instance(Arc::new(ctx), provider).await.map_err(|e| match e {
            ProviderError::Rejected(f) | ProviderError::UnknownOutcome(f) => f,
        })?;
        let call = instance.crm_plugin_provider().call_parse_webhook(&mut store, &headers, &body);
        match tokio::time::timeout(self.provider_call_timeout(), call).await {
            Ok(Ok(parsed)) => parsed,
            Ok(Err(trap)) => {
                tracing::error!(provider, error = %format!("{trap:#}"), "a provider failed to read a webhook");
                Err(failure("PROVIDER_FAILED", "The provider could not read the webhook"))
            }
            Err(_) => Err(failure("PROVIDER_TIMEOUT", "The provider did not read the webhook in time")),
        }
    }

    fn tracking_module(&self) -> Option<Arc<LoadedModule>> {
        self.find_module(|m| m.tracking.is_some())
    }

    /// Hands webhook updates to the shipments module.
    pub async fn apply_tracking(
        self: &Arc<Self>,
        ctx: CallContext,
        provider: &str,
        updates: Vec<TrackingUpdate>,
    ) -> wasmtime::Result<(Applied, bool)> {
        let module = self.tracking_module().ok_or_else(|| wasmtime::Error::msg("no shipments module"))?;
        let _permit = self.permits.acquire().await?;
        let pre = module.tracking.as_ref().expect("checked");
        let mut store = self.new_store(&module.name, Some(Arc::new(ctx)), self.nested_deadline);
        let instance = pre.instantiate_async(&mut store).await?;
        let applied = instance.crm_plugin_tracking_sink().call_apply(&mut store, provider, &updates).await?;
        Ok((applied, store.data().writes.wrote))
    }

    /// Asks the shipments module to refresh up to `max` shipments of one organization.
    pub async fn refresh_tracking(self: &Arc<Self>, ctx: CallContext, max: u32) -> wasmtime::Result<(u32, bool)> {
        let module = self.tracking_module().ok_or_else(|| wasmtime::Error::msg("no shipments module"))?;
        let _permit = self.permits.acquire().await?;
        let pre = module.tracking.as_ref().expect("checked");
        let mut store = self.new_store(&module.name, Some(Arc::new(ctx)), REFRESH_DEADLINE);
        let call = async {
            let instance = pre.instantiate_async(&mut store).await?;
            instance.crm_plugin_tracking_sink().call_refresh(&mut store, max).await
        };
        let asked = tokio::time::timeout(REFRESH_DEADLINE, call)
            .await
            .map_err(|_| wasmtime::Error::msg("the tracking refresh ran out of time"))??;
        Ok((asked, store.data().writes.wrote))
    }
}

fn failure(code: &str, message: &str) -> Failure {
    Failure { code: code.into(), message: message.into() }
}
