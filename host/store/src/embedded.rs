//! The embedded engines a data dir may hold, and opening the one it holds.
//!
//! Each engine keeps its files in a folder of its own inside the data dir
//! (`store/` for sled, `fjall/` for fjall), so a data dir says which engine
//! wrote it, and a host started on it opens that one whatever its default.

use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;

use crate::combine::CommitWindow;
use crate::{FjallStore, SledStore, Store, StoreError, StoreResult};

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

/// Which engine to open in `data_dir`: the one it holds, else `wanted`, else
/// the default. An engine wanted that is not the one the dir holds is
/// refused: its data would look lost.
pub fn choose(data_dir: &Path, wanted: Option<Engine>) -> StoreResult<Engine> {
    match (Engine::found_in(data_dir), wanted) {
        (Some(found), Some(wanted)) if found != wanted => Err(StoreError(format!(
            "{} holds a {} store, not {}: move it with `crm-host store copy --from {}:{} --to {}:NEW_DIR`",
            data_dir.display(),
            found.name(),
            wanted.name(),
            found.name(),
            data_dir.display(),
            wanted.name()
        ))),
        (Some(found), _) => Ok(found),
        (None, wanted) => Ok(wanted.unwrap_or(Engine::DEFAULT)),
    }
}

/// Opens `engine`'s store in `data_dir` with a cache of `cache_bytes`.
pub fn open(engine: Engine, data_dir: &Path, cache_bytes: u64, window: CommitWindow) -> StoreResult<Arc<dyn Store>> {
    has_room(data_dir)?;
    let dir = engine.dir(data_dir);
    Ok(match engine {
        Engine::Sled => Arc::new(SledStore::open_with(&dir, cache_bytes, window)?),
        Engine::Fjall => Arc::new(FjallStore::open_with(&dir, cache_bytes, window)?),
    })
}

/// What a start needs free in the data dir: a journal's first writes.
const ROOM: usize = 1 << 20;

/// Refuses a data dir without [`ROOM`] to write. fjall opens on a full disk
/// (it only reads), and its first write would then fail and stop the host,
/// again at each restart of its supervisor; a start that refuses says why.
fn has_room(data_dir: &Path) -> StoreResult<()> {
    use std::io::Write;
    let probe = data_dir.join("room.probe");
    let written = std::fs::create_dir_all(data_dir).and_then(|()| {
        let mut file = std::fs::File::create(&probe)?;
        file.write_all(&vec![0; ROOM])?;
        file.sync_all()
    });
    let _ = std::fs::remove_file(&probe);
    written.map_err(|e| StoreError(format!("no room to write in {}: {e}", data_dir.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_data_dir_keeps_the_engine_that_wrote_it() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(choose(dir.path(), None).unwrap(), Engine::DEFAULT);
        assert_eq!(choose(dir.path(), Some(Engine::Sled)).unwrap(), Engine::Sled);
        std::fs::create_dir(Engine::Sled.dir(dir.path())).unwrap();
        assert_eq!(choose(dir.path(), None).unwrap(), Engine::Sled);
        let refused = choose(dir.path(), Some(Engine::Fjall)).unwrap_err().to_string();
        assert!(refused.contains("holds a sled store, not fjall"), "{refused}");
        assert!("rocks".parse::<Engine>().is_err());
    }
}
