//! The host's side of the WIT contract.
//!
//! [`platform`] is the world with every import and the `handler` export: the
//! linker uses it for every component (each imports a subset). The other
//! worlds reach the extra exports of some components and share `platform`'s
//! types: [`contacts_provider`] (the contacts module's `contacts`),
//! [`shipments_module`] (`tracking-sink`), [`module_with_options`]
//! (`route-options`) and [`provider_component`] (shipping providers).
//!
//! The bindings are of today's `crm:plugin` version; a component built
//! against an earlier minor version links to them too (wasmtime matches
//! `@1.0.0` to `@1.1.0`), since a minor version only adds.

pub mod platform {
    wasmtime::component::bindgen!({
        path: "../../wit",
        world: "platform",
        imports: { default: async },
        exports: { default: async },
    });
}

pub mod contacts_provider {
    wasmtime::component::bindgen!({
        path: "../../wit",
        world: "contacts-provider",
        imports: { default: async },
        exports: { default: async },
    });
}

pub mod shipments_module {
    wasmtime::component::bindgen!({
        path: "../../wit",
        world: "shipments-module",
        imports: { default: async },
        exports: { default: async },
        with: {
            "crm:plugin/types": super::platform::crm::plugin::types,
            "crm:plugin/store": super::platform::crm::plugin::store,
            "crm:plugin/events": super::platform::crm::plugin::events,
            "crm:plugin/catalog": super::platform::crm::plugin::catalog,
            "crm:plugin/runtime": super::platform::crm::plugin::runtime,
            "crm:plugin/tenant": super::platform::crm::plugin::tenant,
            "crm:plugin/contacts": super::platform::crm::plugin::contacts,
            "crm:plugin/shipping-types": super::platform::crm::plugin::shipping_types,
            "crm:plugin/shipping": super::platform::crm::plugin::shipping,
        },
    });
}

pub mod provider_component {
    wasmtime::component::bindgen!({
        path: "../../wit",
        world: "provider-component",
        imports: { default: async },
        exports: { default: async },
        with: {
            "crm:plugin/types": super::platform::crm::plugin::types,
            "crm:plugin/runtime": super::platform::crm::plugin::runtime,
            "crm:plugin/shipping-types": super::platform::crm::plugin::shipping_types,
            "crm:plugin/http": super::platform::crm::plugin::http,
            "crm:plugin/settings": super::platform::crm::plugin::settings,
        },
    });
}

pub mod module_with_options {
    wasmtime::component::bindgen!({
        path: "../../wit",
        world: "module-with-options",
        imports: { default: async },
        exports: { default: async },
        with: {
            "crm:plugin/types": super::platform::crm::plugin::types,
            "crm:plugin/store": super::platform::crm::plugin::store,
            "crm:plugin/events": super::platform::crm::plugin::events,
            "crm:plugin/catalog": super::platform::crm::plugin::catalog,
            "crm:plugin/runtime": super::platform::crm::plugin::runtime,
            "crm:plugin/tenant": super::platform::crm::plugin::tenant,
        },
    });
}
