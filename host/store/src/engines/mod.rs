//! The embedded engines a data dir may hold, each in a module of its own:
//! [`fjall`] (the default; its memtable rotated by its writer,
//! `fjall/rotation.rs`) and [`sled`], with what both keep of a write they
//! failed for good (`lasting.rs`). Which one a data dir holds is an
//! [`Engine`]; opening it is [`crate::embedded`]'s, moving a sled store to
//! fjall [`crate::migrate`]'s.
//!
//! Each engine keeps its files in a folder of its own inside the data dir
//! (`store/` for sled, `fjall/` for fjall), so a data dir says which engine
//! wrote it, and a host started on it opens that one whatever its default.

pub mod fjall;
mod lasting;
pub mod sled;

use std::path::{Path, PathBuf};
use std::str::FromStr;

/// An embedded engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    Sled,
    Fjall,
}

impl Engine {
    /// The engine a fresh data dir gets.
    pub const DEFAULT: Engine = Engine::Fjall;

    pub fn name(self) -> &'static str {
        match self {
            Engine::Sled => "sled",
            Engine::Fjall => "fjall",
        }
    }

    /// Its folder in `data_dir`.
    pub fn dir(self, data_dir: &Path) -> PathBuf {
        match self {
            Engine::Sled => data_dir.join("store"),
            Engine::Fjall => data_dir.join("fjall"),
        }
    }

    /// Its block or page cache when the operator names none: most of the
    /// host's memory on a large store. sled's own default; fjall's is sized
    /// for a small machine (`docs/operators.md`, "Memory").
    pub fn default_cache_mb(self) -> u64 {
        match self {
            Engine::Sled => 1024,
            Engine::Fjall => 256,
        }
    }

    /// The file its lock is taken on, in `data_dir`.
    pub fn lock_file(self, data_dir: &Path) -> PathBuf {
        match self {
            Engine::Sled => self.dir(data_dir).join("db"),
            Engine::Fjall => self.dir(data_dir).join("lock"),
        }
    }

    /// Whether a process has its store in `data_dir` open now (both engines
    /// lock a file with `flock`, which a crashed process no longer holds).
    pub fn in_use(self, data_dir: &Path) -> bool {
        let Ok(file) = std::fs::File::open(self.lock_file(data_dir)) else { return false };
        matches!(file.try_lock(), Err(std::fs::TryLockError::WouldBlock))
    }

    /// The engine whose files `data_dir` holds, if any.
    pub fn found_in(data_dir: &Path) -> Option<Engine> {
        [Engine::Sled, Engine::Fjall].into_iter().find(|engine| engine.dir(data_dir).exists())
    }
}

impl FromStr for Engine {
    type Err = String;

    fn from_str(text: &str) -> Result<Engine, String> {
        match text {
            "sled" => Ok(Engine::Sled),
            "fjall" => Ok(Engine::Fjall),
            other => Err(format!("{other:?} is not an embedded engine (sled or fjall)")),
        }
    }
}
