//! What components may call: the host side of every WIT import, implemented
//! on [`HostState`](crate::runtime::HostState). Each file is one capability.

mod basics;
mod catalog;
mod contacts;
mod directory;
mod events;
mod shipping;
mod store;
mod upsert_progress;
mod webhooks;
