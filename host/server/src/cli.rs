//! The `crm-host` command line: `serve` runs the service, `admin` talks to its
//! admin API, `import` sends a file through its API, `store copy` moves a
//! store between backends.

use std::io::Write;

use clap::{Parser, Subcommand};

use crate::admin::client::AdminArgs;
use crate::config::Config;
use crate::importer::ImportArgs;
use crate::store_copy::StoreArgs;

#[derive(Debug, Parser)]
#[command(name = "crm-host", version, about = "The CRM edge service: the external REST API and its admin API")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run the service.
    Serve(Config),
    /// Call the admin API of a running host.
    Admin(AdminArgs),
    /// Import a file through the API of a running host.
    Import(ImportArgs),
    /// Work on a store while no host runs on it (`store copy --from --to`).
    Store(StoreArgs),
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

/// Writes a one-shot command's answer (`admin`, `import`, `store copy`) on
/// stdout. A reader that has gone (`crm-host admin ... | head -1`) took what
/// it wanted after the command's work was done, so that is not a failure,
/// where `println!` would panic and exit 101; a write that fails otherwise
/// (a full disk under `> file`) is.
pub(crate) fn print_answer(text: std::fmt::Arguments) -> std::io::Result<()> {
    match write_line(text) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e),
        _ => Ok(()),
    }
}

/// One line on stdout, flushed; a closed stdout is an error to decide on
/// ([`print_answer`], `server::tell_operator`), not a panic as with `println!`.
pub(crate) fn write_line(text: std::fmt::Arguments) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_fmt(text).and_then(|()| out.write_all(b"\n")).and_then(|()| out.flush())
}

/// A line on stderr (progress, the reason of a failure), dropped when nobody
/// reads stderr any more.
pub(crate) fn print_note(text: std::fmt::Arguments) {
    let _ = writeln!(std::io::stderr(), "{text}");
}

pub fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let logs = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()))
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
            Command::Serve(config) => crate::server::serve(config).await,
            Command::Admin(args) => crate::admin::client::run(args).await,
            Command::Import(args) => crate::importer::run(args).await,
            Command::Store(args) => crate::store_copy::run(args).await,
        }
    });
    // Work abandoned at shutdown (a request past the grace period) must not
    // hold the exit: the store is already flushed.
    runtime.shutdown_timeout(std::time::Duration::from_millis(500));
    match outcome {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            print_note(format_args!("crm-host: {e}"));
            std::process::ExitCode::FAILURE
        }
    }
}
