//! The CRM edge service host.
//!
//! A request's path through the crate:
//! - [`server`] accepts it (warp) and [`http::extract`] reads it into an [`http::ApiRequest`];
//! - [`api`] runs the checks of the spec in order ([`auth`], plan modules,
//!   permissions from [`tenancy::permissions`]) and calls the route's handler;
//! - handlers answer with [`http::Response`] or an [`http::ApiError`] (the spec's
//!   error bodies, written in one place).
//!
//! Module routes are served by WebAssembly components through [`plugins`] (the
//! wasmtime runtime, the WIT bindings and the host imports). Shipping providers
//! are components too; [`shipping`] holds what the host keeps for them: each
//! organization's integrations, the outbound HTTP allowlist, the tracking
//! webhook door and the tracking scheduler.
//!
//! Around it: [`store`] (the key-value store, sled behind a trait, group-committed
//! flushes), [`tenancy`] (organizations, plans, users, tokens), [`admin`] (the
//! admin API and its CLI client), [`bootstrap`] (first start), [`ops`] (health),
//! [`config`] and [`cli`]. Catalog data and city rules live in the `crm-catalog` crate.

pub mod admin;
pub mod api;
pub mod app;
pub mod auth;
pub mod bootstrap;
pub mod cli;
pub mod clock;
pub mod config;
pub mod http;
pub mod ids;
pub mod ops;
pub mod plugins;
pub mod secrets;
pub mod server;
pub mod shipping;
pub mod store;
pub mod tenancy;
