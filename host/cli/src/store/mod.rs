//! `crm-host store ...`: a store moved between backends with no host running
//! ([`copy`]), and the online backup of a running host, checked and restored
//! ([`backup`]).

mod backup;
mod copy;

use std::error::Error;
use std::path::PathBuf;

use clap::{Args, Subcommand};
use crm_store::embedded::Engine;

use crate::admin::Reach;

#[derive(Debug, Args)]
pub struct StoreArgs {
    #[command(subcommand)]
    command: StoreCommand,
}

#[derive(Debug, Subcommand)]
enum StoreCommand {
    /// Copy every organization and the host's records from one store to
    /// another, with every host of both stopped.
    Copy {
        /// `fjall:<data-dir>` or `sled:<data-dir>` (the embedded store of that
        /// data dir, on that engine) or `postgres://...`.
        #[arg(long)]
        from: String,
        /// `fjall:<data-dir>`, `sled:<data-dir>` or `postgres://...`.
        #[arg(long)]
        to: String,
    },
    /// Back a running host's store up into a new folder: every pair as it
    /// stood at one instant, while the host goes on serving.
    Backup {
        #[command(flatten)]
        reach: Reach,
        /// The folder to write (created; one that holds a backup is refused).
        #[arg(long)]
        to: PathBuf,
    },
    /// Check a backup: complete, unchanged since written, as its manifest says.
    Verify {
        /// The backup's folder.
        dir: PathBuf,
    },
    /// Restore a backup into a data dir no host runs on.
    Restore {
        /// The backup's folder.
        #[arg(long)]
        from: PathBuf,
        /// The data dir to restore into.
        #[arg(long)]
        to: PathBuf,
        /// The engine to restore onto (unset: the default, fjall).
        #[arg(long, value_parser = clap::value_parser!(Engine))]
        engine: Option<Engine>,
        /// Replace the store the data dir holds (never one a host runs on).
        #[arg(long)]
        replace: bool,
    },
}

impl StoreArgs {
    /// Whether the command works beside a host serving requests (a backup),
    /// and so yields the CPU to it.
    pub fn runs_beside_a_host(&self) -> bool {
        matches!(self.command, StoreCommand::Backup { .. })
    }
}

pub async fn run(args: StoreArgs) -> Result<(), Box<dyn Error>> {
    match args.command {
        StoreCommand::Copy { from, to } => copy::run(from, to).await,
        StoreCommand::Backup { reach, to } => backup::take(&reach, &to).await,
        StoreCommand::Verify { dir } => backup::verify(&dir),
        StoreCommand::Restore { from, to, engine, replace } => {
            backup::restore(&from, &to, engine.unwrap_or(Engine::DEFAULT), replace).await
        }
    }
}
