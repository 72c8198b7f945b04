//! `crm-host serve`: open the store, bootstrap, listen on both addresses, and shut
//! down gracefully: in-flight requests get `CRM_SHUTDOWN_GRACE_MS` to finish,
//! then the store is flushed and the process exits 0.

pub mod bootstrap;
pub mod storage;

use std::error::Error;
use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinHandle;
use warp::Filter;

use crm_runtime::Runtime;
use crm_store::Store;

use crate::admin::Admin;
use crate::admin::token as admin_token;
use crate::api::Api;
use crate::components::served;
use crate::config::Config;
use crate::console::tell_operator;
use crate::fairness::Gate;
use crate::http::body_budget::BodyBudget;
use crate::http::extract::{Admit, BodyLimits, Extracted};
use crate::http::{ApiRequest, Response, encoding, extract};
use crate::listener;
use crate::listener::public::PublicListener;
use crate::listener::tls::Tls;
use crate::shipping::outbound::ReqwestClient;
use crate::state::ServerState;
use crate::tokenless::Tokenless;
use metrics_exporter_prometheus::PrometheusHandle;

/// Most connections the admin listener holds at once.
const ADMIN_MAX_CONNECTIONS: usize = 256;

/// What a host serves with once its components are loaded: the state every
/// handler shares and the route tables of its two listeners.
struct Serving {
    app: Arc<ServerState>,
    api: Arc<Api>,
    tokenless: Arc<Tokenless>,
    admin: Arc<Admin>,
    host_id: String,
}

pub async fn serve(config: Config) -> Result<(), Box<dyn Error>> {
    let metrics = crate::admin::metrics::install()?;
    // Before anything slow: a certificate that does not load stops the start at once.
    let tls = match (&config.listeners.tls_cert, &config.listeners.tls_key) {
        (Some(cert), Some(key)) => Some(Arc::new(Tls::load(cert, key)?)),
        _ => None,
    };
    let serving = start(&config, metrics).await?;
    let app = serving.app.clone();

    let public = TcpListener::bind(config.listeners.listen)
        .await
        .map_err(|e| format!("cannot listen on {}: {e}", config.listeners.listen))?;
    let admin = TcpListener::bind(config.listeners.admin_listen)
        .await
        .map_err(|e| format!("cannot listen on {}: {e}", config.listeners.admin_listen))?;
    let admin_tls = tls.clone().filter(|_| config.listeners.admin_tls);
    let scheme = |tls: &Option<Arc<Tls>>| if tls.is_some() { "https" } else { "http" };
    let public_url = format!("{}://{}", scheme(&tls), public.local_addr()?);
    tell_operator(format_args!("crm-host: API listening on {public_url}"));
    tell_operator(format_args!("crm-host: admin API listening on {}://{}", scheme(&admin_tls), admin.local_addr()?));

    if let Some((org_id, token)) = bootstrap::demo_org(&app.tenancy)? {
        app.store.durable().await?;
        tell_operator(format_args!("crm-host: created the demo organization {org_id}"));
        tell_operator(format_args!("crm-host: demo API token (shown once): {token}"));
        tell_operator(format_args!("crm-host: try: curl -H 'Authorization: Bearer {token}' {public_url}/api/me"));
    }

    let (stop_tx, stop_rx) = watch::channel(false);
    let stopped = move || {
        let mut rx = stop_rx.clone();
        async move {
            let _ = rx.wait_for(|stop| *stop).await;
        }
    };
    let files = listener::raise_open_files_limit();
    let limits = listener::Limits {
        // Leave descriptors for the store, the admin listener and outbound calls.
        max_connections: files.map_or(config.listeners.max_connections, |n| {
            config.listeners.max_connections.min(n.saturating_sub(1024).max(64) as usize)
        }),
        header_timeout: Duration::from_millis(config.listeners.header_timeout_ms),
        grace: Duration::from_millis(config.listeners.shutdown_grace_ms),
    };
    let admin_limits = listener::Limits { max_connections: ADMIN_MAX_CONNECTIONS, ..limits };
    tracing::info!(max_connections = limits.max_connections, open_files = files, "serving");
    let public_server = spawn_public(&serving, public, (limits, tls), stopped());
    let admin_server = spawn_admin(&serving, admin, (admin_limits, admin_tls), stopped());
    let deliveries = start_background_work(&serving, &stop_tx);
    app.set_ready(true);
    tracing::info!("ready");

    let failure = tokio::select! {
        () = shutdown_signal() => None,
        reason = lasting_failure(&app.store) => Some(reason),
    };
    if let Some(reason) = &failure {
        tracing::error!(reason, "the store can no longer write: stopping, to be started again");
    }
    tracing::info!(grace_ms = config.listeners.shutdown_grace_ms, "shutting down: finishing in-flight requests");
    app.set_ready(false);
    let _ = stop_tx.send(true);
    let (public_done, admin_done) = tokio::join!(public_server, admin_server);
    deliveries.stop();
    if !(public_done.unwrap_or(false) && admin_done.unwrap_or(false)) {
        tracing::warn!("requests still running after the grace period were abandoned");
    }
    if let Some(reason) = failure {
        return Err(
            format!("the store can no longer write ({reason}); start the host again once its disk has room").into()
        );
    }
    app.store.durable().await?;
    tracing::info!("stopped; the store is flushed");
    Ok(())
}

/// Opens the store, takes the host's name and admin token, starts the Wasm
/// runtime, loads the components and builds the route tables from them.
async fn start(config: &Config, metrics: PrometheusHandle) -> Result<Serving, Box<dyn Error>> {
    config.check()?;
    std::fs::create_dir_all(&config.store.data_dir)
        .map_err(|e| format!("cannot create the data dir {}: {e}", config.store.data_dir.display()))?;
    let computing = crm_store::combine::Computing::default();
    let storage::Storage { store, edge } = storage::open(config, computing.clone())?;
    let host_id = bootstrap::host_id(&config.store.data_dir)?;
    let admin_token_digest = admin_token::digest(&config.store.data_dir, &*store, config.store.store_url.is_some())?;
    let provider_timeout = Duration::from_millis(config.jobs.provider_timeout_ms);
    let http = Arc::new(ReqwestClient::new(provider_timeout, config.jobs.http_proxy_from_env));
    let webhooks = crm_events::webhook_url::Policy { allow_private: config.jobs.webhook_allow_private };
    let outbox = crm_events::Outbox::new(store.clone(), webhooks);
    let runtime = Runtime::new(
        store.clone(),
        (config.components.component_memory_mb as usize) << 20,
        provider_timeout,
        http,
        outbox.clone(),
        config.compute_turns(),
        computing,
    )
    .map_err(|e| format!("cannot start the Wasm runtime: {e:#}"))?;
    let load_started = Instant::now();
    let loaded = served::load(&runtime, config).await.map_err(|e| format!("cannot load the components: {e}"))?;
    for m in &loaded {
        tracing::info!(module = m.name, version = m.version, source = ?m.source, routes = m.routes.len(), "component loaded");
    }
    runtime.set_modules(&loaded);
    tracing::info!(millis = load_started.elapsed().as_millis() as u64, "components ready");
    let deadline = Duration::from_millis(config.components.component_deadline_ms);
    let gate = Gate::new(
        config.limits.org_max_in_flight as usize,
        Duration::from_millis(config.limits.org_queue_ms),
        config.limits.rate_per_second,
    );
    let gate = Arc::new(gate);
    let api = Arc::new(Api::new(&loaded, deadline, gate.clone())?);
    let tokenless = Arc::new(Tokenless::new(
        &loaded,
        deadline,
        crate::fairness::form_rate::FormRate::new(config.limits.form_rate_per_minute, config.store.store_url.is_some()),
        config.listeners.trust_forwarded_for.clone(),
        gate,
    )?);
    let backup_idle = Duration::from_secs(config.store.backup_idle_secs);
    let admin = Arc::new(Admin::new(&loaded, deadline, api.clone(), tokenless.clone(), backup_idle)?);
    let app = Arc::new(ServerState::new(config.clone(), (store, edge), runtime, outbox, admin_token_digest, metrics));
    Ok(Serving { app, api, tokenless, admin, host_id })
}

/// Serves the public listener (the API, the token-less routes, the
/// webhooks, health) until `stop`; resolves to whether every request
/// finished within the grace period.
fn spawn_public(
    serving: &Serving,
    listener: TcpListener,
    bounds: (listener::Limits, Option<Arc<Tls>>),
    stop: impl Future<Output = ()> + Send + 'static,
) -> JoinHandle<bool> {
    let config = &serving.app.config;
    let max_body = config.listeners.max_body_bytes;
    // The admin listener's bodies are bounded by its few connections instead.
    let body_memory = usize::try_from(config.listeners.max_body_memory_mb << 20).unwrap_or(usize::MAX).max(max_body);
    let routes = Arc::new(PublicListener {
        app: serving.app.clone(),
        api: serving.api.clone(),
        tokenless: serving.tokenless.clone(),
        limits: BodyLimits { default: max_body, ceiling: body_memory },
    });
    let admitting = routes.clone();
    let admit: Admit<_> = Arc::new(move |req: &ApiRequest| admitting.admit(req));
    let serve = move |req, target| {
        let routes = routes.clone();
        async move { routes.serve(target, req).await }
    };
    let body_timeout = Duration::from_millis(config.listeners.body_timeout_ms);
    spawn_listener(listener, bounds, (admit, Some(BodyBudget::new(body_memory)), body_timeout), serve, stop)
}

/// Serves the admin listener until `stop`, as [`spawn_public`].
fn spawn_admin(
    serving: &Serving,
    listener: TcpListener,
    bounds: (listener::Limits, Option<Arc<Tls>>),
    stop: impl Future<Output = ()> + Send + 'static,
) -> JoinHandle<bool> {
    let (app, admin) = (serving.app.clone(), serving.admin.clone());
    let max_body = app.config.listeners.max_body_bytes;
    let body_timeout = Duration::from_millis(app.config.listeners.body_timeout_ms);
    let admitting = app.clone();
    let admit: Admit<_> = Arc::new(move |req: &ApiRequest| Admin::admit(&admitting, req, max_body));
    let serve = move |req, admitted| {
        let (app, admin) = (app.clone(), admin.clone());
        async move {
            let mut response = admin.dispatch(&app, admitted, req).await;
            crate::edge::bookmark::stamp_store(&*app.store, &mut response);
            response
        }
    };
    spawn_listener(listener, bounds, (admit, None, body_timeout), serve, stop)
}

/// Serves one listener under its bounds until `stop`: each request admitted
/// on its head, its body read within the budget (when the listener has one)
/// and `body_timeout`, then handed to `serve` and answered through
/// [`respond`].
fn spawn_listener<A, S, Fut>(
    listener: TcpListener,
    (limits, tls): (listener::Limits, Option<Arc<Tls>>),
    (admit, budget, body_timeout): (Admit<A>, Option<BodyBudget>, Duration),
    serve: S,
    stop: impl Future<Output = ()> + Send + 'static,
) -> JoinHandle<bool>
where
    A: Send + 'static,
    S: Fn(ApiRequest, A) -> Fut + Clone + Send + Sync + 'static,
    Fut: Future<Output = Response> + Send + 'static,
{
    let filter = extract::request(admit, budget, body_timeout)
        .then(move |extracted: Extracted<A>| respond(extracted, serve.clone()));
    tokio::spawn(listener::serve(listener, warp::service(filter), limits, tls, stop))
}

/// Starts what a host does beside its requests: the tracking refresh, webhook
/// delivery (whose worker is returned, to be stopped), the sweep of deleted
/// organizations, the search index's fold and the reindex at start.
fn start_background_work(serving: &Serving, stop: &watch::Sender<bool>) -> crm_events::worker::Running {
    let app = &serving.app;
    let shared = app.config.store.store_url.is_some();
    crate::shipping::scheduler::start(app.clone(), stop.subscribe(), &serving.host_id);
    let health = crate::jobs::endpoint_notice::health(app, &serving.admin);
    let deliveries =
        crm_events::Worker::start(app.outbox.clone(), app.tenancy.clone(), health, &serving.host_id, shared);
    crate::jobs::org_sweep::start(app.tenancy.clone());
    if app.config.jobs.search_fold_ms > 0 {
        crate::jobs::search_fold::start(app.clone(), Duration::from_millis(app.config.jobs.search_fold_ms));
    }
    if app.config.jobs.reindex_at_start {
        crate::jobs::reindex_at_start::start(app.clone());
    }
    deliveries
}

/// Resolves once the store has failed for good ([`Store::lasting_failure`]:
/// the embedded store after a full disk refuses every later write of the
/// process). The host then stops as on SIGTERM and exits with an error, so
/// that its supervisor starts it again: a new process recovers the store
/// with every acknowledged write, as PostgreSQL restarts after a failed
/// write to its log.
async fn lasting_failure(store: &Arc<dyn Store>) -> String {
    let mut every = tokio::time::interval(Duration::from_millis(200));
    loop {
        every.tick().await;
        if let Some(reason) = store.lasting_failure() {
            return reason;
        }
    }
}

/// Runs `handle` on a well-formed, admitted request, compresses the answer
/// for a client that takes gzip, logs it (the route pattern, never the path
/// or query, which may carry a form's key), counts it, and tags the answer
/// with its id. The body's share of the listener's budget is given back once
/// the answer is made.
async fn respond<A, F, Fut>(extracted: Extracted<A>, handle: F) -> http::Response<bytes::Bytes>
where
    F: FnOnce(ApiRequest, A) -> Fut,
    Fut: Future<Output = Response>,
{
    let Extracted { request_id, method, request, share } = extracted;
    let started = Instant::now();
    let response = match request {
        Ok((req, admitted)) => {
            let gzip = encoding::accepts_gzip(&req.headers);
            encoding::compress(handle(req, admitted).await, gzip)
        }
        Err(e) => e.into_response(),
    };
    drop(share);
    let status = response.status.as_u16();
    let elapsed = started.elapsed();
    let micros = elapsed.as_micros() as u64;
    let route = response.served.route.as_deref().unwrap_or("unmatched");
    let org = response.served.org.as_deref().unwrap_or("");
    // The access log: `RUST_LOG=info,crm_host::access=debug` shows every
    // request. A 503 is the host declining on purpose (not ready yet, the
    // body budget spent), counted on `/metrics`, not a failure.
    if status >= 500 && status != 503 {
        tracing::error!(target: "crm_host::access", request_id, %method, route, org, status, micros, "request failed");
    } else {
        tracing::debug!(target: "crm_host::access", request_id, %method, route, org, status, micros, "request");
    }
    crate::admin::metrics::record_request(response.served.route.as_ref(), &method, status, elapsed);
    response.into_http(&request_id)
}

async fn shutdown_signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
            .expect("install the SIGTERM handler");
        tokio::select! {
            _ = ctrl_c => {},
            _ = term.recv() => {},
        }
    }
    #[cfg(not(unix))]
    let _ = ctrl_c.await;
}
