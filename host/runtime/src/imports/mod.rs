//! What components may call: the host side of every WIT import, one file a
//! capability. Each import is implemented over a view of the parts of
//! [`HostState`] it may touch (the way wasmtime-wasi's views are), named
//! by a `...Cap` type that [`add_to_linker`] links it with.

mod basics;
mod catalog;
mod contacts;
mod directory;
mod events;
mod shipping;
mod store;
mod upsert_progress;
mod webhooks;

use wasmtime::component::{HasSelf, Linker};

use crate::bindings::platform::crm::plugin as wit;
use crate::runtime::{CityMemo, HostState};

/// Links every import, each to its own view of the state.
pub(crate) fn add_to_linker(linker: &mut Linker<HostState>) -> wasmtime::Result<()> {
    wit::types::add_to_linker::<HostState, HasSelf<crate::runtime::Call>>(linker, |s| &mut s.call)?;
    wit::runtime::add_to_linker::<HostState, HasSelf<crate::runtime::Call>>(linker, |s| &mut s.call)?;
    wit::tenant::add_to_linker::<HostState, HasSelf<crate::runtime::Call>>(linker, |s| &mut s.call)?;
    wit::store::add_to_linker::<HostState, store::StoreCap>(linker, store::view)?;
    wit::events::add_to_linker::<HostState, events::EventsCap>(linker, events::view)?;
    wit::catalog::add_to_linker::<HostState, HasSelf<CityMemo>>(linker, |s| &mut s.cities)?;
    wit::contacts::add_to_linker::<HostState, contacts::ContactsCap>(linker, contacts::view)?;
    wit::contacts_joined::add_to_linker::<HostState, contacts::ContactsCap>(linker, contacts::view)?;
    wit::directory::add_to_linker::<HostState, directory::DirectoryCap>(linker, directory::view)?;
    wit::webhooks::add_to_linker::<HostState, webhooks::WebhooksCap>(linker, webhooks::view)?;
    wit::shipping_types::add_to_linker::<HostState, HasSelf<crate::runtime::Call>>(linker, |s| &mut s.call)?;
    wit::shipping::add_to_linker::<HostState, shipping::ShippingCap>(linker, shipping::view)?;
    wit::http::add_to_linker::<HostState, shipping::ProviderCap>(linker, shipping::provider_view)?;
    wit::settings::add_to_linker::<HostState, shipping::ProviderCap>(linker, shipping::provider_view)?;
    wit::upsert_progress::add_to_linker::<HostState, HasSelf<crate::progress::Progress>>(linker, |s| &mut s.progress)?;
    Ok(())
}
