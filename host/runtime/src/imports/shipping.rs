//! The shipping imports: `shipping` (modules reach providers through the
//! host), and `http` and `settings` (what a provider instance may use).

use crate::bindings::platform::crm::plugin::http::{self, HttpError, HttpRequest, HttpResponse};
use crate::bindings::platform::crm::plugin::settings;
use crate::bindings::platform::crm::plugin::shipping;
use crate::bindings::platform::crm::plugin::shipping_types::{
    Label, LabelRequest, ProviderError, Quote, QuoteRequest, Refund, Tracking,
};
use wasmtime::component::HasData;

use crate::bindings::provider_component::ProviderComponent;
use crate::providers::{bounded, rejected};
use crate::runtime::{Call, HostState, ProviderScope, Writes};
use crate::turns::Held;

/// Most tracking numbers or state codes per call.
const MAX_ITEMS: usize = 100;

/// What the `shipping` import may touch: the call, whether it wrote (to
/// make that durable before a provider acts), and its compute turn (given
/// back while a provider answers).
pub(crate) struct ShippingView<'a> {
    call: &'a Call,
    writes: &'a Writes,
    turn: &'a Held,
}

pub(crate) struct ShippingCap;

impl HasData for ShippingCap {
    type Data<'a> = ShippingView<'a>;
}

pub(crate) fn view(state: &mut HostState) -> ShippingView<'_> {
    ShippingView { call: &state.call, writes: &state.writes, turn: &state.compute.turn }
}

/// What `http` and `settings` may touch: the call, and the provider's scope
/// (none in a module's instance: only providers send HTTP).
pub(crate) struct ProviderView<'a> {
    call: &'a Call,
    provider: Option<&'a ProviderScope>,
}

pub(crate) struct ProviderCap;

impl HasData for ProviderCap {
    type Data<'a> = ProviderView<'a>;
}

pub(crate) fn provider_view(state: &mut HostState) -> ProviderView<'_> {
    ProviderView { call: &state.call, provider: state.provider.as_ref() }
}

impl http::Host for ProviderView<'_> {
    async fn send(&mut self, request: HttpRequest) -> Result<HttpResponse, HttpError> {
        let Some(allowed) = self.provider.map(|p| p.allowed.clone()) else {
            return Err(HttpError::NotAllowed("only provider components may send HTTP".into()));
        };
        let runtime = self.call.runtime.clone();
        runtime.outbound.send(&allowed, request).await
    }

    async fn send_all(&mut self, requests: Vec<HttpRequest>) -> Vec<Result<HttpResponse, HttpError>> {
        let Some(allowed) = self.provider.map(|p| p.allowed.clone()) else {
            let refused = HttpError::NotAllowed("only provider components may send HTTP".into());
            return requests.iter().map(|_| Err(refused.clone())).collect();
        };
        let runtime = self.call.runtime.clone();
        runtime.outbound.send_all(&allowed, requests).await
    }
}

impl settings::Host for ProviderView<'_> {
    async fn current(&mut self) -> Option<settings::Integration> {
        self.provider.map(|p| settings::Integration {
            api_key: p.integration.api_key.clone(),
            base_url: p.integration.base_url.clone(),
            queries_url: p.integration.queries_url.clone(),
        })
    }
}

type ProviderInstance = (wasmtime::Store<HostState>, ProviderComponent);

impl ShippingView<'_> {
    /// Makes this call's writes durable before a provider acts outside (buys
    /// or cancels a label): the claim that guards an idempotency key must
    /// outlive any crash after the provider has acted on it, or a retry of
    /// the key would buy a second label. Nothing to wait for when the call
    /// wrote nothing.
    fn writes_durable(&self) -> impl Future<Output = Result<(), ProviderError>> + Send + 'static {
        let store = self.writes.wrote.then(|| self.writes.store.clone());
        async move {
            let Some(store) = store else { return Ok(()) };
            store.durable().await.map_err(|e| {
                tracing::error!(error = %e, "a call's writes could not be made durable before a provider call");
                rejected("STORE_FAILED", "The request's state could not be stored; nothing was sent to the provider")
            })
        }
    }

    /// An instance of `provider` for this instance's organization. (Owned
    /// handles only: the future outlives the view's borrows.)
    fn provider_instance(
        &self,
        provider: &str,
    ) -> impl Future<Output = Result<ProviderInstance, ProviderError>> + Send + 'static {
        let (runtime, ctx, provider) = (self.call.runtime.clone(), self.call.ctx.clone(), provider.to_string());
        async move {
            let Some(ctx) = ctx else {
                return Err(rejected("NO_ORGANIZATION", "Providers are called for an organization"));
            };
            runtime.provider_instance(ctx, &provider).await
        }
    }
}

impl shipping::Host for ShippingView<'_> {
    async fn providers(&mut self) -> Vec<String> {
        match &self.call.ctx {
            Some(ctx) => self.call.runtime.configured_providers(&ctx.org),
            None => Vec::new(),
        }
    }

    // Every provider call waits off this call's compute turn: its time is
    // the provider's, not this host's CPU.

    async fn carriers(&mut self, provider: String) -> Result<Vec<String>, ProviderError> {
        let (timeout, instance) = (self.call.runtime.provider_call_timeout(), self.provider_instance(&provider));
        self.turn
            .off_turn(async move {
                let (mut store, instance) = instance.await?;
                let call = instance.crm_plugin_provider().call_carriers(&mut store);
                bounded(timeout, &provider, "carriers", call).await
            })
            .await
    }

    async fn rates(&mut self, provider: String, request: QuoteRequest) -> Result<Quote, ProviderError> {
        let (timeout, instance) = (self.call.runtime.provider_call_timeout(), self.provider_instance(&provider));
        self.turn
            .off_turn(async move {
                let (mut store, instance) = instance.await?;
                let call = instance.crm_plugin_provider().call_rates(&mut store, &request);
                bounded(timeout, &provider, "rates", call).await
            })
            .await
    }

    async fn generate(&mut self, provider: String, request: LabelRequest) -> Result<Label, ProviderError> {
        let (durable, timeout, instance) =
            (self.writes_durable(), self.call.runtime.provider_call_timeout(), self.provider_instance(&provider));
        self.turn
            .off_turn(async move {
                durable.await?;
                let (mut store, instance) = instance.await?;
                let call = instance.crm_plugin_provider().call_generate(&mut store, &request);
                bounded(timeout, &provider, "generate", call).await
            })
            .await
    }

    async fn track(&mut self, provider: String, tracking_numbers: Vec<String>) -> Result<Vec<Tracking>, ProviderError> {
        if tracking_numbers.len() > MAX_ITEMS {
            return Err(rejected("TOO_MANY", "At most 100 tracking numbers per call"));
        }
        let (timeout, instance) = (self.call.runtime.provider_call_timeout(), self.provider_instance(&provider));
        self.turn
            .off_turn(async move {
                let (mut store, instance) = instance.await?;
                let call = instance.crm_plugin_provider().call_track(&mut store, &tracking_numbers);
                bounded(timeout, &provider, "track", call).await
            })
            .await
    }

    async fn cancel(
        &mut self,
        provider: String,
        carrier: String,
        tracking_number: String,
    ) -> Result<Refund, ProviderError> {
        let (durable, timeout, instance) =
            (self.writes_durable(), self.call.runtime.provider_call_timeout(), self.provider_instance(&provider));
        self.turn
            .off_turn(async move {
                durable.await?;
                let (mut store, instance) = instance.await?;
                let call = instance.crm_plugin_provider().call_cancel(&mut store, &carrier, &tracking_number);
                bounded(timeout, &provider, "cancel", call).await
            })
            .await
    }

    async fn state_abbreviations(&mut self, provider: String, state_codes: Vec<String>) -> Vec<Option<String>> {
        let none = vec![None; state_codes.len()];
        if state_codes.len() > MAX_ITEMS {
            return none;
        }
        let instance = self.provider_instance(&provider);
        self.turn
            .off_turn(async move {
                let Ok((mut store, instance)) = instance.await else { return none };
                let mut out = Vec::with_capacity(state_codes.len());
                for code in &state_codes {
                    match instance.crm_plugin_provider().call_state_abbreviation(&mut store, code).await {
                        Ok(abbreviation) => out.push(abbreviation),
                        Err(_) => return none,
                    }
                }
                out
            })
            .await
    }
}
