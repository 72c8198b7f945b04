//! The `store` import: a component's key-value store, scoped by the host to
//! its organization and module. `batch` and `commit` also carry what the
//! component staged through the `events` import (the outbox), and what a
//! joined nested call held for them (`crate::deferred`), atomically.

use crm_events::outbox::Writes;
use crm_store::{BatchOp, Condition, Namespace, StoreError};

use wasmtime::component::HasData;

use crate::bindings::platform::crm::plugin::store;
use crate::context::store_failure;
use crate::imports::events;
use crate::runtime::{Call, HostState, Staged, Writes as StoreWrites};
use crate::turns::Held;

/// Largest key and value a component may store, and most pairs per scan
/// (or keys per `get-many`).
const MAX_KEY: usize = 1024;
const MAX_VALUE: usize = 4 << 20;
const MAX_SCAN: u32 = 1000;
/// Most keys one `find` returns (keys only, so a larger bound is cheap).
const MAX_FIND: u32 = 100_000;

/// What the `store` import may touch: the call, the store and what the
/// instance wrote or holds, the events staged for its next commit, and its
/// compute turn (given back while a commit waits).
pub(crate) struct StoreView<'a> {
    call: &'a Call,
    writes: &'a mut StoreWrites,
    staged: &'a mut Staged,
    turn: &'a Held,
}

pub(crate) struct StoreCap;

impl HasData for StoreCap {
    type Data<'a> = StoreView<'a>;
}

pub(crate) fn view(state: &mut HostState) -> StoreView<'_> {
    StoreView { call: &state.call, writes: &mut state.writes, staged: &mut state.staged, turn: &state.compute.turn }
}

impl StoreView<'_> {
    fn scope(&self) -> Result<&(Namespace, Vec<u8>), String> {
        self.writes.scope.as_ref().ok_or_else(|| "no organization: the store is not available here".into())
    }

    fn namespace(&self) -> Result<Namespace, String> {
        Ok(self.scope()?.0.clone())
    }

    fn scoped(&self, key: &[u8]) -> Result<Vec<u8>, String> {
        if key.len() > MAX_KEY {
            return Err(format!("key longer than {MAX_KEY} bytes"));
        }
        let prefix = &self.scope()?.1;
        let mut scoped = Vec::with_capacity(prefix.len() + key.len());
        scoped.extend_from_slice(prefix);
        scoped.extend_from_slice(key);
        Ok(scoped)
    }

    /// A component's write as the store takes it: key scoped, value bounded.
    fn scoped_write(&self, write: store::Write) -> Result<BatchOp, String> {
        match write {
            store::Write::Put((k, v)) => check_value(&v).and_then(|_| Ok(BatchOp::Put(self.scoped(&k)?, v))),
            store::Write::Delete(k) => Ok(BatchOp::Delete(self.scoped(&k)?)),
            store::Write::Add((k, n)) => Ok(BatchOp::Add(self.scoped(&k)?, n)),
        }
    }

    fn unscoped(&self, key: Vec<u8>) -> Vec<u8> {
        let prefix = self.writes.scope.as_ref().map_or(0, |(_, p)| p.len());
        key.get(prefix..).unwrap_or_default().to_vec()
    }

    /// A conditional batch, committed with other requests' batches where the
    /// store can ([`crm_store::combine`]); the call's compute turn is given
    /// back while it waits, so that more requests reach their commit.
    fn shared_commit(
        &self,
        ns: Namespace,
        conditions: Vec<Condition>,
        ops: Vec<BatchOp>,
    ) -> impl Future<Output = Result<bool, String>> + Send + 'static {
        let (store, turn, ctx) = (self.writes.store.clone(), self.turn.clone(), self.call.ctx.clone());
        async move {
            turn.off_turn(store.batch_if_shared(ns, conditions, ops))
                .await
                .map_err(|e| store_failure(ctx.as_deref(), "the commit", e))
        }
    }

    /// One commit of the component's: with the outbox writes it staged, and
    /// after what a joined nested call held; held instead when this instance
    /// is holding (false at once when a condition already fails).
    async fn commit_or_hold(
        &mut self,
        conditions: Vec<Condition>,
        ops: Vec<BatchOp>,
        mut outbox: Writes,
    ) -> Result<bool, String> {
        let ns = self.namespace()?;
        crate::upkeep::note_commit(self.call);
        if self.writes.holding {
            let keys: Vec<Vec<u8>> = conditions.iter().map(|c| c.key().to_vec()).collect();
            let values = if keys.is_empty() {
                Vec::new()
            } else {
                self.writes.store.get_many(&ns, &keys).map_err(|e| self.failed(e))?
            };
            if !conditions.iter().zip(&values).all(|(c, v)| c.holds_on(v.as_deref())) {
                return Ok(false);
            }
            self.writes.deferred.hold(conditions, ops, outbox);
            return Ok(true);
        }
        let mut joined = std::mem::take(&mut self.writes.deferred);
        // Moved, not `concat`ed: a slice's concat clones every key and value.
        let mut all_conditions = std::mem::take(&mut joined.conditions);
        all_conditions.extend(conditions);
        let mut all_ops = std::mem::take(&mut joined.ops);
        all_ops.extend(ops);
        all_ops.append(&mut outbox.ops);
        let applied = self.shared_commit(ns, all_conditions, all_ops).await?;
        self.writes.wrote |= applied;
        if applied {
            for writes in joined.outboxes.iter().chain([&outbox]) {
                events::settle(self.call, writes);
            }
        }
        Ok(applied)
    }
}

fn check_value(value: &[u8]) -> Result<(), String> {
    if value.len() > MAX_VALUE { Err(format!("value larger than {MAX_VALUE} bytes")) } else { Ok(()) }
}

/// Runs a store call that reads a whole prefix (every value of an
/// organization's contacts, at 1,000,000 contacts some 100 ms) on tokio's
/// blocking pool, so the threads serving every other request are not held.
async fn off_the_io_threads<T: Send + 'static>(
    call: impl FnOnce() -> Result<T, StoreError> + Send + 'static,
) -> Result<T, StoreError> {
    match tokio::task::spawn_blocking(call).await {
        Ok(answer) => answer,
        Err(e) => Err(StoreError::new(format!("the store call did not finish: {e}"))),
    }
}

impl StoreView<'_> {
    fn failed(&self, e: StoreError) -> String {
        store_failure(self.call.ctx.as_deref(), "a store call", e)
    }
}

impl store::Host for StoreView<'_> {
    async fn get(&mut self, key: Vec<u8>) -> Result<Option<Vec<u8>>, String> {
        let (ns, key) = (self.namespace()?, self.scoped(&key)?);
        self.writes.store.get(&ns, &key).map_err(|e| self.failed(e))
    }

    async fn get_many(&mut self, keys: Vec<Vec<u8>>) -> Result<Vec<Option<Vec<u8>>>, String> {
        if keys.len() > MAX_SCAN as usize {
            return Err(format!("get-many takes at most {MAX_SCAN} keys"));
        }
        let ns = self.namespace()?;
        let keys = keys.iter().map(|k| self.scoped(k)).collect::<Result<Vec<_>, String>>()?;
        self.writes.store.get_many(&ns, &keys).map_err(|e| self.failed(e))
    }

    async fn put(&mut self, key: Vec<u8>, value: Vec<u8>) -> Result<(), String> {
        let (ns, key) = (self.namespace()?, self.scoped(&key)?);
        check_value(&value)?;
        if self.writes.holding {
            self.writes.deferred.hold(Vec::new(), vec![BatchOp::Put(key, value)], Writes::default());
            return Ok(());
        }
        self.writes.wrote = true;
        self.writes.store.put(&ns, &key, &value).map_err(|e| self.failed(e))
    }

    async fn delete(&mut self, key: Vec<u8>) -> Result<(), String> {
        let (ns, key) = (self.namespace()?, self.scoped(&key)?);
        if self.writes.holding {
            self.writes.deferred.hold(Vec::new(), vec![BatchOp::Delete(key)], Writes::default());
            return Ok(());
        }
        self.writes.wrote = true;
        self.writes.store.delete(&ns, &key).map_err(|e| self.failed(e))
    }

    async fn compare_and_swap(
        &mut self,
        key: Vec<u8>,
        expected: Option<Vec<u8>>,
        new: Option<Vec<u8>>,
    ) -> Result<bool, String> {
        let (ns, key) = (self.namespace()?, self.scoped(&key)?);
        if let Some(v) = &new {
            check_value(v)?;
        }
        if self.writes.holding {
            let write = match new {
                Some(v) => BatchOp::Put(key.clone(), v),
                None => BatchOp::Delete(key.clone()),
            };
            return self.commit_or_hold(vec![Condition::Equals(key, expected)], vec![write], Writes::default()).await;
        }
        let swapped = self
            .writes
            .store
            .compare_and_swap(&ns, &key, expected.as_deref(), new.as_deref())
            .map_err(|e| self.failed(e))?;
        self.writes.wrote |= swapped.is_ok();
        Ok(swapped.is_ok())
    }

    async fn scan(
        &mut self,
        prefix: Vec<u8>,
        start: Option<Vec<u8>>,
        limit: u32,
    ) -> Result<Vec<(Vec<u8>, Vec<u8>)>, String> {
        let ns = self.namespace()?;
        let prefix = self.scoped(&prefix)?;
        let start = start.map(|s| self.scoped(&s)).transpose()?;
        let pairs = self
            .writes
            .store
            .scan(&ns, &prefix, start.as_deref(), limit.min(MAX_SCAN) as usize)
            .map_err(|e| self.failed(e))?;
        Ok(pairs.into_iter().map(|(k, v)| (self.unscoped(k), v)).collect())
    }

    async fn scan_reverse(
        &mut self,
        prefix: Vec<u8>,
        before: Option<Vec<u8>>,
        limit: u32,
    ) -> Result<Vec<(Vec<u8>, Vec<u8>)>, String> {
        let ns = self.namespace()?;
        let prefix = self.scoped(&prefix)?;
        let before = before.map(|b| self.scoped(&b)).transpose()?;
        let pairs = self
            .writes
            .store
            .scan_reverse(&ns, &prefix, before.as_deref(), limit.min(MAX_SCAN) as usize)
            .map_err(|e| self.failed(e))?;
        Ok(pairs.into_iter().map(|(k, v)| (self.unscoped(k), v)).collect())
    }

    async fn find(&mut self, prefix: Vec<u8>, needle: Vec<u8>, limit: u32) -> Result<Vec<Vec<u8>>, String> {
        let (ns, prefix, store) = (self.namespace()?, self.scoped(&prefix)?, self.writes.store.clone());
        let limit = limit.min(MAX_FIND) as usize;
        let keys =
            off_the_io_threads(move || store.find(&ns, &prefix, &needle, limit)).await.map_err(|e| self.failed(e))?;
        Ok(keys.into_iter().map(|k| self.unscoped(k)).collect())
    }

    async fn count_found(&mut self, prefix: Vec<u8>, needle: Vec<u8>) -> Result<u64, String> {
        let (ns, prefix, store) = (self.namespace()?, self.scoped(&prefix)?, self.writes.store.clone());
        off_the_io_threads(move || store.count_found(&ns, &prefix, &needle)).await.map_err(|e| self.failed(e))
    }

    async fn batch(&mut self, ops: Vec<store::Op>) -> Result<(), String> {
        let ops = ops
            .into_iter()
            .map(|op| {
                self.scoped_write(match op {
                    store::Op::Put(pair) => store::Write::Put(pair),
                    store::Op::Delete(k) => store::Write::Delete(k),
                })
            })
            .collect::<Result<Vec<_>, String>>()?;
        let outbox = self.staged.take(self.call)?;
        self.commit_or_hold(Vec::new(), ops, outbox).await?;
        Ok(())
    }

    async fn commit(&mut self, conditions: Vec<store::Condition>, writes: Vec<store::Write>) -> Result<bool, String> {
        let conditions = conditions
            .into_iter()
            .map(|c| match c {
                store::Condition::Equals((k, v)) => Ok(Condition::Equals(self.scoped(&k)?, v)),
                store::Condition::Below((k, n)) => Ok(Condition::Below(self.scoped(&k)?, n)),
            })
            .collect::<Result<Vec<_>, String>>()?;
        let ops = writes.into_iter().map(|w| self.scoped_write(w)).collect::<Result<Vec<_>, String>>()?;
        let outbox = self.staged.take(self.call)?;
        self.commit_or_hold(conditions, ops, outbox).await
    }
}
