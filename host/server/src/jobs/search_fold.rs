//! The search index's log folded into its trigram lists: every
//! `CRM_SEARCH_FOLD_MS` (200 ms by default), each organization whose
//! contacts module wrote since the last round gets its `contacts-upkeep`
//! reindex without a cursor, which folds what the writes logged (the
//! contacts module's `postings`). A create so writes one key of the search
//! index, not one per trigram, and search reads the few contacts not yet
//! folded from the log. Every host that writes runs it: a fold beside
//! another is refused by its conditions and tried again.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use crm_tenancy::Org;

use crate::state::ServerState;

/// Rounds a failed fold is tried again in without a new write (the log
/// stays meanwhile, and search reads it). A round that could not reach the
/// store (no primary answering: a failover) does not count: the fold is
/// tried until the new primary answers.
const TRIES: u32 = 5;

/// Starts the rounds on the current tokio runtime, one every `every`, for
/// the life of the process. At the default 200 ms a contact is in the lists
/// within about a second (the log's epochs), and search reads a log of
/// under a thousand entries at a thousand creates a second.
pub fn start(app: Arc<ServerState>, every: Duration) {
    tokio::spawn(async move {
        let mut every = tokio::time::interval(every);
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut failed: HashMap<String, (Org, u32)> = HashMap::new();
        loop {
            every.tick().await;
            let mut due: HashMap<String, (Org, u32)> = std::mem::take(&mut failed);
            for org in app.runtime.take_contacts_written() {
                due.insert(org.id.clone(), (org, 0));
            }
            for (id, (org, tries)) in due {
                if let Err(error) = app.runtime.reindex_contacts(org.clone(), None).await {
                    let tries = tries + u32::from(!error.store_unreachable);
                    tracing::warn!(org = id, error = error.message, tries, "the search index's fold failed");
                    if tries < TRIES {
                        failed.insert(id, (org, tries));
                    }
                }
            }
        }
    });
}
