//! `crm-host plugin`: what a partner runs on a component before shipping
//! it: `new` makes a project that builds as it is ([`new`]), `check` says
//! whether this host loads a built one, and why not ([`check`]), `test`
//! runs it with the cases its kind must pass ([`mod@test`], against the
//! scripted carrier of [`carrier_sim`]). Both run on a [`scratch`] runtime.

mod carrier_sim;
mod check;
mod new;
mod scratch;
mod test;

use std::error::Error;
use std::path::PathBuf;

use clap::{Args, Subcommand};

#[derive(Debug, Args)]
pub struct PluginArgs {
    #[command(subcommand)]
    command: PluginCommand,
}

#[derive(Debug, Subcommand)]
enum PluginCommand {
    /// Make a project for a new component (a module or a shipping provider,
    /// in Rust, Python or JavaScript) that builds as it is, with its own tests, against
    /// the contract's published text.
    New(new::NewArgs),
    /// Say what FILE.wasm was built against and whether this host loads it
    /// (exit 1 when it does not).
    Check {
        file: PathBuf,
        #[command(flatten)]
        cache: Cache,
    },
    /// Run FILE.wasm with the cases its kind must pass and report each
    /// (exit 1 when one fails).
    Test {
        file: PathBuf,
        /// The report as JSON, for a partner's CI.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        cache: Cache,
    },
}

#[derive(Debug, Args)]
struct Cache {
    /// Keep the compiled component in DIR, as a host's --cache-dir does, so
    /// that the next check, test or host start of the same file does not
    /// compile it again (default: compiled for this run only).
    #[arg(long, env = "CRM_CACHE_DIR", value_name = "DIR")]
    cache_dir: Option<PathBuf>,
}

pub async fn run(args: PluginArgs) -> Result<(), Box<dyn Error>> {
    match args.command {
        PluginCommand::New(args) => new::run(args),
        PluginCommand::Check { file, cache } => check::run(&file, cache.cache_dir.as_deref()).await,
        PluginCommand::Test { file, json, cache } => test::run(&file, json, cache.cache_dir.as_deref()).await,
    }
}
