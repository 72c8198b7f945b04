//! The wasmtime engine and the epoch ticker.

use std::time::Duration;

use wasmtime::{Config, Enabled, Engine, InstanceAllocationStrategy, PoolingAllocationConfig};

/// How often the epoch advances: the granularity of deadlines.
pub const EPOCH_TICK: Duration = Duration::from_millis(10);

/// Largest linear memory one instance may have.
pub const DEFAULT_MEMORY_CAP: usize = 64 << 20;

/// Instances that may exist at once (requests beyond it wait for a slot).
pub const POOL_INSTANCES: u32 = 256;

pub fn new_engine(memory_cap: usize) -> wasmtime::Result<Engine> {
    let mut pool = PoolingAllocationConfig::default();
    pool.total_component_instances(POOL_INSTANCES)
        .total_core_instances(POOL_INSTANCES * 8)
        .total_memories(POOL_INSTANCES * 2)
        .total_tables(POOL_INSTANCES * 8)
        .total_stacks(POOL_INSTANCES)
        .max_memory_size(memory_cap)
        // Keep a little of each slot resident so reuse avoids page faults.
        .linear_memory_keep_resident(2 << 20)
        .table_keep_resident(64 << 10)
        // Reset only the pages an instance dirtied (Linux 6.7+), not the
        // first 2 MiB of every slot.
        .pagemap_scan(Enabled::Auto);
    let mut config = Config::new();
    config
        .allocation_strategy(InstanceAllocationStrategy::Pooling(pool))
        .epoch_interruption(true)
        .wasm_component_model(true);
    Engine::new(&config)
}

/// Advances the engine's epoch every [`EPOCH_TICK`] for the life of the process.
pub fn start_ticker(engine: &Engine) {
    let weak = engine.weak();
    std::thread::Builder::new()
        .name("wasm-epoch".into())
        .spawn(move || {
            while let Some(engine) = weak.upgrade() {
                engine.increment_epoch();
                drop(engine);
                std::thread::sleep(EPOCH_TICK);
            }
        })
        .expect("spawn the epoch ticker");
}
