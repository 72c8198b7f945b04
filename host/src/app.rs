//! The state every handler shares.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::api::ApiRoutes;
use crate::api::components::for_each_route;
use crate::config::Config;
use crate::http::router::Router;
use crate::plugins::{LoadedModule, Runtime};
use crate::store::Store;
use crate::tenancy::Tenancy;

/// A component route served on the admin API, with its call deadline.
pub struct AdminModuleRoute {
    pub module: Arc<LoadedModule>,
    pub deadline: Duration,
}

pub struct App {
    pub config: Config,
    pub store: Arc<dyn Store>,
    pub tenancy: Tenancy,
    pub runtime: Arc<Runtime>,
    pub api: ApiRoutes,
    /// Component routes under `/admin/`, served as `/admin/orgs/{org}/...`.
    pub admin_module_routes: Router<AdminModuleRoute>,
    /// SHA-256 of the admin token.
    pub admin_token_digest: String,
    ready: AtomicBool,
}

impl App {
    /// Builds the route tables from the loaded modules.
    pub fn new(
        config: Config,
        store: Arc<dyn Store>,
        runtime: Arc<Runtime>,
        admin_token_digest: String,
    ) -> Result<App, String> {
        let deadline = Duration::from_millis(config.component_deadline_ms);
        let modules: Vec<Arc<LoadedModule>> = runtime.modules().cloned().collect();
        let api = crate::api::routes(&modules, deadline)?;
        let mut admin_module_routes = Router::default();
        for_each_route(&modules, true, deadline, |method, route, module, deadline| {
            admin_module_routes.try_add(method, &route.path, AdminModuleRoute { module: module.clone(), deadline })
        })?;
        Ok(App {
            config,
            tenancy: Tenancy::new(store.clone()),
            store,
            runtime,
            api,
            admin_module_routes,
            admin_token_digest,
            ready: AtomicBool::new(false),
        })
    }

    pub fn is_ready(&self) -> bool {
        self.ready.load(Ordering::SeqCst)
    }

    pub fn set_ready(&self, ready: bool) {
        self.ready.store(ready, Ordering::SeqCst);
    }
}
