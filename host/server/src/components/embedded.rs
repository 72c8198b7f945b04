//! The first-party components the binary carries, built by `build.rs` from
//! `plugins/`.

use crm_runtime::Embedded;

pub const COMPONENTS: &[Embedded] = &[
    ("contacts", include_bytes!(env!("CRM_COMPONENT_CONTACTS"))),
    ("shipments", include_bytes!(env!("CRM_COMPONENT_SHIPMENTS"))),
    ("forms", include_bytes!(env!("CRM_COMPONENT_FORMS"))),
    ("import", include_bytes!(env!("CRM_COMPONENT_IMPORT"))),
    ("automations", include_bytes!(env!("CRM_COMPONENT_AUTOMATIONS"))),
    ("pipelines", include_bytes!(env!("CRM_COMPONENT_PIPELINES"))),
    ("envia", include_bytes!(env!("CRM_COMPONENT_ENVIA"))),
];
