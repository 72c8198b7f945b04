//! The wasmtime engine and the epoch ticker.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::time::Duration;

use wasmtime::{Config, Enabled, Engine, InstanceAllocationStrategy, PoolingAllocationConfig};

/// How often the epoch advances: the granularity of deadlines.
pub const EPOCH_TICK: Duration = Duration::from_millis(10);

/// Largest linear memory one instance may have.
pub const DEFAULT_MEMORY_CAP: usize = 64 << 20;

/// Bytes of a pool slot's linear memory kept resident between instances.
pub const KEEP_RESIDENT: usize = 64 << 10;

/// Instances that may exist at once (requests beyond it wait for a slot).
pub const POOL_INSTANCES: u32 = 256;

/// The serving engine: [`compile_settings`] and the instance pool.
pub fn new_engine(memory_cap: usize) -> wasmtime::Result<Engine> {
    let mut pool = PoolingAllocationConfig::default();
    pool.total_component_instances(POOL_INSTANCES)
        .total_core_instances(POOL_INSTANCES * 8)
        .total_memories(POOL_INSTANCES * 2)
        .total_tables(POOL_INSTANCES * 8)
        .total_stacks(POOL_INSTANCES)
        .max_memory_size(memory_cap)
        // What every reset of a slot pays: `pagemap_scan` skips the pages an
        // instance never touched, but a page once written stays resident and
        // is zeroed by every reset after, whether its instance wrote it or
        // not. At 2 MiB, slots that a bulk import or a list had filled cost
        // each create a 2 MiB memset, a third of its CPU. Pages above this
        // bound are given back and fault in again when used; of the bounds
        // measured, 64 KiB cost a create and a page of 20 the least
        // (BENCHMARKS.md, "A create's CPU, stage by stage").
        .linear_memory_keep_resident(KEEP_RESIDENT)
        .table_keep_resident(64 << 10)
        // Skip the pages never touched at a reset (Linux 6.7+).
        .pagemap_scan(Enabled::Auto);
    let mut config = compile_settings();
    config.allocation_strategy(InstanceAllocationStrategy::Pooling(pool));
    Engine::new(&config)
}

/// An engine to compile with, dropped when a load ends: wasmtime keeps each
/// compiling thread's Cranelift buffers for the life of the engine that
/// compiled, which in the serving engine would be for ever. Its code loads
/// into the serving engine, whose compatibility hash it shares (a test below
/// holds them equal).
pub fn new_compiler() -> wasmtime::Result<Engine> {
    Engine::new(&compile_settings())
}

/// What compiled code must match to load into `engine`, as a number (part of
/// a cached artifact's file name).
pub fn compatibility(engine: &Engine) -> u64 {
    let mut hasher = DefaultHasher::new();
    engine.precompile_compatibility_hash().hash(&mut hasher);
    hasher.finish()
}

/// The settings compiled code depends on.
fn compile_settings() -> Config {
    let mut config = Config::new();
    config.epoch_interruption(true).wasm_component_model(true);
    config
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_compiler_makes_code_the_serving_engine_loads() {
        let serving = new_engine(DEFAULT_MEMORY_CAP).unwrap();
        assert_eq!(compatibility(&new_compiler().unwrap()), compatibility(&serving));
    }
}
