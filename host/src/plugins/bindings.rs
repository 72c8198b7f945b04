//! The host's side of the WIT contract.
//!
//! [`platform`] is the world with every import and the `handler` export: the
//! linker uses it for every component (each imports a subset). [`provider`]
//! reaches the `contacts` export of the contacts module.

pub mod platform {
    wasmtime::component::bindgen!({
        path: "../wit",
        world: "platform",
        imports: { default: async },
        exports: { default: async },
    });
}

pub mod contacts_provider {
    wasmtime::component::bindgen!({
        path: "../wit",
        world: "contacts-provider",
        imports: { default: async },
        exports: { default: async },
    });
}
