//! `crm-host`: the CRM edge service (`serve`, the `crm-server` crate) and
//! the command-line clients of a running host, each in its own module:
//! `admin` (the admin API), `import` (a file through the import API),
//! `store` (`copy.rs`: a store moved between backends with no host running;
//! `backup.rs`: the online backup of a running one, verified and restored
//! into a data dir) and `plugin` (`new.rs`: a partner's project from the
//! templates in `templates/`, which build as they are; `check.rs`: a
//! component loaded as a host would, in a throw-away runtime of
//! `crm-runtime`, `scratch.rs`, before a partner ships it; `test.rs`: the
//! cases a provider or a module must pass, run in that runtime, a provider's
//! carrier scripted by `carrier_sim.rs`).
//! The clients know the server only through its HTTP API, its store and its
//! admin token's file: nothing of theirs is linked into the server (`csv`,
//! `indicatif`). The command line's own tests: `tests/cli.rs`.

mod admin;
mod console;
mod import;
mod plugin;
mod store;

use clap::{Parser, Subcommand};

use admin::AdminArgs;
use crm_server::config::Config;
use import::ImportArgs;
use plugin::PluginArgs;
use store::StoreArgs;

/// mimalloc instead of glibc's malloc: in a profile of creates, glibc's
/// allocator (`_int_malloc`, `malloc_consolidate`, `unlink_chunk`, `free`)
/// took about 15% of the host's CPU; every request allocates its instance's
/// buffers and sled copies a node on each update. Figures in
/// docs/bench-log/2026-11.md, "mimalloc as the global allocator".
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Debug, Parser)]
#[command(name = "crm-host", version, about = "The CRM edge service: the external REST API and its admin API")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run the service.
    Serve(Box<Config>),
    /// Call the admin API of a running host.
    Admin(AdminArgs),
    /// Import a file through the API of a running host.
    Import(ImportArgs),
    /// Copy a store between backends, back a running host up, verify and
    /// restore a backup (`store copy|backup|verify|restore`).
    Store(StoreArgs),
    /// Check a component before shipping it (`plugin check FILE.wasm`).
    Plugin(PluginArgs),
}

/// How many tasks a busy worker runs between two looks for new network
/// events (tokio's default is 61). Under overload the queue of waiting
/// requests is the compute turns' (see `crm_runtime::turns`), which serve
/// organizations in turn; a request only joins it once read, so reading
/// sooner is what lets a quiet organization's request reach its turn while
/// another floods. Measured in docs/bench-log/2026-11.md (fairness), the host on one
/// core: a quiet organization's p50 under a flood 8.6 ms at 61, 4.1 ms at
/// 16, with no throughput lost on any route.
const EVENT_INTERVAL: u32 = 16;

/// Transparent huge pages off for this process, before it touches much
/// memory. mimalloc asks for them on its arenas, and a 2 MiB page is resident
/// whole however little of it is used: a fresh host at rest held 74–77 MB
/// with them and 37–38 MB without, a host under `/me` load peaked at 206–213
/// MB against 109–115, at the same throughput of `/me` and of creates
/// (docs/bench-log/2026-11.md, "Huge pages off").
fn without_transparent_huge_pages() {
    #[cfg(target_os = "linux")]
    // SAFETY: PR_SET_THP_DISABLE takes plain integers and changes only how
    // the kernel backs this process's later page faults.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}

/// The log filter unless `RUST_LOG` says otherwise: info, but the store
/// engines' own notes (fjall logs each table it writes) only from warnings up.
const QUIET_ENGINES: &str = "info,fjall=warn,lsm_tree=warn";

fn main() -> std::process::ExitCode {
    without_transparent_huge_pages();
    let cli = Cli::parse();
    if let Command::Store(store) = &cli.command
        && store.runs_beside_a_host()
    {
        // Before the runtime's threads start: they inherit it.
        crm_store::priority::lower_this_thread();
    }
    let logs = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| QUIET_ENGINES.into()))
        .with_writer(std::io::stderr)
        // A log line that cannot be written (nobody reads stderr any more) is
        // dropped: reporting it would panic on the same closed stderr.
        .log_internal_errors(false);
    // `CRM_LOG_FORMAT=json`: one JSON object a line, for log collectors;
    // otherwise text, with colour codes only for a person at a terminal.
    if std::env::var("CRM_LOG_FORMAT").is_ok_and(|f| f.eq_ignore_ascii_case("json")) {
        logs.json().flatten_event(true).with_current_span(false).init();
    } else {
        logs.with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr())).init();
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .event_interval(EVENT_INTERVAL)
        .build()
        .expect("start the tokio runtime");
    let outcome = runtime.block_on(async {
        match cli.command {
            Command::Serve(config) => crm_server::server::serve(*config).await,
            Command::Admin(args) => admin::run(args).await,
            Command::Import(args) => import::run(args).await,
            Command::Store(args) => store::run(args).await,
            Command::Plugin(args) => plugin::run(args).await,
        }
    });
    // Work abandoned at shutdown (a request past the grace period) must not
    // hold the exit: the store is already flushed.
    runtime.shutdown_timeout(std::time::Duration::from_millis(500));
    match outcome {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            console::print_note(format_args!("crm-host: {e}"));
            std::process::ExitCode::FAILURE
        }
    }
}
