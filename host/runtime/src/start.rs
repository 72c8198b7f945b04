//! Making a [`Runtime`]: its engine (the pooling allocator, epoch
//! interruption and the ticker that enforces deadlines) and the linker with
//! WASI (nothing granted) and every host import, each linked to its own view
//! of the instance's state (`imports`). Apart from `runtime` because the
//! imports name the runtime's types.

use std::sync::Arc;
use std::time::Duration;

use crm_store::Store;
use crm_store::combine::Computing;
use wasmtime::component::Linker;

use crate::engine;
use crate::outbound::HttpClient;
use crate::runtime::Runtime;
use crate::turns::Turns;

impl Runtime {
    /// `http` carries provider components' outbound requests; it should time
    /// out within `provider_timeout`. `turns`: how many calls compute at once;
    /// `computing` is kept as the count of calls computing or waiting to.
    pub fn new(
        store: Arc<dyn Store>,
        memory_cap: usize,
        provider_timeout: Duration,
        http: Arc<dyn HttpClient>,
        outbox: Arc<crm_events::Outbox>,
        turns: usize,
        computing: Computing,
    ) -> wasmtime::Result<Arc<Runtime>> {
        let engine = engine::new_engine(memory_cap)?;
        engine::start_ticker(&engine);
        let mut linker = Linker::new(&engine);
        wasmtime_wasi::p2::add_to_linker_async(&mut linker)?;
        crate::imports::add_to_linker(&mut linker)?;
        let turns = Turns::new(turns, computing);
        Ok(Runtime::assemble((engine, linker), store, memory_cap, (provider_timeout, http), outbox, turns))
    }
}
