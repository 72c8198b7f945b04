//! A bound on the request body bytes a listener holds at once.
//!
//! A body is held only once its request's head was admitted (its token
//! checked, [`super::extract`]), but each is then read whole before it is
//! handled, so without this bound the callers of one listener could make
//! the host hold `connections × body limit` bytes: 10,000 connections
//! trickling 1 MiB bodies are 10 GiB, an import's 16 MiB limit makes it
//! 160 GiB (a public form's body, taken without a token, is at most 64 KiB). Bytes are counted as they
//! arrive (a declared `Content-Length` reserves nothing, or a client could
//! take the whole budget by sending headers alone), together with a gzip
//! body's decoded bytes, and given back once the request's answer is made.
//! A body that would pass the budget is refused at once with 503
//! `SERVER_BUSY` and `Retry-After`, rather than waited for: a body waiting
//! while holding part of the budget could wait on the others for ever.

use std::sync::Arc;

use http::StatusCode;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::ApiError;

/// The bytes of request bodies held now, on `/metrics`: how near the budget
/// the listener runs.
const HELD_GAUGE: &str = "crm_http_body_bytes_held";

/// The bytes every request of one listener may hold at once.
#[derive(Clone)]
pub struct BodyBudget(Arc<Semaphore>);

impl BodyBudget {
    pub fn new(bytes: usize) -> BodyBudget {
        BodyBudget(Arc::new(Semaphore::new(bytes.min(Semaphore::MAX_PERMITS))))
    }

    /// A new request's share: nothing yet.
    pub fn share(&self) -> BodyShare {
        BodyShare { budget: Some(self.0.clone()), held: None }
    }
}

/// The bytes one request holds; given back when dropped.
#[derive(Debug, Default)]
pub struct BodyShare {
    /// `None`: a listener without a budget.
    budget: Option<Arc<Semaphore>>,
    /// One permit a byte.
    held: Option<OwnedSemaphorePermit>,
}

impl BodyShare {
    /// Holds `bytes` in all; false when the budget has not that many left
    /// (what was held stays held until the share is dropped).
    pub fn grow_to(&mut self, bytes: usize) -> bool {
        let Some(budget) = &self.budget else { return true };
        let held = self.held.as_ref().map_or(0, OwnedSemaphorePermit::num_permits);
        let Some(more) = bytes.checked_sub(held).filter(|more| *more > 0) else { return true };
        let Ok(more_permits) = u32::try_from(more) else { return false };
        let Ok(permit) = budget.clone().try_acquire_many_owned(more_permits) else { return false };
        match &mut self.held {
            Some(held) => held.merge(permit),
            None => self.held = Some(permit),
        }
        metrics::gauge!(HELD_GAUGE).increment(more as f64);
        true
    }
}

impl Drop for BodyShare {
    fn drop(&mut self) {
        if let Some(held) = &self.held {
            metrics::gauge!(HELD_GAUGE).decrement(held.num_permits() as f64);
        }
    }
}

/// The answer to a body that would pass the budget.
pub fn server_busy() -> ApiError {
    ApiError::new(
        StatusCode::SERVICE_UNAVAILABLE,
        "SERVER_BUSY",
        "The server is receiving too many request bodies at once; send this one again in a moment",
    )
    .with_header(http::header::RETRY_AFTER, "1")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_hold_what_they_grew_to_and_give_it_back_when_dropped() {
        let budget = BodyBudget::new(100);
        let mut first = budget.share();
        assert!(first.grow_to(60));
        assert!(first.grow_to(40), "a smaller size holds no less");
        let mut second = budget.share();
        assert!(!second.grow_to(41), "60 of 100 are held");
        assert!(second.grow_to(40));
        drop(first);
        assert!(second.grow_to(100));
        let mut unbounded = BodyShare::default();
        assert!(unbounded.grow_to(usize::MAX));
    }
}
