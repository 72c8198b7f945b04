//! Shipping, host side: what providers need from the host and the doors
//! tracking arrives through.
//!
//! - [`integrations`]: an organization's API key and URLs per provider, and
//!   its webhook token (admin `PUT /admin/orgs/{org}/integrations/{provider}`);
//! - [`outbound`]: provider HTTP, only to allowed hosts, bounded in time and size;
//! - [`webhook`]: `POST /webhooks/{provider}/{token}`, the provider's inbound
//!   tracking, read by the provider and applied by the shipments module;
//! - [`scheduler`]: the periodic tracking refresh of shipments not yet final.
//!
//! The shipments rules themselves live in the `shipments` component.

pub mod integrations;
pub mod outbound;
pub mod scheduler;
pub mod webhook;
