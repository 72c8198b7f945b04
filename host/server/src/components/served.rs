//! Loading the components a host serves (the embedded ones, then those of
//! `--plugins-dir`), at start and on a plugin reload.
//!
//! A load that compiles leaves memory behind: the host's allocator (mimalloc,
//! `main.rs`) keeps a freed page in the heap of the thread that freed it
//! until that thread allocates again, and wasmtime compiles on rayon's
//! threads, which then sleep. A first start held about 100 MB more than a
//! restart of the same host (docs/bench-log/2026-11.md, "A first start's memory").

use std::sync::Arc;

use crm_runtime::{LoadedModule, Runtime, loader};

use crate::components::embedded;
use crate::config::Config;

/// Loads every component `config` names, and gives what compiling them
/// freed back to the system (after a refused load too: it may have compiled
/// the components before the one it refused).
pub async fn load(runtime: &Arc<Runtime>, config: &Config) -> Result<Vec<Arc<LoadedModule>>, String> {
    let tell = |what: &str| crate::console::tell_operator(format_args!("crm-host: {what}"));
    let loaded = loader::load_all(
        runtime,
        embedded::COMPONENTS,
        &config.cache_dir(),
        config.components.plugins_dir.as_deref(),
        &tell,
    )
    .await;
    let may_have_compiled = match &loaded {
        Ok(loaded) => loaded.compiled,
        Err(_) => true,
    };
    if may_have_compiled {
        rayon::broadcast(|_| give_back_freed());
        give_back_freed();
    }
    Ok(loaded?.modules.into_iter().map(Arc::new).collect())
}

/// Returns the calling thread's free pages to the system.
fn give_back_freed() {
    // SAFETY: `mi_collect` only releases memory mimalloc holds free; any
    // thread may call it for its own heap at any time.
    unsafe { libmimalloc_sys::mi_collect(true) }
}
