//! The write half of [`crate::Store`] handed whole to another store: for a
//! store that changes only how it reads ([`crate::split`] reads a replica,
//! [`crate::read_cache`] keeps a replica's answers), so that each of them
//! states its reads and nothing else.

/// Inside an `impl Store`, every method that writes (or reads in order to
/// write, or says how writes stand) passed on to `self.$to`.
macro_rules! writes_go_to {
    ($to:ident) => {
        fn put(&self, ns: &$crate::Namespace, key: &[u8], value: &[u8]) -> $crate::StoreResult<()> {
            self.$to.put(ns, key, value)
        }

        fn delete(&self, ns: &$crate::Namespace, key: &[u8]) -> $crate::StoreResult<()> {
            self.$to.delete(ns, key)
        }

        fn compare_and_swap(
            &self,
            ns: &$crate::Namespace,
            key: &[u8],
            expected: Option<&[u8]>,
            new: Option<&[u8]>,
        ) -> $crate::StoreResult<Result<(), $crate::Conflict>> {
            self.$to.compare_and_swap(ns, key, expected, new)
        }

        fn batch(&self, ns: &$crate::Namespace, ops: Vec<$crate::BatchOp>) -> $crate::StoreResult<()> {
            self.$to.batch(ns, ops)
        }

        fn batch_if(
            &self,
            ns: &$crate::Namespace,
            conditions: Vec<$crate::Condition>,
            ops: Vec<$crate::BatchOp>,
        ) -> $crate::StoreResult<bool> {
            self.$to.batch_if(ns, conditions, ops)
        }

        fn combiner(&self) -> Option<&$crate::combine::Combiner> {
            self.$to.combiner()
        }

        fn batch_if_shared(
            &self,
            ns: $crate::Namespace,
            conditions: Vec<$crate::Condition>,
            ops: Vec<$crate::BatchOp>,
        ) -> std::pin::Pin<Box<dyn std::future::Future<Output = $crate::StoreResult<bool>> + Send + '_>> {
            self.$to.batch_if_shared(ns, conditions, ops)
        }

        fn batch_if_background(
            &self,
            ns: $crate::Namespace,
            conditions: Vec<$crate::Condition>,
            ops: Vec<$crate::BatchOp>,
        ) -> std::pin::Pin<Box<dyn std::future::Future<Output = $crate::StoreResult<bool>> + Send + '_>> {
            self.$to.batch_if_background(ns, conditions, ops)
        }

        fn drop_namespace(&self, ns: &$crate::Namespace) -> $crate::StoreResult<()> {
            self.$to.drop_namespace(ns)
        }

        fn durable(&self) -> std::pin::Pin<Box<dyn std::future::Future<Output = $crate::StoreResult<()>> + Send + '_>> {
            self.$to.durable()
        }

        fn lasting_failure(&self) -> Option<String> {
            self.$to.lasting_failure()
        }

        fn position(&self) -> Option<u64> {
            self.$to.position()
        }
    };
}

pub(crate) use writes_go_to;
