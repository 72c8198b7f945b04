//! `crm-server`, the CRM edge service: the two listeners and the HTTP layer,
//! auth, the admin API, the catalog endpoints, the routes that call
//! components, outbound HTTP and the background jobs. The `crm-host` binary
//! (`host/cli/`) runs it with `crm-host serve`, beside its command-line clients.
//!
//! A request's path through the crate:
//! - [`server`] starts the listeners; [`listener`] accepts the connection under
//!   its bounds (count, header and idle timeouts, shutdown grace), over
//!   [`listener::tls`] when the public listener has a certificate (reloaded
//!   when its files change), and
//!   [`http::extract`] reads the request (warp) into an [`http::ApiRequest`],
//!   asking [`public_listener`] on its head, before the body, who serves it;
//! - [`api::Api`] runs the checks of the spec in order ([`auth`], plan modules,
//!   permissions from `crm_tenancy::permissions`: those on the head while
//!   admitting it) and calls the route's handler,
//!   native ([`api`], with the OpenAPI document `api/openapi.json`) or a
//!   component ([`components`], through `crm_runtime`, with the three route
//!   tables a component's routes go to: API, admin, token-less);
//! - handlers answer with [`http::Response`] or an [`http::ApiError`] (the spec's
//!   error bodies, written in one place).
//!
//! Around it:
//! - what requests share: [`state`] (it knows no route), [`config`] (the
//!   flags of `crm-host serve`; `docs/operators.md`'s table is made from
//!   them), [`storage`] (which store backend a host runs
//!   on), [`edge`] (an edge host's replica reads, bookmarks and forwarded
//!   writes), [`metrics`] (Prometheus, on the admin listener), [`console`] (lines
//!   for the operator);
//! - the routes beside the API: [`admin`] (the admin API: organizations,
//!   components listed and reloaded, online backups handed out in parts) and
//!   its [`admin_token`], [`tokenless`] (component routes served without a
//!   token, such as a form's public submit URL) with [`form_rate`], its rate
//!   limit, and [`forwarded`], who the client behind a proxy is, [`health`]
//!   (`/healthz`, `/readyz`), [`shipping`] (the tracking webhook route, the
//!   scheduler, the HTTP client behind providers), [`fairness`] (slots and
//!   quotas);
//! - start and background work: [`bootstrap`] (first start), [`embedded`]
//!   (the first-party components, built by `build.rs` from `plugins/`) and [`served_components`] (them and the plugins dir's,
//!   loaded), [`jobs`] (the deleted organizations' namespaces dropped again,
//!   the search index an earlier version wrote rewritten).
//!
//! Below it, each in its own crate: `crm-store` (the store trait, fjall and sled),
//! `crm-store-postgres` (the store on PostgreSQL-protocol databases),
//! `crm-tenancy` (organizations, plans, users, tokens), `crm-events`
//! (outbound webhooks), `crm-runtime` (wasmtime and the host imports) and
//! `crm-catalog` (DIVIPOLA and the city rule). This crate is the only one
//! that knows warp.

pub mod admin;
pub mod admin_token;
pub mod api;
pub mod auth;
pub mod bootstrap;
pub mod components;
pub mod config;
pub mod console;
pub mod edge;
pub mod embedded;
pub mod fairness;
pub mod form_rate;
pub mod forwarded;
pub mod health;
pub mod http;
pub mod jobs;
pub mod listener;
pub mod metrics;
pub mod public_listener;
pub mod served_components;
pub mod server;
pub mod shipping;
pub mod state;
pub mod storage;
pub mod tokenless;
