//! What one instance may take: its memory cap and how many instances,
//! tables and memories it may make, with the peak of its memory recorded so
//! a call can report what it used.

use wasmtime::ResourceLimiter;

/// Instances, tables and memories one component instance may create.
const MAX_INSTANCES: usize = 64;
const MAX_TABLES: usize = 64;
const MAX_MEMORIES: usize = 64;

#[derive(Debug)]
pub struct CallLimits {
    memory_cap: usize,
    /// The largest size any linear memory of the instance reached, in bytes.
    pub peak_memory: usize,
    /// Whether a growth past the cap was refused (the call then traps).
    pub hit_memory_cap: bool,
}

impl CallLimits {
    pub fn new(memory_cap: usize) -> CallLimits {
        CallLimits { memory_cap, peak_memory: 0, hit_memory_cap: false }
    }
}

impl ResourceLimiter for CallLimits {
    fn memory_growing(&mut self, _current: usize, desired: usize, _maximum: Option<usize>) -> wasmtime::Result<bool> {
        if desired > self.memory_cap {
            self.hit_memory_cap = true;
            return Ok(false);
        }
        self.peak_memory = self.peak_memory.max(desired);
        Ok(true)
    }

    fn table_growing(&mut self, _current: usize, _desired: usize, _maximum: Option<usize>) -> wasmtime::Result<bool> {
        Ok(true)
    }

    fn instances(&self) -> usize {
        MAX_INSTANCES
    }

    fn tables(&self) -> usize {
        MAX_TABLES
    }

    fn memories(&self) -> usize {
        MAX_MEMORIES
    }
}
