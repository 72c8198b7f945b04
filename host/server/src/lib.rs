//! `crm-host`, the CRM edge service binary: configuration and CLI, the two
//! listeners and the HTTP layer, auth, the admin API, the catalog endpoints,
//! the routes that call components, outbound HTTP and the tracking scheduler.
//!
//! A request's path through the crate:
//! - [`server`] starts the listeners; [`listener`] accepts the connection under
//!   its bounds (count, header and idle timeouts, shutdown grace), over
//!   [`tls`] when the public listener has a certificate, and
//!   [`http::extract`] reads the request (warp) into an [`http::ApiRequest`],
//!   asking [`public_routes`] on its head, before the body, who serves it;
//! - [`api::Api`] runs the checks of the spec in order ([`auth`], plan modules,
//!   permissions from `crm_tenancy::permissions`: those on the head while
//!   admitting it) and calls the route's handler,
//!   native ([`api`]) or a component ([`components`], through `crm_runtime`);
//! - handlers answer with [`http::Response`] or an [`http::ApiError`] (the spec's
//!   error bodies, written in one place).
//!
//! Around it: [`app`] (the state handlers share; it knows no route), [`admin`]
//! (the admin API and its CLI client), [`shipping`] (the tracking webhook door,
//! the scheduler, the HTTP client behind providers), [`bootstrap`] (first
//! start), [`storage`] (which store backend a host runs on), [`store_copy`]
//! (`crm-host store copy`), [`metrics`] (Prometheus, on the admin listener), [`importer`] (`crm-host import`, a client of the import API), [`ops`] (health), [`org_sweep`] (the deleted organizations' namespaces, dropped again), [`reindex_at_start`] (the search index an earlier version wrote, rewritten), [`embedded`] (the first-party components) and [`loading`] (them and the plugins dir's, loaded),
//! [`config`] and [`cli`], and [`public`] (component routes served without a
//! token, such as a form's public submit URL) with [`form_rate`], its rate
//! limit, and [`forwarded`], who the client behind a proxy is.
//!
//! Below it, each in its own crate: `crm-store` (the store trait and sled),
//! `crm-store-postgres` (the store on PostgreSQL-protocol databases),
//! `crm-tenancy` (organizations, plans, users, tokens), `crm-runtime` (wasmtime
//! and the host imports) and `crm-catalog` (DIVIPOLA and the city rule). This
//! crate is the only one that knows warp, and the only one that opens sockets.

pub mod admin;
pub mod api;
pub mod app;
pub mod auth;
pub mod bootstrap;
pub mod cli;
pub mod components;
pub mod config;
pub mod embedded;
pub mod fairness;
pub mod form_rate;
pub mod forwarded;
pub mod http;
pub mod importer;
pub mod listener;
pub mod loading;
pub mod metrics;
pub mod ops;
pub mod org_sweep;
pub mod public;
pub mod public_routes;
pub mod reindex_at_start;
pub mod server;
pub mod shipping;
pub mod storage;
pub mod store_copy;
pub mod tls;
