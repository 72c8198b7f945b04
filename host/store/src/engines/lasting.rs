//! The first write an embedded engine failed for good ([`crate::Store::lasting_failure`]):
//! once its log cannot be written (a full disk, an I/O error), sled and fjall
//! both refuse every later write of this process, which only a restart mends.

use std::sync::OnceLock;

use crate::{StoreError, StoreResult};

#[derive(Default)]
pub(crate) struct LastingFailure(OnceLock<String>);

impl LastingFailure {
    /// `outcome` of a write as a store result, its failure kept when
    /// `lasting` says the engine keeps it.
    pub(crate) fn note<T, E: std::fmt::Display>(
        &self,
        outcome: Result<T, E>,
        lasting: impl FnOnce(&E) -> bool,
    ) -> StoreResult<T> {
        outcome.map_err(|e| {
            if lasting(&e) && self.0.set(e.to_string()).is_ok() {
                tracing::error!(error = %e, "the store failed a write and refuses every write until the host restarts");
            }
            StoreError::new(e.to_string())
        })
    }

    pub(crate) fn get(&self) -> Option<String> {
        self.0.get().cloned()
    }
}
