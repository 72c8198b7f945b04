//! Shipping, host side: what providers need from the host and the doors
//! tracking arrives through.
//!
//! - [`outbound`]: the HTTP client behind providers' outbound requests (the
//!   runtime checks its policy first), bounded in time and size;
//! - [`webhook`]: `POST /webhooks/{provider}/{token}`, the provider's inbound
//!   tracking, read by the provider and applied by the shipments module;
//! - [`scheduler`]: the periodic tracking refresh of shipments not yet final.
//!
//! Integrations (an organization's API key and URLs per provider) are kept by
//! `crm_runtime::integrations`; the shipments rules themselves live in the
//! `shipments` component.

pub mod outbound;
pub mod scheduler;
pub mod webhook;
