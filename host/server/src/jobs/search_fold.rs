//! The search index's log folded into its trigram lists: every
//! `CRM_SEARCH_FOLD_MS` (200 ms by default), each organization whose contacts module wrote since the last round gets
//! its `contacts-upkeep` reindex without a cursor, which folds what the
//! writes logged (the contacts module's `postings`). A create so writes one
//! key of the search index, not one per trigram, and search reads the few
//! contacts not yet folded from the log. Every host that writes runs it: a
//! fold beside another is refused by its conditions and tried again.

use std::sync::Arc;
use std::time::Duration;

use crate::state::ServerState;

/// Starts the rounds on the current tokio runtime, one every `every`, for
/// the life of the process. At the default 200 ms and a thousand creates a
/// second, search reads a log of a couple of hundred entries at most.
pub fn start(app: Arc<ServerState>, every: Duration) {
    tokio::spawn(async move {
        let mut every = tokio::time::interval(every);
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            every.tick().await;
            for org in app.runtime.take_contacts_written() {
                if let Err(error) = app.runtime.reindex_contacts(org.clone(), None).await {
                    // The log stays; search reads it until a later round folds it.
                    tracing::warn!(org = org.id, error, "the search index's fold failed");
                }
            }
        }
    });
}
