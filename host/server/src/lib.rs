//! `crm-server`, the CRM edge service: the two listeners and the HTTP layer,
//! auth, the admin API, the catalog endpoints, the routes that call
//! components, outbound HTTP and the background jobs. The `crm-host` binary
//! (`host/cli/`) runs it with `crm-host serve`, beside its command-line clients.
//!
//! The top level shows the server's parts:
//! - [`server`]: starting a host ([`server::bootstrap`], the first start;
//!   [`server::storage`], which store backend it runs on) and stopping it;
//! - [`listener`]: connections under their bounds (count, header and idle
//!   timeouts, shutdown grace), over [`listener::tls`] when the public
//!   listener has a certificate, and [`listener::public`], which asks on a
//!   request's head, before its body, who serves it;
//! - [`http`]: the HTTP plumbing (warp): [`http::extract`] reads a request
//!   into an [`http::ApiRequest`]; handlers answer with [`http::Response`] or
//!   an [`http::ApiError`] (the spec's error bodies, written in one place);
//!   [`http::forwarded`] says who the client behind a proxy is;
//! - [`api`]: the API, whose [`api::Api`] runs the checks of the spec in
//!   order ([`api::auth`], plan modules, permissions from
//!   `crm_tenancy::permissions`) and calls the route's handler, native (with
//!   the OpenAPI document `api/openapi.json`) or a component ([`components`],
//!   through `crm_runtime`, with the three route tables a component's routes
//!   go to: API, admin, token-less; [`components::embedded`], the first-party
//!   ones `build.rs` builds from `plugins/`, and [`components::served`], them
//!   and the plugins dir's, loaded);
//! - [`tokenless`]: component routes served without a token (a form's public
//!   submit URL), limited per client by [`fairness::form_rate`];
//! - [`admin`]: the admin API (organizations, components listed and
//!   reloaded, online backups handed out in parts), its [`admin::token`],
//!   [`admin::health`] (`/healthz`, `/readyz`) and [`admin::metrics`]
//!   (Prometheus);
//! - [`edge`]: an edge host's replica reads, bookmarks and forwarded writes;
//! - [`jobs`] and [`shipping`]: background work (deleted organizations'
//!   namespaces dropped again, the search index folded and rewritten; the
//!   tracking webhook route, the scheduler, the HTTP client behind
//!   providers);
//! - what the parts share: [`state`] (it knows no route), [`config`] (the
//!   flags of `crm-host serve`, one group per concern; `docs/operators.md`'s
//!   tables are made from them), [`fairness`] (slots, quotas and rates) and
//!   [`console`] (lines for the operator).
//!
//! Below it, each in its own crate: `crm-store` (the store trait, fjall and sled),
//! `crm-store-postgres` (the store on PostgreSQL-protocol databases),
//! `crm-tenancy` (organizations, plans, users, tokens), `crm-events`
//! (outbound webhooks), `crm-runtime` (wasmtime and the host imports) and
//! `crm-catalog` (DIVIPOLA and the city rule). This crate is the only one
//! that knows warp.

pub mod admin;
pub mod api;
pub mod components;
pub mod config;
pub mod console;
pub mod edge;
pub mod fairness;
pub mod http;
pub mod jobs;
pub mod listener;
pub mod server;
pub mod shipping;
pub mod state;
pub mod tokenless;
