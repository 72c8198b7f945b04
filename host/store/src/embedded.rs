//! Opening the store a data dir holds: the engine that wrote it (see
//! [`Engine`]), or a sled store moved to fjall while it serves.

use std::path::Path;
use std::sync::Arc;

pub use crate::engines::Engine;

use crate::combine::CommitWindow;
use crate::{FjallStore, SledStore, Store, StoreError, StoreResult};

/// Which engine to open in `data_dir`: the one it holds, else `wanted`, else
/// the default. An engine wanted that is not the one the dir holds is
/// refused: its data would look lost.
pub fn choose(data_dir: &Path, wanted: Option<Engine>) -> StoreResult<Engine> {
    match (Engine::found_in(data_dir), wanted) {
        (Some(found), Some(wanted)) if found != wanted => Err(StoreError::new(format!(
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

/// Opens the store a host serves from in `data_dir`: the engine [`choose`]
/// picks, except that a sled store the host was not told to keep on sled
/// is moved to fjall while it serves ([`crate::migrate`]). `cache_mb` is
/// the operator's cache size, else each engine's default.
pub fn open_data_dir(
    data_dir: &Path,
    wanted: Option<Engine>,
    cache_mb: Option<u64>,
    window: CommitWindow,
) -> StoreResult<Arc<dyn Store>> {
    crate::migrate::tidy(data_dir)?;
    let cache = |engine: Engine| cache_mb.unwrap_or(engine.default_cache_mb()) << 20;
    if wanted != Some(Engine::Sled) && crate::migrate::wanted(data_dir) {
        has_room(data_dir)?;
        let sled = SledStore::open_with(&Engine::Sled.dir(data_dir), cache(Engine::Sled), window.clone())?;
        let fjall = || FjallStore::open_with(&Engine::Fjall.dir(data_dir), cache(Engine::Fjall), window);
        return crate::migrate::start(data_dir, sled, fjall);
    }
    let engine = choose(data_dir, wanted)?;
    open(engine, data_dir, cache(engine), window)
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
    written.map_err(|e| StoreError::new(format!("no room to write in {}: {e}", data_dir.display())))
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
