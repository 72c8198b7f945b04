//! One batch's writes inside a transaction: the statements, and how a batch
//! is sent as at most three of them (`coalesce.rs`). Both the store's own
//! batches and the combined conditional ones (`conditional.rs`) write here.

use deadpool_postgres::Transaction;
use tokio_postgres::error::SqlState;

use crm_store::BatchOp;

use crate::coalesce::coalesce;
use crate::retry::Failure;

pub(crate) const PUT: &str = "INSERT INTO crm_kv (ns, key, value) VALUES ($1, $2, $3) \
                   ON CONFLICT (ns, key) DO UPDATE SET value = EXCLUDED.value";
pub(crate) const DELETE: &str = "DELETE FROM crm_kv WHERE ns = $1 AND key = $2";
/// The coalesced forms (see [`coalesce`]): many keys in one statement each (deletes
/// go one statement a key, pipelined: see `GET_MANY` in `store.rs` on why).
const PUT_MANY: &str = "INSERT INTO crm_kv (ns, key, value) SELECT $1, k, v FROM unnest($2::BYTEA[], $3::BYTEA[]) AS t (k, v) \
                        ON CONFLICT (ns, key) DO UPDATE SET value = EXCLUDED.value";
/// Adds each delta to the decimal counter at its key, under the row's lock
/// (the delta comes in as the would-be inserted value); a value that is not
/// a counter counts as 0, as [`crm_store::counter_value`] reads it.
const ADD_MANY: &str = r"INSERT INTO crm_kv (ns, key, value)
    SELECT $1, k, convert_to(d::TEXT, 'UTF8') FROM unnest($2::BYTEA[], $3::BIGINT[]) AS t (k, d)
    ON CONFLICT (ns, key) DO UPDATE SET value = convert_to((
        CASE WHEN encode(crm_kv.value, 'escape') ~ '^\s*-?[0-9]{1,18}\s*$'
             THEN trim(encode(crm_kv.value, 'escape'))::BIGINT ELSE 0 END
        + convert_from(EXCLUDED.value, 'UTF8')::BIGINT)::TEXT, 'UTF8')";
/// Applies one batch's writes inside `tx`: coalesced into at most three
/// statements sent together, or op by op when they do not coalesce.
pub(crate) async fn apply(tx: &Transaction<'_>, ns: &str, ops: &[BatchOp]) -> Result<(), Failure> {
    let Some(f) = coalesce(ops) else { return apply_each(tx, ns, ops).await };
    let deletes = async {
        let statement = tx.prepare_cached(DELETE).await?;
        let statement = &statement;
        let each = f.deletes.iter().map(|key| async move { tx.execute(statement, &[&ns, key]).await });
        futures_util::future::try_join_all(each).await.map(|deleted| deleted.iter().sum::<u64>())
    };
    let puts = async {
        match f.put_keys.is_empty() {
            true => Ok(0),
            false => tx.execute(&tx.prepare_cached(PUT_MANY).await?, &[&ns, &f.put_keys, &f.put_values]).await,
        }
    };
    let adds = async {
        match f.add_keys.is_empty() {
            true => Ok(0),
            false => tx.execute(&tx.prepare_cached(ADD_MANY).await?, &[&ns, &f.add_keys, &f.add_deltas]).await,
        }
    };
    // Polled together, the three are pipelined on the connection. When one
    // fails, those after it only say the transaction is aborted (25P02):
    // the failure reported is the cause.
    let (deleted, put, added) = tokio::join!(deletes, puts, adds);
    let failures = [deleted, put, added].into_iter().filter_map(Result::err);
    match failures.min_by_key(|e| e.code() == Some(&SqlState::IN_FAILED_SQL_TRANSACTION)) {
        Some(cause) => Err(cause.into()),
        None => Ok(()),
    }
}

/// Applies one batch's writes inside `tx`, in order, one statement each.
async fn apply_each(tx: &Transaction<'_>, ns: &str, ops: &[BatchOp]) -> Result<(), Failure> {
    for op in ops {
        match op {
            BatchOp::Put(k, v) => tx.execute(&tx.prepare_cached(PUT).await?, &[&ns, k, v]).await?,
            BatchOp::Delete(k) => tx.execute(&tx.prepare_cached(DELETE).await?, &[&ns, k]).await?,
            BatchOp::Add(k, delta) => {
                tx.execute(&tx.prepare_cached(ADD_MANY).await?, &[&ns, &vec![k], &vec![*delta]]).await?
            }
        };
    }
    Ok(())
}
